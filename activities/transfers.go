package activities

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	"go.temporal.io/sdk/activity"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/rail"
	"paycore/internal/transfer"
)

// CreateTransfer creates a transfer: the transfer rule with the rail rule (a transfer no
// configured rail serves is refused, transfer.CheckServed), checked on the accounts as they
// are under the internal account's lock, then in one database transaction the transaction
// row, for a transfer out the hold on the funds, and the PENDING webhook event. Running it
// again for the same transaction id changes nothing. A refusal is a non-retryable
// application error (see refusal) and nothing is written.
//
// It returns the Transaction resource as committed, for the API to answer with, and what
// the rail step needs.
func (a *Activities) CreateTransfer(ctx context.Context, in transfer.Request) (CreatedTransfer, error) {
	t, rail, err := a.store.TransferCreate(ctx, in, a.now(), func(acc transfer.Accounts) error { return transfer.CheckServed(in, acc, a.rails) })
	if err != nil {
		return CreatedTransfer{}, refusal(err)
	}
	rail.Kind, rail.Amount = in.Kind, in.Amount
	res, err := json.Marshal(view.TransactionOf(t))
	if err != nil {
		return CreatedTransfer{}, fmt.Errorf("render transaction: %w", err)
	}
	return CreatedTransfer{Resource: res, Rail: rail}, nil
}

// CreatedTransfer is what the create step of a transfer answers: the Transaction resource
// (JSON) and what the rail step needs, as the create step found the accounts.
type CreatedTransfer struct {
	Resource json.RawMessage `json:"resource"`
	Rail     transfer.Rail   `json:"rail"`
}

// UnmarshalJSON also reads what create steps recorded before CreatedTransfer existed
// answered: the bare Transaction resource. It is the Resource then, with no rail (the rail
// step reads it from the database), so a replayed workflow still answers a repeated
// create with the transaction.
func (c *CreatedTransfer) UnmarshalJSON(b []byte) error {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(b, &probe); err != nil {
		return fmt.Errorf("decode created transfer: %w", err)
	}
	if _, ok := probe["resource"]; !ok {
		*c = CreatedTransfer{Resource: append(json.RawMessage(nil), b...)}
		return nil
	}
	type plain CreatedTransfer
	return json.Unmarshal(b, (*plain)(c))
}

// MarkTransferProcessing moves a PENDING transfer to PROCESSING. It returns the status the
// transaction has afterwards, so a workflow re-run on a finished transaction stops.
func (a *Activities) MarkTransferProcessing(ctx context.Context, transactionID uuid.UUID) (catalog.TransactionStatus, error) {
	return a.store.TransactionMarkProcessing(ctx, transactionID, a.now())
}

// MarkPaymentPending records why a payment (a transfer or a quote's payout) waiting at its
// rail is pending, as the rail said (the transaction's pendingReason).
func (a *Activities) MarkPaymentPending(ctx context.Context, transactionID uuid.UUID, reason string) error {
	return a.store.TransactionPending(ctx, transactionID, reason)
}

// SubmitTransfer hands the transfer to the rail that serves it (see internal/rail), under
// the transaction id as its idempotency key, and reports how it ends; with no rail
// configured for it any more, it fails RAIL_UNAVAILABLE. The create step found what the
// rail needs; for a transfer whose create step did not answer it (recorded before it
// did), it is read from the database.
func (a *Activities) SubmitTransfer(ctx context.Context, transactionID uuid.UUID, r transfer.Rail) (rail.Outcome, error) {
	if !r.Known() {
		var err error
		if r, err = db.TransferRail(ctx, a.pool, transactionID); err != nil {
			return rail.Outcome{}, err
		}
	}
	return a.rails.Submit(ctx, r.Instruction(transactionID.String()), r.Unavailable(), resumed(ctx))
}

// CancelTransfer asks the rail of a transfer waiting there to cancel it (see
// rail.Registry.Cancel); a rail that cannot is the refusal TRANSACTION_NOT_CANCELLABLE.
func (a *Activities) CancelTransfer(ctx context.Context, transactionID uuid.UUID, r transfer.Rail) error {
	if !r.Known() {
		var err error
		if r, err = db.TransferRail(ctx, a.pool, transactionID); err != nil {
			return err
		}
	}
	return a.cancelAtRail(ctx, r.Instruction(transactionID.String()))
}

// FinishTransfer settles a transfer with its rail's outcome (within the statuses its kind
// can end with) in one database transaction: postings and COMPLETED, or the hold released
// and FAILED. Finishing an already finished transfer changes nothing. It returns the status
// the transaction ends with, which differs from the rail's outcome when money cannot be
// delivered: a transfer in whose internal account was closed meanwhile is FAILED
// (ACCOUNT_CLOSED) and credits nothing, rather than retrying forever or stranding money in
// a closed account. Any other refusal of the ledger for good is a non-retryable error (see
// unsettled).
func (a *Activities) FinishTransfer(ctx context.Context, in transfer.Request, out rail.Outcome) (catalog.TransactionStatus, error) {
	t, err := a.store.TransactionFinish(ctx, in.TransactionID, in.Kind.Final(out), a.now())
	if err != nil {
		return "", unsettled(fmt.Errorf("finish transfer: %w", err))
	}
	return t.Status, nil
}

// resumed reports whether the activity of ctx runs again after an attempt that may have
// handed its payment to the rail before it was lost (a worker's crash, a timeout): the rail
// is then asked what became of it first (rail.Registry.Submit). Called outside an activity
// (the tests' direct calls), it is false.
func resumed(ctx context.Context) bool {
	return activity.IsActivity(ctx) && activity.GetInfo(ctx).Attempt > 1
}
