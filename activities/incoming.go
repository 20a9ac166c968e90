package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/incoming"
	"paycore/internal/quote"
	"paycore/internal/rail"
	"paycore/internal/uma"
)

// CreatedIncoming is what the create step of an incoming payment answers: the
// Transaction resource (JSON), its approval event, and what the service knows of the
// receiver.
type CreatedIncoming struct {
	Resource json.RawMessage   `json:"resource"`
	EventID  uuid.UUID         `json:"eventId"`
	Receiver map[string]string `json:"receiver,omitempty"`
}

// CreateIncoming creates a payment received over UMA (see db.IncomingCreate). A refusal
// is a non-retryable application error and nothing is written.
func (a *Activities) CreateIncoming(ctx context.Context, in incoming.Request) (CreatedIncoming, error) {
	c, err := a.store.IncomingCreate(ctx, in, a.now())
	if err != nil {
		return CreatedIncoming{}, refusal(err)
	}
	res, err := json.Marshal(view.TransactionOf(c.Transaction))
	if err != nil {
		return CreatedIncoming{}, fmt.Errorf("render transaction: %w", err)
	}
	return CreatedIncoming{Resource: res, EventID: c.EventID, Receiver: c.Receiver}, nil
}

// AskApproval sends the INCOMING_PAYMENT_PENDING event to the platform once, as the
// synchronous approval request, records the attempt, and returns the platform's decision
// (incoming.Decide; known is what the service knows of the receiver). A platform without
// a webhook endpoint has nobody to ask: the payment is approved.
func (a *Activities) AskApproval(ctx context.Context, eventID uuid.UUID, known map[string]string) (incoming.Decision, error) {
	id := ids.Format(ids.Webhook, eventID)
	ev, p, err := a.deliverable(ctx, id)
	var appErr *temporal.ApplicationError
	switch {
	case endpointProblem(err) != "":
		return incoming.ApproveWith(nil, known), nil
	case errors.As(err, &appErr) && appErr.Type() == ErrEventClosed:
		// Asked already, by an earlier run of this step whose answer was lost: the
		// recorded attempt is the platform's answer.
		return a.recordedAnswer(ctx, eventID, known)
	case err != nil:
		return incoming.Decision{}, err
	}
	out, cause := a.attempt(ctx, ev, p)
	if cause != nil {
		a.log.WarnContext(ctx, "approval webhook transport failure", "event", id, "url", out.URL, "error", cause)
	}
	out.Delivered = out.Error == "" && out.StatusCode/100 == 2
	if err := a.recordOutcome(ctx, ev, p, out, true); err != nil {
		return incoming.Decision{}, fmt.Errorf("record approval attempt of %s: %w", id, err)
	}
	return incoming.Decide(incoming.Answer{Status: out.StatusCode, Body: []byte(out.Body), Error: out.Error}, known), nil
}

// FinishedIncoming is an incoming payment as it ended: the Transaction resource (JSON)
// and its status.
type FinishedIncoming struct {
	Resource json.RawMessage           `json:"resource"`
	Status   catalog.TransactionStatus `json:"status"`
}

// FinishIncoming ends an incoming payment with the decision (see db.IncomingFinish). An
// approval is completed with what the service knows of the receiver
// (incoming.ApproveWith).
func (a *Activities) FinishIncoming(ctx context.Context, transactionID uuid.UUID, d incoming.Decision, known map[string]string) (FinishedIncoming, error) {
	if d.Approved {
		// (A collected payment's required details were checked before its money came:
		// the approval stands, with what its rail received.)
		funds, collected := d.Funds, d.Collected
		d = incoming.ApproveWith(d.ReceiverInfo, known)
		d.Funds, d.Collected = funds, collected
	}
	t, err := a.store.IncomingFinish(ctx, transactionID, d, a.now())
	if err != nil {
		return FinishedIncoming{}, unsettled(fmt.Errorf("finish incoming payment: %w", err))
	}
	res, err := json.Marshal(view.TransactionOf(t))
	if err != nil {
		return FinishedIncoming{}, fmt.Errorf("render transaction: %w", err)
	}
	return FinishedIncoming{Resource: res, Status: t.Status}, nil
}

// recordedAnswer is the decision the last recorded attempt of an approval request holds.
func (a *Activities) recordedAnswer(ctx context.Context, eventID uuid.UUID, known map[string]string) (incoming.Decision, error) {
	attempts, err := db.WebhookAttemptList(ctx, a.pool, eventID)
	if err != nil {
		return incoming.Decision{}, fmt.Errorf("load approval attempts: %w", err)
	}
	if len(attempts) == 0 {
		return incoming.WebhookError("the approval request was closed without an attempt"), nil
	}
	last := attempts[len(attempts)-1]
	answer := incoming.Answer{Body: []byte(last.ResponseBody)}
	if last.StatusCode != nil {
		answer.Status = int(*last.StatusCode)
	}
	if last.Error != nil {
		answer.Error = *last.Error
	}
	return incoming.Decide(answer, known), nil
}

