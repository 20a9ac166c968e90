package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/payment"
	"paycore/internal/problem"
	"paycore/internal/rail"
)

// OpenedRefund is what the create step of a refund answers: the Transaction resource
// (JSON) with its refund PENDING, and the refund as its rail is given it.
type OpenedRefund struct {
	Resource    json.RawMessage  `json:"resource"`
	Instruction rail.Instruction `json:"instruction"`
}

// OpenIncomingRefund opens the platform's refund of a completed incoming payment: the
// rail that would carry it back must be able to (rail.Registry.Refundable), then under the
// payment's lock the refund rule, the hold of the amount on its account and the PENDING
// refund with its webhook event (db.Store.IncomingRefundOpen). Every refusal is a
// non-retryable application error and nothing is written: TRANSACTION_NOT_REFUNDABLE,
// or INSUFFICIENT_FUNDS when the account no longer has the amount available.
func (a *Activities) OpenIncomingRefund(ctx context.Context, transactionID uuid.UUID) (OpenedRefund, error) {
	in, err := db.RefundInstruction(ctx, a.pool, transactionID)
	if err != nil {
		return OpenedRefund{}, refusal(err)
	}
	if !a.rails.Refundable(in.Target()) {
		return OpenedRefund{}, refusal(payment.NotRefundable("its rail cannot send money back to %s without a new payment request", in.Identifier))
	}
	t, err := a.store.IncomingRefundOpen(ctx, transactionID, a.now())
	switch {
	case errors.Is(err, db.ErrInsufficientFunds):
		err = problem.Refuse(catalog.InsufficientFunds, "the account's available balance is below the amount to refund")
	case errors.Is(err, db.ErrWalletSignatureRequired):
		err = payment.NotRefundable("the money is in the customer's embedded wallet, which only the customer's signature moves")
	case errors.Is(err, db.ErrAccountClosed):
		err = payment.NotRefundable("its internal account is closed")
	}
	if err != nil {
		return OpenedRefund{}, refusal(err)
	}
	res, err := json.Marshal(view.TransactionOf(t))
	if err != nil {
		return OpenedRefund{}, fmt.Errorf("render transaction: %w", err)
	}
	return OpenedRefund{Resource: res, Instruction: in}, nil
}

// RefundProcessing is the status the refund step of transaction transactionID goes on
// with: PROCESSING while its refund is pending, else the transaction's status (an earlier
// run ended the refund).
func (a *Activities) RefundProcessing(ctx context.Context, transactionID uuid.UUID) (catalog.TransactionStatus, error) {
	t, err := db.TransactionGetByID(ctx, a.pool, transactionID)
	if err != nil {
		return "", fmt.Errorf("load transaction: %w", err)
	}
	if db.Deref(t.RefundStatus) == payment.RefundPending {
		return catalog.TxProcessing, nil
	}
	return t.Status, nil
}

// SubmitRefund hands a refund to the rail that serves it and reports how it ends; with no
// rail configured for it any more, it fails RAIL_UNAVAILABLE (the money stays).
func (a *Activities) SubmitRefund(ctx context.Context, in rail.Instruction) (rail.Outcome, error) {
	return a.rails.Submit(ctx, in, rail.Unavailable())
}

// FinishIncomingRefund ends the pending refund of transactionID with its rail's outcome
// (db.Store.IncomingRefundFinish) and returns the transaction's status afterwards:
// REFUNDED when the money went back, COMPLETED when the refund failed.
func (a *Activities) FinishIncomingRefund(ctx context.Context, transactionID uuid.UUID, out rail.Outcome) (catalog.TransactionStatus, error) {
	t, err := a.store.IncomingRefundFinish(ctx, transactionID, out, a.now())
	if err != nil {
		return "", fmt.Errorf("finish refund: %w", err)
	}
	return t.Status, nil
}
