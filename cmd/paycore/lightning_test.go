package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/db"
	"paycore/db/view"
	"paycore/internal/infra/config"
	"paycore/internal/infra/devserver"
	"paycore/internal/infra/lnd"
	"paycore/internal/infra/lnregtest"
	"paycore/internal/infra/lnregtest/lntest"
	"paycore/internal/kit/sealbox"
	"paycore/internal/lightning"
	"paycore/internal/rail"
)

// lightningStack is a stack whose Lightning rail pays through the deployment's node of a
// fresh regtest network (make test-lightning builds its binaries), with sandbox BTC payouts
// to LIGHTNING accounts routed to it (a sandbox platform's opt-in to the real network) and
// everything else to the sandbox rail. basePort must differ between tests.
func lightningStack(t testing.TB, basePort int, tweak ...func(*config.Config)) (*stack, *lnregtest.Network, *lnd.Client) {
	t.Helper()
	n, node := lntest.Start(t, basePort)
	return lightningStackOn(t, n.Node, tweak...), n, node
}

// lightningStackOn is a stack whose Lightning rail pays through node, one of a network's.
func lightningStackOn(t testing.TB, node *lnregtest.Node, tweak ...func(*config.Config)) *stack {
	t.Helper()
	var opted optedIn
	s := newStack(t, append(tweak, func(c *config.Config) {
		opted = createOptedIn(t, c)
		routes, err := rail.ParseRoutes(lightningRoutes(opted.p.ID))
		if err != nil {
			t.Fatal(err)
		}
		c.LND = config.LND{Address: node.RPCAddr, TLSCertPath: node.TLSCert, MacaroonPath: node.Macaroon, PaymentTimeout: 20 * time.Second}
		c.Rails = routes
	})...)
	opted.c.BaseURL, opted.c.T = s.baseURL, t
	s.optedIn = &opted
	return s
}

// lightningRoutes is the routing of the Lightning tests' stacks (PAYCORE_RAILS): every
// sandbox payment on the sandbox rail, but for the one sandbox platform that opted in to the
// Lightning rail (platform), whose BTC payments to LIGHTNING accounts and UMA addresses of
// other providers go to the node.
func lightningRoutes(platform uuid.UUID) string {
	return "SANDBOX:*:*=sandbox,SANDBOX/Platform:" + platform.String() + ":BTC:EXTERNAL_ACCOUNT:LIGHTNING=lightning," +
		"SANDBOX/Platform:" + platform.String() + ":BTC:UMA=lightning"
}

// optedIn is the sandbox platform of a Lightning test's stack that opted in to the
// Lightning rail, and its client.
type optedIn struct {
	c *apitest.Client
	p db.Platform
}

// createOptedIn creates the platform that opts in, in the stack's database before the stack
// starts, so that the stack's routes can name it.
func createOptedIn(t testing.TB, c *config.Config) optedIn {
	t.Helper()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, c.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	key, err := sealbox.ParseKey(c.MasterKey)
	if err != nil {
		t.Fatal(err)
	}
	box, err := sealbox.New(key)
	if err != nil {
		t.Fatal(err)
	}
	p, tok, err := api.CreatePlatform(ctx, pool, box, api.PlatformParams{Name: "Lightning", Sandbox: true, IsRegulated: true})
	if err != nil {
		t.Fatal(err)
	}
	return optedIn{c: &apitest.Client{User: tok.Token.ID.String(), Password: tok.Secret}, p: p}
}

// lightningWorld is the sandbox platform that opted in to the Lightning rail, supporting USD
// and BTC, with one customer whose USD account holds funded.
func lightningWorld(t testing.TB, s *stack, funded int64) *world {
	t.Helper()
	w := newWorldOn(t, s, s.optedIn.c, s.optedIn.p)
	if r := w.c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), currencyItem("BTC")}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	w.fund(funded)
	return w
}

