package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/db/view"
	"paycore/internal/ids"
	"paycore/internal/ownership"
	"paycore/internal/sandbox"
	"paycore/internal/walletsig/jsinterop"
	"paycore/workflows"
)

// ownershipWorld is a sandbox platform paying USDC, with one customer holding a USDC
// account, and the wallet library that signs for the customer's wallets.
type ownershipWorld struct {
	*world
	js *jsinterop.Client
}

// wallet registers a BASE_WALLET of w's customer (FIRST_PARTY unless said otherwise) whose
// key is returned (hex); extra fields go into accountInfo.
func (w ownershipWorld) wallet(ownershipType string, extra map[string]any) (view.ExternalAccount, string) {
	w.t.Helper()
	// A random address ends in a sandbox magic suffix now and then ("002": the payment
	// fails); draw again until it does not.
	var priv, address string
	for address == "" || !sandbox.Ordinary(address) {
		key := make([]byte, 32)
		_, _ = rand.Read(key)
		priv = hex.EncodeToString(key)
		address = w.js.Sign("evm", "", "address", priv).Address
	}
	info := map[string]any{"accountType": "BASE_WALLET", "address": address}
	for k, v := range extra {
		info[k] = v
	}
	body := map[string]any{"customerId": w.customer, "currency": "USDC", "accountInfo": info}
	if ownershipType != "" {
		body["ownershipType"] = ownershipType
	}
	var e view.ExternalAccount
	if r := w.c.Do("POST", "/customers/external-accounts", body); r.Status != 201 {
		w.t.Fatalf("create wallet: %d %s", r.Status, r.Body)
	} else {
		r.Decode(w.t, &e)
	}
	return e, priv
}

func (w ownershipWorld) account(id string) view.ExternalAccount {
	w.t.Helper()
	var e view.ExternalAccount
	w.c.Do("GET", "/customers/external-accounts/"+id, nil).Decode(w.t, &e)
	return e
}

// statusEvents lists the statuses an account's EXTERNAL_ACCOUNT_STATUS_UPDATED events carry, in order.
func (w ownershipWorld) statusEvents(id string) []string {
	w.t.Helper()
	rows, err := w.s.app.pool.Query(context.Background(),
		"SELECT data->>'status' FROM webhook_events WHERE type = 'EXTERNAL_ACCOUNT_STATUS_UPDATED' AND data->>'id' = $1 ORDER BY created_at, id", id)
	if err != nil {
		w.t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		_ = rows.Scan(&s)
		out = append(out, s)
	}
	return out
}

// refused asserts r is the refusal status/code.
func refused(t *testing.T, r *apitest.Response, status int, code string) {
	t.Helper()
	expectCode(t, "", r, status, code)
}

