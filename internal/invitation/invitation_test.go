package invitation

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

// Codes are 16 characters of the Crockford alphabet, distinct, and read back in either
// case; anything else is not a code.
func TestCodes(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		c := NewCode()
		got, ok := ParseCode(strings.ToLower(c))
		if !ok || got != c || len(c) != CodeLength {
			t.Fatalf("code %q reads back as %q %v", c, got, ok)
		}
		if seen[c] {
			t.Fatalf("code %q issued twice", c)
		}
		seen[c] = true
	}
	for _, bad := range []string{"", "7KQ2M9XD4HPRT1V", "7KQ2M9XD4HPRT1VWX", "7KQ2M9XD4HPRT1VI", "7KQ2M9XD4HPRT1V-", "7KQ2M9XD4HPRT1VÜ"} {
		if _, ok := ParseCode(bad); ok {
			t.Errorf("%q read as a code", bad)
		}
	}
	if got := URL("https://pay.example.com/invite/", "7KQ2M9XD4HPRT1VW"); got != "https://pay.example.com/invite/7KQ2M9XD4HPRT1VW" {
		t.Fatalf("url %s", got)
	}
}

func TestNewRequest(t *testing.T) {
	pid := uuid.New()
	good := Input{InviterUma: ptr("$alice@pay.example.com")}
	r, err := NewRequest(pid, "C", "u", good, now)
	if err != nil || !r.ExpiresAt.Equal(now.Add(DefaultLifetime)) || r.AmountToSend != 0 || r.FirstName != "" {
		t.Fatalf("defaults: %+v %v", r, err)
	}
	r, err = NewRequest(pid, "C", "u", Input{InviterUma: good.InviterUma, FirstName: ptr("Alice"), AmountToSend: ptr(int64(2500)),
		ExpiresAt: ptr("2026-11-23T12:00:00.1234567+01:00")}, now)
	if err != nil || r.FirstName != "Alice" || r.AmountToSend != 2500 || !r.ExpiresAt.Equal(time.Date(2026, 11, 23, 11, 0, 0, 123456000, time.UTC)) {
		t.Fatalf("given: %+v %v", r, err)
	}
	for _, tc := range []struct {
		name  string
		in    Input
		field string
		code  catalog.Code
	}{
		{"no inviter", Input{}, "inviterUma", catalog.InvalidInput},
		{"inviter not an address", Input{InviterUma: ptr("alice@pay.example.com")}, "inviterUma", catalog.InvalidUmaAddress},
		{"inviter upper case", Input{InviterUma: ptr("$Alice@pay.example.com")}, "inviterUma", catalog.InvalidUmaAddress},
		{"zero amount", Input{InviterUma: good.InviterUma, AmountToSend: ptr(int64(0))}, "amountToSend", catalog.InvalidInput},
		{"negative amount", Input{InviterUma: good.InviterUma, AmountToSend: ptr(int64(-5))}, "amountToSend", catalog.InvalidInput},
		{"huge amount", Input{InviterUma: good.InviterUma, AmountToSend: ptr(int64(MaxAmount + 1))}, "amountToSend", catalog.InvalidInput},
		{"long name", Input{InviterUma: good.InviterUma, FirstName: ptr(strings.Repeat("é", MaxFirstName+1))}, "firstName", catalog.InvalidInput},
		{"bad date", Input{InviterUma: good.InviterUma, ExpiresAt: ptr("tomorrow")}, "expiresAt", catalog.InvalidInput},
		{"past", Input{InviterUma: good.InviterUma, ExpiresAt: ptr("2026-11-22T12:00:00Z")}, "expiresAt", catalog.InvalidInput},
		{"too far", Input{InviterUma: good.InviterUma, ExpiresAt: ptr("2027-11-23T12:00:00Z")}, "expiresAt", catalog.InvalidInput},
	} {
		_, err := NewRequest(pid, "C", "u", tc.in, now)
		w, ok := problem.ToWire(err)
		if !ok || w.Field != tc.field || w.Code != tc.code {
			t.Errorf("%s: %v (%+v), want %s on %s", tc.name, err, w, tc.code, tc.field)
		}
	}
}

func TestAdmit(t *testing.T) {
	r := Request{InviterUma: "$alice@pay.example.com", AmountToSend: 100}
	cust := uuid.New()
	terms, err := Admit(r, Inviter{UmaDomain: "pay.example.com", Found: true, CustomerID: cust, Currencies: []string{"EUR", "USD"}})
	if err != nil || terms.Currency != "EUR" || terms.CustomerID != cust {
		t.Fatalf("admitted: %+v %v", terms, err)
	}
	if terms, err := Admit(Request{InviterUma: r.InviterUma}, Inviter{UmaDomain: "d.example", Found: true}); err != nil || terms.Currency != "" {
		t.Fatalf("without an amount: %+v %v", terms, err)
	}
	for _, tc := range []struct {
		name string
		in   Inviter
		code catalog.Code
	}{
		{"no UMA domain", Inviter{Found: true, Currencies: []string{"USD"}}, catalog.InvitationsNotConfigured},
		{"not a customer", Inviter{UmaDomain: "pay.example.com"}, catalog.InvalidUmaAddress},
		{"no currency", Inviter{UmaDomain: "pay.example.com", Found: true}, catalog.InvalidCurrency},
	} {
		if _, err := Admit(r, tc.in); problem.CodeOf(err) != tc.code {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.code)
		}
	}
}

