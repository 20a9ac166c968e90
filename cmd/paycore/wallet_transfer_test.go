package main

import (
	"testing"
	"time"

	"paycore/api"
	"paycore/db/view"
)

// A transfer out of an embedded wallet is created only by the signed retry, then runs its
// workflow to the end like any transfer; the answer replays under its Idempotency-Key and
// the signature cannot be used twice.
func TestWalletTransferOutBySignedRetry(t *testing.T) {
	t.Parallel()
	s := newStack(t, fast)
	c, _ := s.platform(true)
	if r := c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), currencyItem("USDC")}, "embeddedWalletConfig": map[string]any{"appName": "Wallet"}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	var cust api.Customer
	c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": "US", "email": "w@example.com", "currencies": []string{"USDC"}}).Decode(t, &cust)
	var accts api.List[view.InternalAccount]
	c.Do("GET", "/customers/internal-accounts?type=EMBEDDED_WALLET&customerId="+cust.ID, nil).Decode(t, &accts)
	if len(accts.Data) != 1 {
		t.Fatalf("wallet accounts: %+v", accts.Data)
	}
	wallet := accts.Data[0].ID
	if r := c.Do("POST", "/sandbox/internal-accounts/"+wallet+"/fund", map[string]any{"amount": 10_000}); r.Status != 200 {
		t.Fatalf("fund: %d %s", r.Status, r.Body)
	}
	ext := c.Do("POST", "/customers/external-accounts", map[string]any{"customerId": cust.ID, "currency": "USDC",
		"accountInfo": map[string]any{"accountType": "SOLANA_WALLET", "address": "7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV"}}).JSON(t)["id"].(string)
	body := map[string]any{"source": map[string]any{"accountId": wallet}, "destination": map[string]any{"accountId": ext}, "amount": 2_500}

	first := c.Do("POST", "/transfer-out", body, "Idempotency-Key", "wallet-out-1")
	if first.Status != 202 {
		t.Fatalf("unsigned wallet transfer-out: %d %s", first.Status, first.Body)
	}
	var ch view.Challenge
	first.Decode(t, &ch)
	signed := c.Do("POST", "/transfer-out", body, "Idempotency-Key", "wallet-out-1", "Service-Wallet-Signature", "sandbox-valid-signature", "Request-Id", ch.RequestID)
	if signed.Status != 201 {
		t.Fatalf("signed retry: %d %s", signed.Status, signed.Body)
	}
	var tx view.Transaction
	signed.Decode(t, &tx)
	if again := c.Do("POST", "/transfer-out", body, "Idempotency-Key", "wallet-out-1", "Service-Wallet-Signature", "sandbox-valid-signature", "Request-Id", ch.RequestID); again.Status != 201 || string(again.Body) != string(signed.Body) {
		t.Fatalf("replay under the key: %d %s", again.Status, again.Body)
	}
	if reused := c.Do("POST", "/transfer-out", body, "Service-Wallet-Signature", "sandbox-valid-signature", "Request-Id", ch.RequestID); reused.Status != 401 {
		t.Fatalf("reused requestId without the key: %d %s", reused.Status, reused.Body)
	}
	// Beyond the balance, the signed retry is refused by the create step; nothing moves.
	body["amount"] = 1_000_000
	ch = view.Challenge{}
	c.Do("POST", "/transfer-out", body).Decode(t, &ch)
	if r := c.Do("POST", "/transfer-out", body, "Service-Wallet-Signature", "sandbox-valid-signature", "Request-Id", ch.RequestID); r.Status != 400 || r.Code(t) != "INSUFFICIENT_FUNDS" {
		t.Fatalf("signed transfer beyond the balance: %d %s", r.Status, r.Body)
	}
	var final view.Transaction
	eventually(t, 30*time.Second, "the wallet transfer to complete", func() bool {
		c.Do("GET", "/transactions/"+tx.ID, nil).Decode(t, &final)
		return final.Status == "COMPLETED" || final.Status == "FAILED"
	})
	if final.Status != "COMPLETED" {
		t.Fatalf("wallet transfer ended %s", final.Status)
	}
	// Money that left for a crypto wallet names its on-chain transaction.
	if oc := final.Destination.OnChainTransaction; oc == nil || oc.Network != "SOLANA" || len(oc.TransactionHash) < 80 {
		t.Fatalf("on-chain transaction of the payout to a Solana wallet: %+v", oc)
	}
	c.Do("GET", "/customers/internal-accounts?type=EMBEDDED_WALLET&customerId="+cust.ID, nil).Decode(t, &accts)
	if accts.Data[0].Balance.Amount != 7_500 {
		t.Fatalf("wallet balance %d, want 7500", accts.Data[0].Balance.Amount)
	}
	var txs api.List[view.Transaction]
	c.Do("GET", "/transactions?type=OUTGOING", nil).Decode(t, &txs)
	if txs.TotalCount != 1 {
		t.Fatalf("%d outgoing transactions, want the one signed transfer", txs.TotalCount)
	}
}
