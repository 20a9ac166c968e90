// Package quote describes cross-currency payments made through quotes: the request the API
// hands to the quote workflow, the rule a quote is checked against on its accounts and the
// platform's configuration, its pricing (a locked sending or receiving amount converted at
// the service's rate, see package fx), and how its execution ends in the sandbox.
package quote

import (
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"paycore/internal/account"
	"paycore/internal/banking"
	"paycore/internal/catalog"
	"paycore/internal/customer"
	"paycore/internal/extaccount"
	"paycore/internal/fx"
	"paycore/internal/ids"
	"paycore/internal/incoming"
	"paycore/internal/instructions"
	"paycore/internal/kyc"
	"paycore/internal/money"
	"paycore/internal/ownership"
	"paycore/internal/paylimits"
	"paycore/internal/platformconfig"
	"paycore/internal/platformfee"
	"paycore/internal/problem"
	"paycore/internal/rail"
	"paycore/internal/sandbox"
)

// Kind is the transaction kind of a quote's payment.
const Kind = "QUOTE"

// SourceKind is where a quote's money comes from (sourceType).
type SourceKind string

// Source kinds.
const (
	SourceAccount         SourceKind = "ACCOUNT"          // an internal account, embedded wallets included
	SourceRealtimeFunding SourceKind = "REALTIME_FUNDING" // a deposit made for this quote
)

// DestinationKind is where a quote's money goes (destinationType).
type DestinationKind string

// Destination kinds.
const (
	DestinationAccount DestinationKind = "ACCOUNT"     // an external or internal account
	DestinationUMA     DestinationKind = "UMA_ADDRESS" // a UMA address
)

// Side is the side of a quote whose amount is locked (lockedCurrencySide).
type Side string

// Locked sides.
const (
	Sending   Side = "SENDING"
	Receiving Side = "RECEIVING"
)

// MaxLockedAmount is the largest lockedCurrencyAmount a quote accepts.
const MaxLockedAmount = 9_000_000_000_000_000

// Request is a quote to create, as the API hands it to the quote workflow: decoded and
// shape-checked, with typed ids. Everything that depends on the accounts and the
// platform's configuration is decided by the create step (see Check and Price).
type Request struct {
	QuoteID       uuid.UUID
	TransactionID uuid.UUID
	PlatformID    uuid.UUID
	// CustomerID is the source account's customer, a search attribute; absent for the
	// platform's own accounts.
	CustomerID         ids.Optional `json:",omitzero"`
	Source             Source
	Destination        Destination
	LockedSide         Side
	LockedAmount       int64
	ImmediatelyExecute bool   `json:",omitempty"`
	Description        string `json:",omitempty"`
	PurposeOfPayment   string `json:",omitempty"`
	// RemittanceInformation travels with the payout to the beneficiary (at most
	// transfer.MaxRemittanceLength characters).
	RemittanceInformation string `json:",omitempty"`
	// PlatformFeeOverride replaces the platform's configured fee for this quote (nil: the
	// configuration applies).
	PlatformFeeOverride *platformfee.Override `json:",omitempty"`
	SenderCustomerInfo  map[string]string     `json:",omitempty"`
	LookupID            string                `json:",omitempty"`
	// Lookup is the receiver lookup LookupID names (GET /receiver/...), if any.
	Lookup ids.Optional `json:",omitzero"`
	// Lifetime is how long the quote can be executed.
	Lifetime time.Duration
	// SlowDelay is how long the sandbox's slow scenario (suffix 003, about 6 minutes)
	// stays pending; ReturnDelay how long a payment the receiving bank returns (005) stays
	// completed first. Configuration shortens both in tests.
	SlowDelay   time.Duration
	ReturnDelay time.Duration
	// ApprovalDeadline is how long a receiving platform on this deployment that answered
	// 202 has to approve a payment to one of its customers' UMA addresses.
	ApprovalDeadline time.Duration `json:",omitempty"`
	// LateDepositWindow is how long after expiry a deposit for a REALTIME_FUNDING quote is
	// still taken in, to be sent back.
	LateDepositWindow time.Duration `json:",omitempty"`
	// ExecutePath is the path of the quote's execute request, which an embedded-wallet
	// source's payloadToSign names.
	ExecutePath string
}

