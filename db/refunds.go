package db

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/payment"
	"paycore/internal/rail"
)

// RefundableOf is what the refund rule (payment.CheckRefund) reads of t.
func RefundableOf(t Transaction) payment.Refundable {
	return payment.Refundable{Kind: t.Kind, Type: t.Type, Status: t.Status, RefundStatus: Deref(t.RefundStatus),
		SourceKind: t.SourceKind, Counterpart: t.CounterpartTransactionID.Valid}
}

// IncomingRefundOpen opens the platform's refund of the completed incoming payment id under
// its lock (payment.Snapshot.OpenRefund), paying request when its rail pays a payment
// request ("" for none): the amount held on its account, the refund PENDING, announced. The
// rule's refusal and the ledger's (ErrInsufficientFunds, ErrAccountClosed,
// ErrWalletSignatureRequired) come back with nothing written; a refund pending already is
// left as it is.
func (s Store) IncomingRefundOpen(ctx context.Context, id uuid.UUID, request string, now time.Time) (Transaction, error) {
	return s.change(ctx, paymentKey{transaction: id}, now, func(_ *queries, p lockedPayment) (payment.Plan, bool, error) {
		return p.Snapshot().OpenRefund(RefundableOf(p.Transaction), request)
	}, nil, nil)
}

// IncomingRefundFinish ends the pending refund of the incoming payment id with its rail's
// outcome (payment.Snapshot.FinishRefund); a refund that ended already changes nothing.
func (s Store) IncomingRefundFinish(ctx context.Context, id uuid.UUID, out rail.Outcome, now time.Time) (Transaction, error) {
	return s.change(ctx, paymentKey{transaction: id}, now, func(_ *queries, p lockedPayment) (payment.Plan, bool, error) {
		return p.Snapshot().FinishRefund(out)
	}, nil, nil)
}

// RefundInstruction is the refund of the incoming payment id as its rail is given it, under
// the key "<transaction id>/refund": back to where it came from (its external account, or
// the sender's UMA address), the amount it credited, or, for a payment a rail collected in
// another currency, what was sent in the currency it was sent in. A refund already opened
// carries the payment request it pays.
func RefundInstruction(ctx context.Context, d DBTX, id uuid.UUID) (rail.Instruction, error) {
	q := newQueries(d)
	t, err := q.TransactionGetByID(ctx, id)
	if err != nil {
		return rail.Instruction{}, fmt.Errorf("load transaction: %w", err)
	}
	p, err := q.PlatformGet(ctx, t.PlatformID)
	if err != nil {
		return rail.Instruction{}, fmt.Errorf("load platform: %w", err)
	}
	in := rail.Instruction{Key: id.String() + "/refund", Payment: rail.Refund, Environment: p.Environment, Platform: t.PlatformID,
		Currency: t.Currency, Amount: t.Amount, Invoice: Deref(t.RefundPaymentRequest)}
	switch {
	case t.SourceKind == string(catalog.EndpointExternal) && t.SourceAccountID.Valid:
		ext, err := q.ExternalAccountGetByID(ctx, t.SourceAccountID.UUID)
		if err != nil {
			return rail.Instruction{}, fmt.Errorf("load external account: %w", err)
		}
		in.Kind, in.AccountType, in.Identifier = rail.ExternalAccount, ext.AccountType, ext.Identifier
	case t.SourceKind == string(catalog.EndpointUma) && t.SourceUmaAddress != nil:
		in.Kind, in.Identifier = rail.UMA, *t.SourceUmaAddress
		if t.SentCurrency != nil && t.SentAmount != nil {
			in.Currency, in.Amount = *t.SentCurrency, *t.SentAmount
		}
	default:
		return rail.Instruction{}, payment.NotRefundable("it did not come from an external account or a UMA address")
	}
	return in, nil
}

// RefundPayer is who sends the refund of an incoming payment back over UMA: its platform
// (environment, UMA domain, whether it is regulated) and the receiving customer (its UMA
// address, and what the service knows of it by the names of a sender's data).
type RefundPayer struct {
	Environment catalog.Environment
	UmaDomain   string
	Regulated   bool
	CustomerUma string
	Info        map[string]string
}

// RefundPayerOf reads who sends the refund of the incoming payment id back over UMA.
func RefundPayerOf(ctx context.Context, d DBTX, id uuid.UUID) (RefundPayer, error) {
	row, err := newQueries(d).RefundPayer(ctx, id)
	if err != nil {
		return RefundPayer{}, fmt.Errorf("load the refund's payer: %w", err)
	}
	return RefundPayer{Environment: row.Environment, UmaDomain: row.PlatformUmaDomain, Regulated: row.PlatformRegulated, CustomerUma: row.CustomerUma,
		Info: customerInfo(row.CustomerFullName, row.CustomerBirthDate, row.CustomerNationality, row.CustomerEmail)}, nil
}
