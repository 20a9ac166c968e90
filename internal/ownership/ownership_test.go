package ownership_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"testing"
	"time"

	"github.com/mr-tron/base58"

	"paycore/internal/catalog"
	"paycore/internal/ownership"
	"paycore/internal/problem"
)

var now = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

func code(err error) catalog.Code {
	if w, ok := problem.ToWire(err); ok {
		return w.Code
	}
	return ""
}

func TestRequired(t *testing.T) {
	for _, c := range []struct {
		accountType string
		ownership   ownership.Type
		custodial   bool
		want        bool
	}{
		{"BASE_WALLET", ownership.FirstParty, false, true},
		{"SOLANA_WALLET", ownership.FirstParty, false, true},
		{"SPARK_WALLET", ownership.FirstParty, false, true},
		{"TRON_WALLET", ownership.FirstParty, false, true},
		{"BASE_WALLET", ownership.ThirdParty, false, false},
		{"BASE_WALLET", "", false, false},
		{"BASE_WALLET", ownership.FirstParty, true, false}, // held by a VASP
		{"LIGHTNING", ownership.FirstParty, false, false},
		{"USD_ACCOUNT", ownership.FirstParty, false, false},
	} {
		if got := ownership.Required(c.accountType, c.ownership, c.custodial); got != c.want {
			t.Errorf("Required(%s, %q, %v) = %v", c.accountType, c.ownership, c.custodial, got)
		}
		want := catalog.ExternalActive
		if c.want {
			want = catalog.ExternalPendingOwnership
		}
		if got := ownership.InitialStatus(c.accountType, c.ownership, c.custodial); got != want {
			t.Errorf("InitialStatus(%s, %q) = %s", c.accountType, c.ownership, got)
		}
	}
}

// solanaWallet is a FIRST_PARTY Solana wallet of a fresh key, waiting for its proof.
func solanaWallet(t *testing.T) (ownership.Account, ed25519.PrivateKey) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return ownership.Account{Status: catalog.ExternalPendingOwnership, AccountType: "SOLANA_WALLET",
		Address: base58.Encode(pub), Ownership: ownership.FirstParty}, priv
}

