package main

import (
	"crypto/ecdh"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"paycore/api"
	"paycore/db/view"
	"paycore/internal/walletcrypto/jsinterop"
)

// Money leaves an embedded wallet through a quote only with the customer's session
// signature: by the signed retry (the sandbox's magic signature), or by a real stamp made
// up front with the JS client library over the quote's own payloadToSign. A wrong
// signature executes nothing.
func TestWalletQuoteExecution(t *testing.T) {
	t.Parallel()
	s := newStack(t, quoteFast)
	c, _ := s.platform(true)
	if r := c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), currencyItem("USDC"), currencyItem("EUR")},
		"embeddedWalletConfig": map[string]any{"appName": "Wallet"}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	var cust api.Customer
	c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": "US", "email": "q@example.com", "fullName": "Ada Lovelace",
		"currencies": []string{"USDC"}}).Decode(t, &cust)
	var accts api.List[view.InternalAccount]
	c.Do("GET", "/customers/internal-accounts?type=EMBEDDED_WALLET&customerId="+cust.ID, nil).Decode(t, &accts)
	wallet := accts.Data[0].ID
	if r := c.Do("POST", "/sandbox/internal-accounts/"+wallet+"/fund", map[string]any{"amount": 30_000_000}); r.Status != 200 {
		t.Fatalf("fund: %d %s", r.Status, r.Body)
	}
	w := &world{t: t, s: s, c: c, customer: cust.ID, account: wallet}
	ext := w.euroAccount("001")
	walletBalance := func() int64 {
		c.Do("GET", "/customers/internal-accounts?type=EMBEDDED_WALLET&customerId="+cust.ID, nil).Decode(t, &accts)
		return accts.Data[0].Balance.Amount
	}

	// A session of the wallet, its signing key decrypted by the client library.
	var cred view.AuthMethod
	if r := c.Do("POST", "/auth/credentials", map[string]any{"type": "EMAIL_OTP", "accountId": wallet}); r.Status != 201 {
		t.Fatalf("credential: %d %s", r.Status, r.Body)
	} else {
		r.Decode(t, &cred)
	}
	clientKey, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	var sess view.Session
	if r := c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"otp": "000000", "clientPublicKey": hex.EncodeToString(clientKey.PublicKey().Bytes())}); r.Status != 200 {
		t.Fatalf("verify: %d %s", r.Status, r.Body)
	} else {
		r.Decode(t, &sess)
	}
	js := jsinterop.Start(t)
	sessionKey := js.Decrypt(sess.EncryptedSessionSigningKey, hex.EncodeToString(clientKey.Bytes()))

	if r := w.quote(ext, "SENDING", 1_000_000, map[string]any{"immediatelyExecute": true}); r.Status != 400 || r.Code(t) != "INVALID_INPUT" {
		t.Fatalf("immediate execution from a wallet: %d %s", r.Status, r.Body)
	}

	// The signed retry: 202 with a challenge, then the magic signature executes.
	q1 := w.newQuote(ext, 10_000_000)
	if len(q1.PaymentInstructions) != 1 || q1.PaymentInstructions[0].AccountOrWalletInfo["accountType"] != "EMBEDDED_WALLET" {
		t.Fatalf("wallet quote instructions %+v", q1.PaymentInstructions)
	}
	first := c.Do("POST", "/quotes/"+q1.ID+"/execute", nil, "Idempotency-Key", "wq1")
	if first.Status != 202 {
		t.Fatalf("unsigned execute: %d %s", first.Status, first.Body)
	}
	var ch view.Challenge
	first.Decode(t, &ch)
	if st := w.transaction(q1.TransactionID).Status; st != "PENDING" || walletBalance() != 30_000_000 {
		t.Fatalf("the challenge moved money: %s, balance %d", st, walletBalance())
	}
	signed := c.Do("POST", "/quotes/"+q1.ID+"/execute", nil, "Idempotency-Key", "wq1", "Service-Wallet-Signature", "sandbox-valid-signature", "Request-Id", ch.RequestID)
	if signed.Status != 200 {
		t.Fatalf("signed retry: %d %s", signed.Status, signed.Body)
	}

	// A wrong stamp over the quote's payload executes nothing.
	q2 := w.newQuote(ext, 10_000_000)
	payload := q2.PaymentInstructions[0].AccountOrWalletInfo["payloadToSign"].(string)
	other, _ := ecdh.P256().GenerateKey(rand.Reader)
	if r := c.Do("POST", "/quotes/"+q2.ID+"/execute", nil, "Service-Wallet-Signature", js.Stamp(payload, hex.EncodeToString(other.Bytes()))); r.Status != 401 {
		t.Fatalf("foreign stamp: %d %s", r.Status, r.Body)
	}
	if st := w.transaction(q2.TransactionID).Status; st != "PENDING" {
		t.Fatalf("a foreign stamp moved the quote to %s", st)
	}
	// A real stamp by the session, made up front over the quote's payloadToSign.
	q3 := w.newQuote(ext, 10_000_000)
	payload = q3.PaymentInstructions[0].AccountOrWalletInfo["payloadToSign"].(string)
	if r := c.Do("POST", "/quotes/"+q3.ID+"/execute", nil, "Service-Wallet-Signature", js.Stamp(payload, sessionKey)); r.Status != 200 {
		t.Fatalf("up-front stamp: %d %s", r.Status, r.Body)
	}
	for _, id := range []string{q1.TransactionID, q3.TransactionID} {
		if tx := w.waitFinal(id, 20*time.Second); tx.Status != "COMPLETED" {
			t.Fatalf("wallet payment %s", tx.Status)
		}
	}
	if got := walletBalance(); got != 10_000_000 {
		t.Fatalf("wallet balance %d after two payments of 10 USDC", got)
	}
	checkLedger(t, s)
}