// collector is the collecting rail serving in's platform's BTC payments (the Lightning
// rail), or a non-retryable error when there is none.
func (a *Activities) collector(in incoming.Request) (rail.Collector, error) {
	c, ok := a.rails.Collector(rail.Target{Environment: in.Collect.Environment, Platform: in.PlatformID, Currency: "BTC",
		Kind: rail.ExternalAccount, AccountType: "LIGHTNING"})
	if !ok {
		return nil, temporal.NewNonRetryableApplicationError("no rail collects the platform's BTC payments", "NoCollector", nil)
	}
	return c, nil
}

// CollectIncoming is the payment request the payer of an approved payment from another UMA
// provider pays (in.Collect): the one recorded for the payment, else a new one of the rail,
// recorded. (A request the rail made whose record was lost to a crash is never shown to
// anyone, so never paid.)
func (a *Activities) CollectIncoming(ctx context.Context, in incoming.Request) (rail.PaymentRequest, error) {
	if pr, ok, err := a.store.IncomingPaymentRequest(ctx, in.TransactionID); err != nil || ok {
		return pr, err
	}
	c, err := a.collector(in)
	if err != nil {
		return rail.PaymentRequest{}, err
	}
	pr, err := c.Collect(ctx, rail.Collection{Currency: "BTC", Amount: in.Collect.Sats, Description: in.Collect.Description, Expiry: in.Collect.Expiry})
	if err != nil {
		return rail.PaymentRequest{}, fmt.Errorf("make the payment request: %w", err)
	}
	if err := a.store.IncomingPaymentRequestRecord(ctx, in.TransactionID, pr, in.Collect.Sats, a.now()); err != nil {
		return rail.PaymentRequest{}, err
	}
	return pr, nil
}

// IncomingCollected is what became of the payment request (by its hash) of a payment from
// another UMA provider, as its rail says.
func (a *Activities) IncomingCollected(ctx context.Context, in incoming.Request, hash string) (rail.Collected, error) {
	c, err := a.collector(in)
	if err != nil {
		return rail.Collected{}, err
	}
	return c.Collected(ctx, hash)
}

// NotifyUmaSender sends the post-transaction callback (UMAD-07) of a payment collected from
// another UMA provider to the URL its pay request named: the channels that carried it,
// signed with the deployment's key for the receiving platform's domain (see
// postUtxoCallback).
func (a *Activities) NotifyUmaSender(ctx context.Context, in incoming.Request, channels []rail.ChannelUse) error {
	return a.postUtxoCallback(ctx, in.Collect.Environment, in.Collect.Domain, in.Collect.SenderCallback, channels)
}

// NotifyUmaReceiver sends the post-transaction callback (UMAD-07) of a payment to a
// receiver of another UMA provider, completed with the payment hash hash at its rail, to
// the URL its pay request's answer named: the channels that carried it as the rail tells
// (rail.Carrier), signed with the deployment's key for the paying platform's domain (see
// postUtxoCallback).
func (a *Activities) NotifyUmaReceiver(ctx context.Context, r quote.Rail, hash string) error {
	in, ok := r.Instruction()
	if !ok {
		return nil
	}
	var channels []rail.ChannelUse
	if c, ok := a.rails.Carrier(in.Target()); ok && hash != "" {
		var err error
		if channels, err = c.Carried(ctx, hash); err != nil {
			return err
		}
	}
	return a.postUtxoCallback(ctx, r.Environment, r.Domain, r.Callback, channels)
}

// postUtxoCallback POSTs the post-transaction callback of a payment to the other provider's
// callback URL: the channels, signed with the deployment's key for domain, through the
// outbound-address guard for the platform's environment env, no redirect followed. An
// answer other than 2xx is an error (the workflow retries it a while).
func (a *Activities) postUtxoCallback(ctx context.Context, env catalog.Environment, domain, callback string, channels []rail.ChannelUse) error {
	keys, err := a.umaKeys(ctx, a.now())
	if err != nil {
		return err
	}
	utxos := make([]uma.UtxoWithAmount, 0, len(channels))
	for _, c := range channels {
		utxos = append(utxos, uma.UtxoWithAmount{Utxo: c.Outpoint, AmountMsats: c.AmountMsat})
	}
	body, err := json.Marshal(uma.NewPostTransactionCallback(keys.Signing, domain, utxos, a.now()))
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, callback, bytes.NewReader(body))
	if err != nil {
		return temporal.NewNonRetryableApplicationError("the other provider's utxoCallback is not a URL", "BadCallback", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.uma(env).Do(req)
	if err != nil {
		return fmt.Errorf("post-transaction callback: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("post-transaction callback: the other provider answered %d", resp.StatusCode)
	}
	return nil
}
