package invitation

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// Every transition from every state: a pending invitation is claimed, cancelled (by its
// platform only) or expired; an ended one refuses claims and cancellations with the code
// of what it became (its platform's environment first: another environment's is not
// found) and the expiry leaves it as it is.
func TestTransitions(t *testing.T) {
	owner, other := uuid.New(), uuid.New()
	exp := now.Add(time.Hour)
	st := func(status catalog.InvitationStatus) State {
		return State{Code: "0123456789ABCDEF", PlatformID: owner, Environment: catalog.Sandbox, InviterUma: "$alice@pay.example.com", Status: status, ExpiresAt: &exp}
	}
	claim := Claim{PlatformID: other, Environment: catalog.Sandbox, InviteeUma: "$bob@wallet.example.com"}
	foreignClaim := Claim{PlatformID: other, Environment: catalog.Production, InviteeUma: "$bob@wallet.example.com"}
	ownCancel := Cancel{PlatformID: owner, Environment: catalog.Sandbox}
	otherCancel := Cancel{PlatformID: other, Environment: catalog.Sandbox}
	foreignCancel := Cancel{PlatformID: other, Environment: catalog.Production}
	type want struct {
		next catalog.InvitationStatus
		code catalog.Code
	}
	for _, tc := range []struct {
		name                string
		s                   State
		at                  time.Time
		claim, foreignClaim want
		cancel, otherCancel want
		foreignCancel       want
		expire              catalog.InvitationStatus
		expires             bool
	}{
		{"pending", st(catalog.InvPending), now,
			want{catalog.InvClaimed, ""}, want{"", catalog.InvitationNotFound},
			want{catalog.InvCancelled, ""}, want{"", catalog.Forbidden}, want{"", catalog.InvitationNotFound},
			catalog.InvExpired, true},
		{"pending past expiresAt", st(catalog.InvPending), exp,
			want{"", catalog.InvitationExpired}, want{"", catalog.InvitationNotFound},
			want{"", catalog.InvitationExpired}, want{"", catalog.Forbidden}, want{"", catalog.InvitationNotFound},
			catalog.InvExpired, true},
		{"claimed", st(catalog.InvClaimed), now,
			want{"", catalog.InvitationAlreadyClaimed}, want{"", catalog.InvitationNotFound},
			want{"", catalog.InvitationAlreadyClaimed}, want{"", catalog.Forbidden}, want{"", catalog.InvitationNotFound},
			catalog.InvClaimed, false},
		{"cancelled", st(catalog.InvCancelled), now,
			want{"", catalog.InvitationCancelled}, want{"", catalog.InvitationNotFound},
			want{"", catalog.InvitationCancelled}, want{"", catalog.Forbidden}, want{"", catalog.InvitationNotFound},
			catalog.InvCancelled, false},
		{"expired", st(catalog.InvExpired), now,
			want{"", catalog.InvitationExpired}, want{"", catalog.InvitationNotFound},
			want{"", catalog.InvitationExpired}, want{"", catalog.Forbidden}, want{"", catalog.InvitationNotFound},
			catalog.InvExpired, false},
	} {
		check := func(op string, next catalog.InvitationStatus, err error, w want) {
			t.Helper()
			if got := problem.CodeOf(err); got != w.code || next != w.next {
				t.Errorf("%s, %s: %q %q, want %q %q", tc.name, op, next, got, w.next, w.code)
			}
		}
		invitee := Invitee{Customer: true}
		next, err := tc.s.Claim(claim, invitee, tc.at, true)
		check("claim", next, err, tc.claim)
		next, err = tc.s.Claim(foreignClaim, invitee, tc.at, true)
		check("claim from another environment", next, err, tc.foreignClaim)
		next, err = tc.s.Cancel(ownCancel, tc.at, true)
		check("cancel", next, err, tc.cancel)
		next, err = tc.s.Cancel(otherCancel, tc.at, true)
		check("cancel by another platform", next, err, tc.otherCancel)
		next, err = tc.s.Cancel(foreignCancel, tc.at, true)
		check("cancel from another environment", next, err, tc.foreignCancel)
		if next, ok := tc.s.Expire(); next != tc.expire || ok != tc.expires {
			t.Errorf("%s, expire: %q %v, want %q %v", tc.name, next, ok, tc.expire, tc.expires)
		}
	}
}

