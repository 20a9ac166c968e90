package main

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/infra/config"
	"paycore/internal/infra/lnregtest/lntest"
)

// A customer of one deployment pays a customer of another over the UMA protocol, each
// deployment with its own database, Temporal namespace and Lightning node (a channel between
// them): the sender's quote asks the receiver's provider for its currencies and an invoice
// (USD → MXN, the MXN amount locked), the receiving platform approves the payment, and
// executing the quote pays the invoice from the sender's node. Both payments complete once:
// the receiver is credited the MXN its provider locked, the sender is debited the quote's
// total, and each ledger's Lightning account moved what its node did (the sender's the
// invoice and its route's fee, the receiver's the invoice). A quote locking the USD sent buys
// the satoshis the pay request then asks for. A payment the receiving platform refuses is
// refused when quoted, 424 PAYREQ_REQUEST_FAILED with the receiver's code, nothing held.
func TestLightningUmaSend(t *testing.T) {
	ctx := context.Background()
	const alice, bob = "pay.alice.internal", "pay.bob.internal"
	n, nodeA := lntest.Start(t, 18730)
	nodeB := lntest.Dial(t, n.Peer)
	toAlice := newForwarder(t)
	prover, _ := newDomainProver(t)
	receiving := lightningStackOn(t, n.Peer, func(c *config.Config) {
		c.Resolve = map[string]string{bob + ":80": strings.TrimPrefix(prover.srv.URL, "http://"), alice + ":80": toAlice.addr()}
	})
	sending := lightningStackOn(t, n.Node, func(c *config.Config) {
		c.Resolve = map[string]string{bob + ":80": hostOf(t, receiving), alice + ":80": strings.TrimPrefix(prover.srv.URL, "http://")}
	})
	toAlice.target.Store(&url.URL{Scheme: "http", Host: hostOf(t, sending)})

	// The receiving platform: bob's domain proven, a customer paid in MXN, approvals by webhook.
	rw := lightningWorld(t, receiving, 1)
	rw.provenUmaDomain(prover, bob)
	hooks, hookURL := newUmaWebhooks(t, 77_700)
	setEndpointDirect(t, receiving, rw.platform, hookURL)
	r := rw.c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": "MX",
		"fullName": "Bob Receiver", "currencies": []string{"MXN"}, "umaAddress": "$bob@" + bob})
	if r.Status != 201 {
		t.Fatalf("receiver: %d %s", r.Status, r.Body)
	}
	bobID := r.JSON(t)["id"].(string)
	bobBalance := func() int64 {
		var accounts struct {
			Data []view.InternalAccount `json:"data"`
		}
		rw.c.Do("GET", "/customers/internal-accounts?currency=MXN&customerId="+bobID, nil).Decode(t, &accounts)
		return accounts.Data[0].Balance.Amount
	}

	// The sending platform: alice's domain proven, a customer with USD whose address is there.
	sw := lightningWorld(t, sending, 1)
	sw.provenUmaDomain(prover, alice)
	sw.customer, sw.account = sw.umaCustomer("Alice Sender", "US", "USD", "$alice@"+alice)
	sw.fund(100_000)

	ledgerA, ledgerB := ledgerLightning(t, sending), ledgerLightning(t, receiving)
	beforeA := balances(t, nodeA)
	beforeB := balances(t, nodeB)
	toBob := func(side string, amount int64, extra map[string]any) map[string]any {
		body := map[string]any{"source": map[string]any{"sourceType": "ACCOUNT", "accountId": sw.account},
			"destination":        map[string]any{"destinationType": "UMA_ADDRESS", "umaAddress": "$bob@" + bob, "currency": "MXN"},
			"lockedCurrencySide": side, "lockedCurrencyAmount": amount}
		for k, v := range extra {
			body[k] = v
		}
		return body
	}

	// 150.00 MXN, locked on the receiving side, executed at once.
	r = sw.c.Do("POST", "/quotes", toBob("RECEIVING", 15_000, map[string]any{"immediatelyExecute": true}))
	if r.Status != 201 {
		t.Fatalf("quote to another deployment's receiver: %d %s", r.Status, r.Body)
	}
	var q view.Quote
	r.Decode(t, &q)
	sent := sw.waitFinal(q.TransactionID, 90*time.Second)
	if sent.Status != "COMPLETED" || sent.ReceivedAmount.Amount != 15_000 || sent.ReceivedAmount.Currency.Code != "MXN" ||
		sent.SentAmount == nil || sent.SentAmount.Currency.Code != "USD" || sent.Destination.UmaAddress != "$bob@"+bob {
		t.Fatalf("the sender's payment: %+v", sent)
	}
	if sent.CounterpartyInformation == nil || !strings.Contains(string(sent.CounterpartyInformation), "Bob Receiver") {
		t.Errorf("the receiver's name its provider gave: %s", sent.CounterpartyInformation)
	}
	if got := 100_000 - sw.balance(); got != sent.SentAmount.Amount {
		t.Errorf("the sender paid %d, the payment says %d", got, sent.SentAmount.Amount)
	}
	var received *view.Transaction
	eventually(t, 60*time.Second, "the receiver's payment to complete", func() bool {
		var list struct {
			Data []view.Transaction `json:"data"`
		}
		rw.c.Do("GET", "/transactions?type=INCOMING&customerId="+bobID, nil).Decode(t, &list)
		for i := range list.Data {
			if list.Data[i].Status == "COMPLETED" {
				received = &list.Data[i]
			}
		}
		return received != nil
	})
	if received.ReceivedAmount.Amount != 15_000 || received.SentAmount == nil || received.Source.UmaAddress != "$alice@"+alice || bobBalance() != 15_000 {
		t.Fatalf("the receiver's payment: %+v, balance %d", received, bobBalance())
	}
	if asked := hooks.asked(received.ID); asked["FULL_NAME"] != "Alice Sender" || asked["UMA_ADDRESS"] != "$alice@"+alice {
		t.Errorf("the receiving platform was asked to approve %v", asked)
	}
	sats := received.SentAmount.Amount
	afterA := balances(t, nodeA)
	afterB := balances(t, nodeB)
	paidA, gotB := beforeA.Total()-afterA.Total(), afterB.Total()-beforeB.Total()
	if gotB != sats || paidA < gotB {
		t.Fatalf("%d sat left the sender's node and %d came into the receiver's, for an invoice of %d sat", paidA, gotB, sats)
	}
	if moved := ledgerLightning(t, sending) - ledgerA; moved != paidA {
		t.Errorf("the sender's ledger says %d sat left its node, the node paid %d", moved, paidA)
	}
	if moved := ledgerLightning(t, receiving) - ledgerB; moved != -sats {
		t.Errorf("the receiver's ledger says %d sat came into its node, want -%d", moved, sats)
	}

	// Each provider tells the other which of its channels carried the payment (UMAD-07),
	// and each keeps the other's callback: signed for the other's domain, naming a channel.
	kept := func(s *stack, id, vasp string) {
		t.Helper()
		eventually(t, 60*time.Second, "the post-transaction callback from "+vasp, func() bool {
			var domain, utxos string
			err := s.app.pool.QueryRow(ctx, `SELECT vasp_domain, utxos::text FROM uma_utxo_callbacks WHERE transaction_id = $1`, uuidOf(id)).Scan(&domain, &utxos)
			return err == nil && domain == vasp && strings.Contains(utxos, ":") && strings.Contains(utxos, fmt.Sprint(sats*1000))
		})
	}
	kept(receiving, received.ID, alice)
	kept(sending, sent.ID, bob)

	// 50.00 USD locked on the sending side: the pay request asks for what it buys.
	r = sw.c.Do("POST", "/quotes", toBob("SENDING", 5_000, nil))
	if r.Status != 201 {
		t.Fatalf("quote locking the sending amount: %d %s", r.Status, r.Body)
	}
	r.Decode(t, &q)
	if q.TotalSendingAmount != 5_000 || q.ReceivingCurrency.Code != "MXN" || q.TotalReceivingAmount <= 0 {
		t.Fatalf("the quote locking 50.00 USD: %+v", q)
	}
	if r := sw.c.Do("POST", "/quotes/"+q.ID+"/execute", nil); r.Status != 200 {
		t.Fatalf("execute: %d %s", r.Status, r.Body)
	}
	if tx := sw.waitFinal(q.TransactionID, 90*time.Second); tx.Status != "COMPLETED" {
		t.Fatalf("the payment locking the sending amount: %+v", tx)
	}
	eventually(t, 60*time.Second, "the receiver credited", func() bool { return bobBalance() == 15_000+q.TotalReceivingAmount })

	// A provider the sending deployment blocked is refused before it is asked anything.
	before := sw.balance()
	store := db.NewStore(sending.app.pool, view.Resources{})
	if err := store.UmaProviderSetAllowed(ctx, bob, false); err != nil {
		t.Fatal(err)
	}
	if r := sw.c.Do("POST", "/quotes", toBob("RECEIVING", 1_000, nil)); r.Status != 403 || r.Code(t) != "COUNTERPARTY_NOT_ALLOWED" {
		t.Fatalf("a blocked receiver's provider: %d %s", r.Status, r.Body)
	}
	if err := store.UmaProviderSetAllowed(ctx, bob, true); err != nil {
		t.Fatal(err)
	}

	// The receiving platform refuses 777.00 MXN: the quote is refused, nothing held.
	r = sw.c.Do("POST", "/quotes", toBob("RECEIVING", 77_700, nil))
	if r.Status != 424 || r.Code(t) != "PAYREQ_REQUEST_FAILED" || !strings.Contains(string(r.Body), `"umaCode":"SENDER_NOT_ACCEPTED"`) {
		t.Fatalf("a payment the receiving platform refuses: %d %s", r.Status, r.Body)
	}
	if sw.balance() != before {
		t.Errorf("a refused quote moved the balance from %d to %d", before, sw.balance())
	}
	checkLedger(t, sending)
	checkLedger(t, receiving)
}

