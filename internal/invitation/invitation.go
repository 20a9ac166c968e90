// Package invitation describes UMA invitations: a platform's customer (the inviter, by UMA
// address) invites someone by a shareable code; a platform of the same environment claims
// it for its customer (the invitee, by UMA address), and the inviter's platform is told
// with the INVITATION_CLAIMED webhook, after which it sends amountToSend itself (the
// service shows the amount and never moves it). The package holds the codes, the request
// the API hands to the invitation's workflow, and the rules of its states: PENDING until
// it is claimed, cancelled by its platform, or expires.
package invitation

import (
	"crypto/rand"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/customer"
	"paycore/internal/problem"
)

// Lifetimes and limits of an invitation.
const (
	// DefaultLifetime is how long an invitation created without expiresAt stays claimable.
	DefaultLifetime = 30 * 24 * time.Hour
	// MaxLifetime is the latest expiresAt accepted, from now.
	MaxLifetime = 365 * 24 * time.Hour
	// MaxAmount is the largest amountToSend accepted.
	MaxAmount = 9_000_000_000_000_000
	// MaxFirstName is the longest firstName accepted, in characters.
	MaxFirstName = 255
)

// codeAlphabet is Crockford's base 32: digits and upper-case letters without I, L, O and
// U, so a code read aloud or typed is not mistaken.
const codeAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// CodeLength is the length of a code: 16 characters of 5 random bits, 80 bits that cannot
// be guessed, URL-safe as they are.
const CodeLength = 16

// NewCode returns a fresh random invitation code.
func NewCode() string {
	b := make([]byte, CodeLength)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	for i := range b {
		b[i] = codeAlphabet[b[i]&31]
	}
	return string(b)
}

// ParseCode reads a code as a person may type it (either case); ok is false when s cannot
// be a code.
func ParseCode(s string) (code string, ok bool) {
	if len(s) != CodeLength {
		return "", false
	}
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
			b[i] = c
		}
		if strings.IndexByte(codeAlphabet, c) < 0 {
			return "", false
		}
	}
	return string(b), true
}

// URL is where the invitee opens the invitation: the code under base.
func URL(base, code string) string {
	return strings.TrimRight(base, "/") + "/" + code
}

// Input is the body of POST /invitations (UmaInvitationCreateRequest) as decoded.
type Input struct {
	InviterUma   *string `json:"inviterUma"`
	FirstName    *string `json:"firstName"`
	AmountToSend *int64  `json:"amountToSend"`
	ExpiresAt    *string `json:"expiresAt"`
}

// Request is an invitation to create, as the API hands it to the invitation's workflow:
// checked for shape, with its code, URL and expiry decided.
type Request struct {
	Code       string
	PlatformID uuid.UUID
	InviterUma string
	FirstName  string `json:",omitempty"`
	// AmountToSend is shown in the inviter customer's first currency; 0 when none is given.
	AmountToSend int64 `json:",omitempty"`
	ExpiresAt    time.Time
	URL          string
	// Environment is the environment of the creating platform, for the invitation's
	// workflow to refuse another environment's claims as the database does ("" in the
	// workflows of invitations created before it was recorded).
	Environment catalog.Environment `json:",omitempty"`
}

// NewRequest checks the shape of a create request and completes it: the code and URL
// given, expiresAt DefaultLifetime from now when it is not given. Whether the inviter is a
// customer of the platform is decided by Admit, on the stored state.
func NewRequest(platformID uuid.UUID, code, url string, in Input, now time.Time) (Request, error) {
	r := Request{Code: code, PlatformID: platformID, URL: url, ExpiresAt: now.Add(DefaultLifetime).UTC().Truncate(time.Microsecond)}
	if in.InviterUma == nil {
		return r, problem.Field("inviterUma", "inviterUma is required: the UMA address of the inviting customer")
	}
	if _, _, ok := customer.SplitUmaAddress(*in.InviterUma); !ok {
		return r, notUma("inviterUma")
	}
	r.InviterUma = *in.InviterUma
	if in.FirstName != nil {
		if utf8.RuneCountInString(*in.FirstName) > MaxFirstName {
			return r, problem.Field("firstName", "firstName must be at most %d characters", MaxFirstName)
		}
		r.FirstName = *in.FirstName
	}
	if in.AmountToSend != nil {
		if *in.AmountToSend <= 0 || *in.AmountToSend > MaxAmount {
			return r, problem.Field("amountToSend", "amountToSend must be from 1 to %d (in the smallest unit of the inviter's currency)", int64(MaxAmount))
		}
		r.AmountToSend = *in.AmountToSend
	}
	if in.ExpiresAt != nil {
		t, err := time.Parse(time.RFC3339Nano, *in.ExpiresAt)
		switch {
		case err != nil:
			return r, problem.Field("expiresAt", "expiresAt must be an ISO 8601 date-time such as 2025-10-13T00:00:00Z")
		case !t.After(now):
			return r, problem.Field("expiresAt", "expiresAt must be in the future")
		case t.After(now.Add(MaxLifetime)):
			return r, problem.Field("expiresAt", "expiresAt must be at most %d days from now", int(MaxLifetime/(24*time.Hour)))
		}
		// Postgres keeps microseconds: the stored instant is the one the workflow waits for.
		r.ExpiresAt = t.UTC().Truncate(time.Microsecond)
	}
	return r, nil
}