// lightningAccount registers a LIGHTNING external account of w's customer paying invoice.
func (w *world) lightningAccount(invoice string) string {
	w.t.Helper()
	r := w.c.Do("POST", "/customers/external-accounts", map[string]any{"customerId": w.customer, "currency": "BTC",
		"accountInfo": map[string]any{"accountType": "LIGHTNING", "invoice": invoice}})
	if r.Status != 201 {
		w.t.Fatalf("create LIGHTNING external account: %d %s", r.Status, r.Body)
	}
	return r.JSON(w.t)["id"].(string)
}

// ledgerLightning is what the ledger's LIGHTNING accounts (every platform's, in BTC) say
// left the deployment's node, fees included, less what came in.
func ledgerLightning(t *testing.T, s *stack) int64 { return ledgerBTC(t, s, "LIGHTNING") }

// ledgerBTC is the sum of every platform's system ledger account of kind in BTC.
func ledgerBTC(t *testing.T, s *stack, kind string) int64 {
	t.Helper()
	var sum int64
	if err := s.app.pool.QueryRow(context.Background(),
		`SELECT coalesce(sum(balance), 0) FROM ledger_balances WHERE kind = $1 AND currency = 'BTC'`, kind).Scan(&sum); err != nil {
		t.Fatal(err)
	}
	return sum
}