// Execution is a request to execute a quote: who asks (Key, the same for a repeated
// request) and, for an embedded-wallet source, the used signed retry that authorises it.
type Execution struct {
	Key             string
	WalletSignature ids.Optional `json:",omitzero"`
	// AgentID is the agent whose action executes the quote (the transaction's agentId);
	// absent otherwise.
	AgentID ids.Optional `json:",omitzero"`
}

// Deposit is a deposit for a REALTIME_FUNDING quote: its amount and the request it came
// with (Key, the same for a repeated request).
type Deposit struct {
	Key    string
	Amount int64
	// Originator is what the funding rail says of who sent it, nil when it says nothing;
	// OnChain the on-chain transaction of a crypto deposit, nil for others.
	Originator *Originator   `json:",omitempty"`
	OnChain    *rail.OnChain `json:",omitempty"`
}

// Originator is who sent a deposit, as its rail reports it (the transaction's source shows
// it): every field is best effort, the account identifier masked.
type Originator struct {
	AccountHolderName     string `json:"accountHolderName,omitempty"`
	AccountIdentifier     string `json:"accountIdentifier,omitempty"`
	BankName              string `json:"bankName,omitempty"`
	BankIdentifier        string `json:"bankIdentifier,omitempty"`
	PaymentRail           string `json:"paymentRail,omitempty"`
	RemittanceInformation string `json:"remittanceInformation,omitempty"`
	EndToEndID            string `json:"endToEndId,omitempty"`
	TraceNumber           string `json:"traceNumber,omitempty"`
}

// Source is the source of a quote.
type Source struct {
	Kind      SourceKind
	AccountID uuid.UUID `json:",omitzero"` // internal account (ACCOUNT)
	// CustomerID is the customer the caller says the payment is for (optional).
	CustomerID ids.Optional `json:",omitzero"`
	// Currency is the currency the caller says the source holds (optional for ACCOUNT,
	// the funding currency of REALTIME_FUNDING).
	Currency      string `json:",omitempty"`
	CryptoNetwork string `json:",omitempty"`
}

// Destination is the destination of a quote.
type Destination struct {
	Kind DestinationKind
	// AccountID is the destination account (ACCOUNT): an internal account when Internal is
	// set, an external one otherwise.
	AccountID   uuid.UUID `json:",omitzero"`
	Internal    bool      `json:",omitempty"`
	PaymentRail string    `json:",omitempty"`
	UmaAddress  string    `json:",omitempty"`
	// Currency is the currency the caller wants received (optional for ACCOUNT).
	Currency string `json:",omitempty"`
}

// Field names of the request, for refusals.
const (
	fieldSource      = "source.accountId"
	fieldDestination = "destination.accountId"
	fieldAmount      = "lockedCurrencyAmount"
	fieldInfo        = "senderCustomerInfo"
)

// Accounts is everything a quote is checked against, as one read loads it.
type Accounts struct {
	Source      *SourceState      // nil when the platform has no such internal account
	Destination *DestinationState // nil when the platform has no such account
	// CustomerID is the payer customer the read found: the source account's, or the one a
	// deposit is for. CustomerDeleted is set when it is deleted.
	CustomerID      uuid.NullUUID
	CustomerDeleted bool
	// CustomerKyc is that customer's KYC/KYB status: only an APPROVED customer pays.
	CustomerKyc catalog.KycStatus
	// TermsMissing: the platform requires its customers' acceptance of the End User Terms
	// and the paying customer has not accepted them.
	TermsMissing       bool
	PlatformCustomerID string
	// Lookup is the receiver lookup the request names, as stored (nil: none, or not the
	// platform's).
	Lookup *LookupState
	// UmaAmbiguous is set when several customers of this deployment have the destination's
	// UMA address: it is not paid (nobody can tell whom it means).
	UmaAmbiguous bool
	// SenderUma is the paying customer's UMA address ("" for the platform).
	SenderUma string
	// UmaDomain is the platform's UMA domain ("" none): the identity a payment to another
	// provider is signed for. Regulated is whether the platform is a regulated financial
	// institution (subject to the travel rule).
	UmaDomain string
	Regulated bool
	// Sender is what the service knows of the source account's customer, by
	// CustomerInfoFieldName (FULL_NAME, BIRTH_DATE, NATIONALITY, EMAIL).
	Sender      map[string]string
	Currencies  platformconfig.Currencies
	Environment catalog.Environment
	// FeeConfigs are the platform's standing fees; PlatformAccount its own internal account
	// in the sending currency, which a platform fee is paid to (none: no fee can be).
	FeeConfigs      platformfee.Configs
	PlatformAccount uuid.NullUUID
	// Limits are the deployment's payment limits (nil: none); a quote's sending total is
	// within its currency's largest single payment.
	Limits paylimits.Limits
}