// umaCustomer creates an approved customer of w's platform in region holding currency, at
// the UMA address, and answers its id and its account in that currency.
func (w *world) umaCustomer(name, region, currency, address string) (id, account string) {
	w.t.Helper()
	r := w.c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": region,
		"fullName": name, "currencies": []string{currency}, "umaAddress": address})
	if r.Status != 201 {
		w.t.Fatalf("customer %s: %d %s", address, r.Status, r.Body)
	}
	id = r.JSON(w.t)["id"].(string)
	var accounts struct {
		Data []view.InternalAccount `json:"data"`
	}
	w.c.Do("GET", "/customers/internal-accounts?currency="+currency+"&customerId="+id, nil).Decode(w.t, &accounts)
	if len(accounts.Data) == 0 {
		w.t.Fatalf("customer %s has no %s account", address, currency)
	}
	return id, accounts.Data[0].ID
}

// provenUmaDomain makes domain w's platform's UMA domain, proven, its currencies USD, BTC and
// MXN.
func (w *world) provenUmaDomain(prover *domainProver, domain string) {
	w.t.Helper()
	if r := w.c.Do("PATCH", "/config", map[string]any{"umaDomain": domain,
		"supportedCurrencies": []any{currencyItem("USD"), currencyItem("BTC"), currencyItem("MXN")}}); r.Status != 200 {
		w.t.Fatalf("config of %s: %d %s", domain, r.Status, r.Body)
	}
	prover.prove(w.t, w.c, domain)
}
