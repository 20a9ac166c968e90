package db

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"paycore/internal/catalog"
	"paycore/internal/events"
	"paycore/internal/ids"
	"paycore/internal/platformconfig"
	"paycore/internal/problem"
	"paycore/internal/quote"
	"paycore/internal/sandbox"
	"paycore/internal/walletauth"
)

// Ledger account kinds of conversions.
const (
	// KindFX accounts hold the service's position in a currency: what conversions took in
	// it minus what they paid out of it.
	KindFX = "FX"
	// KindFees accounts collect the fees charged on conversions.
	KindFees = "FEES"
)

// QuoteWithTransaction is a quote with its transaction (whose status is the quote's)
// and, for an embedded-wallet source, the payloadToSign of its execution.
type QuoteWithTransaction struct {
	Quote         Quote
	Transaction   Transaction
	PayloadToSign string
}

// QuoteAccountsGet loads, in one statement, everything the quote rule reads: the source
// internal account with its customer, the destination account (internal or external) and
// the platform's currencies and environment.
func QuoteAccountsGet(ctx context.Context, q *Queries, r quote.Request) (quote.Accounts, error) {
	row, err := q.QuoteContext(ctx, QuoteContextParams{PlatformID: r.PlatformID, SourceID: r.Source.AccountID,
		DestinationID: r.Destination.AccountID, DestinationInternal: r.Destination.Internal})
	if err != nil {
		return quote.Accounts{}, fmt.Errorf("load quote accounts: %w", err)
	}
	cur, err := platformconfig.DecodeCurrencies(row.SupportedCurrencies)
	if err != nil {
		return quote.Accounts{}, err
	}
	a := quote.Accounts{CustomerDeleted: row.CustomerDeleted, PlatformCustomerID: row.PlatformCustomerID, Currencies: cur, Environment: row.Environment}
	if row.SourceID.Valid {
		a.Source = &quote.SourceState{ID: row.SourceID.UUID, Type: catalog.AccountType(row.SourceType), Status: catalog.AccountStatus(row.SourceStatus),
			Currency: row.SourceCurrency, CustomerID: row.SourceCustomerID, Available: row.SourceAvailable}
		a.Sender = map[string]string{}
		for name, v := range map[string]string{"FULL_NAME": row.CustomerFullName, "BIRTH_DATE": row.CustomerBirthDate,
			"NATIONALITY": row.CustomerNationality, "EMAIL": row.CustomerEmail} {
			if v != "" {
				a.Sender[name] = v
			}
		}
	}
	switch {
	case r.Destination.Internal && row.DestInternalID.Valid:
		a.Destination = &quote.DestinationState{ID: row.DestInternalID.UUID, Internal: true, Active: row.DestInternalStatus == string(catalog.AccountActive),
			Status: row.DestInternalStatus, Currency: row.DestInternalCurrency, CustomerID: row.DestInternalCustomerID, HolderName: row.DestInternalHolder}
	case !r.Destination.Internal && row.DestExternalID.Valid:
		a.Destination = &quote.DestinationState{ID: row.DestExternalID.UUID, Active: row.DestExternalStatus == string(catalog.ExternalActive),
			Status: row.DestExternalStatus, Currency: row.DestExternalCurrency, CustomerID: row.DestExternalCustomerID,
			Identifier: row.DestExternalIdentifier, HolderName: row.DestExternalHolder}
	}
	return a, nil
}

