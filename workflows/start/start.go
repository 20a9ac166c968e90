// Package start is the client side of the workflows: the one place that knows how each
// workflow is started (id, reuse policy, search attributes), used by the API and the worker.
package start

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/incoming"
	"paycore/internal/invitation"
	"paycore/internal/operator"
	"paycore/internal/payment"
	"paycore/internal/problem"
	"paycore/internal/quote"
	"paycore/internal/transfer"
	"paycore/workflows"
)

// Starter starts workflows on one task queue (workflows.TaskQueue unless configured
// otherwise, e.g. to isolate test stacks sharing a Temporal server).
type Starter struct {
	Client    client.Client
	TaskQueue string
}

func (s Starter) queue() string {
	if s.TaskQueue == "" {
		return workflows.TaskQueue
	}
	return s.TaskQueue
}

// WebhookDelivery starts the delivery workflow of a recorded event. A delivery that
// already ran (or runs) under the same workflow id is not started again.
func (s Starter) WebhookDelivery(ctx context.Context, eventID string, platformID uuid.UUID, eventType string, retry workflows.WebhookRetry) error {
	// A delivery that already ran or runs is returned, not an error
	// (WorkflowExecutionErrorWhenAlreadyStarted is unset).
	if _, err := s.Client.ExecuteWorkflow(ctx, s.webhookOptions(eventID, platformID, eventType), workflows.WebhookDelivery,
		workflows.WebhookDeliveryInput{EventID: eventID, Retry: retry}); err != nil {
		return fmt.Errorf("start delivery of %s: %w", eventID, err)
	}
	return nil
}

// closingWait bounds how long a redelivery waits for the previous run of a final event
// to close.
const closingWait = 10 * time.Second

// WebhookRedelivery starts a new delivery run of an event; the run reopens the event
// before its first attempt. A run of the event that is still delivering refuses it with
// ErrDeliveryRunning. When the event is already final, a run still open has decided and
// only closes: it is waited for (up to closingWait) and the new run starts after it.
//
// by names the operator who asked, when one did (paycore webhooks redeliver); it is in the
// delivery workflow's input, so its history shows it.
func (s Starter) WebhookRedelivery(ctx context.Context, eventID string, platformID uuid.UUID, eventType string, retry workflows.WebhookRetry, final bool, by string) error {
	opts := s.webhookOptions(eventID, platformID, eventType)
	opts.WorkflowIDReusePolicy = enums.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE
	opts.WorkflowExecutionErrorWhenAlreadyStarted = true
	in := workflows.WebhookDeliveryInput{EventID: eventID, Retry: retry, Redeliver: true, Operator: by}
	_, err := s.Client.ExecuteWorkflow(ctx, opts, workflows.WebhookDelivery, in)
	var already *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &already) && final {
		wait, cancel := context.WithTimeout(ctx, closingWait)
		_ = s.Client.GetWorkflow(wait, opts.ID, "").Get(wait, nil) // its outcome is the event's status
		cancel()
		_, err = s.Client.ExecuteWorkflow(ctx, opts, workflows.WebhookDelivery, in)
	}
	switch {
	case errors.As(err, &already):
		return ErrDeliveryRunning
	case err != nil:
		return fmt.Errorf("start redelivery of %s: %w", eventID, err)
	}
	return nil
}

// webhookOptions are the start options of an event's delivery workflow.
func (s Starter) webhookOptions(eventID string, platformID uuid.UUID, eventType string) client.StartWorkflowOptions {
	return client.StartWorkflowOptions{
		ID:                    workflows.WebhookDeliveryWorkflowID(eventID),
		TaskQueue:             s.queue(),
		WorkflowIDReusePolicy: enums.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		EnableEagerStart:      true,
		TypedSearchAttributes: temporal.NewSearchAttributes(
			workflows.AttrPlatformID.ValueSet(ids.Format(ids.Platform, platformID)),
			workflows.AttrWebhookEventType.ValueSet(eventType),
		),
	}
}

// ErrDeliveryRunning is returned by WebhookRedelivery when a delivery of the same event is
// still in progress.
var ErrDeliveryRunning = errors.New("a delivery of this event is in progress")