// LookupState is a stored receiver lookup: whom it looked up.
type LookupState struct {
	ReceiverUma       string
	ExternalAccountID uuid.NullUUID
}

// UmaDestination is the destination a UMA address on this deployment's or the sandbox's
// domains stands for on a platform of env when no customer of the environment holds it: one
// of the sandbox's counterparties (only sandbox platforms reach them); any other address
// there is nobody's.
func UmaDestination(field, address string, env catalog.Environment) (*DestinationState, error) {
	if env != catalog.Sandbox {
		return nil, problem.FieldCode(catalog.InvalidUmaAddress, field, "no customer of a platform of this environment holds %s", address)
	}
	c, err := incoming.SandboxCounterparty(field, address)
	if err != nil {
		return nil, err
	}
	return &DestinationState{Uma: true, Active: true, Status: "ACTIVE", Currency: c.Currency, Identifier: address,
		HolderName: c.Name(), PayerFields: incoming.RequiredPayeeFields}, nil
}

// IsSandboxUma reports whether address is at the sandbox's UMA domain, which only the
// sandbox's counterparties answer (a customer address there is never paid internally).
func IsSandboxUma(address string) bool {
	return strings.HasSuffix(address, "@"+incoming.SandboxDomain)
}

// SourceState is what the rule reads of the source internal account.
type SourceState struct {
	ID         uuid.UUID
	Type       catalog.AccountType
	Status     catalog.AccountStatus
	Currency   string
	CustomerID uuid.NullUUID
	Available  int64
}

// DestinationState is what the rule reads of the destination account.
type DestinationState struct {
	ID       uuid.UUID
	Internal bool
	// Active is whether the account can receive money (an ACTIVE internal or external
	// account); Status is its status, for the refusal.
	Active     bool
	Status     string
	Currency   string
	CustomerID uuid.NullUUID
	// Identifier is an external account's primary identifier (its suffix selects the
	// sandbox outcome); "" for internal accounts.
	Identifier string
	// AccountType is an external account's type, which routes its payout to a rail; "" for
	// internal accounts and UMA addresses.
	AccountType string
	// PaymentRails are the payment rails an external account is paid over (its first the
	// default); none for wallets, internal accounts and UMA addresses.
	PaymentRails []string
	// HolderName is the name of whoever receives the money, when known.
	HolderName string
	// Uma is set for a UMA address (Identifier is the address); its counterparty requires
	// PayerFields of the sender.
	Uma         bool
	PayerFields []string
	// Platform is the receiving customer's platform, for a UMA address of a customer on
	// this deployment (Internal is set then, and ID is its account).
	Platform uuid.UUID
	// Elsewhere is set for a UMA address of another provider (no platform of this
	// deployment holds its domain); Remote is then its provider's answer to the quote's pay
	// request, once asked (nil before).
	Elsewhere bool
	Remote    *Remote
}