// A claim or cancellation is refused with what the invitation became; a pending one past
// its expiresAt counts as expired; only the creating platform cancels, whatever the state.
func TestClaimAndCancelRules(t *testing.T) {
	owner, other := uuid.New(), uuid.New()
	exp := now.Add(time.Hour)
	st := func(status catalog.InvitationStatus) State {
		return State{PlatformID: owner, InviterUma: "$alice@pay.example.com", Status: status, ExpiresAt: &exp}
	}
	claim := Claim{PlatformID: other, InviteeUma: "$bob@wallet.example.com"}
	for _, tc := range []struct {
		name         string
		s            State
		at           time.Time
		claim        Claim
		claimCode    catalog.Code
		cancelBy     uuid.UUID
		cancelCode   catalog.Code
		effectiveNow catalog.InvitationStatus
	}{
		{"pending", st(catalog.InvPending), now, claim, "", owner, "", catalog.InvPending},
		{"pending, another platform cancels", st(catalog.InvPending), now, claim, "", other, catalog.Forbidden, catalog.InvPending},
		{"claimed", st(catalog.InvClaimed), now, claim, catalog.InvitationAlreadyClaimed, owner, catalog.InvitationAlreadyClaimed, catalog.InvClaimed},
		{"claimed, another platform cancels", st(catalog.InvClaimed), now, claim, catalog.InvitationAlreadyClaimed, other, catalog.Forbidden, catalog.InvClaimed},
		{"cancelled", st(catalog.InvCancelled), now, claim, catalog.InvitationCancelled, owner, catalog.InvitationCancelled, catalog.InvCancelled},
		{"expired", st(catalog.InvExpired), now, claim, catalog.InvitationExpired, owner, catalog.InvitationExpired, catalog.InvExpired},
		{"pending past expiresAt", st(catalog.InvPending), exp, claim, catalog.InvitationExpired, owner, catalog.InvitationExpired, catalog.InvExpired},
		{"the inviter's own address", st(catalog.InvPending), now, Claim{InviteeUma: "$alice@pay.example.com"}, catalog.InvalidUmaAddress, owner, "", catalog.InvPending},
		{"not an address", st(catalog.InvPending), now, Claim{InviteeUma: "bob"}, catalog.InvalidUmaAddress, owner, "", catalog.InvPending},
	} {
		if got := problem.CodeOf(CheckClaim(tc.s, tc.claim, Invitee{Customer: true}, tc.at)); got != tc.claimCode {
			t.Errorf("%s: claim %q, want %q", tc.name, got, tc.claimCode)
		}
		if got := problem.CodeOf(CheckCancel(tc.s, Cancel{PlatformID: tc.cancelBy}, tc.at)); got != tc.cancelCode {
			t.Errorf("%s: cancel %q, want %q", tc.name, got, tc.cancelCode)
		}
		if got := tc.s.StatusAt(tc.at); got != tc.effectiveNow {
			t.Errorf("%s: status %s, want %s", tc.name, got, tc.effectiveNow)
		}
	}
}

// FuzzParseCode: whatever a path carries, ParseCode never panics, and what it accepts is a
// canonical code that reads back as itself.
func FuzzParseCode(f *testing.F) {
	f.Add("7KQ2M9XD4HPRT1VW")
	f.Add("7kq2m9xd4hprt1vw")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		c, ok := ParseCode(s)
		if !ok {
			return
		}
		if again, ok := ParseCode(c); !ok || again != c || len(c) != CodeLength {
			t.Fatalf("%q → %q does not read back", s, c)
		}
	})
}

// A claim for an address that is not one of the claiming platform's customers is refused
// (INVALID_UMA_ADDRESS); refusals of what the invitation became come first.
func TestCheckClaimForeignInvitee(t *testing.T) {
	now := time.Now()
	st := State{Code: "0123456789ABCDEF", InviterUma: "$alice@pay.example.com", Status: catalog.InvPending}
	claim := Claim{InviteeUma: "$bob@wallet.example.com"}
	if got := problem.CodeOf(CheckClaim(st, claim, Invitee{}, now)); got != catalog.InvalidUmaAddress {
		t.Fatalf("a foreign invitee: %q", got)
	}
	st.Status = catalog.InvClaimed
	if got := problem.CodeOf(CheckClaim(st, claim, Invitee{}, now)); got != catalog.InvitationAlreadyClaimed {
		t.Fatalf("a foreign invitee of a claimed invitation: %q", got)
	}
}