// WebhookTest delivers an event once, synchronously, and returns what the receiver said.
func (s Starter) WebhookTest(ctx context.Context, eventID string, platformID uuid.UUID, eventType string) (workflows.WebhookDeliveryResult, error) {
	run, err := s.Client.ExecuteWorkflow(ctx, s.webhookOptions(eventID, platformID, eventType), workflows.WebhookDelivery, workflows.WebhookDeliveryInput{EventID: eventID, Once: true})
	if err != nil {
		return workflows.WebhookDeliveryResult{}, fmt.Errorf("start test delivery: %w", err)
	}
	var out workflows.WebhookDeliveryResult
	if err := run.Get(ctx, &out); err != nil {
		return out, fmt.Errorf("test delivery: %w", err)
	}
	return out, nil
}

// ErrPaymentExists reports that the workflow of this payment already ran to its end (a
// replayed request): the transaction is read from the database instead.
var ErrPaymentExists = errors.New("the payment already exists")

// Transfer starts (or joins) the workflow of a transfer with Update-with-Start and waits
// for its create update: when it returns nil the transaction is persisted, and the result
// is the Transaction resource (JSON) as created. A refusal comes back as a
// *temporal.ApplicationError whose type is the refusal's code and whose details are its
// problem.Wire.
func (s Starter) Transfer(ctx context.Context, req transfer.Request) (json.RawMessage, error) {
	attrs := workflows.PaymentSearchAttributes(req.PlatformID, req.TransactionID, req.CustomerID.Null())
	return s.payment(ctx, workflows.TransferWorkflowID(req.Kind, req.TransactionID), attrs, workflows.Transfer, req)
}

// Quote starts (or joins) the workflow of a quote with Update-with-Start and waits for its
// create update: when it returns nil the quote is persisted, and the result is the Quote
// resource (JSON) as created. Refusals come back as for Transfer.
func (s Starter) Quote(ctx context.Context, req quote.Request) (json.RawMessage, error) {
	return s.payment(ctx, workflows.QuoteWorkflowID(req.QuoteID), workflows.QuoteSearchAttributes(req), workflows.Quote, req)
}

// IncomingPayment starts (or joins) the workflow of a payment received over UMA with
// Update-with-Start and waits for its create update: the result is the Transaction
// resource (JSON) as created.
func (s Starter) IncomingPayment(ctx context.Context, req incoming.Request) (json.RawMessage, error) {
	attrs := workflows.PaymentSearchAttributes(req.PlatformID, req.TransactionID, req.CustomerID.Null())
	return s.payment(ctx, workflows.IncomingWorkflowID(req.TransactionID), attrs, workflows.IncomingPayment, req)
}

// Refund starts (or joins) the workflow of a platform's refund of its completed incoming
// payment (req) with Update-with-Start and waits for its create update: the result is the
// Transaction resource (JSON) with its refund PENDING. A refund whose earlier run closed
// (refused, or ended) starts a new run, whose create step refuses it again under the
// payment's lock when it was refunded already.
func (s Starter) Refund(ctx context.Context, platformID uuid.UUID, customerID uuid.NullUUID, req workflows.RefundRequest) (json.RawMessage, error) {
	attrs := workflows.PaymentSearchAttributes(platformID, req.TransactionID, customerID)
	return s.paymentRun(ctx, workflows.RefundWorkflowID(req.TransactionID), enums.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE, attrs, workflows.Refund, req)
}

// Decide sends the platform's approve or reject call on the stored incoming payment t to
// its workflow and waits for the payment to end: the result is the Transaction resource
// (JSON). The call's rule is the payment's state machine, and its refusal
// (TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL) is returned as it is: incoming.CheckCall on
// the stored transaction, then incoming.Call on the workflow's stage (the update's
// validator raises a coded application error); a workflow that has ended is past every
// call (incoming.NotPendingApproval).
func (s Starter) Decide(ctx context.Context, t IncomingTarget, d incoming.Decision) (json.RawMessage, error) {
	if err := incoming.CheckCall(t.Kind, t.Status); err != nil {
		return nil, err
	}
	out, err := s.update(ctx, workflows.IncomingWorkflowID(t.ID), workflows.UpdateDecide, d)
	if workflowGone(err) {
		return nil, incoming.NotPendingApproval()
	}
	return out, err
}