// A USD → BTC quote paid out to an invoice of the counterparty node completes: the
// invoice is settled for the quoted amount, and what left the node is what the ledger
// posted to its LIGHTNING account, to the satoshi. An invoice the node cannot pay fails
// the quote with its cause and gives the money back.
func TestLightningQuotePayout(t *testing.T) {
	s, n, node := lightningStack(t, 18650)
	ctx := context.Background()
	w := lightningWorld(t, s, 1_000_000)
	if got := reconcile(t, s, n); got["baselineRecorded"] != true {
		t.Fatalf("the first reconciliation recorded no baseline: %v", got)
	}
	start := w.balance()
	before, err := node.Balances(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const sats = 21_000
	inv := lntest.NewInvoice(t, n.Peer, sats, "--memo", "quote payout")
	r := w.quote(w.lightningAccount(inv.PaymentRequest), "RECEIVING", sats, map[string]any{"immediatelyExecute": true})
	if r.Status != 201 && r.Status != 200 {
		t.Fatalf("quote: %d %s", r.Status, r.Body)
	}
	var q view.Quote
	r.Decode(t, &q)
	tx := w.waitFinal(q.TransactionID, time.Minute)
	if tx.Status != "COMPLETED" {
		t.Fatalf("the payout: %s %+v", tx.Status, tx.FailureDetails)
	}
	if state, paid := lntest.InvoiceState(t, n.Peer, inv.RHash); state != "SETTLED" || paid != strconv.Itoa(sats) {
		t.Fatalf("the counterparty's invoice: %s, %s sat paid", state, paid)
	}
	after := balances(t, node)
	if left, posted := before.Total()-after.Total(), ledgerLightning(t, s); left != sats || posted != left {
		t.Fatalf("%d sat left the node, the ledger posted %d to LIGHTNING; want %d both", left, posted, sats)
	}
	if paid := start - w.balance(); paid != tx.SentAmount.Amount || paid <= 0 {
		t.Fatalf("the customer paid %d, the transaction sent %d", paid, tx.SentAmount.Amount)
	}
	t.Logf("paid %d sat for %d USD cents; transaction %s", sats, tx.SentAmount.Amount, tx.ID)
	// The quote reserved the route's fee (1%) beside the amount and charged the payer for it;
	// what the route did not spend of it stays in RAIL_FEES.
	const reserve = sats / 100
	var details struct{ CounterpartyFixedFee int64 }
	if err := json.Unmarshal(q.RateDetails, &details); err != nil || details.CounterpartyFixedFee != reserve {
		t.Fatalf("the quote's rate details %s: want the network fee reserve %d as counterpartyFixedFee (%v)", q.RateDetails, reserve, err)
	}
	hash, err := hex.DecodeString(inv.RHash)
	if err != nil {
		t.Fatal(err)
	}
	paid, err := node.Track(ctx, hash)
	if err != nil {
		t.Fatal(err)
	}
	fee := rail.SatsUp(paid.GetFeeMsat())
	if got := ledgerBTC(t, s, "RAIL_FEES"); got != reserve-fee {
		t.Fatalf("RAIL_FEES holds %d sat: want the reserve %d less the route's fee %d", got, reserve, fee)
	}
	// Operators find the payment by its hash in the Temporal UI, and its count in metrics.
	eventually(t, 30*time.Second, "the payment's workflow found by its PaymentHash", func() bool {
		runs, err := s.app.temporal.ListWorkflow(ctx, listRequest(fmt.Sprintf(`PaymentHash = %q`, inv.RHash)))
		return err == nil && len(runs.Executions) == 1
	})
	if m := metricLines(t, s.metricsURL, "paycore_lightning_"); !strings.Contains(m, `paycore_lightning_payments_total{code="",result="completed"} 1`) ||
		!strings.Contains(m, "paycore_lightning_payments_in_flight 0") {
		t.Fatalf("Lightning metrics after one payout:\n%s", m)
	}

	// An invoice for another amount than the quote's: FAILED with the cause, nothing left
	// the node, and the customer's money is back.
	inv = lntest.NewInvoice(t, n.Peer, 6_000)
	start = w.balance()
	r = w.quote(w.lightningAccount(inv.PaymentRequest), "RECEIVING", 5_000, map[string]any{"immediatelyExecute": true})
	if r.Status != 201 && r.Status != 200 {
		t.Fatalf("quote: %d %s", r.Status, r.Body)
	}
	r.Decode(t, &q)
	tx = w.waitFinal(q.TransactionID, time.Minute)
	if tx.Status != "FAILED" || tx.FailureDetails == nil || tx.FailureDetails.Code != "INVOICE_AMOUNT_MISMATCH" || tx.FailureReason == nil || *tx.FailureReason != "QUOTE_EXECUTION_FAILED" {
		t.Fatalf("the payout to an invoice for another amount: %s %v %+v", tx.Status, tx.FailureReason, tx.FailureDetails)
	}
	if b := w.balance(); b != start {
		t.Fatalf("the customer's balance is %d after the failed payout, was %d", b, start)
	}
	if now := balances(t, node); now.Total() != after.Total() || ledgerLightning(t, s) != sats {
		t.Fatalf("the failed payout moved money: node %+v (was %+v), ledger %d", now, after, ledgerLightning(t, s))
	}
	// The withdrawal fee estimate probes the route to the invoice: a direct channel charges
	// nothing (the typical Lightning fee would be 2 sat); an invoice no route can carry is
	// refused.
	btc := w.btcAccount()
	estimate := func(sats int64) *apitest.Response {
		inv := lntest.NewInvoice(t, n.Peer, sats)
		return w.c.Do("POST", "/crypto/estimate-withdrawal-fee", map[string]any{"internalAccountId": btc, "currency": "BTC",
			"cryptoNetwork": "LIGHTNING", "amount": 10_000, "destinationAddress": inv.PaymentRequest})
	}
	if r := estimate(10_000); r.Status != 200 || r.JSON(t)["networkFee"] != 0.0 {
		t.Fatalf("probed estimate: %d %s", r.Status, r.Body)
	}
	if r := estimate(900_000); r.Status != 400 || !strings.Contains(string(r.Body), "destinationAddress") {
		t.Fatalf("estimate to an invoice no route carries: %d %s", r.Status, r.Body)
	}

	// Another sandbox platform, not named by a route, keeps the sandbox rail: its payout to
	// an invoice of the counterparty completes without paying it, reserves no network fee,
	// and its BTC accounts get no invoice of the node.
	other := newWorld(t, s)
	if r := other.c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), currencyItem("BTC")}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	other.fund(100_000)
	inv = lntest.NewInvoice(t, n.Peer, 4_000)
	r = other.quote(other.lightningAccount(inv.PaymentRequest), "RECEIVING", 4_000, map[string]any{"immediatelyExecute": true})
	if r.Status != 201 && r.Status != 200 {
		t.Fatalf("quote: %d %s", r.Status, r.Body)
	}
	r.Decode(t, &q)
	if err := json.Unmarshal(q.RateDetails, &details); err != nil || details.CounterpartyFixedFee != 0 {
		t.Fatalf("a sandbox-rail quote reserved a network fee: %s (%v)", q.RateDetails, err)
	}
	if tx = other.waitFinal(q.TransactionID, time.Minute); tx.Status != "COMPLETED" {
		t.Fatalf("the other platform's sandbox payout: %s %+v", tx.Status, tx.FailureDetails)
	}
	if state, _ := lntest.InvoiceState(t, n.Peer, inv.RHash); state != "OPEN" || ledgerLightning(t, s) != sats {
		t.Fatalf("the other platform's payout reached the node: invoice %s, ledger %d", state, ledgerLightning(t, s))
	}
	if invoice, _, instructions := other.lightningInstruction(other.btcAccount()); invoice != "" {
		t.Fatalf("the other platform's BTC account has a Lightning invoice: %s", instructions)
	}

	rec := reconcile(t, s, n)
	if r := rec["reconciliation"].(map[string]any); r["differenceSats"] != 0.0 || r["ledgerSats"] != float64(sats) || rec["baselineRecorded"] != false {
		t.Fatalf("reconciliation after the payouts: %v", rec)
	}
}

