package db_test

import (
	"errors"
	"testing"
	"time"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/platformconfig"
	"paycore/internal/uma"
)

// A nonce is taken once per sending domain; nonces of messages older than the window are
// forgotten. A domain's proof keeps its first token, and only a proven current domain is
// served.
func TestUmaNoncesAndDomainProofs(t *testing.T) {
	t.Parallel()
	pool, p, _, _ := setup(t)
	store := db.NewStore(pool, view.Resources{})
	ctx, now := t.Context(), time.Now()
	if err := store.UmaNonceTake(ctx, "vasp1.example", "n1", now, now); err != nil {
		t.Fatal(err)
	}
	if err := store.UmaNonceTake(ctx, "vasp1.example", "n1", now, now); !errors.Is(err, uma.ErrNonceUsed) {
		t.Fatalf("a nonce taken twice: %v", err)
	}
	if err := store.UmaNonceTake(ctx, "vasp2.example", "n1", now, now); err != nil {
		t.Fatalf("another domain's nonce: %v", err)
	}
	later := now.Add(uma.MaxMessageAge + uma.MaxClockSkew + time.Minute)
	if err := store.UmaNonceTake(ctx, "vasp1.example", "n2", later, later); err != nil {
		t.Fatal(err)
	}
	if err := store.UmaNonceTake(ctx, "vasp1.example", "n1", later, later); err != nil {
		t.Fatalf("a nonce of a message out of the window was not forgotten: %v", err)
	}

	first, err := store.UmaDomainProof(ctx, p, "p.example.com", platformconfig.NewProofToken, now)
	if err != nil {
		t.Fatal(err)
	}
	again, err := store.UmaDomainProof(ctx, p, "P.example.com", platformconfig.NewProofToken, now)
	if err != nil || again.Token != first.Token || again.VerifiedAt != nil {
		t.Fatalf("the proof changed on a second read: %+v %v", again, err)
	}
	if served, err := store.UmaDomainProven(ctx, "p.example.com"); err != nil || served {
		t.Fatalf("an unproven domain served: %v %v", served, err)
	}
	if err := store.UmaDomainProofVerified(ctx, p, "p.example.com", now); err != nil {
		t.Fatal(err)
	}
	if served, err := store.UmaDomainProven(ctx, "P.EXAMPLE.COM"); err != nil || !served {
		t.Fatalf("a proven domain not served: %v %v", served, err)
	}
	if served, _ := store.UmaDomainProven(ctx, "other.example.com"); served {
		t.Fatal("a domain no platform proved was served")
	}
}
