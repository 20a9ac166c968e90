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
	"paycore/internal/instructions"
	"paycore/internal/kyc"
	"paycore/internal/payment"
	"paycore/internal/platformconfig"
	"paycore/internal/quote"
	"paycore/internal/sandbox"
	"paycore/internal/walletauth"
)

// Ledger account kinds of conversions.
const (
	// KindFX accounts hold the service's position in a currency: what conversions took in
	// it minus what they paid out of it.
	KindFX = payment.FX
	// KindFees accounts collect the fees charged on conversions.
	KindFees = payment.Fees
	// KindDeposits accounts hold the deposits that fund quotes until their payment ends.
	KindDeposits = payment.Deposits
)

// QuoteWithTransaction is a quote with its transaction (whose status is the quote's)
// and, for an embedded-wallet source, the payloadToSign of its execution.
type QuoteWithTransaction struct {
	Quote         Quote
	Transaction   Transaction
	PayloadToSign string
}

// quoteAccountsGet loads, in one statement, everything the quote rule reads: the source
// internal account with its customer, the destination account (internal or external) and
// the platform's currencies and environment.
func quoteAccountsGet(ctx context.Context, q *queries, r quote.Request) (quote.Accounts, error) {
	row, err := q.QuoteContext(ctx, QuoteContextParams{PlatformID: r.PlatformID, SourceID: r.Source.AccountID,
		DestinationID: r.Destination.AccountID, DestinationInternal: r.Destination.Internal, FundingCustomerID: r.Source.CustomerID.Null(),
		DestinationUma: r.Destination.UmaAddress, DestinationCurrency: r.Destination.Currency})
	if err != nil {
		return quote.Accounts{}, fmt.Errorf("load quote accounts: %w", err)
	}
	cur, err := platformconfig.DecodeCurrencies(row.SupportedCurrencies)
	if err != nil {
		return quote.Accounts{}, err
	}
	a := quote.Accounts{CustomerID: row.CustomerID, SenderUma: row.CustomerUma, CustomerDeleted: row.CustomerDeleted, CustomerKyc: catalog.KycStatus(row.CustomerKyc),
		PlatformCustomerID: row.PlatformCustomerID, Currencies: cur, Environment: row.Environment}
	if row.SourceID.Valid {
		a.Source = &quote.SourceState{ID: row.SourceID.UUID, Type: catalog.AccountType(row.SourceType), Status: catalog.AccountStatus(row.SourceStatus),
			Currency: row.SourceCurrency, CustomerID: row.SourceCustomerID, Available: row.SourceAvailable}
	}
	if row.CustomerID.Valid {
		a.Sender = map[string]string{}
		for name, v := range map[string]string{"FULL_NAME": row.CustomerFullName, "BIRTH_DATE": row.CustomerBirthDate,
			"NATIONALITY": row.CustomerNationality, "EMAIL": row.CustomerEmail} {
			if v != "" {
				a.Sender[name] = v
			}
		}
	}
	if r.Lookup.Valid {
		l, err := q.ReceiverLookupGet(ctx, ReceiverLookupGetParams{PlatformID: r.PlatformID, ID: r.Lookup.UUID})
		switch {
		case err == nil:
			a.Lookup = &quote.LookupState{ExternalAccountID: l.ExternalAccountID}
			if l.ReceiverUma != nil {
				a.Lookup.ReceiverUma = *l.ReceiverUma
			}
		case !IsNotFound(err):
			return a, fmt.Errorf("load receiver lookup: %w", err)
		}
	}
	switch {
	case r.Destination.Kind == quote.DestinationUMA && quote.IsSandboxUma(r.Destination.UmaAddress):
		a.Destination, _ = quote.UmaDestination("destination.umaAddress", r.Destination.UmaAddress, row.Environment) // the rule reports why not
	case r.Destination.Kind == quote.DestinationUMA && row.UmaMatches > 1:
		a.UmaAmbiguous = true
	case r.Destination.Kind == quote.DestinationUMA && row.UmaCustomerID != uuid.Nil:
		// A customer of a platform of the same environment on this deployment: paid
		// internally. Its name is the receiving platform's to give (when it approves).
		a.Destination = &quote.DestinationState{ID: row.UmaAccountID, Internal: true, Uma: true, Platform: row.UmaPlatformID,
			Active: row.UmaAccountStatus == string(catalog.AccountActive), Status: "closed or missing", Currency: row.UmaAccountCurrency,
			CustomerID: uuid.NullUUID{UUID: row.UmaCustomerID, Valid: true}, Identifier: r.Destination.UmaAddress}
		if row.UmaAccountID != uuid.Nil {
			a.Destination.Status = row.UmaAccountStatus
		}
	case r.Destination.Kind == quote.DestinationUMA:
		a.Destination, _ = quote.UmaDestination("destination.umaAddress", r.Destination.UmaAddress, row.Environment) // the rule reports why not
	case r.Destination.Internal && row.DestInternalID.Valid:
		a.Destination = &quote.DestinationState{ID: row.DestInternalID.UUID, Internal: true, Active: row.DestInternalStatus == string(catalog.AccountActive),
			Status: row.DestInternalStatus, Currency: row.DestInternalCurrency, CustomerID: row.DestInternalCustomerID, HolderName: row.DestInternalHolder}
	case !r.Destination.Internal && row.DestExternalID.Valid:
		a.Destination = &quote.DestinationState{ID: row.DestExternalID.UUID, Active: row.DestExternalStatus == string(catalog.ExternalActive),
			Status: row.DestExternalStatus, Currency: row.DestExternalCurrency, CustomerID: row.DestExternalCustomerID,
			Identifier: row.DestExternalIdentifier, AccountType: row.DestExternalAccountType, HolderName: row.DestExternalHolder}
	}
	return a, nil
}