// Collected tells the workflow of the incoming payment transactionID, collecting its money
// from another UMA provider's payer, that its payment request was paid. A workflow that has
// ended needs nothing more.
func (s Starter) Collected(ctx context.Context, transactionID uuid.UUID) error {
	err := s.Client.SignalWorkflow(ctx, workflows.IncomingWorkflowID(transactionID), "", workflows.SignalCollected, nil)
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return nil
	}
	return err
}

// Collection waits, for a payment from another UMA provider just created, for the payment
// request its payer pays (made once the platform approved it) and what is said of the payee. A payment the platform
// refused, or that failed before, is its refusal (a coded application error).
func (s Starter) Collection(ctx context.Context, transactionID uuid.UUID) (incoming.Collecting, error) {
	raw, err := s.update(ctx, workflows.IncomingWorkflowID(transactionID), workflows.UpdateCollection, nil)
	if err != nil {
		return incoming.Collecting{}, err
	}
	var c incoming.Collecting
	if err := json.Unmarshal(raw, &c); err != nil {
		return incoming.Collecting{}, fmt.Errorf("read the payment request: %w", err)
	}
	return c, nil
}

// IncomingTarget is the stored transaction an approve or reject call names: its id, kind
// and status.
type IncomingTarget struct {
	ID     uuid.UUID
	Kind   string
	Status catalog.TransactionStatus
}

// PaymentTarget is the stored transaction a cancellation names: its id, kind and quote
// (which name its workflow).
type PaymentTarget struct {
	ID      uuid.UUID
	Kind    string
	QuoteID uuid.NullUUID
}

// workflowGone reports whether an update was not taken because its workflow has ended
// (ErrWorkflowClosed), or ended before taking it (an application error that carries no
// domain refusal, problem.Wire): its state machine is past every update.
func workflowGone(err error) bool {
	if errors.Is(err, ErrWorkflowClosed) {
		return true
	}
	var app *temporal.ApplicationError
	if !errors.As(err, &app) {
		return false
	}
	var w problem.Wire
	return !app.HasDetails() || app.Details(&w) != nil || w.Code == ""
}

// ErrWorkflowClosed reports that a payment's workflow has ended (a quote expired or its
// payment finished, an incoming payment was decided): it takes no more updates.
var ErrWorkflowClosed = errors.New("the quote's workflow has ended")

// OperatePayment sends an operator's action to the workflow of a payment waiting at its
// rail and waits for it to take effect: the result is the payment's status then. A
// workflow that ended is ErrWorkflowClosed; a payment not at its rail, or a request
// missing its operator or reason, is rejected with an error.
func (s Starter) OperatePayment(ctx context.Context, workflowID string, r operator.Request) (catalog.TransactionStatus, error) {
	raw, err := s.update(ctx, workflowID, workflows.UpdateOperator, r)
	if err != nil {
		return "", err
	}
	var status catalog.TransactionStatus
	if err := json.Unmarshal(raw, &status); err != nil {
		return "", fmt.Errorf("operator answer of %s: %w", workflowID, err)
	}
	return status, nil
}

// CancelPayment sends a platform's cancellation to the workflow of a payment (see
// workflows.UpdateCancelPayment) and waits for it: the result is the payment's status
// then. A workflow that has ended, or has not reached its rail, is past any cancellation
// (TRANSACTION_NOT_CANCELLABLE); so is every refusal of the workflow and the rail.
func (s Starter) CancelPayment(ctx context.Context, t PaymentTarget, c payment.Cancellation) (catalog.TransactionStatus, error) {
	workflowID, ok := workflows.PaymentWorkflowID(t.Kind, t.ID, t.QuoteID)
	if !ok {
		return "", payment.NotCancellable("no workflow carries it")
	}
	raw, err := s.update(ctx, workflowID, workflows.UpdateCancelPayment, c)
	if workflowGone(err) {
		return "", payment.NotCancellable("it is not waiting at its rail")
	}
	if err != nil {
		return "", err
	}
	var status catalog.TransactionStatus
	if err := json.Unmarshal(raw, &status); err != nil {
		return "", fmt.Errorf("cancellation answer of %s: %w", workflowID, err)
	}
	return status, nil
}

