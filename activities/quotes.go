package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/activity"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/fx"
	"paycore/internal/payment"
	"paycore/internal/quote"
	"paycore/internal/rail"
	"paycore/internal/sandbox"
	"paycore/internal/walletauth"
)

// CreatedQuote is what the create step of a quote answers: the Quote resource (JSON) for
// the API, what executing it takes, and when it expires.
type CreatedQuote struct {
	Resource  json.RawMessage `json:"resource"`
	Rail      quote.Rail      `json:"rail"`
	ExpiresAt time.Time       `json:"expiresAt"`
}

// CreateQuote creates a quote: the quote rule, the rail rule and its pricing
// (quote.DecideServed: a payout no configured rail serves is refused) on the
// accounts as one read finds them, then in one database transaction the PENDING
// transaction with its event, the quote, and for an embedded-wallet source the signed
// request whose payloadToSign authorises executing it. Running it again for the same
// quote changes nothing. A refusal is a non-retryable application error and nothing is
// written.
//
// A quote to a UMA address of another provider first asks that provider for the invoice it
// pays (askElsewhere), unless the quote exists already (a retried step asks nothing).
func (a *Activities) CreateQuote(ctx context.Context, in quote.Request) (CreatedQuote, error) {
	now := a.now()
	remote, err := a.remoteTerms(ctx, in, now)
	if err != nil {
		return CreatedQuote{}, refusal(err)
	}
	ch := walletauth.NewRetryChallengeUntil(walletauth.KindExecuteQuote, in.Source.AccountID, http.MethodPost, in.ExecutePath, nil, now.Add(in.Lifetime))
	q, rail, err := a.store.QuoteCreate(ctx, in, func(acc quote.Accounts) (quote.Terms, error) {
		if acc.Destination != nil && acc.Destination.Elsewhere {
			if remote == nil {
				return quote.Terms{}, errElsewhereSince
			}
			acc.Destination.Answered(remote)
		}
		return quote.DecideServed(in, acc, a.ratesFor(acc.Environment), a.pricing, now, a.rails)
	}, ch)
	if err != nil {
		return CreatedQuote{}, refusal(err)
	}
	res, err := json.Marshal(view.QuoteOf(q))
	if err != nil {
		return CreatedQuote{}, fmt.Errorf("render quote: %w", err)
	}
	return CreatedQuote{Resource: res, Rail: rail, ExpiresAt: q.Quote.ExpiresAt}, nil
}

// errElsewhereSince is a quote whose receiver's domain became one of this deployment's
// between the two reads: the step is retried, and decides on what it then finds.
var errElsewhereSince = errors.New("the receiver's domain changed hands while the quote was created")

// remoteTerms is, for a quote to a receiver elsewhere that does not exist yet, its
// provider's answer to the quote's pay request (askElsewhere); nil for every other quote.
func (a *Activities) remoteTerms(ctx context.Context, in quote.Request, now time.Time) (*quote.Remote, error) {
	if in.Destination.Kind != quote.DestinationUMA {
		return nil, nil
	}
	if exists, err := a.store.QuoteExists(ctx, in.QuoteID); err != nil || exists {
		return nil, err
	}
	acc, err := a.store.QuoteAccounts(ctx, in)
	if err != nil || acc.Destination == nil || !acc.Destination.Elsewhere {
		return nil, err
	}
	return a.askElsewhere(ctx, in, acc, now)
}

// ratesFor is the rate table of a platform's environment: sandbox rates move.
func (a *Activities) ratesFor(env catalog.Environment) fx.Provider {
	if env == catalog.Sandbox {
		return a.sandboxRates
	}
	return a.rates
}

// ExecuteQuoteActivity is the name QuoteExecute is registered under: the name recorded in
// the histories of quote workflows, which a replay checks (see Register).
const ExecuteQuoteActivity = "ExecuteQuote"

// Registry is where activities are registered: a worker, or a workflow test environment.
type Registry interface {
	RegisterActivity(a any)
	RegisterActivityWithOptions(a any, options activity.RegisterOptions)
}

// Register registers the activities on r: every method under its own name, and a method
// renamed since histories recorded it under its recorded name too.
func Register(r Registry, a *Activities) {
	r.RegisterActivity(a)
	r.RegisterActivityWithOptions(a.QuoteExecute, activity.RegisterOptions{Name: ExecuteQuoteActivity})
}

// QuoteExecute executes a pending quote (see db.QuoteExecute) and returns the Quote
// resource as committed. A refusal of the quote's state machine (executed by another
// request, expired or ended, a REALTIME_FUNDING quote), or of the hold (insufficient
// funds, no wallet signature) is a non-retryable application error.
func (a *Activities) QuoteExecute(ctx context.Context, quoteID uuid.UUID, in quote.Execution) (json.RawMessage, error) {
	q, err := a.store.QuoteExecute(ctx, quoteID, in, a.now(), true)
	if err != nil {
		return nil, refusal(err)
	}
	res, err := json.Marshal(view.QuoteOf(q))
	if err != nil {
		return nil, fmt.Errorf("render quote: %w", err)
	}
	return res, nil
}

