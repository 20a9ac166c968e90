package db

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"paycore/internal/catalog"
	"paycore/internal/events"
	"paycore/internal/ids"
	"paycore/internal/instructions"
	"paycore/internal/ownership"
	"paycore/internal/payment"
	"paycore/internal/platformconfig"
	"paycore/internal/platformfee"
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
		DestinationUma: r.Destination.UmaAddress, DestinationCurrency: r.Destination.Currency, SendingCurrency: r.Source.Currency})
	if err != nil {
		return quote.Accounts{}, fmt.Errorf("load quote accounts: %w", err)
	}
	cur, err := platformconfig.DecodeCurrencies(row.SupportedCurrencies)
	if err != nil {
		return quote.Accounts{}, err
	}
	fees, err := platformfee.Decode(row.FeeConfigs)
	if err != nil {
		return quote.Accounts{}, err
	}
	a := quote.Accounts{CustomerID: row.CustomerID, TermsMissing: row.CustomerTermsMissing, SenderUma: row.CustomerUma, UmaDomain: row.PlatformUmaDomain, Regulated: row.PlatformRegulated, CustomerDeleted: row.CustomerDeleted, CustomerKyc: catalog.KycStatus(row.CustomerKyc),
		PlatformCustomerID: row.PlatformCustomerID, Currencies: cur, Environment: row.Environment, FeeConfigs: fees,
		PlatformAccount: uuid.NullUUID{UUID: row.PlatformAccountID, Valid: row.PlatformAccountID != uuid.Nil}}
	if row.SourceID.Valid {
		a.Source = &quote.SourceState{ID: row.SourceID.UUID, Type: catalog.AccountType(row.SourceType), Status: catalog.AccountStatus(row.SourceStatus),
			Currency: row.SourceCurrency, CustomerID: row.SourceCustomerID, Available: row.SourceAvailable}
	}
	if row.CustomerID.Valid {
		a.Sender = customerInfo(row.CustomerFullName, row.CustomerBirthDate, row.CustomerNationality, row.CustomerEmail)
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
	case r.Destination.Kind == quote.DestinationUMA && !row.UmaDomainHere && quote.ValidElsewhere(r.Destination.UmaAddress):
		// Another provider's receiver: its provider is asked before the quote is priced.
		a.Destination = &quote.DestinationState{Uma: true, Elsewhere: true, Active: true, Status: "ACTIVE", Currency: r.Destination.Currency,
			Identifier: r.Destination.UmaAddress}
	case r.Destination.Kind == quote.DestinationUMA:
		a.Destination, _ = quote.UmaDestination("destination.umaAddress", r.Destination.UmaAddress, row.Environment) // the rule reports why not
	case r.Destination.Internal && row.DestInternalID.Valid:
		a.Destination = &quote.DestinationState{ID: row.DestInternalID.UUID, Internal: true, Active: row.DestInternalStatus == string(catalog.AccountActive),
			Status: row.DestInternalStatus, Currency: row.DestInternalCurrency, CustomerID: row.DestInternalCustomerID, HolderName: row.DestInternalHolder}
	case !r.Destination.Internal && row.DestExternalID.Valid:
		a.Destination = &quote.DestinationState{ID: row.DestExternalID.UUID, Active: row.DestExternalStatus == string(catalog.ExternalActive) ||
			ownership.Unproven(catalog.ExternalAccountStatus(row.DestExternalStatus)),
			Status: row.DestExternalStatus, Currency: row.DestExternalCurrency, CustomerID: row.DestExternalCustomerID,
			Identifier: row.DestExternalIdentifier, AccountType: row.DestExternalAccountType, HolderName: row.DestExternalHolder}
		if err := json.Unmarshal([]byte(row.DestExternalPaymentRails), &a.Destination.PaymentRails); err != nil {
			return a, fmt.Errorf("decode the external account's payment rails: %w", err)
		}
	}
	return a, nil
}

// QuoteAccounts is everything the quote rule reads of r, as one read finds it now (outside
// any transaction): what a quote to another provider's receiver is checked against before
// that provider is asked.
func (s Store) QuoteAccounts(ctx context.Context, r quote.Request) (quote.Accounts, error) {
	return s.quoteAccounts(ctx, newQueries(s.pool), r)
}