// Check is the quote rule before pricing: nil when r may be quoted on these accounts,
// else the refusal. In order: the accounts exist and are active, the customer is not
// deleted, the currencies differ (a same-currency move is a transfer), and any currency
// the caller named is the account's.
func Check(r Request, a Accounts) error {
	if err := checkSource(r, a); err != nil {
		return err
	}
	if r.Destination.Kind == DestinationUMA && a.UmaAmbiguous {
		return problem.FieldCode(catalog.InvalidUmaAddress, "destination.umaAddress", "%s names more than one receiver on this deployment", r.Destination.UmaAddress)
	}
	if r.Destination.Kind == DestinationUMA && (a.Destination == nil || (!a.Destination.Internal && !a.Destination.Elsewhere)) {
		if _, err := UmaDestination("destination.umaAddress", r.Destination.UmaAddress, a.Environment); err != nil {
			return err
		}
	}
	sending := a.SendingCurrency(r)
	switch {
	case r.Lookup.Valid && a.Lookup == nil:
		return problem.NotFound(catalog.LookupNotFound, "receiver lookup")
	case r.Lookup.Valid && r.Destination.Kind == DestinationUMA && a.Lookup.ReceiverUma != r.Destination.UmaAddress:
		return problem.Field("lookupId", "the lookup is of another receiver than destination.umaAddress")
	case r.Lookup.Valid && r.Destination.Kind == DestinationAccount && a.Lookup.ExternalAccountID.UUID != r.Destination.AccountID:
		return problem.Field("lookupId", "the lookup is of another receiver than destination.accountId")
	case a.Destination == nil && r.Destination.Internal:
		return account.NotFound()
	case a.Destination == nil:
		return extaccount.NotFound()
	case !a.Destination.Active:
		return problem.Field(fieldDestination, "the destination account is %s", a.Destination.Status)
	case r.Destination.Currency != "" && r.Destination.Currency != a.Destination.Currency:
		return problem.FieldCode(catalog.InvalidCurrency, "destination.currency", "the destination receives %s, not %s", a.Destination.Currency, r.Destination.Currency)
	case a.Source != nil && a.Source.ID == a.Destination.ID:
		return problem.Refuse(catalog.SelfPayment, "the source and the destination are the same account")
	case !a.Destination.Internal && !a.Destination.Uma && a.Destination.CustomerID != a.Payer():
		return problem.Field(fieldDestination, "the external account belongs to another owner than the payer")
	case sending == a.Destination.Currency && !a.Destination.Elsewhere:
		return problem.FieldCode(catalog.InvalidCurrency, fieldDestination,
			"both sides are in %s: a same-currency payment is a transfer (POST /transfer-out, POST /transfer-in), not a quote", sending)
	}
	_, err := r.ChooseRail(a)
	return err
}

// ChooseRail is the payment rail a quote's payout to an external account travels on
// (banking.ChooseRail): the one the platform named (destination.paymentRail), which the
// account must offer, or the account's first. Other destinations travel on none, and
// naming one for them is refused.
func (r Request) ChooseRail(a Accounts) (banking.RailChoice, error) {
	var offered []string
	if a.Destination != nil && !a.Destination.Internal && !a.Destination.Uma {
		offered = a.Destination.PaymentRails
	}
	return banking.ChooseRail(r.Destination.PaymentRail, offered)
}

// checkSource is the part of the rule about where the money comes from: an internal
// account that exists, is active and belongs to the customer named, or a deposit in a
// known currency (on a network that carries it, for crypto) for an existing customer or
// the platform.
func checkSource(r Request, a Accounts) error {
	if r.Source.Kind == SourceRealtimeFunding {
		c, known := money.Lookup(r.Source.Currency)
		switch {
		case r.Source.CustomerID.Valid && !a.CustomerID.Valid:
			return problem.NotFound(catalog.UserNotFound, "customer")
		case a.CustomerDeleted:
			return problem.Refuse(catalog.CustomerDeleted, "the customer is deleted")
		case a.CustomerID.Valid && a.CustomerKyc != catalog.KycApproved:
			return kyc.Ready(a.CustomerID.UUID, a.CustomerKyc)
		case a.TermsMissing:
			return customer.TermsNotAccepted()
		case r.ImmediatelyExecute:
			return problem.Field("immediatelyExecute", "a REALTIME_FUNDING quote is executed by its deposit, not immediately")
		case !known:
			return problem.FieldCode(catalog.InvalidCurrency, "source.currency", "%s is not a currency of the catalogue", r.Source.Currency)
		case c.Kind == money.Crypto && r.Source.CryptoNetwork == "":
			return problem.Field("source.cryptoNetwork", "source.cryptoNetwork is required to deposit %s (one of %s)", c.Code, strings.Join(instructions.FundingNetworks, ", "))
		case c.Kind == money.Crypto && (!slices.Contains(instructions.FundingNetworks, r.Source.CryptoNetwork) || !fx.NetworkCarries(r.Source.CryptoNetwork, c.Code)):
			return problem.Field("source.cryptoNetwork", "%s cannot be deposited on %s", c.Code, r.Source.CryptoNetwork)
		case c.Kind != money.Crypto && r.Source.CryptoNetwork != "":
			return problem.Field("source.cryptoNetwork", "source.cryptoNetwork is only for crypto currencies, not %s", c.Code)
		}
		return nil
	}
	switch {
	case a.Source == nil:
		return account.NotFound()
	case a.Source.Status != catalog.AccountActive:
		return problem.Field(fieldSource, "the source account is %s", a.Source.Status)
	case a.CustomerDeleted:
		return problem.Refuse(catalog.CustomerDeleted, "the source account's customer is deleted")
	case a.CustomerID.Valid && a.CustomerKyc != catalog.KycApproved:
		return kyc.Ready(a.CustomerID.UUID, a.CustomerKyc)
	case a.TermsMissing:
		return customer.TermsNotAccepted()
	case r.Source.CustomerID.Valid && r.Source.CustomerID.Null() != a.Source.CustomerID:
		return problem.Field("source.customerId", "the source account belongs to another customer")
	case r.ImmediatelyExecute && a.Source.Type == catalog.EmbeddedWallet:
		return problem.Field("immediatelyExecute", "a quote from an embedded wallet is executed with the customer's wallet signature, not immediately")
	case r.Source.Currency != "" && r.Source.Currency != a.Source.Currency:
		return problem.FieldCode(catalog.InvalidCurrency, "source.currency", "the source account holds %s, not %s", a.Source.Currency, r.Source.Currency)
	}
	return nil
}

