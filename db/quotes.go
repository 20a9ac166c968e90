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
	"paycore/internal/platformconfig"
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
	// KindDeposits accounts hold the deposits that fund quotes until their payment ends.
	KindDeposits = "DEPOSITS"
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
func QuoteCreate(ctx context.Context, pool *pgxpool.Pool, r quote.Request, v Views, decide func(quote.Accounts) (quote.Terms, error), ch walletauth.Challenge) (QuoteWithTransaction, quote.Rail, error) {
	var out QuoteWithTransaction
	var rail quote.Rail
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
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
		if err := createQuoteTransaction(ctx, q, r, acc, terms, v); err != nil {
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

// QuoteExecute executes a quote in one database transaction: under the quote's lock the
// quote's state machine (quote.State.Execute) decides, and when it holds the quote this
// holds the sending amount on the source account (an embedded wallet only with the used
// signed retry walletSignature, bound to the quote's transaction), records who executed it
// (key), and moves the transaction to PROCESSING with its events. The same request again
// (its key) changes nothing and returns the quote; anything else the machine refuses
// (another request executed it, it expired or ended) is its refusal.
//
// open says whether the quote's workflow still runs: the API asks with open false when
// the workflow has ended, for the answer to a repeat or the refusal, never a hold.
//
// An execution by an agent's action (e.AgentID) records the agent on the transaction.
func QuoteExecute(ctx context.Context, pool *pgxpool.Pool, quoteID uuid.UUID, e quote.Execution, now time.Time, open bool, v Views) (QuoteWithTransaction, error) {
	var out QuoteWithTransaction
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		qt, t, err := lockQuote(ctx, q, quoteID)
		if err != nil {
			return err
		}
		step, err := QuoteSnapshot(qt, t).Execute(e.Key, now, open)
		if err != nil {
			return err
		}
		if step == quote.StepHold {
			if err := holdQuote(ctx, q, qt, t, e, v); err != nil {
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

// holdQuote holds a pending quote's sending amount and marks it executed and
// PROCESSING. The paying customer must still be APPROVED (locked, so an identity change
// that sends it back through verification is either before or after): a quote made
// before such a change is not executed for the new identity.
func holdQuote(ctx context.Context, q *queries, qt Quote, t Transaction, e quote.Execution, v Views) error {
	if t.CustomerID.Valid {
		payer, _, err := lockCustomer(ctx, q, t.PlatformID, t.CustomerID.UUID)
		if err != nil {
			return err
		}
		if err := kyc.Ready(payer.ID, payer.KycStatus); err != nil {
			return err
		}
	}
	h := holdRequest{TransactionID: t.ID, PlatformID: t.PlatformID, Account: qt.SourceAccountID.UUID, Currency: t.Currency, Amount: t.Amount,
		WalletSignature: e.WalletSignature, SignatureKind: walletauth.KindExecuteQuote}
	if err := holdFunds(ctx, q, h, v); err != nil {
		return err
	}
	if e.AgentID.Valid {
		if err := q.TransactionSetAgent(ctx, TransactionSetAgentParams{ID: t.ID, AgentID: e.AgentID.Null()}); err != nil {
			return fmt.Errorf("record the executing agent: %w", err)
		}
	}
	_, err := markExecuted(ctx, q, qt, t, e.Key, v)
	return err
}

// lockQuote locks a quote and its transaction.
func lockQuote(ctx context.Context, q *queries, id uuid.UUID) (Quote, Transaction, error) {
	qt, err := q.QuoteLock(ctx, id)
	if err != nil {
		return qt, Transaction{}, fmt.Errorf("lock quote: %w", err)
	}
	t, err := q.TransactionGetForUpdate(ctx, qt.TransactionID)
	if err != nil {
		return qt, t, fmt.Errorf("lock transaction: %w", err)
	}
	return qt, t, nil
}

// markExecuted records who executed a quote (key) and moves its transaction to
// PROCESSING with the event.
func markExecuted(ctx context.Context, q *queries, qt Quote, t Transaction, key string, v Views) (Transaction, error) {
	if err := q.QuoteMarkExecuted(ctx, QuoteMarkExecutedParams{ID: qt.ID, ExecuteKey: &key}); err != nil {
		return t, fmt.Errorf("mark quote executed: %w", err)
	}
	p, err := changeStatus(ctx, q, t, catalog.TxEventProcess, TransactionSetStatusParams{})
	if err != nil {
		return p, fmt.Errorf("mark transaction processing: %w", err)
	}
	return p, recordTransaction(ctx, q, v, p, events.OutgoingPaymentProcessing)
}

// DepositKey is the execution key of a quote executed by its deposit.
const DepositKey = "deposit"

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
// quote's lock: the same deposit again (its key) is answered as it was recorded; a second
// one is refused. open is as for QuoteExecute.
func QuoteFund(ctx context.Context, pool *pgxpool.Pool, quoteID uuid.UUID, d quote.Deposit, now time.Time, open bool, v Views) (Deposit, error) {
	amount := d.Amount
	var out Deposit
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		qt, t, err := lockQuote(ctx, q, quoteID)
		if err != nil {
			return err
		}
		f, err := QuoteSnapshot(qt, t).Fund(d, now, open)
		if err != nil {
			return err
		}
		if f.Step == quote.StepRepeat { // recorded by an earlier run of this step
			out = Deposit{Transaction: t, Matches: f.Matches, Late: f.Late}
			return nil
		}
		if err := q.QuoteRecordDeposit(ctx, QuoteRecordDepositParams{ID: qt.ID, Amount: &amount, Key: &d.Key}); err != nil {
			return fmt.Errorf("record deposit: %w", err)
		}
		funding, err := ledgerSystemAccount(ctx, q, t.PlatformID, t.Currency, KindSandboxFunding)
		if err != nil {
			return err
		}
		deposits, err := ledgerSystemAccount(ctx, q, t.PlatformID, t.Currency, KindDeposits)
		if err != nil {
			return err
		}
		if f.Step == quote.StepSendBack {
			out.Late = true
			out.Transaction, err = refundLateDeposit(ctx, q, t, funding.ID, deposits.ID, amount, v)
			return err
		}
		if _, err := ledgerApplyAccounts(ctx, q, t.ID, t.Currency, []Move{{Account: funding.ID, Amount: -amount}, {Account: deposits.ID, Amount: amount, Held: amount}}); err != nil {
			return fmt.Errorf("post deposit: %w", err)
		}
		out.Transaction, err = markExecuted(ctx, q, qt, t, DepositKey, v)
		out.Matches = f.Matches
		return err
	})
	return out, err
}

// refundLateDeposit takes in a deposit that arrived after its quote expired and sends it
// straight back: the transaction (expired now if its timer has not fired yet) records the
// refund, TIMEOUT, opened and completed.
func refundLateDeposit(ctx context.Context, q *queries, t Transaction, funding, deposits uuid.UUID, amount int64, v Views) (Transaction, error) {
	if _, err := ledgerApplyAccounts(ctx, q, t.ID, t.Currency, []Move{{Account: funding, Amount: -amount}, {Account: deposits, Amount: amount},
		{Account: deposits, Amount: -amount}, {Account: funding, Amount: amount}}); err != nil {
		return t, fmt.Errorf("post late deposit: %w", err)
	}
	if _, refused := catalog.TransactionChange(t.Status, catalog.TxEventExpire); refused == nil {
		var err error
		if t, err = expireTransaction(ctx, q, t.ID, v); err != nil {
			return t, err
		}
	}
	t, err := openRefund(ctx, q, t.ID, sandbox.RefundTimeout, v)
	if err != nil {
		return t, err
	}
	status := refundCompleted
	if t, err = q.TransactionRefundEnd(ctx, TransactionRefundEndParams{ID: t.ID, Status: &status}); err != nil {
		return t, fmt.Errorf("end refund: %w", err)
	}
	return t, recordTransaction(ctx, q, v, t, events.OutgoingPaymentRefundCompleted)
}

// QuoteExpire is a quote's timer firing (quote.State.Expire, under the quote's lock): a
// quote nobody executed in time ends, its transaction EXPIRED with QUOTE_EXPIRED and the
// OUTGOING_PAYMENT_EXPIRED event. An executed quote, or one a late deposit already ended,
// is left as it is. It returns the quote afterwards.
func QuoteExpire(ctx context.Context, pool *pgxpool.Pool, quoteID uuid.UUID, v Views) (QuoteWithTransaction, error) {
	var out QuoteWithTransaction
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		qt, t, err := lockQuote(ctx, q, quoteID)
		if err != nil {
			return err
		}
		if QuoteSnapshot(qt, t).Expire() == quote.StepExpire {
			if _, err := expireTransaction(ctx, q, qt.TransactionID, v); err != nil {
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

// expireTransaction moves a quote's PENDING transaction to EXPIRED (QUOTE_EXPIRED) with
// its event; a transaction no longer pending is not found.
func expireTransaction(ctx context.Context, q *queries, id uuid.UUID, v Views) (Transaction, error) {
	reason, detail := quote.ExpiryFailure()
	t, err := changeStatusUnlocked(ctx, q, id, catalog.TxEventExpire, TransactionSetStatusParams{FailureReason: &reason, FailureDetail: &detail})
	if err != nil {
		return t, fmt.Errorf("expire quote: %w", err)
	}
	return t, recordTransaction(ctx, q, v, t, events.OutgoingPaymentExpired)
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
func QuoteFinish(ctx context.Context, pool *pgxpool.Pool, transactionID uuid.UUID, out sandbox.Outcome, now time.Time, v Views) (Transaction, error) {
	var final Transaction
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		t, ended, err := finishPayment(ctx, q, transactionID, out, now, v, quoteMoney)
		final = t
		if err != nil || !ended {
			return err // or finished already
		}
		if t.CounterpartTransactionID.Valid {
			if err := endCounterpart(ctx, q, t.CounterpartTransactionID.UUID, out, now, v); err != nil {
				return err
			}
		}
		if out.Status != catalog.TxCompleted && out.Refund != "" {
			final, err = openRefund(ctx, q, final.ID, out.Refund, v)
		}
		return err
	})
	return final, err
}

// quoteMoney is the money of a quote's finish (see QuoteFinish).
func quoteMoney(ctx context.Context, q *queries, t Transaction, out sandbox.Outcome, v Views) (sandbox.Outcome, error) {
	switch {
	case out.Status == catalog.TxCompleted || out.PaidOut:
		return out, convertQuote(ctx, q, t, false, v)
	case out.Refund == "":
		return out, releaseHold(ctx, q, t, v)
	}
	return out, nil
}

// endCounterpart ends the receiving side's INCOMING transaction of a payment between
// customers on this deployment as the payment ended: COMPLETED (the conversion credited its
// account), or REJECTED or FAILED as the receiving platform decided.
func endCounterpart(ctx context.Context, q *queries, id uuid.UUID, out sandbox.Outcome, now time.Time, v Views) error {
	c, err := q.TransactionGetForUpdate(ctx, id)
	if err != nil {
		return fmt.Errorf("lock counterpart: %w", err)
	}
	end := sandbox.Outcome{Status: catalog.TxCompleted}
	if out.Status != catalog.TxCompleted {
		end = sandbox.Outcome{Status: out.CounterpartStatus, Code: out.Code, Message: out.Message, FailureReason: out.CounterpartReason}
		if end.Status == "" {
			end.Status = catalog.TxFailed
		}
	}
	_, err = endStatus(ctx, q, c, end, now, v)
	return err
}

// QuoteReturn fails a completed payment its receiving bank returned: FAILED with the
// return's cause, the refund opened. The refund step gives the money back.
func QuoteReturn(ctx context.Context, pool *pgxpool.Pool, transactionID uuid.UUID, out sandbox.Outcome, now time.Time, v Views) (Transaction, error) {
	var final Transaction
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		t, err := q.TransactionGetForUpdate(ctx, transactionID)
		if err != nil {
			return fmt.Errorf("lock transaction: %w", err)
		}
		if _, refused := catalog.TransactionChange(t.Status, catalog.TxEventReturn); refused != nil {
			final = t
			return nil // returned already
		}
		if final, err = setFinalStatus(ctx, q, t, out, catalog.TxEventReturn, now); err != nil {
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
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
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
			if errors.Is(err, ErrAccountClosed) {
				// The ledger refused before writing: the source was closed since. The money
				// stays where the payout left it, for operators; the refund failed.
				status, event, err = refundFailed, events.OutgoingPaymentRefundFailed, nil
			}
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

// hold is where a quote's payment holds its money: the source internal account (the
// sending total), or for a deposit the platform's DEPOSITS account of its currency (the
// amount deposited).
type hold struct {
	account  uuid.UUID
	amount   int64
	internal bool // an internal account, whose balance changes are announced
}

// holdOf finds t's hold.
func holdOf(ctx context.Context, q *queries, t Transaction) (hold, error) {
	if t.SourceKind != string(catalog.EndpointRealtimeFunding) {
		return hold{account: t.SourceAccountID.UUID, amount: t.Amount, internal: true}, nil
	}
	// The deposit is set once, before the payment starts: a plain read (locking the quote
	// here would take the quote's and the transaction's locks in the opposite order of
	// QuoteExecute and QuoteFund).
	row, err := q.QuoteGetByID(ctx, t.QuoteID.UUID)
	if err != nil {
		return hold{}, fmt.Errorf("read quote: %w", err)
	}
	qt := row.Quote
	if qt.DepositAmount == nil {
		return hold{}, fmt.Errorf("quote %s: no deposit to settle", qt.ID)
	}
	deposits, err := ledgerSystemAccount(ctx, q, t.PlatformID, t.Currency, KindDeposits)
	if err != nil {
		return hold{}, err
	}
	return hold{account: deposits.ID, amount: *qt.DepositAmount}, nil
}

// releaseHold gives back what an outgoing payment holds: to its source account's
// available balance, or a deposit to the payer outside (from the DEPOSITS account to the
// sandbox funding account it came from).
func releaseHold(ctx context.Context, q *queries, t Transaction, v Views) error {
	h, err := holdOf(ctx, q, t)
	if err != nil {
		return err
	}
	if !h.internal {
		funding, err := ledgerSystemAccount(ctx, q, t.PlatformID, t.Currency, KindSandboxFunding)
		if err != nil {
			return err
		}
		_, err = ledgerApplyAccounts(ctx, q, t.ID, t.Currency, []Move{{Account: h.account, Amount: -h.amount, Held: -h.amount}, {Account: funding.ID, Amount: h.amount}})
		if err != nil {
			return fmt.Errorf("return the deposit: %w", err)
		}
		return nil
	}
	after, err := ledgerRelease(ctx, q, t.ID, t.Currency, h.account, h.amount)
	if err != nil {
		return fmt.Errorf("release hold: %w", err)
	}
	return recordBalance(ctx, q, v, t.PlatformID, after)
}

// openRefund opens a failed payment's refund and records OUTGOING_PAYMENT_REFUND_PENDING.
func openRefund(ctx context.Context, q *queries, id uuid.UUID, reason string, v Views) (Transaction, error) {
	t, err := q.TransactionRefundStart(ctx, TransactionRefundStartParams{ID: id, Reason: &reason})
	if err != nil {
		return t, fmt.Errorf("open refund: %w", err)
	}
	return t, recordTransaction(ctx, q, v, t, events.OutgoingPaymentRefundPending)
}

// convertQuote posts a quote's conversion (see QuoteFinish), or its exact reverse, in both
// currencies at once, with the balance events of the internal accounts it touches.
func convertQuote(ctx context.Context, q *queries, t Transaction, reverse bool, v Views) error {
	if t.ReceivingCurrency == nil || t.ReceivingAmount == nil || t.Fees == nil {
		return fmt.Errorf("transaction %s is not a conversion", t.ID)
	}
	sending, receiving := t.Currency, *t.ReceivingCurrency
	fxS, err := ledgerSystemAccount(ctx, q, t.PlatformID, sending, KindFX)
	if err != nil {
		return err
	}
	feesS, err := ledgerSystemAccount(ctx, q, t.PlatformID, sending, KindFees)
	if err != nil {
		return err
	}
	fxR, err := ledgerSystemAccount(ctx, q, t.PlatformID, receiving, KindFX)
	if err != nil {
		return err
	}
	dest := t.DestinationAccountID.UUID
	credits := t.DestinationAccountID.Valid && t.DestinationKind != string(catalog.EndpointExternal) // an internal account, here or on another platform
	if !credits {
		settlement, err := ledgerSystemAccount(ctx, q, t.PlatformID, receiving, KindSettlement)
		if err != nil {
			return err
		}
		dest = settlement.ID
	}
	h, err := holdOf(ctx, q, t)
	if err != nil {
		return err
	}
	source, total, fees, recv := h.account, t.Amount, *t.Fees, *t.ReceivingAmount
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
		if !h.internal {
			// A deposit goes back to the payer outside.
			funding, err := ledgerSystemAccount(ctx, q, t.PlatformID, sending, KindSandboxFunding)
			if err != nil {
				return err
			}
			legs[0].Moves[0].Account = funding.ID
		}
	}
	after, err := ledgerApplyLegs(ctx, q, t.ID, legs)
	if err != nil {
		return fmt.Errorf("post conversion: %w", err)
	}
	if h.internal {
		if err := recordBalance(ctx, q, v, t.PlatformID, after[source]); err != nil {
			return err
		}
	}
	if credits {
		return recordBalance(ctx, q, v, after[dest].PlatformID, after[dest])
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
