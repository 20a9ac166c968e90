// Package ownership decides the ownership verification of self-custody crypto wallets
// (external accounts): which accounts need it, the challenge that proves it (a message the
// wallet signs, or a hosted liveness check), how an answer changes the account's status,
// and how much an account whose ownership is unproven may receive.
//
// The states: a FIRST_PARTY self-custody wallet is created PENDING_OWNERSHIP_VERIFICATION
// (every other account ACTIVE). A challenge may be started from PENDING_OWNERSHIP_VERIFICATION
// or UNVERIFIED and leaves the account PENDING_OWNERSHIP_VERIFICATION, replacing any
// challenge outstanding. A valid answer makes it ACTIVE; an invalid or late one UNVERIFIED.
// Either way the challenge is used up. An ACTIVE account is verified for good.
package ownership

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/extaccount"
	"paycore/internal/money"
	"paycore/internal/problem"
	"paycore/internal/sandbox"
	"paycore/internal/walletsig"
)

// Type is whose an external account is.
type Type string

// Ownership types.
const (
	FirstParty Type = "FIRST_PARTY"
	ThirdParty Type = "THIRD_PARTY"
)

// Method is how an owner proves control of a wallet.
type Method string

// Verification methods.
const (
	// WalletSignature: the wallet signs the challenge's message.
	WalletSignature Method = "WALLET_SIGNATURE"
	// Liveness: the owner completes a hosted biometric check; the outcome arrives later.
	Liveness Method = "LIVENESS"
)

// How long a challenge may be answered.
const (
	SignatureTTL = 15 * time.Minute
	LivenessTTL  = 30 * time.Minute
)

// Account is what the rules read of an external account.
type Account struct {
	Status catalog.ExternalAccountStatus
	// AccountType and Address are its accountType and primary identifier (a wallet's address).
	AccountType string
	Address     string
	// Ownership is its ownershipType ("" when none was given).
	Ownership Type
	// Custodial: the wallet is held by a VASP (accountInfo.vaspName was given).
	Custodial bool
	// Challenge is the outstanding challenge, nil when none is.
	Challenge *Challenge
}

// Challenge is an issued challenge.
type Challenge struct {
	Method Method
	// Message is the text to sign (WalletSignature only).
	Message   string
	ExpiresAt time.Time
}

// Network is the network a wallet's signatures are checked on, "" when the account is not
// a wallet this service can check (a bank account, LIGHTNING).
func Network(accountType string) string {
	n := extaccount.Network(accountType)
	for _, s := range walletsig.Networks() {
		if s == n {
			return n
		}
	}
	return ""
}

// Required reports whether an account's ownership must be verified: a FIRST_PARTY wallet
// held by its owner (no VASP), on a network whose signatures this service checks.
func Required(accountType string, t Type, custodial bool) bool {
	return t == FirstParty && !custodial && Network(accountType) != ""
}

// InitialStatus is the status an account is created with.
func InitialStatus(accountType string, t Type, custodial bool) catalog.ExternalAccountStatus {
	if Required(accountType, t, custodial) {
		return catalog.ExternalPendingOwnership
	}
	return catalog.ExternalActive
}

// Unproven reports whether status is one of an account whose ownership is not verified.
func Unproven(status catalog.ExternalAccountStatus) bool {
	return status == catalog.ExternalPendingOwnership || status == catalog.ExternalUnverified
}

// CheckMethod checks the method of a challenge request; livenessOffered says whether a
// liveness check can be run for the account: the rail that serves it has a provider that
// checks owners (rail.LivenessChecker; the sandbox rail simulates one, no production rail
// has one yet), else LIVENESS is 501 NOT_IMPLEMENTED.
func CheckMethod(m *string, livenessOffered bool) (Method, error) {
	switch {
	case m == nil:
		return "", problem.Field("method", "method is required: WALLET_SIGNATURE or LIVENESS")
	case Method(*m) == WalletSignature:
		return WalletSignature, nil
	case Method(*m) != Liveness:
		return "", problem.Field("method", "method must be WALLET_SIGNATURE or LIVENESS")
	case !livenessOffered:
		return "", problem.FieldCode(catalog.NotImplemented, "method",
			"no liveness provider is connected for this account's rail: prove ownership with WALLET_SIGNATURE")
	}
	return Liveness, nil
}

// Start issues a challenge of method m for account a at now; nonce makes its message
// unique. The account is then PENDING_OWNERSHIP_VERIFICATION.
func Start(a Account, m Method, nonce string, now time.Time) (Challenge, error) {
	switch {
	case !Required(a.AccountType, a.Ownership, a.Custodial):
		return Challenge{}, problem.Refuse(catalog.Conflict,
			"ownership verification applies to FIRST_PARTY self-custody crypto wallets only")
	case a.Status == catalog.ExternalActive:
		return Challenge{}, problem.Refuse(catalog.Conflict, "the wallet's ownership is verified already")
	case !Unproven(a.Status):
		return Challenge{}, problem.Refuse(catalog.Conflict, "the external account is %s", a.Status)
	}
	if m == Liveness {
		return Challenge{Method: Liveness, ExpiresAt: now.Add(LivenessTTL)}, nil
	}
	return Challenge{Method: WalletSignature, ExpiresAt: now.Add(SignatureTTL),
		Message: fmt.Sprintf("I verify that I control the wallet %s. Nonce: %s", a.Address, nonce)}, nil
}