// QuoteCreate creates a quote in one database transaction: it loads the accounts
// (QuoteAccountsGet) and lets decide refuse or price them, then writes the quote's
// PENDING transaction with its webhook event, the quote, and for an embedded-wallet
// source the quote's own signed request ch (whose payloadToSign the quote shows).
// Creating an existing quote again changes nothing and returns it. Beside the quote it
// returns what executing it takes.
func (s Store) QuoteCreate(ctx context.Context, r quote.Request, decide func(quote.Accounts) (quote.Terms, error), ch walletauth.Challenge) (QuoteWithTransaction, quote.Rail, error) {
	var out QuoteWithTransaction
	var rail quote.Rail
	err := withTx(ctx, s.pool, func(q *queries, _ pgx.Tx) error {
		if existing, err := q.QuoteGetByID(ctx, r.QuoteID); err == nil {
			out = QuoteWithTransaction(existing) // created by an earlier attempt
			rail, err = quoteRail(ctx, q, existing.Quote, existing.Transaction)
			return err
		} else if !IsNotFound(err) {
			return fmt.Errorf("read quote: %w", err)
		}
		acc, err := quoteAccountsGet(ctx, q, r)
		if err != nil {
			return err
		}
		terms, err := decide(acc)
		if err != nil {
			return err
		}
		if (acc.Source == nil && r.Source.Kind == quote.SourceAccount) || acc.Destination == nil {
			return fmt.Errorf("quote accounts: %w", ErrNotFound) // a rule that let missing accounts through
		}
		rail = quote.Rail{Internal: acc.Destination.Internal, Uma: acc.Destination.Uma, Identifier: acc.Destination.Identifier,
			AccountType: acc.Destination.AccountType, Environment: acc.Environment,
			Deposit: r.Source.Kind == quote.SourceRealtimeFunding, TransactionID: r.TransactionID, Currency: acc.Destination.Currency, Amount: terms.Receiving}
		if acc.Destination.Uma && acc.Destination.Internal {
			rail.Counterpart = &quote.Counterpart{TransactionID: quote.CounterpartID(r.TransactionID), PlatformID: acc.Destination.Platform,
				CustomerID: acc.Destination.CustomerID.UUID, Currency: acc.Destination.Currency, Amount: terms.Receiving,
				SenderUma: acc.SenderUma, SenderName: acc.Sender["FULL_NAME"]}
		}
		if err := createQuoteTransaction(ctx, q, r, acc, terms, s.views); err != nil {
			return err
		}
		signed, source, dest := uuid.NullUUID{}, uuid.NullUUID{}, uuid.NullUUID{UUID: acc.Destination.ID, Valid: !acc.Destination.Uma && acc.Destination.ID != uuid.Nil}
		var deposit json.RawMessage
		if acc.Source != nil {
			source = uuid.NullUUID{UUID: acc.Source.ID, Valid: true}
		} else if deposit, err = depositInstructions(ctx, q, r, acc); err != nil {
			return err
		}
		if acc.Source != nil && acc.Source.Type == catalog.EmbeddedWallet {
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
		if err := q.QuoteCreate(ctx, QuoteCreateParams{ID: r.QuoteID, PlatformID: r.PlatformID, CustomerID: acc.Payer(),
			TransactionID: r.TransactionID, SourceKind: string(r.Source.Kind), SourceAccountID: source, CryptoNetwork: optional(r.Source.CryptoNetwork),
			PaymentInstructions: deposit,
			DestinationKind:     string(r.Destination.Kind), DestinationAccountID: dest, DestinationUma: optional(r.Destination.UmaAddress),
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

// depositInstructions are where the deposit that funds a REALTIME_FUNDING quote is sent:
// bank coordinates, or an address on the crypto network, unique to the quote.
func depositInstructions(ctx context.Context, q *queries, r quote.Request, acc quote.Accounts) (json.RawMessage, error) {
	n, err := q.AccountNumberNext(ctx)
	if err != nil {
		return nil, fmt.Errorf("number the deposit instructions: %w", err)
	}
	a := instructions.Account{ID: ids.Format(ids.Quote, r.QuoteID), Number: n, Currency: r.Source.Currency, IsPlatform: !acc.CustomerID.Valid}
	in := instructions.For(a)
	if r.Source.CryptoNetwork != "" {
		in = instructions.ForNetwork(a, r.Source.CryptoNetwork)
	}
	b, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("encode deposit instructions: %w", err)
	}
	return b, nil
}

// createQuoteTransaction writes a new quote's PENDING transaction and its event.
func createQuoteTransaction(ctx context.Context, q *queries, r quote.Request, acc quote.Accounts, terms quote.Terms, v Views) error {
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
	destKind, dest := catalog.EndpointExternal, uuid.NullUUID{UUID: acc.Destination.ID, Valid: true}
	switch {
	case acc.Destination.Uma && acc.Destination.Internal:
		destKind = catalog.EndpointUma // credits the receiver's account
	case acc.Destination.Internal:
		destKind = catalog.EndpointInternal
	case acc.Destination.Uma:
		destKind, dest = catalog.EndpointUma, uuid.NullUUID{}
	}
	sourceKind, source := catalog.EndpointRealtimeFunding, uuid.NullUUID{}
	if acc.Source != nil {
		sourceKind, source = catalog.EndpointInternal, uuid.NullUUID{UUID: acc.Source.ID, Valid: true}
	}
	receiving, fees := terms.Receiving, terms.Fees
	rate := decimal.NullDecimal{Decimal: terms.ExchangeRate, Valid: true}
	t, err := q.TransactionCreate(ctx, TransactionCreateParams{ID: r.TransactionID, PlatformID: r.PlatformID, CustomerID: acc.Payer(),
		PlatformCustomerID: acc.PlatformCustomerID, Kind: quote.Kind, Type: catalog.Outgoing, Status: catalog.TxPending,
		SourceKind: string(sourceKind), SourceAccountID: source,
		DestinationKind: string(destKind), DestinationAccountID: dest, DestinationUmaAddress: optional(r.Destination.UmaAddress), Currency: acc.SendingCurrency(r), Amount: terms.Total,
		Reference: v.Reference(r.TransactionID), Description: optional(r.Description),
		ReceivingCurrency: &acc.Destination.Currency, ReceivingAmount: &receiving, QuoteID: uuid.NullUUID{UUID: r.QuoteID, Valid: true},
		Fees: &fees, ExchangeRate: rate, RateDetails: details, CounterpartyInformation: counterparty})
	if err != nil {
		return fmt.Errorf("create transaction: %w", err)
	}
	return recordTransaction(ctx, q, v, t, events.OutgoingPaymentPending)
}

// quoteRail is what executing an existing quote (with its transaction t) takes.
func quoteRail(ctx context.Context, q *queries, qt Quote, t Transaction) (quote.Rail, error) {
	p, err := q.PlatformGet(ctx, t.PlatformID)
	if err != nil {
		return quote.Rail{}, fmt.Errorf("load platform: %w", err)
	}
	uma := qt.DestinationKind == string(quote.DestinationUMA)
	rail := quote.Rail{Internal: qt.DestinationInternal || (uma && t.DestinationAccountID.Valid), Uma: uma, Identifier: qt.DestinationIdentifier,
		Environment: p.Environment, Deposit: qt.SourceKind == string(quote.SourceRealtimeFunding), TransactionID: t.ID}
	if t.ReceivingCurrency != nil && t.ReceivingAmount != nil {
		rail.Currency, rail.Amount = *t.ReceivingCurrency, *t.ReceivingAmount
	}
	if !rail.Internal && !uma && t.DestinationAccountID.Valid {
		ext, err := q.ExternalAccountGetByID(ctx, t.DestinationAccountID.UUID)
		if err != nil {
			return rail, fmt.Errorf("load external account: %w", err)
		}
		rail.AccountType = ext.AccountType
	}
	if uma && t.DestinationAccountID.Valid {
		c, err := q.QuoteCounterpartContext(ctx, QuoteCounterpartContextParams{ReceiverAccountID: t.DestinationAccountID.UUID, PayerID: t.CustomerID})
		if err != nil {
			return rail, fmt.Errorf("load counterpart: %w", err)
		}
		rail.Counterpart = &quote.Counterpart{TransactionID: quote.CounterpartID(t.ID), PlatformID: c.ReceiverPlatformID, CustomerID: c.ReceiverCustomerID.UUID,
			Currency: *t.ReceivingCurrency, Amount: *t.ReceivingAmount, SenderUma: c.SenderUma, SenderName: c.SenderName}
	}
	return rail, nil
}

// QuoteSnapshot is the quote's state machine's view (quote.State) of a quote and its
// transaction as stored.
func QuoteSnapshot(qt Quote, t Transaction) quote.State {
	s := quote.State{Source: quote.SourceKind(qt.SourceKind), Status: t.Status, ExpiresAt: qt.ExpiresAt, Total: t.Amount,
		SentBack: t.RefundReason != nil && *t.RefundReason == sandbox.RefundTimeout}
	if qt.ExecuteKey != nil {
		s.ExecuteKey = *qt.ExecuteKey
	}
	if qt.DepositAmount != nil {
		s.Deposited, s.DepositAmount = true, *qt.DepositAmount
	}
	if qt.DepositKey != nil {
		s.DepositKey = *qt.DepositKey
	}
	return s
}

// QuoteExecute executes a quote in one database transaction: under the quote's lock
// (lockPayment) the quote's state machine (quote.State.Execute) decides, and when it holds
// the quote the execution's plan (payment.Snapshot.ExecuteQuote) holds the sending amount
// on the source account (an embedded wallet only with the used signed retry
// walletSignature, bound to the quote's transaction), records who executed it (key) and
// moves the transaction to PROCESSING with its events. The same request again (its key)
// changes nothing and returns the quote; anything else the machine refuses (another
// request executed it, it expired or ended) is its refusal.
//
// open says whether the quote's workflow still runs: the API asks with open false when
// the workflow has ended, for the answer to a repeat or the refusal, never a hold.
//
// An execution by an agent's action (e.AgentID) records the agent on the transaction. The
// paying customer must still be APPROVED (locked, so an identity change that sends it back
// through verification is either before or after): a quote made before such a change is
// not executed for the new identity.
func (s Store) QuoteExecute(ctx context.Context, quoteID uuid.UUID, e quote.Execution, now time.Time, open bool) (QuoteWithTransaction, error) {
	var out QuoteWithTransaction
	err := withTx(ctx, s.pool, func(q *queries, _ pgx.Tx) error {
		p, err := lockPayment(ctx, q, paymentKey{quote: quoteID})
		if err != nil {
			return err
		}
		t := p.Transaction
		step, err := QuoteSnapshot(*p.Quote, t).Execute(e.Key, now, open)
		if err != nil {
			return err
		}
		if step == quote.StepHold {
			if t.CustomerID.Valid {
				payer, _, err := lockCustomer(ctx, q, t.PlatformID, t.CustomerID.UUID)
				if err != nil {
					return err
				}
				if err := kyc.Ready(payer.ID, payer.KycStatus); err != nil {
					return err
				}
			}
			plan, err := p.Snapshot().ExecuteQuote(e.Key, e.WalletSignature, e.AgentID)
			if err != nil {
				return err
			}
			if _, err := applyPlan(ctx, q, s.views, p, plan, now); err != nil {
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

// DepositKey is the execution key of a quote executed by its deposit.
const DepositKey = payment.DepositKey

// Deposit is what a deposit for a quote did: Matches when it was the quote's total and
// started the payment, Late when it came after the quote expired (it was sent back at
// once).
type Deposit struct {
	Transaction Transaction
	Matches     bool
	Late        bool
}

// QuoteFund records deposit d for a REALTIME_FUNDING quote (the sandbox's simulated
// payment), in one database transaction. On time, the money comes in from the
// sandbox funding account to the platform's DEPOSITS account, held for the payment, and
// the quote is executed (PROCESSING). Late (the quote expired, or expires as it arrives),
// the money comes in and goes straight back, and the expired transaction records the
// refund (TIMEOUT). The quote's state machine (quote.State.Fund) decides which, under the
// quote's lock, and payment.Snapshot.FundQuote plans it: the same deposit again (its key)
// is answered as it was recorded; a second one is refused. open is as for QuoteExecute.
func (s Store) QuoteFund(ctx context.Context, quoteID uuid.UUID, d quote.Deposit, now time.Time, open bool) (Deposit, error) {
	var out Deposit
	err := withTx(ctx, s.pool, func(q *queries, _ pgx.Tx) error {
		p, err := lockPayment(ctx, q, paymentKey{quote: quoteID})
		if err != nil {
			return err
		}
		f, err := QuoteSnapshot(*p.Quote, p.Transaction).Fund(d, now, open)
		if err != nil {
			return err
		}
		if f.Step == quote.StepRepeat { // recorded by an earlier run of this step
			out = Deposit{Transaction: p.Transaction, Matches: f.Matches, Late: f.Late}
			return nil
		}
		late := f.Step == quote.StepSendBack
		plan, err := p.Snapshot().FundQuote(d.Amount, d.Key, late)
		if err != nil {
			return err
		}
		out.Late, out.Matches = late, f.Matches && !late
		out.Transaction, err = applyPlan(ctx, q, s.views, p, plan, now)
		return err
	})
	return out, err
}

// QuoteExpire is a quote's timer firing (quote.State.Expire, under the quote's lock): a
// quote nobody executed in time ends, its transaction EXPIRED with QUOTE_EXPIRED and the
// OUTGOING_PAYMENT_EXPIRED event. An executed quote, or one a late deposit already ended,
// is left as it is. It returns the quote afterwards.
func (s Store) QuoteExpire(ctx context.Context, quoteID uuid.UUID, now time.Time) (QuoteWithTransaction, error) {
	var out QuoteWithTransaction
	err := withTx(ctx, s.pool, func(q *queries, _ pgx.Tx) error {
		p, err := lockPayment(ctx, q, paymentKey{quote: quoteID})
		if err != nil {
			return err
		}
		if QuoteSnapshot(*p.Quote, p.Transaction).Expire() == quote.StepExpire {
			if c, ok := p.Snapshot().Expire(); ok {
				if _, err := applyPlan(ctx, q, s.views, p, payment.Plan{Status: c}, now); err != nil {
					return err
				}
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
// transaction (lockPayment → payment.Snapshot.FinishQuote → applyPlan). When the money
// left (the payout completed, or failed after the money had gone) the hold is captured and
// converted: the sending amount leaves the source, its net part for the FX account and its
// fees for the fees account of the sending currency, and the FX account of the receiving
// currency pays the receiving amount to the destination (an internal account, or the
// settlement account standing for the outside). A failure before the money left releases
// the hold, unless the outcome refunds it (the refund step then releases it). Then the
// final status, the final event, the counterpart of a payment between customers on this
// deployment ended with it, and for a refunded failure the refund opened
// (REFUND_PENDING). Finishing a finished payment changes nothing.
func (s Store) QuoteFinish(ctx context.Context, transactionID uuid.UUID, out sandbox.Outcome, now time.Time) (Transaction, error) {
	return changePayment(ctx, s.pool, paymentKey{transaction: transactionID, withCounterpart: true}, now, s.views, func(snap payment.Snapshot) (payment.Plan, bool, error) {
		return snap.FinishQuote(out)
	})
}

// QuoteReturn fails a completed payment its receiving bank returned: FAILED with the
// return's cause, the refund opened. The refund step gives the money back.
func (s Store) QuoteReturn(ctx context.Context, transactionID uuid.UUID, out sandbox.Outcome, now time.Time) (Transaction, error) {
	return changePayment(ctx, s.pool, paymentKey{transaction: transactionID}, now, s.views, func(snap payment.Snapshot) (payment.Plan, bool, error) {
		return snap.Return(out)
	})
}

// QuoteRefund ends a failed payment's pending refund (payment.Snapshot.Refund). When it
// fails (the sandbox's 007) the refund is FAILED and the money stays where the payout left
// it. Otherwise the sender gets the sending amount back, fees included: money that had left
// (paidOut) by reversing the conversion, money still held by releasing the hold; the
// refund is COMPLETED. A source closed since cannot take the money back: the refund fails
// and the money stays for operators. A refund that already ended changes nothing.
func (s Store) QuoteRefund(ctx context.Context, transactionID uuid.UUID, paidOut, fails bool, now time.Time) (Transaction, error) {
	refund := func(snap payment.Snapshot) (payment.Plan, bool, error) { return snap.Refund(paidOut, fails) }
	if !paidOut || fails {
		return changePayment(ctx, s.pool, paymentKey{transaction: transactionID}, now, s.views, refund)
	}
	return changePayment(ctx, s.pool, paymentKey{transaction: transactionID}, now, s.views, refund, func(snap payment.Snapshot) (payment.Plan, bool, error) {
		return snap.Refund(paidOut, true)
	})
}

// changePayment is one change of a created payment in one database transaction: lock it
// (lockPayment), decide (a pure payment decision on its snapshot; ok false: nothing to do,
// the change happened already), apply the plan. When the ledger refuses the plan because an
// account was closed since (it refuses before writing), orClosed, if given, decides again.
// It returns the payment's transaction afterwards.
func changePayment(ctx context.Context, pool *pgxpool.Pool, k paymentKey, now time.Time, v Views, decide func(payment.Snapshot) (payment.Plan, bool, error),
	orClosed ...func(payment.Snapshot) (payment.Plan, bool, error)) (Transaction, error) {
	var out Transaction
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		p, err := lockPayment(ctx, q, k)
		if err != nil {
			return err
		}
		out = p.Transaction
		s := p.Snapshot()
		plan, ok, err := decide(s)
		if err != nil || !ok {
			return err
		}
		out, err = applyPlan(ctx, q, v, p, plan, now)
		if errors.Is(err, ErrAccountClosed) && len(orClosed) > 0 {
			if plan, ok, err = orClosed[0](s); err != nil || !ok {
				return err
			}
			out, err = applyPlan(ctx, q, v, p, plan, now)
		}
		return err
	})
	return out, err
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