// quoteAccounts is quoteAccountsGet with the deployment's payment limits the quote rule
// applies.
func (s Store) quoteAccounts(ctx context.Context, q *queries, r quote.Request) (quote.Accounts, error) {
	acc, err := quoteAccountsGet(ctx, q, r)
	acc.Limits = s.limits
	return acc, err
}

// QuoteExists reports whether the quote id was created.
func (s Store) QuoteExists(ctx context.Context, id uuid.UUID) (bool, error) {
	_, err := newQueries(s.pool).QuoteGetByID(ctx, id)
	if IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read quote: %w", err)
	}
	return true, nil
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
	err := s.createOnce(ctx, func(q *queries) (bool, error) {
		existing, err := q.QuoteGetByID(ctx, r.QuoteID)
		switch {
		case IsNotFound(err):
			return false, nil
		case err != nil:
			return false, fmt.Errorf("read quote: %w", err)
		}
		out = QuoteWithTransaction(existing) // created by an earlier attempt
		rail, err = quoteRail(ctx, q, existing.Quote, existing.Transaction)
		return true, err
	}, func(q *queries) error {
		acc, err := s.quoteAccounts(ctx, q, r)
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
			Deposit: r.Source.Kind == quote.SourceRealtimeFunding, TransactionID: r.TransactionID, Currency: acc.Destination.Currency, Amount: terms.Receiving,
			Platform: r.PlatformID, FeeLimit: terms.NetworkFee, PaymentRail: terms.Rail.Rail, Purpose: r.PurposeOfPayment,
			Remittance: r.RemittanceInformation}
		if x := terms.Remote; x != nil {
			rail.Currency, rail.Invoice, rail.Callback, rail.Domain = quote.PayoutCurrency, x.Invoice, x.UtxoCallback, x.PayerDomain
		}
		if acc.Destination.Uma && acc.Destination.Internal {
			rail.Counterpart = &quote.Counterpart{TransactionID: quote.CounterpartID(r.TransactionID), PlatformID: acc.Destination.Platform,
				CustomerID: acc.Destination.CustomerID.UUID, Currency: acc.Destination.Currency, Amount: terms.Receiving,
				SenderUma: acc.SenderUma, SenderName: acc.Sender["FULL_NAME"]}
		}
		if err := createQuoteTransaction(ctx, q, r, acc, terms, s.views); err != nil {
			return err
		}
		if x := terms.Remote; x != nil {
			b, err := json.Marshal(x)
			if err != nil {
				return fmt.Errorf("encode the pay request's answer: %w", err)
			}
			if err := q.UmaSendInsert(ctx, UmaSendInsertParams{TransactionID: r.TransactionID, Domain: x.Domain, Invoice: x.Invoice, Terms: b, CreatedAt: x.AnsweredAt}); err != nil {
				return fmt.Errorf("record the pay request's answer: %w", err)
			}
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

// createQuoteTransaction writes a new quote's PENDING transaction and its event, at the
// time the terms were decided.
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
	receiving, fees, receivingCurrency := terms.Receiving, terms.Fees, acc.Destination.Currency
	var sentCurrency *string
	var sent *int64
	if x := terms.Remote; x != nil {
		// The receiver gets what its provider converted; the payout sends the invoice's
		// satoshis, which the ledger moves.
		btc, sats := quote.PayoutCurrency, terms.Receiving
		sentCurrency, sent, receiving, receivingCurrency = &btc, &sats, x.Amount, x.Currency
	}
	var networkFee, platformFees *int64
	if terms.NetworkFee > 0 {
		networkFee = &terms.NetworkFee
	}
	var platformAccount uuid.NullUUID
	if terms.PlatformFees > 0 {
		platformFees, platformAccount = &terms.PlatformFees, acc.PlatformAccount
	}
	rate := decimal.NullDecimal{Decimal: terms.ExchangeRate, Valid: true}
	p := TransactionCreateParams{ID: r.TransactionID, PlatformID: r.PlatformID, CustomerID: acc.Payer(),
		PlatformCustomerID: acc.PlatformCustomerID, Kind: quote.Kind, Type: catalog.Outgoing, Status: catalog.TxPending,
		SourceKind: string(sourceKind), SourceAccountID: source,
		DestinationKind: string(destKind), DestinationAccountID: dest, DestinationUmaAddress: optional(r.Destination.UmaAddress), Currency: acc.SendingCurrency(r), Amount: terms.Total,
		Reference: v.Reference(r.TransactionID), Description: optional(r.Description),
		ReceivingCurrency: &receivingCurrency, ReceivingAmount: &receiving, SentCurrency: sentCurrency, SentAmount: sent, QuoteID: uuid.NullUUID{UUID: r.QuoteID, Valid: true},
		Fees: &fees, ExchangeRate: rate, RateDetails: details, CounterpartyInformation: counterparty, NetworkFee: networkFee,
		PurposeOfPayment: optional(r.PurposeOfPayment), RemittanceInformation: optional(r.RemittanceInformation), PlatformFees: platformFees,
		PlatformFeeAccountID: platformAccount}
	setRailChoice(&p, terms.Rail, terms.DecidedAt)
	t, err := q.TransactionCreate(ctx, p)
	if err != nil {
		return fmt.Errorf("create transaction: %w", err)
	}
	var o outbox
	if err := recordTransaction(ctx, q, &o, v, t, events.OutgoingPaymentPending, terms.DecidedAt); err != nil {
		return err
	}
	return o.flush(ctx, q)
}

// quoteRail is what executing an existing quote (with its transaction t) takes.
func quoteRail(ctx context.Context, q *queries, qt Quote, t Transaction) (quote.Rail, error) {
	p, err := q.PlatformGet(ctx, t.PlatformID)
	if err != nil {
		return quote.Rail{}, fmt.Errorf("load platform: %w", err)
	}
	uma := qt.DestinationKind == string(quote.DestinationUMA)
	rail := quote.Rail{Internal: qt.DestinationInternal || (uma && t.DestinationAccountID.Valid), Uma: uma, Identifier: qt.DestinationIdentifier,
		Environment: p.Environment, Platform: t.PlatformID, Deposit: qt.SourceKind == string(quote.SourceRealtimeFunding), TransactionID: t.ID,
		PaymentRail: Deref(t.PaymentRail), Purpose: Deref(t.PurposeOfPayment), Remittance: Deref(t.RemittanceInformation)}
	if t.ReceivingCurrency != nil && t.ReceivingAmount != nil {
		rail.Currency, rail.Amount, rail.FeeLimit = *t.ReceivingCurrency, *t.ReceivingAmount, Deref(t.NetworkFee)
	}
	if !rail.Internal && !uma && t.DestinationAccountID.Valid {
		ext, err := q.ExternalAccountGetByID(ctx, t.DestinationAccountID.UUID)
		if err != nil {
			return rail, fmt.Errorf("load external account: %w", err)
		}
		rail.AccountType = ext.AccountType
	}
	if uma && !rail.Internal && t.SentCurrency != nil && t.SentAmount != nil {
		// A receiver elsewhere: the payout sends the invoice its provider answered.
		send, err := q.UmaSendGet(ctx, t.ID)
		if err != nil {
			return rail, fmt.Errorf("load the pay request's answer: %w", err)
		}
		var x quote.Remote
		if err := json.Unmarshal(send.Terms, &x); err != nil {
			return rail, fmt.Errorf("read the pay request's answer: %w", err)
		}
		rail.Currency, rail.Amount, rail.Invoice, rail.Callback, rail.Domain = *t.SentCurrency, *t.SentAmount, send.Invoice, x.UtxoCallback, x.PayerDomain
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

// customerInfo is what the service knows of a customer that a payment may carry to its
// counterparty (the sender's data of a UMA pay request: FULL_NAME, BIRTH_DATE,
// NATIONALITY, EMAIL), the empty ones left out.
func customerInfo(fullName, birthDate, nationality, email string) map[string]string {
	info := map[string]string{}
	for name, v := range map[string]string{"FULL_NAME": fullName, "BIRTH_DATE": birthDate, "NATIONALITY": nationality, "EMAIL": email} {
		if v != "" {
			info[name] = v
		}
	}
	return info
}