// EndPayment fails by hand a payment whose own workflow has ended (see workflows.EndPayment)
// and waits for it: the result is the payment's status then. A second request for the same
// payment joins the first one's workflow while it runs, and runs again after it (finishing
// a finished payment changes nothing).
func (s Starter) EndPayment(ctx context.Context, in workflows.EndPaymentRequest) (catalog.TransactionStatus, error) {
	run, err := s.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       workflows.EndPaymentWorkflowID(in.TransactionID),
		TaskQueue:                s.queue(),
		WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enums.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
	}, workflows.EndPayment, in)
	if err != nil {
		return "", fmt.Errorf("start %s: %w", workflows.EndPaymentWorkflowID(in.TransactionID), err)
	}
	var status catalog.TransactionStatus
	if err := run.Get(ctx, &status); err != nil {
		return "", fmt.Errorf("%s: %w", workflows.EndPaymentWorkflowID(in.TransactionID), err)
	}
	return status, nil
}

// QuoteExecute sends the execute update to a quote's workflow and waits for it: the result
// is the Quote resource (JSON) as executed. A quote whose workflow ended (or that does not
// exist) is ErrWorkflowClosed; the refusals of the quote's state machine come back as
// application errors whose type is the refusal's code and whose details its problem.Wire.
func (s Starter) QuoteExecute(ctx context.Context, quoteID uuid.UUID, e quote.Execution) (json.RawMessage, error) {
	return s.update(ctx, workflows.QuoteWorkflowID(quoteID), workflows.UpdateExecute, e)
}

// FundQuote sends deposit d to a REALTIME_FUNDING quote's workflow and waits
// for it: the result is the Transaction resource (JSON). A quote whose workflow ended is
// ErrWorkflowClosed; refusals come back as application errors.
func (s Starter) FundQuote(ctx context.Context, quoteID uuid.UUID, d quote.Deposit) (json.RawMessage, error) {
	return s.update(ctx, workflows.QuoteWorkflowID(quoteID), workflows.UpdateFund, d)
}

// Invitation starts the workflow of an invitation with Update-with-Start and waits for its
// create update: when it returns nil the invitation is persisted, and the result is the
// UmaInvitation resource (JSON) as created. Refusals come back as for Transfer.
func (s Starter) Invitation(ctx context.Context, req invitation.Request) (json.RawMessage, error) {
	return s.payment(ctx, workflows.InvitationWorkflowID(req.Code), workflows.InvitationSearchAttributes(req.PlatformID), workflows.Invitation, req)
}

// ClaimInvitation sends a claim to an invitation's workflow and waits for it: the result
// is the UmaInvitation (JSON) as claimed. An invitation whose workflow ended is
// ErrWorkflowClosed; refusals come back as application errors.
func (s Starter) ClaimInvitation(ctx context.Context, code string, c invitation.Claim) (json.RawMessage, error) {
	return s.update(ctx, workflows.InvitationWorkflowID(code), workflows.UpdateClaim, c)
}

// CancelInvitation sends a cancellation to an invitation's workflow and waits for it, as
// ClaimInvitation does.
func (s Starter) CancelInvitation(ctx context.Context, code string, c invitation.Cancel) (json.RawMessage, error) {
	return s.update(ctx, workflows.InvitationWorkflowID(code), workflows.UpdateCancel, c)
}

// Verification sends update name (workflows.UpdateSubmit or workflows.UpdateOwner) with
// arg to the verification workflow of in's customer, starting a new run when none is
// under way, and waits for its answer: the resource (JSON) it wrote. A run that ends
// just as the update reaches it is tried once more, which starts the next run.
func (s Starter) Verification(ctx context.Context, in workflows.VerificationInput, name string, arg any) (json.RawMessage, error) {
	var args []any
	if arg != nil {
		args = []any{arg}
	}
	return s.updateWithStart(ctx, client.StartWorkflowOptions{
		ID:                    workflows.CustomerVerificationWorkflowID(in.CustomerID),
		TypedSearchAttributes: workflows.VerificationSearchAttributes(in),
	}, workflows.CustomerVerification, in, name, args)
}