// QuoteCreate creates a quote in one database transaction: it loads the accounts
// (QuoteAccountsGet) and lets decide refuse or price them, then writes the quote's
// PENDING transaction with its webhook event, the quote, and for an embedded-wallet
// source the quote's own signed request ch (whose payloadToSign the quote shows).
// Creating an existing quote again changes nothing and returns it. Beside the quote it
// returns what executing it takes.
func QuoteCreate(ctx context.Context, pool *pgxpool.Pool, r quote.Request, v Views, decide func(quote.Accounts) (quote.Terms, error), ch walletauth.Challenge) (QuoteWithTransaction, quote.Rail, error) {
	var out QuoteWithTransaction
	var rail quote.Rail
	err := WithTx(ctx, pool, func(q *Queries, _ pgx.Tx) error {
		if existing, err := q.QuoteGetByID(ctx, r.QuoteID); err == nil {
			out = QuoteWithTransaction(existing) // created by an earlier attempt
			rail, err = quoteRail(ctx, q, existing.Quote, existing.Transaction.PlatformID)
			return err
		} else if !IsNotFound(err) {
			return fmt.Errorf("read quote: %w", err)
		}
		acc, err := QuoteAccountsGet(ctx, q, r)
		if err != nil {
			return err
		}
		terms, err := decide(acc)
		if err != nil {
			return err
		}
		if acc.Source == nil || acc.Destination == nil {
			return fmt.Errorf("quote accounts: %w", ErrNotFound) // a rule that let missing accounts through
		}
		rail = quote.Rail{Internal: acc.Destination.Internal, Identifier: acc.Destination.Identifier, Environment: acc.Environment}
		if err := createQuoteTransaction(ctx, q, r, acc, terms, v); err != nil {
			return err
		}
		signed := uuid.NullUUID{}
		if acc.Source.Type == catalog.EmbeddedWallet {
			if _, err := q.SignedRequestCreate(ctx, SignedRequestCreateParams{ID: ch.ID, PlatformID: r.PlatformID, AccountID: acc.Source.ID,
				Kind: ch.Kind, Payload: ch.Payload, RequestHash: ch.Binding, ExpiresAt: ch.ExpiresAt}); err != nil {
				return fmt.Errorf("store the quote's signed request: %w", err)
			}
			signed = uuid.NullUUID{UUID: ch.ID, Valid: true}
		}
		info, err := jsonOrNil(terms.SenderInfo)
		if err != nil {
			return err
		}
		if err := q.QuoteCreate(ctx, QuoteCreateParams{ID: r.QuoteID, PlatformID: r.PlatformID, CustomerID: acc.Source.CustomerID,
			TransactionID: r.TransactionID, SourceKind: string(r.Source.Kind), SourceAccountID: uuid.NullUUID{UUID: acc.Source.ID, Valid: true},
			DestinationKind: string(r.Destination.Kind), DestinationAccountID: uuid.NullUUID{UUID: acc.Destination.ID, Valid: true},
			DestinationInternal: acc.Destination.Internal, DestinationIdentifier: acc.Destination.Identifier, PaymentRail: optional(r.Destination.PaymentRail),
			LockedSide: string(r.LockedSide), LockedAmount: r.LockedAmount, Multiplier: terms.Rate.Multiplier, FixedFee: terms.Rate.FixedFee,
			VariableFeeRate: terms.Rate.VariableRate, Description: optional(r.Description), PurposeOfPayment: optional(r.PurposeOfPayment),
			SenderCustomerInfo: info, ExpiresAt: terms.ExpiresAt, SignedRequestID: signed}); err != nil {
			return fmt.Errorf("create quote: %w", err)
		}
		row, err := q.QuoteGetByID(ctx, r.QuoteID)
		if err != nil {
			return fmt.Errorf("read quote: %w", err)
		}
		out = QuoteWithTransaction(row)
		return nil
	})
	return out, rail, err
}

// createQuoteTransaction writes a new quote's PENDING transaction and its event.
func createQuoteTransaction(ctx context.Context, q *Queries, r quote.Request, acc quote.Accounts, terms quote.Terms, v Views) error {
	details, err := json.Marshal(terms.Details)
	if err != nil {
		return fmt.Errorf("encode rate details: %w", err)
	}
	var counterparty json.RawMessage
	if acc.Destination.HolderName != "" {
		if counterparty, err = json.Marshal(map[string]string{"FULL_NAME": acc.Destination.HolderName}); err != nil {
			return fmt.Errorf("encode counterparty information: %w", err)
		}
	}
	destKind := catalog.EndpointExternal
	if acc.Destination.Internal {
		destKind = catalog.EndpointInternal
	}
	receiving, fees := terms.Receiving, terms.Fees
	rate := decimal.NullDecimal{Decimal: terms.ExchangeRate, Valid: true}
	t, err := q.TransactionCreate(ctx, TransactionCreateParams{ID: r.TransactionID, PlatformID: r.PlatformID, CustomerID: acc.Source.CustomerID,
		PlatformCustomerID: acc.PlatformCustomerID, Kind: quote.Kind, Type: catalog.Outgoing, Status: catalog.TxPending,
		SourceKind: string(catalog.EndpointInternal), SourceAccountID: uuid.NullUUID{UUID: acc.Source.ID, Valid: true},
		DestinationKind: string(destKind), DestinationAccountID: acc.Destination.ID, Currency: acc.Source.Currency, Amount: terms.Total,
		Reference: v.Reference(r.TransactionID), Description: optional(r.Description),
		ReceivingCurrency: &acc.Destination.Currency, ReceivingAmount: &receiving, QuoteID: uuid.NullUUID{UUID: r.QuoteID, Valid: true},
		Fees: &fees, ExchangeRate: rate, RateDetails: details, CounterpartyInformation: counterparty})
	if err != nil {
		return fmt.Errorf("create transaction: %w", err)
	}
	return recordTransaction(ctx, q, v, t, events.OutgoingPaymentPending)
}