// A FIRST_PARTY self-custody wallet waits for its owner's proof: it receives at most 1 000
// USDC a payment meanwhile; a signature the wallet library made over the challenge's
// message verifies it, another one leaves it UNVERIFIED until a new challenge; the sandbox's
// liveness check decides by itself; every status change is a webhook; the platform's own
// wallets are proven on the platform's routes; production platforms get no liveness check.
func TestWalletOwnershipVerification(t *testing.T) {
	t.Parallel()
	s := newStack(t, kycFast)
	base := newWorld(t, s)
	usdc := currencyItem("USDC")
	usdc["maxAmount"] = 10_000_000_000
	if r := base.c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), usdc}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	var cust api.Customer
	base.c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": "US", "fullName": "Wallet Owner",
		"currencies": []string{"USDC"}}).Decode(t, &cust)
	var accts api.List[view.InternalAccount]
	base.c.Do("GET", "/customers/internal-accounts?currency=USDC&customerId="+cust.ID, nil).Decode(t, &accts)
	if len(accts.Data) != 1 {
		t.Fatalf("USDC accounts: %+v", accts.Data)
	}
	base.customer, base.account = cust.ID, accts.Data[0].ID
	w := ownershipWorld{world: base, js: jsinterop.Start(t)}
	w.fund(5_000_000)

	// Who must prove what.
	pending, priv := w.wallet("FIRST_PARTY", nil)
	if pending.Status != "PENDING_OWNERSHIP_VERIFICATION" || pending.OwnershipType == nil || *pending.OwnershipType != "FIRST_PARTY" {
		t.Fatalf("a FIRST_PARTY self-custody wallet: %+v", pending)
	}
	third, _ := w.wallet("THIRD_PARTY", nil)
	held, _ := w.wallet("FIRST_PARTY", map[string]any{"vaspName": "Kraken"})
	plain, _ := w.wallet("", nil)
	for _, e := range []view.ExternalAccount{third, held, plain} {
		if e.Status != "ACTIVE" {
			t.Fatalf("a wallet without ownership to prove: %+v", e)
		}
		refused(t, w.c.Do("POST", "/customers/external-accounts/"+e.ID+"/challenge", map[string]any{"method": "WALLET_SIGNATURE"}), 409, "CONFLICT")
	}
	refused(t, w.c.Do("POST", "/customers/external-accounts", map[string]any{"customerId": w.customer, "currency": "USDC", "ownershipType": "MINE",
		"accountInfo": map[string]any{"accountType": "BASE_WALLET", "address": "0x1111111111111111111111111111111111111111"}}), 400, "INVALID_INPUT")

	// Bad input: a clear 400, nothing changes.
	path := "/customers/external-accounts/" + pending.ID
	for _, body := range []any{map[string]any{}, map[string]any{"method": "SELFIE"}, map[string]any{"method": "WALLET_SIGNATURE", "extra": 1},
		map[string]any{"method": 7}} {
		refused(t, w.c.Do("POST", path+"/challenge", body), 400, "INVALID_INPUT")
	}
	for _, body := range []any{map[string]any{}, map[string]any{"signature": ""}, map[string]any{"signature": strings.Repeat("a", 1025)},
		map[string]any{"signature": "0x00", "signatureScheme": "bip322"}} {
		refused(t, w.c.Do("POST", path+"/verify", body), 400, "INVALID_INPUT")
	}
	refused(t, w.c.Do("POST", "/customers/external-accounts/ExternalAccount:nope/challenge", map[string]any{"method": "WALLET_SIGNATURE"}), 404, "EXTERNAL_ACCOUNT_NOT_FOUND")
	refused(t, w.c.Do("POST", "/platform/external-accounts/"+pending.ID+"/challenge", map[string]any{"method": "WALLET_SIGNATURE"}), 404, "EXTERNAL_ACCOUNT_NOT_FOUND")
	refused(t, w.c.Do("POST", path+"/verify", map[string]any{"signature": "0x00"}), 409, "CONFLICT") // no challenge yet

	// Unproven, the wallet receives up to 1 000 USDC a payment.
	refused(t, w.transferOut(pending.ID, 1_000_000_001), 400, "EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED")
	small := w.transferOut(pending.ID, 2_500_000)
	if small.Status != 201 {
		t.Fatalf("a small payment to an unproven wallet: %d %s", small.Status, small.Body)
	}
	if tx := w.waitFinal(small.JSON(t)["id"].(string), 30*time.Second); tx.Status != "COMPLETED" {
		t.Fatalf("the small payment ended %s", tx.Status)
	}

	// A signature by another key: UNVERIFIED, the challenge used up.
	challenge := func(p string) (out struct {
		Method, MessageToSign, VerificationLink string
		ExpiresAt                               time.Time
	}) {
		t.Helper()
		r := w.c.Do("POST", p+"/challenge", map[string]any{"method": "WALLET_SIGNATURE"})
		if r.Status != 201 {
			t.Fatalf("challenge: %d %s", r.Status, r.Body)
		}
		r.Decode(t, &out)
		if out.Method != "WALLET_SIGNATURE" || !strings.HasPrefix(out.MessageToSign, "I verify that I control the wallet ") || !out.ExpiresAt.After(time.Now()) {
			t.Fatalf("challenge: %s", r.Body)
		}
		return out
	}
	ch := challenge(path)
	other := w.js.Sign("evm", "", ch.MessageToSign, "")
	refused(t, w.c.Do("POST", path+"/verify", map[string]any{"signature": other.Signature}), 400, "INVALID_INPUT")
	if e := w.account(pending.ID); e.Status != "UNVERIFIED" {
		t.Fatalf("after a wrong signature: %s", e.Status)
	}
	mine := w.js.Sign("evm", "", ch.MessageToSign, priv)
	refused(t, w.c.Do("POST", path+"/verify", map[string]any{"signature": mine.Signature}), 409, "CONFLICT")
	refused(t, w.transferOut(pending.ID, 1_000_000_001), 400, "EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED")

	// A new challenge, signed by the wallet (ethers' signMessage): ACTIVE, for any amount.
	ch = challenge(path)
	mine = w.js.Sign("evm", "", ch.MessageToSign, priv)
	r := w.c.Do("POST", path+"/verify", map[string]any{"signature": mine.Signature})
	var verified view.ExternalAccount
	if r.Status != 200 {
		t.Fatalf("the wallet's signature: %d %s", r.Status, r.Body)
	}
	r.Decode(t, &verified)
	if verified.Status != "ACTIVE" || verified.ID != pending.ID {
		t.Fatalf("verified: %+v", verified)
	}
	refused(t, w.c.Do("POST", path+"/challenge", map[string]any{"method": "WALLET_SIGNATURE"}), 409, "CONFLICT")
	refused(t, w.transferOut(pending.ID, 1_000_000_001), 400, "INSUFFICIENT_FUNDS") // past the ownership rule
	if got := strings.Join(w.statusEvents(pending.ID), ","); got != "UNVERIFIED,PENDING_OWNERSHIP_VERIFICATION,ACTIVE" {
		t.Fatalf("status events: %s", got)
	}

	// The sandbox's liveness check: an address ending in "dead" fails, any other passes.
	for _, c := range []struct{ address, want string }{
		{"0x" + strings.Repeat("7", 36) + "dEaD", "UNVERIFIED"},
		{"0x" + strings.Repeat("7", 36) + "beef", "ACTIVE"},
	} {
		var e view.ExternalAccount
		w.c.Do("POST", "/customers/external-accounts", map[string]any{"customerId": w.customer, "currency": "USDC", "ownershipType": "FIRST_PARTY",
			"accountInfo": map[string]any{"accountType": "BASE_WALLET", "address": c.address}}).Decode(t, &e)
		r := w.c.Do("POST", "/customers/external-accounts/"+e.ID+"/challenge", map[string]any{"method": "LIVENESS"})
		var lc struct{ Method, VerificationLink string }
		if r.Status != 201 {
			t.Fatalf("liveness challenge: %d %s", r.Status, r.Body)
		}
		r.Decode(t, &lc)
		if lc.Method != "LIVENESS" || !strings.HasSuffix(lc.VerificationLink, "/sandbox/liveness") {
			t.Fatalf("liveness challenge: %s", r.Body)
		}
		refused(t, w.c.Do("POST", "/customers/external-accounts/"+e.ID+"/verify", map[string]any{"signature": "sandbox-valid-signature"}), 409, "CONFLICT")
		eventually(t, 30*time.Second, "the liveness check of "+c.address+" to decide", func() bool { return string(w.account(e.ID).Status) == c.want })
		id, _ := ids.Parse(ids.ExternalAccount, e.ID)
		wid := workflows.OwnershipWorkflowID(workflows.OwnershipInput{Target: ownership.Target{AccountID: id}})
		eventually(t, 30*time.Second, "the ownership workflow to end", func() bool {
			d, err := s.app.temporal.DescribeWorkflowExecution(context.Background(), wid, "")
			return err == nil && d.WorkflowExecutionInfo.Status == enums.WORKFLOW_EXECUTION_STATUS_COMPLETED
		})
		if dir := os.Getenv("PAYCORE_RECORD_HISTORIES"); dir != "" {
			recordHistory(t, s, dir, "ownership_liveness_"+strings.ToLower(c.want), wid)
		}
	}
	if status, page := get(t, strings.TrimSuffix(s.baseURL, s.cfg.BasePath())+"/sandbox/liveness"); status != 200 || !strings.Contains(page, "liveness") {
		t.Fatalf("liveness page: %d %s", status, page)
	}

	// The platform's own wallet, on the platform's routes; the sandbox's magic signature.
	var own view.ExternalAccount
	w.c.Do("POST", "/platform/external-accounts", map[string]any{"currency": "USDC", "ownershipType": "FIRST_PARTY",
		"accountInfo": map[string]any{"accountType": "SOLANA_WALLET", "address": "7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV"}}).Decode(t, &own)
	if own.Status != "PENDING_OWNERSHIP_VERIFICATION" {
		t.Fatalf("the platform's wallet: %+v", own)
	}
	refused(t, w.c.Do("POST", "/customers/external-accounts/"+own.ID+"/challenge", map[string]any{"method": "WALLET_SIGNATURE"}), 404, "EXTERNAL_ACCOUNT_NOT_FOUND")
	challenge("/platform/external-accounts/" + own.ID)
	if r := w.c.Do("POST", "/platform/external-accounts/"+own.ID+"/verify", map[string]any{"signature": "sandbox-valid-signature"}); r.Status != 200 ||
		r.JSON(t)["status"] != "ACTIVE" {
		t.Fatalf("the sandbox's magic signature: %d %s", r.Status, r.Body)
	}

	// Another platform reaches none of it; a production platform gets no liveness check.
	other2, _ := s.platform(true)
	refused(t, other2.Do("POST", path+"/challenge", map[string]any{"method": "WALLET_SIGNATURE"}), 404, "EXTERNAL_ACCOUNT_NOT_FOUND")
	prod, _ := s.platform(false)
	prod.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), currencyItem("USDC")}})
	var pc api.Customer
	prod.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": "US", "fullName": "Prod Owner",
		"currencies": []string{"USDC"}}).Decode(t, &pc)
	var pw view.ExternalAccount
	prod.Do("POST", "/customers/external-accounts", map[string]any{"customerId": pc.ID, "currency": "USDC", "ownershipType": "FIRST_PARTY",
		"accountInfo": map[string]any{"accountType": "BASE_WALLET", "address": "0x2222222222222222222222222222222222222222"}}).Decode(t, &pw)
	refused(t, prod.Do("POST", "/customers/external-accounts/"+pw.ID+"/challenge", map[string]any{"method": "LIVENESS"}), 501, "NOT_IMPLEMENTED")
	pch := prod.Do("POST", "/customers/external-accounts/"+pw.ID+"/challenge", map[string]any{"method": "WALLET_SIGNATURE"})
	if pch.Status != 201 {
		t.Fatalf("production signature challenge: %d %s", pch.Status, pch.Body)
	}
	refused(t, prod.Do("POST", "/customers/external-accounts/"+pw.ID+"/verify", map[string]any{"signature": "sandbox-valid-signature"}), 400, "INVALID_INPUT")
}
