package db_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"paycore/db"
	"paycore/db/dbtest"
	"paycore/internal/catalog"
	"paycore/internal/invitation"
	"paycore/internal/platformconfig"
	"paycore/internal/problem"
)

func renderInvitation(i db.Invitation) any {
	return map[string]any{"code": i.Code, "status": i.Status, "inviteeUma": i.InviteeUma}
}

// Invitations are created only for a customer of the platform, claimed once (with the
// INVITATION_CLAIMED event for the inviter's platform in the same transaction) by a
// platform of the same environment, and refused afterwards with what they became.
func TestInvitationLifecycle(t *testing.T) {
	pool, _ := dbtest.NewPool(t)
	box := newBox(t)
	ctx := context.Background()
	p, s := provision(t, pool, box)
	other, os := provision(t, pool, box)
	bob, err := db.CustomerOpen(ctx, pool, box, other.ID, newCustomer(t, os, "bob", "$bob@"+os.UmaDomain))
	if err != nil {
		t.Fatal(err)
	}
	prodSpec, err := platformconfig.Provision(platformconfig.PlatformParams{Name: "Production"})
	if err != nil {
		t.Fatal(err)
	}
	prod, _, err := db.PlatformProvision(ctx, pool, box, prodSpec, []string{"MANAGE"})
	if err != nil {
		t.Fatal(err)
	}
	alice, err := db.CustomerOpen(ctx, pool, box, p.ID, newCustomer(t, s, "alice", "$alice@"+s.UmaDomain))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	req := invitation.Request{Code: invitation.NewCode(), PlatformID: p.ID, InviterUma: "$nobody@" + s.UmaDomain, AmountToSend: 500,
		ExpiresAt: now.Add(time.Hour).UTC().Truncate(time.Microsecond), URL: "https://x.example/invite/c"}
	_, err = db.InvitationCreate(ctx, pool, req)
	if problem.CodeOf(err) != catalog.InvalidUmaAddress {
		t.Fatalf("an inviter who is not a customer: %v", err)
	}
	if n := count(t, pool, "SELECT count(*) FROM invitations"); n != 0 {
		t.Fatalf("a refused invitation was written (%d rows)", n)
	}
	req.InviterUma = alice.UmaAddress
	inv, err := db.InvitationCreate(ctx, pool, req)
	if err != nil {
		t.Fatal(err)
	}
	if inv.Status != catalog.InvPending || inv.InviterCustomerID != alice.ID || *inv.Currency != "USD" || *inv.AmountToSend != 500 || !inv.ExpiresAt.Equal(req.ExpiresAt) {
		t.Fatalf("created %+v", inv)
	}
	if again, err := db.InvitationCreate(ctx, pool, req); err != nil || again.CreatedAt != inv.CreatedAt {
		t.Fatalf("creating again: %+v %v", again, err)
	}

	// While the invitation's workflow is not running (open false) it takes no claim nor
	// cancellation, and nothing is written.
	if _, err := db.InvitationClaim(ctx, pool, req.Code, invitation.Claim{PlatformID: other.ID, Environment: catalog.Sandbox,
		InviteeUma: "$bob@wallet.example.com", Key: "w"}, now, false, renderInvitation); problem.CodeOf(err) != catalog.InvalidUmaAddress {
		t.Fatalf("a claim for nobody's address, the workflow ended: %v", err)
	}
	if _, err := db.InvitationCancel(ctx, pool, req.Code, invitation.Cancel{PlatformID: p.ID, Environment: catalog.Sandbox, Key: "w"}, now, false); problem.CodeOf(err) != catalog.Conflict {
		t.Fatalf("a cancellation, the workflow ended: %v", err)
	}
	if got, err := db.InvitationGet(ctx, pool, db.InvitationGetParams{Code: req.Code, Environment: catalog.Sandbox}); err != nil || got.Status != catalog.InvPending || got.EndKey != nil {
		t.Fatalf("after requests refused for the ended workflow: %+v %v", got, err)
	}
	// Only for one of the claiming platform's customers: not for nobody's address, nor for
	// another platform's customer.
	for _, foreign := range []string{"$bob@wallet.example.com", alice.UmaAddress + "x"} {
		c := invitation.Claim{PlatformID: other.ID, Environment: catalog.Sandbox, InviteeUma: foreign, Key: "f"}
		if _, err := db.InvitationClaim(ctx, pool, req.Code, c, now, true, renderInvitation); problem.CodeOf(err) != catalog.InvalidUmaAddress {
			t.Fatalf("claimed for %s: %v", foreign, err)
		}
	}
	claim := invitation.Claim{PlatformID: other.ID, Environment: catalog.Sandbox, InviteeUma: bob.UmaAddress, Key: "k1"}
	// A production platform does not see a sandbox invitation.
	prodClaim := claim
	prodClaim.PlatformID, prodClaim.Environment = prod.ID, catalog.Production
	if _, err := db.InvitationClaim(ctx, pool, req.Code, prodClaim, now, true, renderInvitation); problem.CodeOf(err) != catalog.InvitationNotFound {
		t.Fatalf("claimed from another environment: %v", err)
	}
	claimed, err := db.InvitationClaim(ctx, pool, req.Code, claim, now, true, renderInvitation)
	if err != nil {
		t.Fatal(err)
	}
	if claimed.Status != catalog.InvClaimed || *claimed.InviteeUma != claim.InviteeUma || claimed.ClaimedAt == nil || claimed.ClaimedByPlatformID.UUID != other.ID {
		t.Fatalf("claimed %+v", claimed)
	}
	var typ string
	var data json.RawMessage
	if err := pool.QueryRow(ctx, "SELECT type, data FROM webhook_events WHERE platform_id = $1", p.ID).Scan(&typ, &data); err != nil {
		t.Fatalf("the inviter's platform has no event: %v", err)
	}
	if typ != "INVITATION_CLAIMED" || string(data) != fmt.Sprintf(`{"code": %q, "status": "CLAIMED", "inviteeUma": %q}`, req.Code, bob.UmaAddress) {
		t.Fatalf("event %s %s", typ, data)
	}
	if n := count(t, pool, "SELECT count(*) FROM webhook_events WHERE platform_id = $1", other.ID); n != 0 {
		t.Fatalf("the claiming platform got %d events", n)
	}
	// The same claim repeated is answered; another is refused; cancelling is too.
	if again, err := db.InvitationClaim(ctx, pool, req.Code, claim, now, true, renderInvitation); err != nil || again.Status != catalog.InvClaimed {
		t.Fatalf("the claim repeated: %+v %v", again, err)
	}
	// So it is once the workflow has ended, answered from the stored invitation.
	if again, err := db.InvitationClaim(ctx, pool, req.Code, claim, now, false, renderInvitation); err != nil || again.Status != catalog.InvClaimed {
		t.Fatalf("the claim repeated, the workflow ended: %+v %v", again, err)
	}
	second := claim
	second.Key = "k2"
	if _, err := db.InvitationClaim(ctx, pool, req.Code, second, now, true, renderInvitation); problem.CodeOf(err) != catalog.InvitationAlreadyClaimed {
		t.Fatalf("a second claim: %v", err)
	}
	if _, err := db.InvitationCancel(ctx, pool, req.Code, invitation.Cancel{PlatformID: p.ID, Environment: catalog.Sandbox, Key: "c"}, now, true); problem.CodeOf(err) != catalog.InvitationAlreadyClaimed {
		t.Fatalf("cancelling a claimed invitation: %v", err)
	}
	if n := count(t, pool, "SELECT count(*) FROM webhook_events"); n != 1 {
		t.Fatalf("%d events, want the one INVITATION_CLAIMED", n)
	}
	// The expiry of an invitation claimed meanwhile changes nothing.
	if got, err := db.InvitationExpire(ctx, pool, req.Code); err != nil || got.Status != catalog.InvClaimed {
		t.Fatalf("expiring a claimed invitation: %+v %v", got, err)
	}

	// A pending invitation expires; one past its expiresAt is refused as expired before.
	req2 := req
	req2.Code, req2.AmountToSend = invitation.NewCode(), 0
	if _, err := db.InvitationCreate(ctx, pool, req2); err != nil {
		t.Fatal(err)
	}
	if _, err := db.InvitationClaim(ctx, pool, req2.Code, claim, req2.ExpiresAt, true, renderInvitation); problem.CodeOf(err) != catalog.InvitationExpired {
		t.Fatalf("a claim at expiresAt: %v", err)
	}
	if got, err := db.InvitationExpire(ctx, pool, req2.Code); err != nil || got.Status != catalog.InvExpired {
		t.Fatalf("expire: %+v %v", got, err)
	}
	if _, err := db.InvitationCancel(ctx, pool, req2.Code, invitation.Cancel{PlatformID: p.ID, Environment: catalog.Sandbox, Key: "c"}, now, true); problem.CodeOf(err) != catalog.InvitationExpired {
		t.Fatalf("cancelling an expired invitation: %v", err)
	}
}