// SendingCurrency is the currency the quote's money comes in: the source account's, or
// the deposit's.
func (a Accounts) SendingCurrency(r Request) string {
	if a.Source != nil {
		return a.Source.Currency
	}
	return r.Source.Currency
}

// Payer is who pays: the source account's customer, or the customer a deposit is for
// (none: the platform).
func (a Accounts) Payer() uuid.NullUUID {
	if a.Source != nil {
		return a.Source.CustomerID
	}
	return a.CustomerID
}

// Priced is a quote's locked conversion.
type Priced struct {
	Rate fx.Rate
	fx.Conversion
	// NetworkFee is what the quote reserves, in receiving minor units, for the fee the
	// payout rail's network charges on top of the receiving amount (a Lightning route's
	// fees; rail.FeeReserver): the conversion buys Receiving + NetworkFee, and the payout
	// may spend at most NetworkFee on the network. 0 when the rail charges nothing.
	NetworkFee int64
	// ExchangeRate is sending units (major) per receiving unit, as the API shows it.
	ExchangeRate decimal.Decimal
	// SenderInfo is the sender's information the receiver requires, as the quote
	// records it.
	SenderInfo map[string]string
	// Remote is, for a receiver elsewhere, what its provider answered the pay request
	// with: Receiving is then the invoice's satoshis, and the receiver gets Remote.Amount.
	Remote *Remote `json:",omitempty"`
}

