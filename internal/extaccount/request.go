package extaccount

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/problem"
	sandboxpkg "paycore/internal/sandbox"
)

// Request is the body that registers an external account, on the customer route
// (/customers/external-accounts) or the platform's (/platform/external-accounts).
type Request struct {
	CustomerID               *string         `json:"customerId"`
	Currency                 *string         `json:"currency"`
	PlatformAccountID        *string         `json:"platformAccountId"`
	DefaultUmaDepositAccount *bool           `json:"defaultUmaDepositAccount"`
	OwnershipType            *string         `json:"ownershipType"`
	AccountInfo              json.RawMessage `json:"accountInfo"`
}

// New is a checked external account to register.
type New struct {
	// CustomerID is the owner; invalid for the platform's own accounts.
	CustomerID        uuid.NullUUID
	Currency          string
	Info              Info
	PlatformAccountID *string
	// Default makes it the customer's default UMA deposit account (replacing another).
	Default bool
	// VerificationStatus and VerifiedName are what beneficiary verification found (Verify).
	VerificationStatus *string
	VerifiedName       *string
	// Ownership is the ownershipType given (FIRST_PARTY, THIRD_PARTY), "" when none was.
	Ownership string
	// Status is the status it is created with (ACTIVE unless its ownership is to be
	// verified: internal/ownership), set by the caller.
	Status catalog.ExternalAccountStatus
}

// Check checks a request that came on the platform route (platformOwned) or the
// customer route. A request on the customer route without customerId registers a
// platform account, as on the platform route.
func (r Request) Check(platformOwned bool) (New, error) {
	switch {
	case platformOwned && r.CustomerID != nil:
		return New{}, problem.Field("customerId", "platform external accounts have no customerId; use /customers/external-accounts")
	case platformOwned && r.DefaultUmaDepositAccount != nil:
		return New{}, problem.Field("defaultUmaDepositAccount", "defaultUmaDepositAccount applies to customer external accounts")
	case r.CustomerID == nil && r.DefaultUmaDepositAccount != nil:
		return New{}, problem.Field("defaultUmaDepositAccount", "defaultUmaDepositAccount applies to customer external accounts (give customerId)")
	case r.Currency == nil:
		return New{}, problem.Field("currency", "currency is required")
	case len(r.AccountInfo) == 0 || string(r.AccountInfo) == "null":
		return New{}, problem.Field("accountInfo", "accountInfo is required")
	case r.PlatformAccountID != nil && (strings.TrimSpace(*r.PlatformAccountID) == "" || len(*r.PlatformAccountID) > 255):
		return New{}, problem.Field("platformAccountId", "platformAccountId must be 1 to 255 characters")
	case r.OwnershipType != nil && *r.OwnershipType != "FIRST_PARTY" && *r.OwnershipType != "THIRD_PARTY":
		return New{}, problem.Field("ownershipType", "ownershipType must be FIRST_PARTY or THIRD_PARTY")
	}
	info, fe := Parse(*r.Currency, r.AccountInfo)
	if fe != nil {
		return New{}, problem.Field(fe.Field, "%s: %s", fe.Field, fe.Message)
	}
	n := New{Currency: *r.Currency, Info: info, PlatformAccountID: r.PlatformAccountID,
		Default: r.DefaultUmaDepositAccount != nil && *r.DefaultUmaDepositAccount, Status: catalog.ExternalActive}
	if r.OwnershipType != nil {
		n.Ownership = *r.OwnershipType
	}
	if r.CustomerID != nil {
		id, err := ids.Parse(ids.Customer, *r.CustomerID)
		if err != nil {
			return New{}, problem.Field("customerId", "customerId must be a Customer id (Customer:<uuid>)")
		}
		n.CustomerID = uuid.NullUUID{UUID: id, Valid: true}
	}
	return n, nil
}

// CheckForCustomer checks a request an agent of customer sent (POST
// /agents/me/external-accounts): the account is that customer's, whether customerId is
// omitted or names it; naming another customer is refused. Otherwise the rules of the
// customer route (Check) apply.
func (r Request) CheckForCustomer(customer uuid.UUID) (New, error) {
	own := ids.Format(ids.Customer, customer)
	if r.CustomerID != nil {
		if id, err := ids.Parse(ids.Customer, *r.CustomerID); err != nil || id != customer {
			return New{}, problem.Field("customerId", "an agent registers external accounts of its own customer only: omit customerId or give %s", own)
		}
	}
	// What the platform decides about the customer's accounts is not the agent's to set:
	// the account incoming UMA payments land on, and the platform's own reference.
	switch {
	case r.DefaultUmaDepositAccount != nil:
		return New{}, problem.Field("defaultUmaDepositAccount", "an agent cannot choose the customer's default UMA deposit account; the platform sets it")
	case r.PlatformAccountID != nil:
		return New{}, problem.Field("platformAccountId", "platformAccountId is the platform's own reference; an agent does not set it")
	}
	r.CustomerID = &own
	return r.Check(false)
}

// Verify checks the beneficiary name with the receiving bank and records the outcome.
// Sandbox platforms get the outcome of the identifier's magic suffix (102 NOT_MATCHED,
// 103 PARTIAL_MATCH, 104 PENDING, 105 invalid account, 106 UNSUPPORTED, 107
// CHECKED_BY_RECEIVING_FI, else MATCHED: sandbox.BeneficiaryCheck); production platforms
// have no name-check service connected, so the receiving institution checks. Wallets have no beneficiary.
func (n New) Verify(sandbox bool) (New, error) {
	if n.Info.IsWallet {
		return n, nil
	}
	s := func(v string) *string { return &v }
	if !sandbox {
		n.VerificationStatus = s(string(catalog.BeneficiaryCheckedByBank))
		return n, nil
	}
	status, invalid := sandboxpkg.BeneficiaryCheck(n.Info.Identifier)
	if invalid {
		return n, problem.FieldCode(catalog.InvalidBankAcct, "accountInfo", "the receiving bank reports that this account does not exist or is invalid")
	}
	n.VerificationStatus = s(string(status))
	switch status {
	case catalog.BeneficiaryPartialMatch:
		n.VerifiedName = s(partialName(n.Info.BeneficiaryName))
	case catalog.BeneficiaryMatched:
		n.VerifiedName = s(n.Info.BeneficiaryName)
	}
	return n, nil
}

// partialName is how a bank's record differs in a partial match: initials for all but the
// last name. An initial is the first character (rune), never a byte of it: "Élodie
// Durand" is "É. Durand".
func partialName(name string) string {
	parts := strings.Fields(name)
	for i := 0; i < len(parts)-1; i++ {
		_, size := utf8.DecodeRuneInString(parts[i])
		parts[i] = parts[i][:size] + "."
	}
	return strings.Join(parts, " ")
}