// quoteRail is what executing an existing quote takes.
func quoteRail(ctx context.Context, q *Queries, qt Quote, platformID uuid.UUID) (quote.Rail, error) {
	p, err := q.PlatformGet(ctx, platformID)
	if err != nil {
		return quote.Rail{}, fmt.Errorf("load platform: %w", err)
	}
	return quote.Rail{Internal: qt.DestinationInternal, Identifier: qt.DestinationIdentifier, Environment: p.Environment}, nil
}

// quoteNotPending refuses executing a quote that was executed, expired or ended.
func quoteNotPending(status catalog.TransactionStatus) error {
	return problem.Refuse(catalog.QuoteNotPending, "the quote is %s and can no longer be executed", status)
}

// QuoteExecute executes a quote in one database transaction: under the quote's lock it
// checks the quote is PENDING and unexpired, holds the sending amount on the source
// account (an embedded wallet only with the used signed retry walletSignature, bound to
// the quote's transaction), records who executed it (key), and moves the transaction to
// PROCESSING with its events. Executing an executed quote changes nothing and returns it
// (the caller compares the key to tell a repeat from a second execution).
func QuoteExecute(ctx context.Context, pool *pgxpool.Pool, quoteID uuid.UUID, key string, walletSignature ids.Optional, v Views, now time.Time) (QuoteWithTransaction, error) {
	var out QuoteWithTransaction
	err := WithTx(ctx, pool, func(q *Queries, _ pgx.Tx) error {
		qt, err := q.QuoteLock(ctx, quoteID)
		if err != nil {
			return fmt.Errorf("lock quote: %w", err)
		}
		t, err := q.TransactionGetForUpdate(ctx, qt.TransactionID)
		if err != nil {
			return fmt.Errorf("lock transaction: %w", err)
		}
		switch {
		case qt.ExecuteKey != nil:
			// executed already
		case t.Status != catalog.TxPending:
			return quoteNotPending(t.Status)
		case !now.Before(qt.ExpiresAt):
			return quoteNotPending(catalog.TxExpired)
		default:
			if err := executeQuote(ctx, q, qt, t, key, walletSignature, v); err != nil {
				return err
			}
		}
		row, err := q.QuoteGetByID(ctx, quoteID)
		if err != nil {
			return fmt.Errorf("read quote: %w", err)
		}
		out = QuoteWithTransaction(row)
		return nil
	})
	return out, err
}

// executeQuote holds a pending quote's sending amount and marks it executed and
// PROCESSING.
func executeQuote(ctx context.Context, q *Queries, qt Quote, t Transaction, key string, walletSignature ids.Optional, v Views) error {
	source := qt.SourceAccountID.UUID
	if walletSignature.Valid {
		// An unusable signature binds nothing; the hold below then refuses the debit.
		err := AuthorizeWalletDebit(ctx, q, walletSignature.UUID, source, t.ID, walletauth.KindExecuteQuote)
		if err != nil && !errors.Is(err, ErrWalletSignatureRequired) {
			return err
		}
	}
	after, err := LedgerHold(ctx, q, t.ID, t.Currency, source, t.Amount)
	if err != nil {
		return fmt.Errorf("hold funds: %w", err)
	}
	if err := recordBalance(ctx, q, v, t.PlatformID, after); err != nil {
		return err
	}
	if err := q.QuoteMarkExecuted(ctx, QuoteMarkExecutedParams{ID: qt.ID, ExecuteKey: &key}); err != nil {
		return fmt.Errorf("mark quote executed: %w", err)
	}
	p, err := q.TransactionSetStatus(ctx, TransactionSetStatusParams{ID: t.ID, Status: catalog.TxProcessing, FromStatuses: []string{string(catalog.TxPending)}})
	if err != nil {
		return fmt.Errorf("mark transaction processing: %w", err)
	}
	return recordTransaction(ctx, q, v, p, events.OutgoingPaymentProcessing)
}

