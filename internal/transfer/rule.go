package transfer

import (
	"github.com/google/uuid"

	"paycore/internal/account"
	"paycore/internal/banking"
	"paycore/internal/catalog"
	"paycore/internal/customer"
	"paycore/internal/extaccount"
	"paycore/internal/kyc"
	"paycore/internal/ownership"
	"paycore/internal/platformconfig"
	"paycore/internal/problem"
	"paycore/internal/rail"
)

// Accounts is everything a transfer is checked against, as one read loads it: the two
// accounts the request names (nil when the platform has no such account), the internal
// account's customer and the platform's configuration.
type Accounts struct {
	Internal *InternalAccount
	External *ExternalAccount
	// CustomerDeleted is set when the internal account's customer is deleted.
	CustomerDeleted bool
	// CustomerKyc is that customer's KYC/KYB status ("" for the platform's accounts): only
	// an APPROVED customer moves money.
	CustomerKyc catalog.KycStatus
	// TermsMissing: the platform requires its customers' acceptance of the End User Terms
	// and that customer has not accepted them.
	TermsMissing bool
	// PlatformCustomerID is the platform's own id of that customer ("" for the platform's
	// accounts); transactions record it.
	PlatformCustomerID string
	Currencies         platformconfig.Currencies
	Environment        catalog.Environment
}

// InternalAccount is what the rule reads of the internal account.
type InternalAccount struct {
	ID         uuid.UUID
	Type       catalog.AccountType
	Status     catalog.AccountStatus
	Currency   string
	CustomerID uuid.NullUUID // not valid for the platform's own accounts
	Available  int64         // balance minus holds
}

// ExternalAccount is what the rule reads of the external account.
type ExternalAccount struct {
	ID         uuid.UUID
	Status     catalog.ExternalAccountStatus
	Currency   string
	CustomerID uuid.NullUUID
	Identifier string // the primary identifier, whose suffix drives sandbox outcomes
	Type       string // its accountType (US_ACCOUNT, IBAN, LIGHTNING, ...), which routes it to a rail
	// PaymentRails are the payment rails it is paid over (a bank account's ACH, WIRE, ...;
	// none for a wallet), the first being the default.
	PaymentRails []string
}

// Check is the transfer rule: nil when r may be created on these accounts, else the
// refusal (a *problem.FieldError or *problem.Refusal with its catalogue code). The create
// step applies it under the internal account's lock, where what it reads stays true until
// the transfer is written. In order: both accounts exist, hold the same currency, have one
// owner and are ACTIVE (or a wallet whose ownership is unproven, for an amount up to
// ownership.Threshold); the customer is not deleted; the platform supports the currency
// with the transfer's direction enabled and the amount within its limits; and a transfer
// out does not exceed the available balance.
func Check(r Request, a Accounts) error {
	if err := checkAccounts(r, a); err != nil {
		return err
	}
	return checkBalance(r, a)
}

// checkAccounts is the rule up to the balance.
func checkAccounts(r Request, a Accounts) error {
	internalField, externalField := r.Kind.InternalField(), r.Kind.ExternalField()
	switch {
	case a.Internal == nil:
		return account.NotFound()
	case a.External == nil:
		return extaccount.NotFound()
	case a.Internal.Currency != a.External.Currency:
		return problem.FieldCode(catalog.InvalidCurrency, externalField,
			"same-currency transfer: the internal account holds %s but the external account is in %s", a.Internal.Currency, a.External.Currency)
	case a.Internal.CustomerID != a.External.CustomerID:
		return problem.Field(externalField, "the external account belongs to another owner than the internal account")
	case a.Internal.Status != catalog.AccountActive:
		return problem.Field(internalField, "the internal account is %s", a.Internal.Status)
	case a.External.Status != catalog.ExternalActive && !ownership.Unproven(a.External.Status):
		return problem.Field(externalField, "the external account is %s", a.External.Status)
	case a.CustomerDeleted:
		return problem.Refuse(catalog.CustomerDeleted, "the accounts' customer is deleted")
	case a.CustomerKyc != "" && a.Internal.CustomerID.Valid:
		if err := kyc.Ready(a.Internal.CustomerID.UUID, a.CustomerKyc); err != nil {
			return err
		}
	}
	if a.TermsMissing {
		return customer.TermsNotAccepted()
	}
	// A wallet whose ownership is unproven moves small amounts only.
	if err := ownership.CheckPayment(a.External.Status, a.External.Currency, r.Amount); err != nil {
		return err
	}
	if _, err := r.ChooseRail(a); err != nil {
		return err
	}
	return a.Currencies.CheckAmount(a.Internal.Currency, r.Kind.Type(), r.Amount)
}

// ChooseRail is the payment rail a transfer out travels on (banking.ChooseRail): the one
// the platform named (destination.paymentRail), which the external account must offer, or
// the account's first. A transfer in is pulled over whatever its bank uses: no rail.
func (r Request) ChooseRail(a Accounts) (banking.RailChoice, error) {
	if r.Kind != Out {
		return banking.RailChoice{}, nil
	}
	return banking.ChooseRail(r.PaymentRail, a.External.PaymentRails)
}

// checkBalance is the last step of the rule: a transfer out does not exceed the available
// balance.
func checkBalance(r Request, a Accounts) error {
	if r.Kind == Out && a.Internal.Available < r.Amount {
		return problem.FieldCode(catalog.InsufficientFunds, "amount", "the account's available balance is below %d", r.Amount)
	}
	return nil
}

// Rail is what the rail step of a transfer on these accounts, of platform, needs.
func (a Accounts) Rail(platform uuid.UUID) Rail {
	return Rail{ExternalIdentifier: a.External.Identifier, AccountType: a.External.Type, Environment: a.Environment, Platform: platform,
		Currency: a.Internal.Currency}
}

// Rails answers whether a configured rail serves payments (rail.Registry).
type Rails interface {
	Require(t rail.Target) error
}

// CheckServed is Check with the rail rule, as the create step applies it under the
// internal account's lock: a transfer that no configured rail serves (its platform's
// environment, its currency, an external account) is refused with RAIL_NOT_CONFIGURED
// before anything is created or held. The rail rule comes after every rule on the
// request and the accounts and before the balance: a transfer no rail can carry is
// refused as such whatever the balance.
func CheckServed(r Request, a Accounts, rails Rails) error {
	if err := checkAccounts(r, a); err != nil {
		return err
	}
	if err := rails.Require(rail.Target{Environment: a.Environment, Platform: r.PlatformID, Currency: a.Internal.Currency, Kind: rail.ExternalAccount, AccountType: a.External.Type}); err != nil {
		return err
	}
	return checkBalance(r, a)
}

// TransactionNotFound is the refusal of a transaction the caller's platform (or, for an
// agent, its customer) does not have, of any kind (a transfer, a quote's payment, an
// incoming payment): 404 TRANSACTION_NOT_FOUND.
func TransactionNotFound() error { return problem.NotFound(catalog.TransactionNotFound, "transaction") }