// CheckInviteeUma checks the address an invitation is claimed for (inviteeUma): a UMA
// address of the same syntax as customers' addresses.
func CheckInviteeUma(addr string) error {
	if _, _, ok := customer.SplitUmaAddress(addr); !ok {
		return notUma("inviteeUma")
	}
	return nil
}

func notUma(field string) error {
	return problem.FieldCode(catalog.InvalidUmaAddress, field,
		"%s must be a UMA address such as $alice@pay.example.com (lower-case letters, digits, '.', '_' or '-' before the @)", field)
}

// Inviter is what creating an invitation reads: the platform's UMA domain and the
// platform's (not deleted) customer with the inviter's address, if any.
type Inviter struct {
	UmaDomain string
	// Found is false when no customer of the platform has the address.
	Found      bool
	CustomerID uuid.UUID
	Currencies []string
}

// Terms are what Admit decided of a new invitation: the inviter customer and the currency
// amountToSend is shown in ("" without an amount).
type Terms struct {
	CustomerID uuid.UUID
	Currency   string
}

// Admit decides whether the platform may create r: it must have a UMA domain (else
// INVITATIONS_NOT_CONFIGURED), the inviter must be one of its customers (else
// INVALID_UMA_ADDRESS), and an amountToSend needs a currency of the inviter's.
func Admit(r Request, in Inviter) (Terms, error) {
	switch {
	case in.UmaDomain == "":
		return Terms{}, problem.Refuse(catalog.InvitationsNotConfigured,
			"the platform has no umaDomain and cannot issue invitations; set one with PATCH /config")
	case !in.Found:
		return Terms{}, problem.FieldCode(catalog.InvalidUmaAddress, "inviterUma", "inviterUma %s is not the UMA address of one of the platform's customers", r.InviterUma)
	}
	t := Terms{CustomerID: in.CustomerID}
	if r.AmountToSend > 0 {
		if len(in.Currencies) == 0 {
			return Terms{}, problem.FieldCode(catalog.InvalidCurrency, "amountToSend", "the inviting customer holds no currency to show amountToSend in")
		}
		t.Currency = in.Currencies[0]
	}
	return t, nil
}

// State is what the rules read of a stored invitation.
type State struct {
	Code       string
	PlatformID uuid.UUID
	// Environment is the environment of the inviter's platform; "" when the reader does
	// not know it (the database reads an invitation as the caller's environment sees it).
	Environment catalog.Environment
	InviterUma  string
	Status      catalog.InvitationStatus
	ExpiresAt   *time.Time
	// EndKey is the key of the request that claimed or cancelled the invitation ("" while
	// nobody did).
	EndKey string
}

// StatusAt is the invitation's status at now: a PENDING invitation past its expiresAt is
// EXPIRED even before its workflow's timer has recorded it.
func (s State) StatusAt(now time.Time) catalog.InvitationStatus {
	if s.Status == catalog.InvPending && s.ExpiresAt != nil && !now.Before(*s.ExpiresAt) {
		return catalog.InvExpired
	}
	return s.Status
}

// Claim is a platform's claim of an invitation for its customer's UMA address. Key
// identifies the request: a repeat of the claim that succeeded is answered with the
// invitation, not refused.
type Claim struct {
	PlatformID  uuid.UUID
	Environment catalog.Environment
	InviteeUma  string
	Key         string
}

// Cancel is a platform's cancellation of an invitation; Key as for Claim.
type Cancel struct {
	PlatformID  uuid.UUID
	Environment catalog.Environment
	Key         string
}

// Invitee is what claiming reads of the invitee: whether its address is one of the
// claiming platform's (not deleted) customers.
type Invitee struct {
	Customer bool
}

// CheckClaim decides whether c may claim the invitation at now for invitee (see
// State.Claim).
func CheckClaim(s State, c Claim, invitee Invitee, now time.Time) error {
	_, err := s.Claim(c, invitee, now, true)
	return err
}

// CheckCancel decides whether c may cancel the invitation at now (see State.Cancel).
func CheckCancel(s State, c Cancel, now time.Time) error {
	_, err := s.Cancel(c, now, true)
	return err
}