// Ownership starts (or joins) the ownership verification workflow of a wallet with
// Update-with-Start and sends it the update name with arg, waiting for its result (JSON).
// Refusals come back as for Transfer.
func (s Starter) Ownership(ctx context.Context, in workflows.OwnershipInput, name string, arg any) (json.RawMessage, error) {
	return s.updateWithStart(ctx, client.StartWorkflowOptions{
		ID:                    workflows.OwnershipWorkflowID(in),
		TypedSearchAttributes: workflows.OwnershipSearchAttributes(in),
	}, workflows.OwnershipVerification, in, name, []any{arg})
}

// updateWithStart starts (or joins) the workflow of opts (its id and search attributes;
// the run under way is used, a closed one replaced) with Update-with-Start, sends it the
// update name with args and waits for its result. A run that closed as the update came is
// tried once more: the next run takes it.
func (s Starter) updateWithStart(ctx context.Context, opts client.StartWorkflowOptions, workflow, input any, name string, args []any) (json.RawMessage, error) {
	opts.TaskQueue = s.queue()
	opts.WorkflowIDConflictPolicy = enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING
	opts.WorkflowIDReusePolicy = enums.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE
	for attempt := 0; ; attempt++ {
		h, err := s.Client.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
			StartWorkflowOperation: s.Client.NewWithStartWorkflowOperation(opts, workflow, input),
			UpdateOptions:          client.UpdateWorkflowOptions{UpdateName: name, Args: args, WaitForStage: client.WorkflowUpdateStageCompleted},
		})
		var notFound *serviceerror.NotFound
		if errors.As(err, &notFound) && attempt == 0 {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", name, opts.ID, err)
		}
		var out json.RawMessage
		err = h.Get(ctx, &out)
		if errors.As(err, &notFound) && attempt == 0 {
			continue
		}
		return out, err
	}
}

// update sends an update to a payment's workflow and waits for its result. A workflow
// that does not run (ended, or never started) is ErrWorkflowClosed.
func (s Starter) update(ctx context.Context, workflowID, name string, arg any) (json.RawMessage, error) {
	var args []any // an update without argument is sent none
	if arg != nil {
		args = []any{arg}
	}
	h, err := s.Client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: workflowID,
		UpdateName: name, Args: args, WaitForStage: client.WorkflowUpdateStageCompleted})
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return nil, ErrWorkflowClosed
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", name, workflowID, err)
	}
	var out json.RawMessage
	if err := h.Get(ctx, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// payment starts (or joins) the workflow of a payment, which follows the payment skeleton,
// with Update-with-Start and waits for its create update. A workflow that already closed
// is ErrPaymentExists.
func (s Starter) payment(ctx context.Context, id string, attrs temporal.SearchAttributes, workflow, input any) (json.RawMessage, error) {
	return s.paymentRun(ctx, id, enums.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE, attrs, workflow, input)
}

// paymentRun is payment with the reuse policy of a workflow id whose earlier run closed.
func (s Starter) paymentRun(ctx context.Context, id string, reuse enums.WorkflowIdReusePolicy, attrs temporal.SearchAttributes, workflow, input any) (json.RawMessage, error) {
	op := s.Client.NewWithStartWorkflowOperation(client.StartWorkflowOptions{
		ID:                       id,
		TaskQueue:                s.queue(),
		WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    reuse,
		TypedSearchAttributes:    attrs,
	}, workflow, input)
	h, err := s.Client.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
		StartWorkflowOperation: op,
		UpdateOptions:          client.UpdateWorkflowOptions{UpdateName: workflows.UpdateCreate, WaitForStage: client.WorkflowUpdateStageCompleted},
	})
	var already *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &already) {
		return nil, ErrPaymentExists
	}
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", id, err)
	}
	var out json.RawMessage
	err = h.Get(ctx, &out)
	return out, err
}