func TestStart(t *testing.T) {
	a, _ := solanaWallet(t)
	ch, err := ownership.Start(a, ownership.WalletSignature, "n-1", now)
	if err != nil || ch.Method != ownership.WalletSignature || !ch.ExpiresAt.Equal(now.Add(ownership.SignatureTTL)) ||
		ch.Message != "I verify that I control the wallet "+a.Address+". Nonce: n-1" {
		t.Fatalf("signature challenge: %+v %v", ch, err)
	}
	a.Status = catalog.ExternalUnverified // a failed proof may be retried
	if ch, err := ownership.Start(a, ownership.Liveness, "n-2", now); err != nil || ch.Message != "" || !ch.ExpiresAt.Equal(now.Add(ownership.LivenessTTL)) {
		t.Fatalf("liveness challenge: %+v %v", ch, err)
	}
	for name, mutate := range map[string]func(*ownership.Account){
		"verified":     func(a *ownership.Account) { a.Status = catalog.ExternalActive },
		"inactive":     func(a *ownership.Account) { a.Status = catalog.ExternalInactive },
		"third party":  func(a *ownership.Account) { a.Ownership = ownership.ThirdParty },
		"custodial":    func(a *ownership.Account) { a.Custodial = true },
		"bank account": func(a *ownership.Account) { a.AccountType = "USD_ACCOUNT" },
	} {
		b := a
		mutate(&b)
		if _, err := ownership.Start(b, ownership.WalletSignature, "n", now); code(err) != catalog.Conflict {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestCheckMethod(t *testing.T) {
	s := func(v string) *string { return &v }
	if m, err := ownership.CheckMethod(s("WALLET_SIGNATURE"), false); m != ownership.WalletSignature || err != nil {
		t.Fatalf("WALLET_SIGNATURE: %v %v", m, err)
	}
	if m, err := ownership.CheckMethod(s("LIVENESS"), true); m != ownership.Liveness || err != nil {
		t.Fatalf("LIVENESS in the sandbox: %v %v", m, err)
	}
	if _, err := ownership.CheckMethod(s("LIVENESS"), false); code(err) != catalog.NotImplemented {
		t.Fatalf("LIVENESS without a provider: %v", err)
	}
	for _, bad := range []*string{nil, s(""), s("wallet_signature"), s("SELFIE")} {
		if _, err := ownership.CheckMethod(bad, true); code(err) != catalog.InvalidInput {
			t.Errorf("%v: %v", bad, err)
		}
	}
}

func TestVerify(t *testing.T) {
	a, priv := solanaWallet(t)
	ch, err := ownership.Start(a, ownership.WalletSignature, "n-1", now)
	if err != nil {
		t.Fatal(err)
	}
	a.Challenge = &ch
	sign := func(k ed25519.PrivateKey, m string) *string {
		v := base58.Encode(ed25519.Sign(k, []byte(m)))
		return &v
	}
	_, other := solanaWallet(t)
	str := func(v string) *string { return &v }
	for _, c := range []struct {
		name    string
		a       ownership.Account
		answer  ownership.Answer
		sandbox bool
		at      time.Time
		status  catalog.ExternalAccountStatus
		code    catalog.Code
	}{
		{"the wallet's signature", a, ownership.Answer{Signature: sign(priv, ch.Message)}, false, now.Add(time.Minute), catalog.ExternalActive, ""},
		{"another key's", a, ownership.Answer{Signature: sign(other, ch.Message)}, false, now, catalog.ExternalUnverified, catalog.InvalidInput},
		{"over another message", a, ownership.Answer{Signature: sign(priv, ch.Message+".")}, false, now, catalog.ExternalUnverified, catalog.InvalidInput},
		{"malformed", a, ownership.Answer{Signature: str("0xnothex")}, false, now, catalog.ExternalUnverified, catalog.InvalidInput},
		{"too late", a, ownership.Answer{Signature: sign(priv, ch.Message)}, false, ch.ExpiresAt, catalog.ExternalUnverified, catalog.InvalidInput},
		{"the sandbox's magic", a, ownership.Answer{Signature: str("sandbox-valid-signature")}, true, now, catalog.ExternalActive, ""},
		{"the magic in production", a, ownership.Answer{Signature: str("sandbox-valid-signature")}, false, now, catalog.ExternalUnverified, catalog.InvalidInput},
		{"no signature", a, ownership.Answer{}, false, now, "", catalog.InvalidInput},
		{"an unknown scheme", a, ownership.Answer{Signature: sign(priv, ch.Message), SignatureScheme: str("bip322")}, false, now, "", catalog.InvalidInput},
		{"no challenge", ownership.Account{Status: a.Status, AccountType: a.AccountType, Address: a.Address, Ownership: a.Ownership},
			ownership.Answer{Signature: sign(priv, ch.Message)}, false, now, "", catalog.Conflict},
		{"a liveness challenge", ownership.Account{Status: a.Status, AccountType: a.AccountType, Address: a.Address, Ownership: a.Ownership,
			Challenge: &ownership.Challenge{Method: ownership.Liveness, ExpiresAt: ch.ExpiresAt}}, ownership.Answer{Signature: sign(priv, ch.Message)}, false, now, "", catalog.Conflict},
	} {
		status, err := ownership.Verify(c.a, c.answer, c.sandbox, c.at)
		if status != c.status || code(err) != c.code {
			t.Errorf("%s: %q %v, want %q %q", c.name, status, err, c.status, c.code)
		}
	}
}

func TestLivenessDecision(t *testing.T) {
	a, _ := solanaWallet(t)
	ch, _ := ownership.Start(a, ownership.Liveness, "", now)
	a.Challenge = &ch
	if s, ok := ownership.LivenessDecision(a, ch.ExpiresAt, true); !ok || s != catalog.ExternalActive {
		t.Fatalf("passed: %s %v", s, ok)
	}
	if s, ok := ownership.LivenessDecision(a, ch.ExpiresAt, false); !ok || s != catalog.ExternalUnverified {
		t.Fatalf("failed: %s %v", s, ok)
	}
	if _, ok := ownership.LivenessDecision(a, ch.ExpiresAt.Add(-time.Second), true); ok {
		t.Fatal("the outcome of a replaced check applied")
	}
	a.Status = catalog.ExternalActive
	if _, ok := ownership.LivenessDecision(a, ch.ExpiresAt, false); ok {
		t.Fatal("the outcome of a check applied to a verified wallet")
	}
}

func TestCheckPayment(t *testing.T) {
	for _, c := range []struct {
		status   catalog.ExternalAccountStatus
		currency string
		amount   int64
		refused  bool
	}{
		{catalog.ExternalPendingOwnership, "USDC", 1_000_000_000, false},
		{catalog.ExternalPendingOwnership, "USDC", 1_000_000_001, true},
		{catalog.ExternalUnverified, "USDT", 1_000_000_001, true},
		{catalog.ExternalPendingOwnership, "BTC", 1_000_000, false},
		{catalog.ExternalPendingOwnership, "BTC", 1_000_001, true},
		{catalog.ExternalActive, "USDC", 1 << 50, false},
	} {
		err := ownership.CheckPayment(c.status, c.currency, c.amount)
		if refused := err != nil; refused != c.refused || (refused && code(err) != catalog.ExternalAccountVerificationRequired) {
			t.Errorf("%s %d %s: %v", c.status, c.amount, c.currency, err)
		}
	}
	var r *problem.Refusal
	if err := ownership.CheckPayment(catalog.ExternalUnverified, "USDC", 2_000_000_000); !errors.As(err, &r) || r.Message == "" {
		t.Fatalf("refusal: %v", err)
	}
}