// QuoteExpire ends a quote nobody executed in time: its transaction EXPIRED with
// QUOTE_EXPIRED and the OUTGOING_PAYMENT_EXPIRED event. An executed quote is left as it
// is. It returns the quote afterwards.
func QuoteExpire(ctx context.Context, pool *pgxpool.Pool, quoteID uuid.UUID, v Views) (QuoteWithTransaction, error) {
	var out QuoteWithTransaction
	err := WithTx(ctx, pool, func(q *Queries, _ pgx.Tx) error {
		qt, err := q.QuoteLock(ctx, quoteID)
		if err != nil {
			return fmt.Errorf("lock quote: %w", err)
		}
		if qt.ExecuteKey == nil {
			reason, detail := sandbox.ReasonQuoteExpired, string(catalog.FailQuoteExpired)+": the quote was not executed before it expired"
			t, err := q.TransactionSetStatus(ctx, TransactionSetStatusParams{ID: qt.TransactionID, Status: catalog.TxExpired,
				FromStatuses: []string{string(catalog.TxPending)}, FailureReason: &reason, FailureDetail: &detail})
			switch {
			case err == nil:
				if err := recordTransaction(ctx, q, v, t, events.OutgoingPaymentExpired); err != nil {
					return err
				}
			case !IsNotFound(err):
				return fmt.Errorf("expire quote: %w", err)
			}
		}
		row, err := q.QuoteGetByID(ctx, quoteID)
		if err != nil {
			return fmt.Errorf("read quote: %w", err)
		}
		out = QuoteWithTransaction(row)
		return nil
	})
	return out, err
}

// QuoteFinish ends an executed quote's payment with its payout's outcome, in one database
// transaction. When the money left (the payout completed, or failed after the money had
// gone) the hold is captured and converted: the sending amount leaves the source, its net
// part for the FX account and its fees for the fees account of the sending currency, and
// the FX account of the receiving currency pays the receiving amount to the destination
// (an internal account, or the settlement account standing for the outside). A failure
// before the money left releases the hold, unless the outcome refunds it (the refund step
// then releases it). Then the final status, the final event, and for a refunded failure
// the refund opened (REFUND_PENDING). Finishing a finished payment changes nothing.
func QuoteFinish(ctx context.Context, pool *pgxpool.Pool, transactionID uuid.UUID, out sandbox.Outcome, v Views) (Transaction, error) {
	var final Transaction
	err := WithTx(ctx, pool, func(q *Queries, _ pgx.Tx) error {
		t, err := q.TransactionGetForUpdate(ctx, transactionID)
		if err != nil {
			return fmt.Errorf("lock transaction: %w", err)
		}
		if t.Status != catalog.TxPending && t.Status != catalog.TxProcessing {
			final = t
			return nil // already finished
		}
		completed := out.Status == catalog.TxCompleted
		switch {
		case completed || out.PaidOut:
			err = convertQuote(ctx, q, t, false, v)
		case out.Refund == "":
			err = releaseHold(ctx, q, t, v)
		}
		if err != nil {
			return err
		}
		final, err = setFinalStatus(ctx, q, t, out, catalog.TxPending, catalog.TxProcessing)
		if err != nil {
			return err
		}
		if err := recordTransaction(ctx, q, v, final, finishEvent(final)); err != nil {
			return err
		}
		if !completed && out.Refund != "" {
			final, err = openRefund(ctx, q, final.ID, out.Refund, v)
		}
		return err
	})
	return final, err
}

// QuoteReturn fails a completed payment its receiving bank returned: FAILED with the
// return's cause, the refund opened. The refund step gives the money back.
func QuoteReturn(ctx context.Context, pool *pgxpool.Pool, transactionID uuid.UUID, out sandbox.Outcome, v Views) (Transaction, error) {
	var final Transaction
	err := WithTx(ctx, pool, func(q *Queries, _ pgx.Tx) error {
		t, err := q.TransactionGetForUpdate(ctx, transactionID)
		if err != nil {
			return fmt.Errorf("lock transaction: %w", err)
		}
		if t.Status != catalog.TxCompleted {
			final = t
			return nil // returned already
		}
		if final, err = setFinalStatus(ctx, q, t, out, catalog.TxCompleted); err != nil {
			return err
		}
		if err := recordTransaction(ctx, q, v, final, events.OutgoingPaymentFailed); err != nil {
			return err
		}
		final, err = openRefund(ctx, q, final.ID, out.Refund, v)
		return err
	})
	return final, err
}