// Price prices r on accounts a (checked by Check) at the moment at: the locked amount
// converted at the service's rate, less the network fee reserve of the payout's rail
// (reserve, nil when its network charges nothing on top; see NetworkFee), then checked
// against the platform's configuration (both currencies supported with outgoing payments
// enabled, the sending total and the receiving amount within their limits) and the
// counterparty fields it requires.
func Price(r Request, a Accounts, rates fx.Provider, p fx.Pricing, at time.Time, reserve func(int64) int64) (Priced, error) {
	if a.Destination.Elsewhere {
		if a.Destination.Remote == nil {
			return Priced{}, errNotAsked
		}
		return priceRemote(r, a, rates, p, at, reserve)
	}
	from, okFrom := money.Lookup(a.SendingCurrency(r))
	to, okTo := money.Lookup(a.Destination.Currency)
	if !okFrom || !okTo {
		return Priced{}, problem.FieldCode(catalog.InvalidCurrency, fieldDestination, "no rate for %s → %s", a.SendingCurrency(r), a.Destination.Currency)
	}
	rate, err := fx.Price(rates, from, to, p, at)
	if err != nil {
		return Priced{}, problem.FieldCode(catalog.InvalidCurrency, fieldDestination, "%s → %s cannot be priced: %v", from.Code, to.Code, err)
	}
	if rate, err = withPlatformFee(rate, r, a, to.Code); err != nil {
		return Priced{}, err
	}
	var conv fx.Conversion
	var networkFee int64
	if r.LockedSide == Sending {
		conv, err = rate.Sending(r.LockedAmount)
		if err == nil && reserve != nil {
			conv.Receiving, networkFee = splitReserve(conv.Receiving, reserve)
		}
	} else {
		locked := r.LockedAmount
		if reserve != nil && locked > 0 {
			if networkFee = reserve(locked); networkFee > math.MaxInt64-locked {
				networkFee = 0
				err = fx.ErrTooLarge
			}
		}
		if err == nil {
			conv, err = rate.Receiving(locked + networkFee)
			conv.Receiving = locked
		}
	}
	switch {
	case err != nil:
		return Priced{}, problem.FieldCode(catalog.AmountOutOfRange, fieldAmount, "%d %s cannot be quoted: %v", r.LockedAmount, lockedCurrency(r, from, to), err)
	case (conv.Receiving <= 0 || conv.Net <= 0) && networkFee > 0:
		return Priced{}, problem.FieldCode(catalog.AmountOutOfRange, fieldAmount,
			"%d %s is too small: after fees of %d %s and the network's fee of %d %s nothing would be received",
			r.LockedAmount, lockedCurrency(r, from, to), rate.FixedFee, from.Code, networkFee, to.Code)
	case conv.Receiving <= 0 || conv.Net <= 0:
		return Priced{}, problem.FieldCode(catalog.AmountOutOfRange, fieldAmount,
			"%d %s is too small: after fees of %d %s nothing would be received", r.LockedAmount, lockedCurrency(r, from, to), rate.FixedFee, from.Code)
	}
	if err := a.Currencies.CheckAmount(from.Code, catalog.Outgoing, conv.Total); err != nil {
		return Priced{}, amountField(err)
	}
	if err := a.Limits.CheckSize(fieldAmount, from.Code, conv.Total); err != nil {
		return Priced{}, err
	}
	if err := a.Currencies.CheckAmount(to.Code, receivingType(a), conv.Receiving); err != nil {
		return Priced{}, amountField(err)
	}
	if a.Destination != nil && !a.Destination.Internal {
		if err := ownership.CheckPayment(catalog.ExternalAccountStatus(a.Destination.Status), to.Code, conv.Receiving); err != nil {
			return Priced{}, err
		}
	}
	if r.ImmediatelyExecute && a.Source != nil && a.Source.Available < conv.Total {
		return Priced{}, problem.FieldCode(catalog.InsufficientFunds, fieldAmount,
			"executing the quote at once takes %d %s, above the account's available balance", conv.Total, from.Code)
	}
	info, err := senderInfo(r, a, to.Code)
	if err != nil {
		return Priced{}, err
	}
	return Priced{Rate: rate, Conversion: conv, NetworkFee: networkFee, ExchangeRate: rate.ExchangeRate(), SenderInfo: info}, nil
}

// withPlatformFee is rate with the fee the platform charges on r (platformfee.Fee: its
// override, else its configuration for a payment received in receiving). A fee is paid to
// the platform's own account in the sending currency, which it must have.
func withPlatformFee(rate fx.Rate, r Request, a Accounts, receiving string) (fx.Rate, error) {
	fee, err := platformfee.Fee(r.PlatformFeeOverride, a.FeeConfigs, rate.From.Code, receiving)
	if err != nil {
		return fx.Rate{}, err
	}
	if !fee.IsZero() && !a.PlatformAccount.Valid {
		return fx.Rate{}, problem.Field("platformFeeOverride", "the platform has no internal account in %s to be paid its fee in: support %s (PATCH /config) first", rate.From.Code, rate.From.Code)
	}
	rate.Platform = fx.PlatformFee{Fixed: fee.Fixed, VariableRate: fee.VariableRate}
	return rate, nil
}

// splitReserve splits gross receiving minor units into the most a payout can receive and
// the network fee reserved for paying it: the largest amount whose reserve fits beside it
// in gross (reserve never decreases as the amount grows), the fee being what gross leaves
// over. An amount of 0 or less means gross does not cover the reserve.
func splitReserve(gross int64, reserve func(int64) int64) (amount, fee int64) {
	fits := func(a int64) bool { r := reserve(a); return r >= 0 && r <= gross-a }
	lo, hi := int64(0), gross // fits(lo) or lo == 0; the answer is in [lo, hi]
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo == 0 {
		return 0, gross
	}
	return lo, gross - lo
}

// receivingType is the direction the receiving currency must allow: a payment into an
// internal account is incoming for it, a payout to an external account is outgoing.
func receivingType(a Accounts) catalog.TransactionType {
	if a.Destination.Internal {
		return catalog.Incoming
	}
	return catalog.Outgoing
}