// A pending invitation refuses a claim for the inviter's own address, a malformed address
// and an address that is not one of the claiming platform's customers
// (INVALID_UMA_ADDRESS); an environment the state does not know is not checked (the
// database lock reads the invitation as the caller's environment sees it).
func TestClaimInvitee(t *testing.T) {
	s := State{PlatformID: uuid.New(), InviterUma: "$alice@pay.example.com", Status: catalog.InvPending}
	for _, tc := range []struct {
		name    string
		c       Claim
		invitee Invitee
		code    catalog.Code
	}{
		{"a customer", Claim{Environment: catalog.Production, InviteeUma: "$bob@wallet.example.com"}, Invitee{Customer: true}, ""},
		{"the inviter", Claim{InviteeUma: "$alice@pay.example.com"}, Invitee{Customer: true}, catalog.InvalidUmaAddress},
		{"not an address", Claim{InviteeUma: "bob"}, Invitee{Customer: true}, catalog.InvalidUmaAddress},
		{"not a customer", Claim{InviteeUma: "$bob@wallet.example.com"}, Invitee{}, catalog.InvalidUmaAddress},
	} {
		next, err := s.Claim(tc.c, tc.invitee, now, true)
		if got := problem.CodeOf(err); got != tc.code || (tc.code == "" && next != catalog.InvClaimed) {
			t.Errorf("%s: %q %q", tc.name, next, got)
		}
	}
}

// The request that ended an invitation, repeated (the same key), is answered with the
// status the invitation has, whether its workflow runs or not, and another request is
// refused as usual; once the workflow has ended a pending invitation (stopped by hand)
// takes no claim or cancellation (CONFLICT), but its refusals keep their codes.
func TestRepeatsAndEndedWorkflow(t *testing.T) {
	owner, other := uuid.New(), uuid.New()
	exp := now.Add(time.Hour)
	st := func(status catalog.InvitationStatus, key string) State {
		return State{PlatformID: owner, Environment: catalog.Sandbox, InviterUma: "$alice@pay.example.com", Status: status, ExpiresAt: &exp, EndKey: key}
	}
	claim := func(key string) Claim {
		return Claim{PlatformID: other, Environment: catalog.Sandbox, InviteeUma: "$bob@wallet.example.com", Key: key}
	}
	cancel := func(by uuid.UUID, key string) Cancel {
		return Cancel{PlatformID: by, Environment: catalog.Sandbox, Key: key}
	}
	yes := Invitee{Customer: true}
	for _, tc := range []struct {
		name string
		op   func() (catalog.InvitationStatus, error)
		next catalog.InvitationStatus
		code catalog.Code
	}{
		{"claim repeated", func() (catalog.InvitationStatus, error) {
			return st(catalog.InvClaimed, "k").Claim(claim("k"), yes, now, true)
		}, catalog.InvClaimed, ""},
		{"claim repeated, workflow ended", func() (catalog.InvitationStatus, error) {
			return st(catalog.InvClaimed, "k").Claim(claim("k"), yes, now, false)
		}, catalog.InvClaimed, ""},
		{"claim repeated after expiresAt", func() (catalog.InvitationStatus, error) {
			return st(catalog.InvClaimed, "k").Claim(claim("k"), yes, exp.Add(time.Hour), false)
		}, catalog.InvClaimed, ""},
		{"another claim", func() (catalog.InvitationStatus, error) {
			return st(catalog.InvClaimed, "k").Claim(claim("j"), yes, now, true)
		}, "", catalog.InvitationAlreadyClaimed},
		{"claim without a key", func() (catalog.InvitationStatus, error) {
			return st(catalog.InvPending, "").Claim(claim(""), yes, now, true)
		}, catalog.InvClaimed, ""},
		{"cancel repeated, workflow ended", func() (catalog.InvitationStatus, error) {
			return st(catalog.InvCancelled, "k").Cancel(cancel(owner, "k"), now, false)
		}, catalog.InvCancelled, ""},
		{"a cancellation's key claiming", func() (catalog.InvitationStatus, error) {
			return st(catalog.InvCancelled, "k").Claim(claim("k"), yes, now, true)
		}, catalog.InvCancelled, ""},
		{"cancel by another platform with the key", func() (catalog.InvitationStatus, error) {
			return st(catalog.InvCancelled, "k").Cancel(cancel(other, "k"), now, true)
		}, "", catalog.Forbidden},
		{"pending, workflow ended: claim", func() (catalog.InvitationStatus, error) {
			return st(catalog.InvPending, "").Claim(claim("k"), yes, now, false)
		}, "", catalog.Conflict},
		{"pending, workflow ended: cancel", func() (catalog.InvitationStatus, error) {
			return st(catalog.InvPending, "").Cancel(cancel(owner, "k"), now, false)
		}, "", catalog.Conflict},
		{"pending, workflow ended: the inviter claiming", func() (catalog.InvitationStatus, error) {
			c := claim("k")
			c.InviteeUma = "$alice@pay.example.com"
			return st(catalog.InvPending, "").Claim(c, yes, now, false)
		}, "", catalog.InvalidUmaAddress},
		{"expired, workflow ended", func() (catalog.InvitationStatus, error) {
			return st(catalog.InvPending, "").Claim(claim("k"), yes, exp, false)
		}, "", catalog.InvitationExpired},
	} {
		next, err := tc.op()
		if got := problem.CodeOf(err); got != tc.code || next != tc.next {
			t.Errorf("%s: %q %q, want %q %q", tc.name, next, got, tc.next, tc.code)
		}
	}
}