// QuoteRefund ends a failed payment's pending refund. When it fails (the sandbox's 007)
// the refund is FAILED and the money stays where the payout left it. Otherwise the
// sender gets the sending amount back, fees included: money that had left (paidOut) by
// reversing the conversion, money still held by releasing the hold; the refund is
// COMPLETED. A refund that already ended changes nothing.
func QuoteRefund(ctx context.Context, pool *pgxpool.Pool, transactionID uuid.UUID, paidOut, fails bool, v Views) (Transaction, error) {
	var final Transaction
	err := WithTx(ctx, pool, func(q *Queries, _ pgx.Tx) error {
		t, err := q.TransactionGetForUpdate(ctx, transactionID)
		if err != nil {
			return fmt.Errorf("lock transaction: %w", err)
		}
		if t.RefundStatus == nil || *t.RefundStatus != refundPending {
			final = t
			return nil // ended already
		}
		status, event := refundCompleted, events.OutgoingPaymentRefundCompleted
		switch {
		case fails:
			status, event = refundFailed, events.OutgoingPaymentRefundFailed
		case paidOut:
			err = convertQuote(ctx, q, t, true, v)
		default:
			err = releaseHold(ctx, q, t, v)
		}
		if err != nil {
			return err
		}
		if final, err = q.TransactionRefundEnd(ctx, TransactionRefundEndParams{ID: t.ID, Status: &status}); err != nil {
			return fmt.Errorf("end refund: %w", err)
		}
		return recordTransaction(ctx, q, v, final, event)
	})
	return final, err
}

// Refund statuses.
const (
	refundPending   = "PENDING"
	refundCompleted = "COMPLETED"
	refundFailed    = "FAILED"
)

// releaseHold gives back what an outgoing transaction holds on its source account, with
// the account's balance event.
func releaseHold(ctx context.Context, q *Queries, t Transaction, v Views) error {
	after, err := LedgerRelease(ctx, q, t.ID, t.Currency, t.SourceAccountID.UUID, t.Amount)
	if err != nil {
		return fmt.Errorf("release hold: %w", err)
	}
	return recordBalance(ctx, q, v, t.PlatformID, after)
}

// openRefund opens a failed payment's refund and records OUTGOING_PAYMENT_REFUND_PENDING.
func openRefund(ctx context.Context, q *Queries, id uuid.UUID, reason string, v Views) (Transaction, error) {
	t, err := q.TransactionRefundStart(ctx, TransactionRefundStartParams{ID: id, Reason: &reason})
	if err != nil {
		return t, fmt.Errorf("open refund: %w", err)
	}
	return t, recordTransaction(ctx, q, v, t, events.OutgoingPaymentRefundPending)
}

// convertQuote posts a quote's conversion (see QuoteFinish), or its exact reverse, in both
// currencies at once, with the balance events of the internal accounts it touches.
func convertQuote(ctx context.Context, q *Queries, t Transaction, reverse bool, v Views) error {
	if t.ReceivingCurrency == nil || t.ReceivingAmount == nil || t.Fees == nil {
		return fmt.Errorf("transaction %s is not a conversion", t.ID)
	}
	sending, receiving := t.Currency, *t.ReceivingCurrency
	fxS, err := LedgerSystemAccount(ctx, q, t.PlatformID, sending, KindFX)
	if err != nil {
		return err
	}
	feesS, err := LedgerSystemAccount(ctx, q, t.PlatformID, sending, KindFees)
	if err != nil {
		return err
	}
	fxR, err := LedgerSystemAccount(ctx, q, t.PlatformID, receiving, KindFX)
	if err != nil {
		return err
	}
	dest := t.DestinationAccountID
	if t.DestinationKind != string(catalog.EndpointInternal) {
		settlement, err := LedgerSystemAccount(ctx, q, t.PlatformID, receiving, KindSettlement)
		if err != nil {
			return err
		}
		dest = settlement.ID
	}
	source, total, fees, recv := t.SourceAccountID.UUID, t.Amount, *t.Fees, *t.ReceivingAmount
	legs := []Leg{
		{Currency: sending, Moves: []Move{{Account: source, Amount: -total, Held: -total}, {Account: fxS.ID, Amount: total - fees}, {Account: feesS.ID, Amount: fees}}},
		{Currency: receiving, Moves: []Move{{Account: fxR.ID, Amount: -recv}, {Account: dest, Amount: recv}}},
	}
	if reverse {
		for i := range legs {
			for j := range legs[i].Moves {
				legs[i].Moves[j].Amount, legs[i].Moves[j].Held = -legs[i].Moves[j].Amount, 0
			}
		}
	}
	after, err := LedgerApplyLegs(ctx, q, t.ID, legs)
	if err != nil {
		return fmt.Errorf("post conversion: %w", err)
	}
	if err := recordBalance(ctx, q, v, t.PlatformID, after[source]); err != nil {
		return err
	}
	if t.DestinationKind == string(catalog.EndpointInternal) {
		return recordBalance(ctx, q, v, t.PlatformID, after[dest])
	}
	return nil
}

// optional is s as a nullable column ("" is NULL).
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// jsonOrNil encodes a map as a nullable JSON column (empty is NULL).
func jsonOrNil(m map[string]string) (json.RawMessage, error) {
	if len(m) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	return b, nil
}
