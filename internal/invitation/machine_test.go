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
		next, err := tc.s.Claim(claim, invitee, tc.at)
		check("claim", next, err, tc.claim)
		next, err = tc.s.Claim(foreignClaim, invitee, tc.at)
		check("claim from another environment", next, err, tc.foreignClaim)
		next, err = tc.s.Cancel(ownCancel, tc.at)
		check("cancel", next, err, tc.cancel)
		next, err = tc.s.Cancel(otherCancel, tc.at)
		check("cancel by another platform", next, err, tc.otherCancel)
		next, err = tc.s.Cancel(foreignCancel, tc.at)
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
		next, err := s.Claim(tc.c, tc.invitee, now)
		if got := problem.CodeOf(err); got != tc.code || (tc.code == "" && next != catalog.InvClaimed) {
			t.Errorf("%s: %q %q", tc.name, next, got)
		}
	}
}