// ExpireQuote expires a quote nobody executed (see db.QuoteExpire).
//
// It answers whether the quote was executed after all (an execution or a deposit the
// workflow did not see committed): the workflow then pays it instead of ending.
func (a *Activities) ExpireQuote(ctx context.Context, quoteID uuid.UUID) (QuoteState, error) {
	q, err := a.store.QuoteExpire(ctx, quoteID, a.now())
	if err != nil {
		return QuoteState{}, err
	}
	s := db.QuoteSnapshot(q.Quote, q.Transaction)
	return QuoteState{Executed: s.Executed(), Mismatch: s.Mismatch()}, nil
}

// QuoteState is what the expiry found of a quote: executed (by a request or a deposit),
// and for a deposit whether it differs from the total.
type QuoteState struct {
	Executed bool `json:"executed,omitempty"`
	Mismatch bool `json:"mismatch,omitempty"`
}

// SubmitQuote hands an executed quote's payout to the rail that serves it (see
// internal/rail) and reports how the payment ends (quote.Rail.Settle). A payment into an
// internal account needs no rail and completes; a payout no configured rail serves any
// more fails RAIL_UNAVAILABLE before any money leaves.
func (a *Activities) SubmitQuote(ctx context.Context, r quote.Rail) (rail.Outcome, error) {
	in, ok := r.Instruction()
	if !ok {
		return r.Settle(r.Completed()), nil
	}
	out, err := a.rails.Submit(ctx, in, r.Unavailable(), resumed(ctx))
	if err != nil {
		return rail.Outcome{}, err
	}
	return r.Settle(out), nil
}

// CancelQuote asks the rail paying an executed quote out to cancel the payout (see
// rail.Registry.Cancel); a payment into an internal account, which no rail carries, or a
// rail that cannot cancel it, is the refusal TRANSACTION_NOT_CANCELLABLE.
func (a *Activities) CancelQuote(ctx context.Context, r quote.Rail) error {
	in, ok := r.Instruction()
	if !ok {
		return refusal(payment.NotCancellable("a payment into an internal account is not at a rail"))
	}
	return a.cancelAtRail(ctx, in)
}

// cancelAtRail asks the rail serving in to cancel it; rail.ErrNotCancellable is the refusal
// TRANSACTION_NOT_CANCELLABLE, any other error is retried.
func (a *Activities) cancelAtRail(ctx context.Context, in rail.Instruction) error {
	err := a.rails.Cancel(ctx, in)
	if errors.Is(err, rail.ErrNotCancellable) {
		return refusal(payment.NotCancellable("its rail cannot cancel it any more"))
	}
	return err
}

// FinishQuote settles an executed quote's payment with its payout's outcome (see
// db.QuoteFinish) and returns the status it ends with. The ledger's refusal for good (the
// receiving account was closed) is a non-retryable error (see unsettled).
func (a *Activities) FinishQuote(ctx context.Context, transactionID uuid.UUID, out sandbox.Outcome) (catalog.TransactionStatus, error) {
	t, err := a.store.QuoteFinish(ctx, transactionID, out, a.now())
	if err != nil {
		return "", unsettled(fmt.Errorf("finish quote: %w", err))
	}
	return t.Status, nil
}

// ReturnQuote fails a completed payment its receiving bank returned (see db.QuoteReturn).
func (a *Activities) ReturnQuote(ctx context.Context, transactionID uuid.UUID, out sandbox.Outcome) (catalog.TransactionStatus, error) {
	t, err := a.store.QuoteReturn(ctx, transactionID, out, a.now())
	if err != nil {
		return "", fmt.Errorf("return quote: %w", err)
	}
	return t.Status, nil
}

// RefundQuote ends a failed payment's refund (see db.QuoteRefund).
func (a *Activities) RefundQuote(ctx context.Context, transactionID uuid.UUID, out sandbox.Outcome) error {
	if _, err := a.store.QuoteRefund(ctx, transactionID, out.PaidOut, out.RefundFails, a.now()); err != nil {
		return fmt.Errorf("refund quote: %w", err)
	}
	return nil
}

// FundedQuote is what a deposit for a quote did: the Transaction resource (JSON) as
// committed, whether the deposit was the quote's total, and whether it came too late
// (and was sent back).
type FundedQuote struct {
	Resource json.RawMessage `json:"resource"`
	Matches  bool            `json:"matches"`
	Late     bool            `json:"late"`
}

// FundQuote records a deposit for a REALTIME_FUNDING quote (see db.QuoteFund). A refusal
// (a second deposit, a quote funded from an account) is a non-retryable application error.
func (a *Activities) FundQuote(ctx context.Context, quoteID uuid.UUID, deposit quote.Deposit) (FundedQuote, error) {
	d, err := a.store.QuoteFund(ctx, quoteID, deposit, a.now(), true)
	if err != nil {
		return FundedQuote{}, refusal(err)
	}
	res, err := json.Marshal(view.TransactionOf(d.Transaction))
	if err != nil {
		return FundedQuote{}, fmt.Errorf("render transaction: %w", err)
	}
	return FundedQuote{Resource: res, Matches: d.Matches, Late: d.Late}, nil
}