// Of many concurrent claims and cancellations of one invitation, exactly one succeeds (the
// row's lock and the guarded transition), and the others are refused with what it became.
func TestInvitationConcurrentClaimsAndCancels(t *testing.T) {
	pool, _ := dbtest.NewPool(t)
	box := newBox(t)
	ctx := context.Background()
	p, s := provision(t, pool, box)
	other, os := provision(t, pool, box)
	alice, err := db.CustomerOpen(ctx, pool, box, p.ID, newCustomer(t, s, "alice", "$alice@"+s.UmaDomain))
	if err != nil {
		t.Fatal(err)
	}
	var invitees []string
	for i := range 16 {
		c, err := db.CustomerOpen(ctx, pool, box, other.ID, newCustomer(t, os, fmt.Sprintf("user%d", i), fmt.Sprintf("$user%d@%s", i, os.UmaDomain)))
		if err != nil {
			t.Fatal(err)
		}
		invitees = append(invitees, c.UmaAddress)
	}
	for round := range 5 {
		req := invitation.Request{Code: invitation.NewCode(), PlatformID: p.ID, InviterUma: alice.UmaAddress,
			ExpiresAt: time.Now().Add(time.Hour).UTC().Truncate(time.Microsecond), URL: "https://x.example/invite/c"}
		if _, err := db.InvitationCreate(ctx, pool, req); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins, codes := 0, map[catalog.Code]int{}
		for i := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var err error
				key := fmt.Sprintf("r%d-%d", round, i)
				if i%4 == 0 {
					_, err = db.InvitationCancel(ctx, pool, req.Code, invitation.Cancel{PlatformID: p.ID, Environment: catalog.Sandbox, Key: key}, time.Now(), true)
				} else {
					_, err = db.InvitationClaim(ctx, pool, req.Code, invitation.Claim{PlatformID: other.ID, Environment: catalog.Sandbox,
						InviteeUma: invitees[i], Key: key}, time.Now(), true, renderInvitation)
				}
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					wins++
				} else {
					codes[problem.CodeOf(err)]++
				}
			}()
		}
		wg.Wait()
		if wins != 1 || codes[catalog.InvitationAlreadyClaimed]+codes[catalog.InvitationCancelled] != 15 {
			t.Fatalf("round %d: %d succeeded, refusals %v", round, wins, codes)
		}
		var status catalog.InvitationStatus
		_ = pool.QueryRow(ctx, "SELECT status FROM invitations WHERE code = $1", req.Code).Scan(&status)
		events := count(t, pool, "SELECT count(*) FROM webhook_events WHERE data->>'code' = $1", req.Code)
		if (status == catalog.InvClaimed) != (events == 1) || events > 1 {
			t.Fatalf("round %d: %s with %d INVITATION_CLAIMED events", round, status, events)
		}
	}
}
