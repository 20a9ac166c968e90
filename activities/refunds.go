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
	"paycore/internal/infra/umaclient"
	"paycore/internal/payment"
	"paycore/internal/rail"
	"paycore/internal/uma"
)

// OpenedRefund is what the create step of a refund answers: the Transaction resource
// (JSON) with its refund PENDING, and the refund as its rail is given it.
type OpenedRefund struct {
	Resource    json.RawMessage  `json:"resource"`
	Instruction rail.Instruction `json:"instruction"`
}

// OpenIncomingRefund opens the platform's refund of a completed incoming payment: the
// rail that would carry it back must be able to, by itself (rail.Registry.Refundable) or,
// for a payment received from a UMA address over a rail that pays invoices (Lightning),
// by paying the invoice the sender's provider answers the refund's pay request with
// (askRefundInvoice). Then under the payment's lock the refund rule, the hold of the
// amount on its account and the PENDING refund with its webhook event and the invoice
// (db.Store.IncomingRefundOpen). Every refusal is a non-retryable application error and
// nothing is written: TRANSACTION_NOT_REFUNDABLE, INSUFFICIENT_FUNDS when the account no
// longer has the amount available, the sender's provider's failure (INVALID_UMA_ADDRESS
// with LNURLP_FAILED, PAYREQ_REQUEST_FAILED). Run again after it opened the refund, it
// answers the refund as opened, with the invoice it asked for then.
func (a *Activities) OpenIncomingRefund(ctx context.Context, transactionID uuid.UUID) (OpenedRefund, error) {
	in, err := db.RefundInstruction(ctx, a.pool, transactionID)
	if err != nil {
		return OpenedRefund{}, refusal(err)
	}
	if !a.rails.Refundable(in.Target()) {
		invoices, ok := a.rails.RefundPayer(in.Target())
		if !ok {
			return OpenedRefund{}, refusal(payment.NotRefundable("its rail cannot send money back to %s", in.Identifier))
		}
		if in.Invoice == "" {
			if in.Invoice, err = a.askRefundInvoice(ctx, transactionID, in, invoices); err != nil {
				return OpenedRefund{}, refusal(err)
			}
		}
		if reserve := a.rails.FeeReserve(in.Target()); reserve != nil {
			in.FeeLimit = reserve(in.Amount)
		}
	}
	t, err := a.store.IncomingRefundOpen(ctx, transactionID, in.Invoice, a.now())
	switch {
	case errors.Is(err, db.ErrInsufficientFunds):
		err = payment.RefundUnaffordable()
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

// askRefundInvoice asks the provider of the sender of the incoming payment transactionID,
// over UMA, for the invoice its refund in pays: an ordinary payment of the amount in (what
// was sent, in millisatoshis) from the receiving customer's UMA address to the sender's,
// converted into the first currency the sender's provider offers (its preferred one), the
// payer's data what the service knows of the customer. The provider's failure is a refusal;
// nothing is asked of the rail yet.
func (a *Activities) askRefundInvoice(ctx context.Context, transactionID uuid.UUID, in rail.Instruction, invoices rail.InvoicePayer) (string, error) {
	if in.Currency != "BTC" {
		return "", payment.NotRefundable("it was sent in %s, which no invoice of its sender's provider is paid in", in.Currency)
	}
	ctx, cancel := context.WithTimeout(ctx, askTimeout)
	defer cancel()
	now := a.now()
	who, err := db.RefundPayerOf(ctx, a.pool, transactionID)
	if err != nil {
		return "", err
	}
	if who.CustomerUma == "" || who.UmaDomain == "" {
		return "", payment.NotRefundable("its customer has no UMA address to send it back from")
	}
	lnurlp, keys, err := a.umaLnurlp(ctx, who.Environment, who.UmaDomain, who.Regulated, in.Identifier, "", now)
	if err != nil {
		return "", err
	}
	if len(lnurlp.Currencies) == 0 {
		return "", umaclient.PayRequestRefusal(in.Identifier, "", fmt.Errorf("%w: the sender's provider offers no currency", umaclient.ErrPayRequestFailed))
	}
	_, domain, _ := uma.SplitAddress(in.Identifier)
	p := uma.Payer{Identifier: who.CustomerUma, KycStatus: "VERIFIED"}
	payerFields(lnurlp, who.Info, &p)
	msats := in.Amount * 1000
	resp, _, err := a.umaInvoice(ctx, umaAsk{env: who.Environment, address: in.Identifier, domain: domain, regulated: who.Regulated,
		lnurlp: lnurlp, keys: keys, payer: p, info: who.Info, amount: uma.Amount(fmt.Sprint(msats)), convert: lnurlp.Currencies[0].Code,
		invoices: invoices, maxMsats: msats}, now)
	if err != nil {
		return "", err
	}
	return resp.PR, nil
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
	return a.rails.Submit(ctx, in, rail.Unavailable(), resumed(ctx))
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