func lockedCurrency(r Request, from, to money.Currency) string {
	if r.LockedSide == Sending {
		return from.Code
	}
	return to.Code
}

// amountField names the locked amount in a limit refusal of the configuration.
func amountField(err error) error {
	if fe, ok := err.(*problem.FieldError); ok && fe.Field == "amount" {
		out := *fe
		out.Field = fieldAmount
		return &out
	}
	return err
}

// senderInfo is the sender's information the quote carries: what the service knows of the
// source account's customer, overridden by the request's senderCustomerInfo. Every
// mandatory requiredCounterpartyFields entry of the receiving currency must be in it;
// otherwise the quote is refused with MISSING_MANDATORY_USER_INFO naming the fields.
func senderInfo(r Request, a Accounts, receiving string) (map[string]string, error) {
	info := maps.Clone(a.Sender)
	if info == nil {
		info = map[string]string{}
	}
	maps.Copy(info, r.SenderCustomerInfo)
	var missing []string
	for _, f := range a.Destination.PayerFields {
		if strings.TrimSpace(info[f]) == "" {
			missing = append(missing, f)
		}
	}
	if c, ok := a.Currencies.Find(receiving); ok {
		for _, f := range c.RequiredCounterpartyFields {
			if f.Mandatory != nil && *f.Mandatory && strings.TrimSpace(info[f.Name]) == "" {
				missing = append(missing, f.Name)
			}
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, problem.FieldCode(catalog.MissingMandatoryUserInfo, fieldInfo,
			"the receiver or the platform requires %s of the sender for payments in %s: add them to senderCustomerInfo", strings.Join(missing, ", "), receiving).
			With(map[string]any{"missingFields": missing})
	}
	if len(info) == 0 {
		return nil, nil
	}
	return info, nil
}

// Rail is what executing a quote takes: where the money goes and the platform's
// environment, as the create step found them (TransactionID and Currency are absent from
// rails recorded before they existed).
type Rail struct {
	Internal bool // into an internal account of this deployment
	Uma      bool // to a UMA address (Identifier)
	// Counterpart, for a UMA address of a customer on this deployment, is the incoming
	// payment the receiving platform approves.
	Counterpart *Counterpart `json:",omitempty"`
	Deposit     bool         // funded by a deposit (REALTIME_FUNDING), which a failure gives back
	Identifier  string       // the external account's primary identifier
	// AccountType is the external account's type ("" for other destinations, and in rails
	// recorded before it existed).
	AccountType string `json:",omitempty"`
	Environment catalog.Environment
	// Invoice is, for a receiver elsewhere, the invoice its provider answered the pay
	// request with, which the payout pays ("" for every other destination); Callback is
	// where that provider asked to be told which channels carried the payment ("" none),
	// and Domain the platform's UMA domain the callback is signed for.
	Invoice  string `json:",omitempty"`
	Callback string `json:",omitempty"`
	Domain   string `json:",omitempty"`
	// TransactionID is the quote's transaction, the payout's idempotency key at its rail.
	TransactionID uuid.UUID `json:",omitzero"`
	// Currency is the receiving currency, what the payout moves.
	Currency string `json:",omitempty"`
	// Amount is the receiving amount.
	Amount int64 `json:",omitempty"`
	// Platform is the quote's platform, for the routes that name one (absent from rails
	// recorded before it existed).
	Platform uuid.UUID `json:",omitzero"`
	// FeeLimit is the network fee the quote reserved (Priced.NetworkFee): the most the
	// payout's network may charge on top of Amount; 0 none (the rail's default limit).
	FeeLimit int64 `json:",omitempty"`
	// PaymentRail is the network a payout to a bank account travels on (the quote's rail
	// choice; "" for other destinations, and in rails recorded before it existed), and
	// Purpose the purposeOfPayment and Remittance the remittanceInformation that travel with
	// it.
	PaymentRail string `json:",omitempty"`
	Purpose     string `json:",omitempty"`
	Remittance  string `json:",omitempty"`
}

// Instruction is the payout as its rail is given it; false for a payment into an internal
// account, which no rail carries (it completes).
func (r Rail) Instruction() (rail.Instruction, bool) {
	if r.Internal {
		return rail.Instruction{}, false
	}
	return rail.Instruction{Key: r.TransactionID.String(), Payment: rail.Payout, Environment: r.Environment, Platform: r.Platform, Currency: r.Currency,
		Kind: r.Kind(), AccountType: r.AccountType, Identifier: r.Identifier, Invoice: r.Invoice, Amount: r.Amount, FeeLimit: r.FeeLimit,
		PaymentRail: r.PaymentRail, PurposeOfPayment: r.Purpose, RemittanceInformation: r.Remittance}, true
}

// Kind is the kind of destination the payout goes to.
func (r Rail) Kind() rail.Kind {
	if r.Uma {
		return rail.UMA
	}
	return rail.ExternalAccount
}

// Unavailable is how a payout ends that no configured rail serves when it reaches its
// rail step (a quote created before such payouts were refused up front, or before the
// configuration changed): FAILED with RAIL_UNAVAILABLE before any money leaves.
func (r Rail) Unavailable() rail.Outcome {
	return rail.Outcome{Status: catalog.TxFailed, Code: catalog.FailRailUnavailable, Message: "no payout rail is connected for production payments",
		FailureReason: sandbox.ReasonQuoteExecutionFailed}
}

// Completed is how a payment into an internal account ends: no rail is involved.
func (r Rail) Completed() rail.Outcome {
	return rail.Outcome{Status: catalog.TxCompleted}
}

// Settle is how the quote's payment ends with its payout's outcome: a deposit that funded
// a failed payment is always refunded (the payer sent it from outside).
func (r Rail) Settle(out rail.Outcome) rail.Outcome {
	if r.Deposit && out.Status == catalog.TxFailed && out.Refund == "" {
		out.Refund = sandbox.RefundTransactionFailed
	}
	return out
}

// Rails answers whether a configured rail serves payments, and what the serving rail
// reserves for its network's fee (rail.Registry).
type Rails interface {
	Require(t rail.Target) error
	FeeReserve(t rail.Target) func(amount int64) int64
}

// CheckRail is the rail rule, applied with Decide under the same transaction: a quote
// paying out to an external account or a UMA address that no configured rail serves (its
// platform's environment, the receiving currency, the kind of destination) is refused
// with RAIL_NOT_CONFIGURED before anything is created. A payment into an internal
// account needs no rail.
func CheckRail(r Request, a Accounts, rails Rails) error {
	t, ok := payoutTarget(r, a)
	if !ok {
		return nil
	}
	return rails.Require(t)
}

// payoutTarget is where the quote's payout goes, for routing it to its rail; false for a
// payment into an internal account, which no rail carries.
func payoutTarget(r Request, a Accounts) (rail.Target, bool) {
	if a.Destination == nil || a.Destination.Internal {
		return rail.Target{}, false
	}
	kind, currency := rail.ExternalAccount, a.Destination.Currency
	if a.Destination.Uma {
		kind = rail.UMA
	}
	if a.Destination.Elsewhere {
		currency = PayoutCurrency
	}
	return rail.Target{Environment: a.Environment, Platform: r.PlatformID, Currency: currency, Kind: kind, AccountType: a.Destination.AccountType}, true
}

// PayoutTarget is where the quote r on a pays out, for routing it to its rail; false for a
// payment into an internal account, which no rail carries.
func PayoutTarget(r Request, a Accounts) (rail.Target, bool) { return payoutTarget(r, a) }

// feeReserve is the network fee reservation of the rail that pays the quote r on a out
// (nil: none, or the payment goes into an internal account).
func feeReserve(r Request, a Accounts, rails Rails) func(int64) int64 {
	if t, ok := payoutTarget(r, a); ok {
		return rails.FeeReserve(t)
	}
	return nil
}

// Counterpart is the incoming payment a payment to a UMA address of a customer on this
// deployment makes on the receiving platform, which approves it before the money moves.
type Counterpart struct {
	TransactionID uuid.UUID // the INCOMING transaction on the receiving platform
	PlatformID    uuid.UUID
	CustomerID    uuid.UUID
	Currency      string
	Amount        int64
	SenderUma     string
	SenderName    string
}

// CounterpartID is the id of the incoming transaction a quote's payment (transactionID)
// makes on the receiving platform: derived from it, so a retried step makes the same one.
func CounterpartID(transactionID uuid.UUID) uuid.UUID {
	return uuid.NewSHA1(transactionID, []byte("counterpart"))
}