// Answer is a signature submitted for a WALLET_SIGNATURE challenge.
type Answer struct {
	Signature       *string `json:"signature"`
	SignatureScheme *string `json:"signatureScheme"`
}

// Check checks the answer's shape: a signature of at most 1024 characters and a known
// scheme.
func (r Answer) Check() error {
	switch {
	case r.Signature == nil || *r.Signature == "":
		return problem.Field("signature", "signature is required")
	case len(*r.Signature) > 1024:
		return problem.Field("signature", "signature is at most 1024 characters")
	case r.SignatureScheme != nil && *r.SignatureScheme != "bip137" && *r.SignatureScheme != "electrum":
		return problem.Field("signatureScheme", "signatureScheme must be bip137 or electrum")
	}
	return nil
}

// Verify decides answer r to account a's challenge at now. It returns the account's new
// status and, when the proof fails, the refusal to answer with (the new status,
// UNVERIFIED, is to be kept all the same). No outstanding WALLET_SIGNATURE challenge is a
// refusal that changes nothing (status ""). A sandbox platform's magic signature
// (sandbox.WalletSignature) counts as a valid one.
func Verify(a Account, r Answer, isSandbox bool, now time.Time) (catalog.ExternalAccountStatus, error) {
	if a.Challenge == nil || a.Challenge.Method != WalletSignature || !Unproven(a.Status) {
		return "", problem.Refuse(catalog.Conflict, "no WALLET_SIGNATURE challenge is outstanding for this external account")
	}
	if err := r.Check(); err != nil {
		return "", err
	}
	if !now.Before(a.Challenge.ExpiresAt) {
		return catalog.ExternalUnverified, problem.Field("signature",
			"the challenge expired at %s: start a new challenge", a.Challenge.ExpiresAt.UTC().Format(time.RFC3339))
	}
	if sandbox.WalletSignature.Accepts(isSandbox, *r.Signature) {
		return catalog.ExternalActive, nil
	}
	scheme := ""
	if r.SignatureScheme != nil {
		scheme = *r.SignatureScheme
	}
	err := walletsig.Verify(Network(a.AccountType), a.Address, a.Challenge.Message, *r.Signature, scheme)
	switch {
	case err == nil:
		return catalog.ExternalActive, nil
	case errors.Is(err, walletsig.ErrMismatch):
		return catalog.ExternalUnverified, problem.Field("signature",
			"the signature is not the wallet's over the challenge's messageToSign: start a new challenge")
	default:
		return catalog.ExternalUnverified, problem.Field("signature",
			"the signature is malformed for a %s wallet (%v): start a new challenge", Network(a.AccountType), err)
	}
}

// LivenessDecision decides a liveness check that ran for account a: only the challenge it
// was started for (issued at expiresAt) counts, and only while a is still waiting for it.
// passed is the provider's outcome. ok is false when nothing is to change (the check was
// replaced, or the account was verified meanwhile).
func LivenessDecision(a Account, expiresAt time.Time, passed bool) (status catalog.ExternalAccountStatus, ok bool) {
	if a.Challenge == nil || a.Challenge.Method != Liveness || !a.Challenge.ExpiresAt.Equal(expiresAt) || !Unproven(a.Status) {
		return "", false
	}
	if passed {
		return catalog.ExternalActive, true
	}
	return catalog.ExternalUnverified, true
}

// Threshold is the most an account whose ownership is unproven receives in one payment,
// in the smallest unit of currency: the EU Travel Rule's 1 000 euro line, taken as 1 000
// units of a dollar stablecoin and 0.01 BTC. Other currencies (a wallet's are only these)
// have none.
func Threshold(currency string) int64 {
	c, ok := money.Lookup(currency)
	if !ok {
		return 0
	}
	switch currency {
	case "BTC":
		return 1_000_000
	case "USDC", "USDT", "USDB":
		return 1000 * pow10(c.Decimals)
	}
	return 0
}

func pow10(n int) int64 {
	out := int64(1)
	for range n {
		out *= 10
	}
	return out
}

// CheckPayment is nil when an account in status may receive amount of currency: any
// amount for an ACTIVE account, up to Threshold for one whose ownership is unproven. Other
// statuses are the caller's to refuse.
func CheckPayment(status catalog.ExternalAccountStatus, currency string, amount int64) error {
	if !Unproven(status) || amount <= Threshold(currency) {
		return nil
	}
	c, _ := money.Lookup(currency)
	return problem.Refuse(catalog.ExternalAccountVerificationRequired,
		"the destination wallet's ownership is not verified (%s): it receives at most %s %s per payment until its owner proves control of it "+
			"(POST /customers/external-accounts/{externalAccountId}/challenge)", status, c.Format(Threshold(currency)), currency)
}

// Target names the external account a verification is of, as the request that started it
// may reach it: the platform's own account (PlatformOwned) or a customer's, and, when
// Customer is valid, that customer's only (an agent's request).
type Target struct {
	PlatformID    uuid.UUID
	AccountID     uuid.UUID
	PlatformOwned bool
	Customer      uuid.NullUUID
	// Sandbox: the platform is a sandbox one (its magic signature, its liveness check).
	Sandbox bool
}