// holdInvoice is an invoice of the counterparty node that it settles or cancels only when
// told: a payment to it stays in flight until then.
type holdInvoice struct {
	PaymentRequest string `json:"payment_request"`
	preimage, hash string
}

func newHoldInvoice(t *testing.T, n *lnregtest.Network, sats int64) holdInvoice {
	t.Helper()
	pre := make([]byte, 32)
	_, _ = rand.Read(pre)
	h := sha256.Sum256(pre)
	inv := holdInvoice{preimage: hex.EncodeToString(pre), hash: hex.EncodeToString(h[:])}
	if err := n.Peer.CLIJSON(context.Background(), &inv, "addholdinvoice", inv.hash, "--amt", strconv.FormatInt(sats, 10)); err != nil {
		t.Fatal(err)
	}
	return inv
}

// kill -9 of the worker, and separately of the deployment's LND node, while a payout is in
// flight (the counterparty holds its HTLC): after the restart the payment ends exactly
// once. Settled by the counterparty: COMPLETED, the invoice paid once, the node down by
// the amount once and the ledger's LIGHTNING account equal to it. Cancelled by it: FAILED
// with the customer's money back and nothing left the node.
func TestLightningCrashes(t *testing.T) {
	s, n, node := lightningStack(t, 18670)
	s.stopWorkerAndWait() // the worker runs as a separate process here
	ctx := context.Background()
	w := lightningWorld(t, s, 1_000_000)
	workerPort, err := devserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	env := []string{
		"PAYCORE_DATABASE_URL=" + s.cfg.DatabaseURL, "PAYCORE_MASTER_KEY=" + s.cfg.MasterKey, "PAYCORE_DATA_DIR=" + s.cfg.DataDir,
		"PAYCORE_TEMPORAL_ADDRESS=" + s.cfg.TemporalAddress, "PAYCORE_TASK_QUEUE=" + s.cfg.TaskQueue, "PAYCORE_LOG_LEVEL=warn",
		fmt.Sprintf("PAYCORE_WORKER_HTTP_ADDR=127.0.0.1:%d", workerPort),
		"PAYCORE_LND_ADDRESS=" + n.Node.RPCAddr, "PAYCORE_LND_TLS_CERT=" + n.Node.TLSCert, "PAYCORE_LND_MACAROON=" + n.Node.Macaroon,
		"PAYCORE_LND_PAYMENT_TIMEOUT=20s", "PAYCORE_RAILS=" + lightningRoutes(w.platform.ID),
	}
	worker := startProc(t, env, "worker")
	reconcile(t, s, n, "-rebase")
	before, err := node.Balances(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// payout quotes sats to inv and waits until the counterparty holds its HTLC.
	payout := func(inv holdInvoice, sats int64) (txID string, balance int64) {
		t.Helper()
		balance = w.balance()
		r := w.quote(w.lightningAccount(inv.PaymentRequest), "RECEIVING", sats, map[string]any{"immediatelyExecute": true})
		if r.Status != 201 && r.Status != 200 {
			t.Fatalf("quote: %d %s", r.Status, r.Body)
		}
		var q view.Quote
		r.Decode(t, &q)
		eventually(t, time.Minute, "the counterparty to hold the payment's HTLC", func() bool {
			state, _ := lntest.InvoiceState(t, n.Peer, inv.hash)
			return state == "ACCEPTED"
		})
		return q.TransactionID, balance
	}

	// The worker dies with the payment in flight; a new worker finds it at the node.
	const paid = 15_000
	inv := newHoldInvoice(t, n, paid)
	tx1, _ := payout(inv, paid)
	worker.kill()
	startProc(t, env, "worker")
	if _, err := n.Peer.CLI(ctx, "settleinvoice", inv.preimage); err != nil {
		t.Fatal(err)
	}
	if tx := w.waitFinal(tx1, 2*time.Minute); tx.Status != "COMPLETED" {
		t.Fatalf("the payout in flight when the worker died: %s %+v", tx.Status, tx.FailureDetails)
	}
	if state, amt := lntest.InvoiceState(t, n.Peer, inv.hash); state != "SETTLED" || amt != strconv.Itoa(paid) {
		t.Fatalf("the counterparty's invoice: %s, %s sat", state, amt)
	}

	// The node dies with the payment in flight; the counterparty cancels it while the
	// node restarts: FAILED, the customer's money back.
	inv = newHoldInvoice(t, n, 7_000)
	tx2, start := payout(inv, 7_000)
	n.Node.Kill()
	if _, err := n.Peer.CLI(ctx, "cancelinvoice", inv.hash); err != nil {
		t.Fatal(err)
	}
	restartCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := n.Node.Restart(restartCtx); err != nil {
		t.Fatal(err)
	}
	tx := w.waitFinal(tx2, 2*time.Minute)
	if tx.Status != "FAILED" || tx.FailureDetails == nil || tx.FailureDetails.Code != "RECIPIENT_REFUSED" {
		t.Fatalf("the payout in flight when the node died, cancelled: %s %+v", tx.Status, tx.FailureDetails)
	}
	eventually(t, 30*time.Second, "the customer's money back", func() bool { return w.balance() == start })

	// The node dies again with a payment in flight, which the counterparty settles once the
	// node is back: COMPLETED once.
	inv = newHoldInvoice(t, n, 3_000)
	tx3, _ := payout(inv, 3_000)
	n.Node.Kill()
	if err := n.Node.Restart(restartCtx); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Peer.CLI(ctx, "settleinvoice", inv.preimage); err != nil {
		t.Fatal(err)
	}
	if tx := w.waitFinal(tx3, 2*time.Minute); tx.Status != "COMPLETED" {
		t.Fatalf("the payout in flight when the node died, settled: %s %+v", tx.Status, tx.FailureDetails)
	}

	// Exactly once: what left the node is what the two settled payouts paid, and what the
	// ledger posted; nothing is held.
	var after lnd.Balances
	eventually(t, 30*time.Second, "the node's channel to settle", func() bool {
		after, err = node.Balances(ctx)
		return err == nil && !after.InFlight()
	})
	if left, posted := before.Total()-after.Total(), ledgerLightning(t, s); left != paid+3_000 || posted != left {
		t.Fatalf("%d sat left the node, the ledger posted %d; want %d both", left, posted, paid+3_000)
	}
	var held int64
	if err := s.app.pool.QueryRow(ctx, "SELECT coalesce(sum(held), 0) FROM ledger_accounts").Scan(&held); err != nil || held != 0 {
		t.Fatalf("held %d (%v)", held, err)
	}
	reconcile(t, s, n)
}

// btcAccount creates a customer of w's platform holding a BTC account and returns the
// account's id.
func (w *world) btcAccount() string {
	w.t.Helper()
	r := w.c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": "US", "fullName": "Satoshi Customer", "currencies": []string{"BTC"}})
	if r.Status != 201 {
		w.t.Fatalf("create customer: %d %s", r.Status, r.Body)
	}
	var accts struct {
		Data []view.InternalAccount `json:"data"`
	}
	w.c.Do("GET", "/customers/internal-accounts?currency=BTC&customerId="+r.JSON(w.t)["id"].(string), nil).Decode(w.t, &accts)
	if len(accts.Data) != 1 {
		w.t.Fatalf("want one BTC account, got %d", len(accts.Data))
	}
	return accts.Data[0].ID
}

// fundingInvoice reads the account's Lightning invoice from its funding instructions, and
// its balance.
func (w *world) fundingInvoice(account string) (string, int64) {
	w.t.Helper()
	invoice, balance, instructions := w.lightningInstruction(account)
	if invoice == "" {
		w.t.Fatalf("account %s has no Lightning funding instruction: %s", account, instructions)
	}
	return invoice, balance
}

// lightningInstruction is the account's Lightning invoice in its funding instructions (""
// none), its balance, and the instructions.
func (w *world) lightningInstruction(account string) (string, int64, json.RawMessage) {
	w.t.Helper()
	var accts struct {
		Data []view.InternalAccount `json:"data"`
	}
	w.c.Do("GET", "/customers/internal-accounts?currency=BTC", nil).Decode(w.t, &accts)
	for _, a := range accts.Data {
		if a.ID != account {
			continue
		}
		var instructions []struct {
			Info map[string]any `json:"accountOrWalletInfo"`
		}
		if err := json.Unmarshal(a.FundingPaymentInstructions, &instructions); err != nil {
			w.t.Fatal(err)
		}
		for _, in := range instructions {
			if in.Info["accountType"] == "LIGHTNING" {
				return in.Info["invoice"].(string), a.Balance.Amount, a.FundingPaymentInstructions
			}
		}
		return "", a.Balance.Amount, a.FundingPaymentInstructions
	}
	w.t.Fatalf("account %s not listed", account)
	return "", 0, nil
}

// A BTC account's funding instructions carry a Lightning invoice of the deployment's node,
// shown again until it is paid; paying it from the counterparty node credits the account
// once, with a COMPLETED INCOMING transaction, and the next read shows a new invoice. An
// invoice paid while no worker runs is credited once the worker is back (its scan), and
// the ledger's LIGHTNING account matches what the node received.
func TestLightningFunding(t *testing.T) {
	const domain = "ln.acme.internal"
	prover, resolve := newDomainProver(t, domain)
	s, n, node := lightningStack(t, 18690, resolve)
	ctx := context.Background()
	w := lightningWorld(t, s, 1_000)
	acct := w.btcAccount()
	reconcile(t, s, n, "-rebase")
	before, err := node.Balances(ctx)
	if err != nil {
		t.Fatal(err)
	}
	inv, balance := w.fundingInvoice(acct)
	if again, _ := w.fundingInvoice(acct); again != inv || balance != 0 {
		t.Fatalf("a second read shows another invoice (%v) or a balance of %d", again != inv, balance)
	}
	pay := func(invoice string, sats int) {
		t.Helper()
		if _, err := n.Peer.CLI(ctx, "payinvoice", "--force", "--amt", strconv.Itoa(sats), invoice); err != nil {
			t.Fatal(err)
		}
	}
	pay(inv, 4_321)
	eventually(t, 30*time.Second, "the account credited", func() bool { _, b := w.fundingInvoice(acct); return b == 4_321 })
	next, _ := w.fundingInvoice(acct)
	if next == inv {
		t.Fatal("the paid invoice is still shown")
	}

	// The worker (and its watcher) is down while the next invoice is paid.
	s.stopWorkerAndWait()
	pay(next, 1_000)
	s.startWorker()
	eventually(t, 90*time.Second, "the account credited after the restart", func() bool { _, b := w.fundingInvoice(acct); return b == 5_321 })

	var receipts int
	var total int64
	if err := s.app.pool.QueryRow(ctx, `SELECT count(*), coalesce(sum(amount), 0) FROM transactions
		WHERE kind = 'LIGHTNING_IN' AND type = 'INCOMING' AND status = 'COMPLETED' AND destination_account_id = $1`, uuidOf(acct)).Scan(&receipts, &total); err != nil {
		t.Fatal(err)
	}
	if receipts != 2 || total != 5_321 {
		t.Fatalf("%d receipts for %d sat, want 2 for 5321", receipts, total)
	}
	after := balances(t, node)
	if got, ledger := after.Total()-before.Total(), ledgerLightning(t, s); got != 5_321 || ledger != -got {
		t.Fatalf("the node received %d sat; the ledger's LIGHTNING account is %d", got, ledger)
	}
	reconcile(t, s, n)

	// An account closed after its invoice was shown (its customer's currencies changed): the
	// invoice's payment cannot credit it, so it is held on the platform's UNAPPLIED account,
	// and the node and the ledger still agree, the reconciliation showing what is held.
	cr := w.c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": "US",
		"fullName": "Closing Customer", "currencies": []string{"BTC", "USD"}})
	if cr.Status != 201 {
		t.Fatalf("create customer: %d %s", cr.Status, cr.Body)
	}
	closing := cr.JSON(t)["id"].(string)
	var closingAccounts struct {
		Data []view.InternalAccount `json:"data"`
	}
	w.c.Do("GET", "/customers/internal-accounts?currency=BTC&customerId="+closing, nil).Decode(t, &closingAccounts)
	closedInv, _ := w.fundingInvoice(closingAccounts.Data[0].ID)
	if pr := w.c.Do("PATCH", "/customers/"+closing, map[string]any{"customerType": "INDIVIDUAL", "currencies": []string{"USD"}}); pr.Status != 200 {
		t.Fatalf("drop BTC: %d %s", pr.Status, pr.Body)
	}
	pay(closedInv, 600)
	eventually(t, 30*time.Second, "the closed account's receipt held as unapplied", func() bool {
		var held bool
		err := s.app.pool.QueryRow(ctx, `SELECT unapplied_at IS NOT NULL FROM lightning_invoices WHERE payment_request = $1`, closedInv).Scan(&held)
		return err == nil && held
	})
	held := reconcile(t, s, n)["reconciliation"].(map[string]any)
	if held["unappliedSats"] != 600.0 || held["differenceSats"] != 0.0 || ledgerLightning(t, s) != -5_921 {
		t.Fatalf("reconciliation with 600 sat held for a closed account: %v (LIGHTNING %d)", held, ledgerLightning(t, s))
	}
	if err := s.app.pool.QueryRow(ctx, `SELECT count(*) FROM transactions WHERE kind = 'LIGHTNING_IN' AND destination_account_id = $1`,
		uuidOf(closingAccounts.Data[0].ID)).Scan(&receipts); err != nil || receipts != 0 {
		t.Fatalf("the closed account got %d receipts (%v)", receipts, err)
	}

	// Money the node receives outside the service (an invoice made at the node itself) is a
	// difference the reconciliation reports, and exits non-zero for, until re-based.
	pay(lntest.NewInvoice(t, n.Node, 0).PaymentRequest, 777)
	var out bytes.Buffer
	err = run([]string{"rails", "reconcile"}, &out)
	var rec struct {
		Reconciliation lightning.Reconciliation `json:"reconciliation"`
	}
	if jerr := json.Unmarshal(out.Bytes(), &rec); !errors.Is(err, errUnreconciled) || jerr != nil ||
		rec.Reconciliation.DifferenceSats != 777 || rec.Reconciliation.Agree {
		t.Fatalf("reconciliation with 777 sat received outside the ledger: %v %s", err, out.String())
	}
	reconcile(t, s, n, "-rebase")
	reconcile(t, s, n)

	// A customer's Lightning address (its UMA address without the "$"), on the platform's
	// UMA domain: its pay request, an invoice of its callback committing to the metadata,
	// paid by the counterparty, credits the customer's BTC account once.
	if r := w.c.Do("PATCH", "/config", map[string]any{"umaDomain": domain}); r.Status != 200 {
		t.Fatalf("umaDomain: %d %s", r.Status, r.Body)
	}
	prover.prove(t, w.c, domain)
	_, hal := w.umaCustomer("Hal Finney", "US", "BTC", "$hal@"+domain)
	lnurl := func(path string) (int, []byte) { return s.hostGet(domain, path) }
	status, body := lnurl("/.well-known/lnurlp/hal")
	payReq, err := lightning.ParsePayRequest(body)
	if status != 200 || err != nil || payReq.Callback != "https://"+domain+"/.well-known/lnurlp/hal/callback" {
		t.Fatalf("pay request: %d %s (%v)", status, body, err)
	}
	status, body = lnurl("/.well-known/lnurlp/hal/callback?amount=2500000")
	pr, err := lightning.ParseInvoiceAnswer(body)
	if status != 200 || err != nil {
		t.Fatalf("callback: %d %s (%v)", status, body, err)
	}
	var decoded struct {
		Sats            string `json:"num_satoshis"`
		DescriptionHash string `json:"description_hash"`
	}
	if err := n.Peer.CLIJSON(ctx, &decoded, "decodepayreq", pr); err != nil || decoded.Sats != "2500" || decoded.DescriptionHash != payReq.DescriptionHash() {
		t.Fatalf("the address's invoice: %+v %v (want the metadata's hash %s)", decoded, err, payReq.DescriptionHash())
	}
	if _, err := n.Peer.CLI(ctx, "payinvoice", "--force", pr); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the address's payment credited", func() bool { _, b := w.fundingInvoice(hal); return b == 2_500 })
	// The callback needs no credential: an address with 100 unpaid invoices makes no more.
	if _, err := s.app.pool.Exec(ctx, `INSERT INTO lightning_invoices (payment_hash, platform_id, account_id, payment_request, amount, expires_at, created_at)
		SELECT sha256(('flood' || i)::bytea), platform_id, account_id, 'lnbcrt1flood', 1, now() + interval '10 minutes', now()
		FROM lightning_invoices, generate_series(1, 100) i WHERE transaction_id IS NOT NULL AND account_id = $1 LIMIT 100`, uuidOf(hal)); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{"/.well-known/lnurlp/nobody": 404, "/.well-known/lnurlp/hal/callback?amount=1500": 400,
		"/.well-known/lnurlp/hal/callback?amount=2000000": 429} {
		if status, body := lnurl(path); status != want || !strings.Contains(string(body), `"status":"ERROR"`) {
			t.Errorf("%s: %d %s", path, status, body)
		}
	}
	reconcile(t, s, n, "-rebase")
}

// reconcile runs `paycore rails reconcile` (with args) against the stack's database and the
// deployment's node and returns what it printed; it fails the test when the node and the
// ledger differ.
func reconcile(t testing.TB, s *stack, n *lnregtest.Network, args ...string) map[string]any {
	t.Helper()
	for k, v := range map[string]string{"PAYCORE_DATABASE_URL": s.cfg.DatabaseURL, "PAYCORE_MASTER_KEY": s.cfg.MasterKey,
		"PAYCORE_LND_ADDRESS": n.Node.RPCAddr, "PAYCORE_LND_TLS_CERT": n.Node.TLSCert, "PAYCORE_LND_MACAROON": n.Node.Macaroon} {
		t.Setenv(k, v)
	}
	var out bytes.Buffer
	err := run(append([]string{"rails", "reconcile"}, args...), &out)
	var got map[string]any
	if jerr := json.Unmarshal(out.Bytes(), &got); jerr != nil {
		t.Fatalf("rails reconcile: %v, printed %q", err, out.String())
	}
	if err != nil {
		t.Fatalf("rails reconcile: %v: %s", err, out.String())
	}
	return got
}

// metricLines is the lines of /metrics whose sample names start with prefix.
func metricLines(t *testing.T, url, prefix string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, prefix) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
