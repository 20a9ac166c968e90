package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"

	"paycore/api/apitest"
	"paycore/db"
	"paycore/db/dbtest"
	"paycore/db/view"
	"paycore/internal/infra/config"
	"paycore/internal/infra/devserver"
	"paycore/internal/infra/lnd"
	"paycore/internal/infra/lnregtest"
	"paycore/internal/infra/lnregtest/lntest"
	"paycore/internal/infra/netlab"
	"paycore/internal/infra/testpki"
	"paycore/internal/kit/sealbox"
	"paycore/internal/platformconfig"
	"paycore/workflows"
)

// federated is a deployment of the service on a host of its own (a network namespace): its
// own database, its own Temporal server, its own Lightning node, its API serving HTTPS for
// its platform's domain with a certificate of the test's authority, which it trusts for
// the other deployment's. Its processes are the real binary, killable with SIGKILL.
type federated struct {
	t        *testing.T
	host     *netlab.Host
	domain   string
	env      []string
	pool     *pgxpool.Pool
	c        *apitest.Client
	platform db.Platform
	api      *proc
	worker   *proc
}

// federation is what the deployments share: the test's authority, the prover that
// publishes their platforms' domain proofs (at their domains, as the platforms' own web
// servers would), and the webhook endpoint that approves every incoming payment.
type federation struct {
	pki    testpki.Files
	caHTTP *http.Client
	prover *domainProver
	tlsSrv *httptest.Server
	hooks  *umaWebhooks
	hookAt string
}

func newFederation(t *testing.T, domains ...string) *federation {
	t.Helper()
	f := &federation{pki: testpki.New(t, t.TempDir(), "unused.test")}
	roots := x509.NewCertPool()
	pem, err := os.ReadFile(f.pki.CA)
	if err != nil {
		t.Fatal(err)
	}
	roots.AppendCertsFromPEM(pem)
	f.caHTTP = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	// The prover answers each domain with that domain's certificate.
	certs := map[string]tls.Certificate{}
	for _, d := range domains {
		cf, kf := f.pki.Issue(t, d)
		c, err := tls.LoadX509KeyPair(cf, kf)
		if err != nil {
			t.Fatal(err)
		}
		certs[d] = c
	}
	f.prover, _ = newDomainProver(t)
	f.tlsSrv = httptest.NewUnstartedServer(f.prover.srv.Config.Handler)
	f.tlsSrv.TLS = &tls.Config{GetCertificate: func(h *tls.ClientHelloInfo) (*tls.Certificate, error) {
		c, ok := certs[h.ServerName]
		if !ok {
			return nil, fmt.Errorf("no certificate for %q", h.ServerName)
		}
		return &c, nil
	}}
	f.tlsSrv.StartTLS()
	t.Cleanup(f.tlsSrv.Close)
	f.hooks, f.hookAt = newUmaWebhooks(t, 77_700)
	return f
}

// deploy starts a deployment of domain on host, paying through node, reaching peer (the
// other deployment's domain) at peerAddr.
func (f *federation) deploy(t *testing.T, host *netlab.Host, domain string, addrs []net.IP, node *lnregtest.Node, peer, peerAddr string) *federated {
	t.Helper()
	ctx := context.Background()
	cfg := config.Defaults()
	cfg.DatabaseURL, cfg.MasterKey = dbtest.New(t), sealbox.NewKey()
	opted := createOptedIn(t, &cfg)
	wd, _ := os.Getwd()
	cli, err := devserver.FindCLI(wd)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := devserver.Start(ctx, devserver.Options{CLIPath: cli, Headless: true, SearchAttributes: workflows.SearchAttributeNames, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ts.Stop)
	eventually(t, 60*time.Second, "the deployment's Temporal server to serve", func() bool {
		c, err := client.DialContext(ctx, client.Options{HostPort: ts.Address, Logger: tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))})
		if err != nil {
			return false
		}
		defer c.Close()
		_, err = c.CheckHealth(ctx, &client.CheckHealthRequest{})
		return err == nil
	})
	dbURL, err := url.Parse(cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	// The services of the test's machine, at their own addresses inside the host.
	for _, addr := range []string{dbURL.Host, ts.Address, node.RPCAddr, hostOfURL(t, f.tlsSrv.URL), hostOfURL(t, f.hookAt)} {
		host.Bring(addr)
	}
	cert, key := f.pki.Issue(t, domain, addrs...)
	d := &federated{t: t, host: host, domain: domain}
	d.env = []string{
		"PAYCORE_DATABASE_URL=" + cfg.DatabaseURL, "PAYCORE_MASTER_KEY=" + cfg.MasterKey, "PAYCORE_DATA_DIR=" + t.TempDir(),
		"PAYCORE_TEMPORAL_ADDRESS=" + ts.Address, "PAYCORE_TASK_QUEUE=paycore", "PAYCORE_LOG_LEVEL=warn",
		"PAYCORE_HTTP_ADDR=0.0.0.0:443", "PAYCORE_TLS_CERT=" + cert, "PAYCORE_TLS_KEY=" + key, "PAYCORE_OUTBOUND_ROOTS=" + f.pki.CA,
		"PAYCORE_PUBLIC_BASE_URL=https://" + domain,
		// Its own domain is the platform's web server (the prover); the peer's is the peer.
		"PAYCORE_RESOLVE=" + domain + ":443=" + hostOfURL(t, f.tlsSrv.URL) + "," + peer + ":443=" + peerAddr + ":443",
		"PAYCORE_SANDBOX_WEBHOOKS_ALLOW_PRIVATE=true",
		"PAYCORE_LND_ADDRESS=" + node.RPCAddr, "PAYCORE_LND_TLS_CERT=" + node.TLSCert, "PAYCORE_LND_MACAROON=" + node.Macaroon,
		"PAYCORE_LND_PAYMENT_TIMEOUT=20s", "PAYCORE_RAILS=" + lightningRoutes(opted.p.ID),
	}
	d.api, d.worker = d.start("serve"), d.start("worker")
	d.pool, err = pgxpool.New(ctx, cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.pool.Close)
	d.platform = opted.p
	d.c = &apitest.Client{T: t, BaseURL: "https://" + host.Addr + cfg.BasePath(), User: opted.c.User, Password: opted.c.Password, HTTP: f.caHTTP}
	waitAPI(t, f, d)
	if r := d.c.Do("PATCH", "/config", map[string]any{"umaDomain": domain,
		"supportedCurrencies": []any{currencyItem("USD"), currencyItem("EUR"), currencyItem("MXN"), currencyItem("BTC")}}); r.Status != 200 {
		t.Fatalf("%s config: %d %s", domain, r.Status, r.Body)
	}
	var cfgView struct{ UmaDomainProof struct{ Token, URL string } }
	d.c.Do("GET", "/config", nil).Decode(t, &cfgView)
	if cfgView.UmaDomainProof.URL != "https://"+domain+platformconfig.ProofPath {
		t.Fatalf("%s's proof is fetched at %s", domain, cfgView.UmaDomainProof.URL)
	}
	f.prover.publish(domain, cfgView.UmaDomainProof.Token)
	if r := d.c.Do("POST", "/config/uma-domain/verify", nil); r.Status != 200 || !strings.Contains(string(r.Body), "VERIFIED") {
		t.Fatalf("%s's domain proof over HTTPS: %d %s", domain, r.Status, r.Body)
	}
	if _, err := d.pool.Exec(ctx, "UPDATE platforms SET webhook_endpoint = $2, webhook_disabled_at = NULL WHERE id = $1", d.platform.ID, f.hookAt); err != nil {
		t.Fatal(err)
	}
	return d
}

// waitAPI waits until d's API answers over HTTPS.
func waitAPI(t *testing.T, f *federation, d *federated) {
	t.Helper()
	eventually(t, 60*time.Second, d.domain+"'s API over HTTPS", func() bool {
		resp, err := f.caHTTP.Get("https://" + d.host.Addr + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == 200
	})
}

// start runs the binary's subcommand in the deployment's host.
func (d *federated) start(sub string) *proc {
	d.t.Helper()
	bin, err := buildOnce()
	if err != nil {
		d.t.Fatal(err)
	}
	cmd := d.host.Command(bin, sub)
	cmd.Env = append(os.Environ(), d.env...)
	logf, _ := os.CreateTemp("", "paycore-"+d.domain+"-"+sub+"-*.log")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		d.t.Fatal(err)
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done); logf.Close() }()
	d.t.Cleanup(p.kill)
	return p
}

// customer creates a customer of region at the deployment's domain with an account in currency,
// funded with funded (none when 0), and answers its id and account.
func (d *federated) customer(name, user, region, currency string, funded int64) (id, account string) {
	d.t.Helper()
	r := d.c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": region,
		"fullName": name, "currencies": []string{currency}, "umaAddress": "$" + user + "@" + d.domain})
	if r.Status != 201 {
		d.t.Fatalf("customer %s: %d %s", name, r.Status, r.Body)
	}
	id = r.JSON(d.t)["id"].(string)
	var accts struct {
		Data []view.InternalAccount `json:"data"`
	}
	d.c.Do("GET", "/customers/internal-accounts?customerId="+id, nil).Decode(d.t, &accts)
	account = accts.Data[0].ID
	if funded > 0 {
		if r := d.c.Do("POST", "/sandbox/internal-accounts/"+account+"/fund", map[string]any{"amount": funded}); r.Status != 200 {
			d.t.Fatalf("fund: %d %s", r.Status, r.Body)
		}
	}
	return id, account
}

// pay quotes a payment from account to address, the receiving amount locked in currency,
// executed at once, and answers its transaction.
func (d *federated) pay(account, address, currency string, amount int64) string {
	d.t.Helper()
	r := d.c.Do("POST", "/quotes", map[string]any{"source": map[string]any{"sourceType": "ACCOUNT", "accountId": account},
		"destination":        map[string]any{"destinationType": "UMA_ADDRESS", "umaAddress": address, "currency": currency},
		"lockedCurrencySide": "RECEIVING", "lockedCurrencyAmount": amount, "immediatelyExecute": true})
	if r.Status != 201 {
		d.t.Fatalf("quote to %s: %d %s", address, r.Status, r.Body)
	}
	var q view.Quote
	r.Decode(d.t, &q)
	return q.TransactionID
}

// completed are what the deployment's completed UMA payments of type typ received, oldest
// first.
func (d *federated) completed(typ string) []int64 {
	d.t.Helper()
	var out []int64
	rows, err := d.pool.Query(context.Background(),
		"SELECT CASE WHEN type = 'INCOMING' THEN amount ELSE coalesce(receiving_amount, 0) END FROM transactions WHERE type = $1 AND status = 'COMPLETED' AND (kind = 'QUOTE' OR source_uma_address IS NOT NULL) ORDER BY created_at", typ)
	if err != nil {
		d.t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var a int64
		_ = rows.Scan(&a)
		out = append(out, a)
	}
	return out
}

// status is a transaction's status, read from the database.
func (d *federated) status(id string) string {
	var s string
	_ = d.pool.QueryRow(context.Background(), "SELECT status FROM transactions WHERE id = $1", uuidOf(id)).Scan(&s)
	return s
}

// ledger is the sum of the deployment's system accounts of kind in currency.
func (d *federated) ledger(kind, currency string) int64 {
	var sum int64
	if err := d.pool.QueryRow(context.Background(), "SELECT coalesce(sum(balance), 0) FROM ledger_balances WHERE kind = $1 AND currency = $2",
		kind, currency).Scan(&sum); err != nil {
		d.t.Fatal(err)
	}
	return sum
}

// held is what the deployment's internal accounts hold for payments in flight.
func (d *federated) held() int64 {
	var sum int64
	if err := d.pool.QueryRow(context.Background(), "SELECT coalesce(sum(held), 0)::bigint FROM ledger_accounts WHERE kind = 'INTERNAL'").Scan(&sum); err != nil {
		d.t.Fatal(err)
	}
	return sum
}

// conserved fails unless every currency's ledger sums to zero and no internal account is
// below zero.
func (d *federated) conserved() {
	d.t.Helper()
	var unbalanced, negative int
	_ = d.pool.QueryRow(context.Background(), "SELECT count(*) FROM (SELECT currency FROM ledger_balances GROUP BY currency HAVING sum(balance) <> 0) x").Scan(&unbalanced)
	_ = d.pool.QueryRow(context.Background(), "SELECT count(*) FROM ledger_balances WHERE kind = 'INTERNAL' AND balance - held < 0").Scan(&negative)
	if unbalanced != 0 || negative != 0 {
		d.t.Errorf("%s: %d currencies unbalanced, %d accounts below zero", d.domain, unbalanced, negative)
	}
}

func hostOfURL(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// Two deployments of the service, each on a host of its own with its own database, Temporal
// server and Lightning node (a channel between the nodes), serving their platforms' domains
// over HTTPS from the test's authority, pay each other over the UMA protocol: USD → MXN one
// way, EUR → USD the other. Each payment completes once on both sides, both platforms are
// asked to approve what they receive, and each ledger's Lightning account moves exactly as
// its node did. kill -9 of both workers while a payment is in flight, and of the receiving
// API before a payment is executed, still ends with exactly one payment on each side.
func TestLightningUmaFederation(t *testing.T) {
	const alice, bob = "pay.alice.test", "pay.bob.test"
	n, nodeA := lntest.Start(t, 18750)
	nodeB := lntest.Dial(t, n.Peer)
	lab := netlab.New(t)
	hostA, hostB := lab.Host("alice"), lab.Host("bob")
	linkA, linkB := lab.Link(hostA, hostB)
	f := newFederation(t, alice, bob)
	A := f.deploy(t, hostA, alice, []net.IP{net.ParseIP(hostA.Addr), net.ParseIP(linkA)}, n.Node, bob, linkB)
	B := f.deploy(t, hostB, bob, []net.IP{net.ParseIP(hostB.Addr), net.ParseIP(linkB)}, n.Peer, alice, linkA)

	_, aliceUSD := A.customer("Alice Sender", "alice", "US", "USD", 1_000_000)
	bobID, _ := B.customer("Bob Receiver", "bob", "MX", "MXN", 0)
	_, carolEUR := B.customer("Carol Sender", "carol", "DE", "EUR", 1_000_000)
	balancesA := balances(t, nodeA)
	balancesB := balances(t, nodeB)
	lightningA, lightningB := A.ledger("LIGHTNING", "BTC"), B.ledger("LIGHTNING", "BTC")

	// USD → MXN, then EUR → USD the other way.
	toBob := A.pay(aliceUSD, "$bob@"+bob, "MXN", 15_000)
	toAlice := B.pay(carolEUR, "$alice@"+alice, "USD", 2_000)
	for _, p := range []struct {
		d  *federated
		id string
	}{{A, toBob}, {B, toAlice}} {
		eventually(t, 90*time.Second, "payment "+p.id+" to complete", func() bool { return p.d.status(p.id) == "COMPLETED" })
	}
	eventually(t, 60*time.Second, "both receivers credited", func() bool {
		return len(B.completed("INCOMING")) == 1 && len(A.completed("INCOMING")) == 1
	})
	if got := B.completed("INCOMING"); got[0] != 15_000 {
		t.Fatalf("bob received %v, want 15000 MXN", got)
	}
	if got := A.completed("INCOMING"); got[0] != 2_000 {
		t.Fatalf("alice received %v, want 2000 USD", got)
	}
	var bobAccts struct {
		Data []view.InternalAccount `json:"data"`
	}
	B.c.Do("GET", "/customers/internal-accounts?customerId="+bobID, nil).Decode(t, &bobAccts)
	if bobAccts.Data[0].Balance.Amount != 15_000 {
		t.Fatalf("bob's balance %d", bobAccts.Data[0].Balance.Amount)
	}

	// kill -9 of both workers, and of the paying API, with a payment in flight: restarted,
	// it ends once on each side.
	inFlight := A.pay(aliceUSD, "$bob@"+bob, "MXN", 12_300)
	A.worker.kill()
	B.worker.kill()
	A.api.kill()
	A.worker, B.worker, A.api = A.start("worker"), B.start("worker"), A.start("serve")
	waitAPI(t, f, A)
	eventually(t, 2*time.Minute, "the payment in flight when both workers died", func() bool { return A.status(inFlight) == "COMPLETED" })

	// kill -9 of the receiving API between the quote and its execution: the payment goes
	// over Lightning all the same, and the receiver's credit does not need its API.
	r := A.c.Do("POST", "/quotes", map[string]any{"source": map[string]any{"sourceType": "ACCOUNT", "accountId": aliceUSD},
		"destination":        map[string]any{"destinationType": "UMA_ADDRESS", "umaAddress": "$bob@" + bob, "currency": "MXN"},
		"lockedCurrencySide": "RECEIVING", "lockedCurrencyAmount": 4_500})
	if r.Status != 201 {
		t.Fatalf("quote: %d %s", r.Status, r.Body)
	}
	var q view.Quote
	r.Decode(t, &q)
	B.api.kill()
	// Meanwhile a new quote to bob is a clear refusal, at once, nothing held.
	held := A.held()
	r = A.c.Do("POST", "/quotes", map[string]any{"source": map[string]any{"sourceType": "ACCOUNT", "accountId": aliceUSD},
		"destination":        map[string]any{"destinationType": "UMA_ADDRESS", "umaAddress": "$bob@" + bob, "currency": "MXN"},
		"lockedCurrencySide": "RECEIVING", "lockedCurrencyAmount": 1_000})
	if r.Status != 400 || r.Code(t) != "INVALID_UMA_ADDRESS" || !strings.Contains(string(r.Body), `"failure":"LNURLP_FAILED"`) || A.held() != held {
		t.Fatalf("a quote to a provider that is down: %d %s", r.Status, r.Body)
	}
	if r := A.c.Do("POST", "/quotes/"+q.ID+"/execute", nil); r.Status != 200 {
		t.Fatalf("execute: %d %s", r.Status, r.Body)
	}
	eventually(t, 90*time.Second, "the payment made while the receiver's API was down", func() bool { return A.status(q.TransactionID) == "COMPLETED" })
	// A refund to carol, whose provider is down, is refused at once, nothing held.
	fromCarol := findIncoming(t, A, "$carol@"+bob)
	held = A.held()
	r = A.c.Do("POST", "/transactions/"+fromCarol+"/refund", nil)
	if r.Status != 400 || r.Code(t) != "INVALID_UMA_ADDRESS" || !strings.Contains(string(r.Body), `"failure":"LNURLP_FAILED"`) || A.held() != held ||
		A.status(fromCarol) != "COMPLETED" {
		t.Fatalf("a refund to a provider that is down: %d %s", r.Status, r.Body)
	}
	B.api = B.start("serve")
	eventually(t, 60*time.Second, "bob credited three times", func() bool { return len(B.completed("INCOMING")) == 3 })
	if got, want := B.completed("INCOMING"), []int64{15_000, 12_300, 4_500}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("bob received %v, want %v: each payment once", got, want)
	}
	if got := A.completed("OUTGOING"); len(got) != 3 {
		t.Fatalf("alice's completed payments %v, want 3", got)
	}

	// Asked again, alice's platform sends carol's payment back. Its refund asks carol's provider for an
	// invoice over UMA (an ordinary payment from alice's address to carol's) and pays it over
	// Lightning; alice's worker dies meanwhile. Carol is credited once, in her currency, the
	// satoshis she sent; alice's payment is REFUNDED and nothing stays held.
	waitAPI(t, f, B)
	carolCredits := func() (n, sum int64) {
		_ = B.pool.QueryRow(context.Background(), "SELECT count(*), coalesce(sum(amount), 0)::bigint FROM transactions WHERE type = 'INCOMING' AND status = 'COMPLETED' AND source_uma_address IS NOT NULL AND destination_account_id = $1",
			uuidOf(carolEUR)).Scan(&n, &sum)
		return n, sum
	}
	if r := A.c.Do("POST", "/transactions/"+fromCarol+"/refund", nil); r.Status != 200 || !strings.Contains(string(r.Body), `"status":"PENDING"`) {
		t.Fatalf("refund: %d %s", r.Status, r.Body)
	}
	A.worker.kill()
	A.worker = A.start("worker")
	eventually(t, 2*time.Minute, "the refund of carol's payment", func() bool { return A.status(fromCarol) == "REFUNDED" })
	eventually(t, 60*time.Second, "carol credited by the refund", func() bool { n, _ := carolCredits(); return n == 1 })
	var paid int64 // what carol's payment took from her account, fees included
	_ = B.pool.QueryRow(context.Background(), "SELECT amount FROM transactions WHERE id = $1", uuidOf(toAlice)).Scan(&paid)
	if n, eur := carolCredits(); n != 1 || eur <= 0 || eur > paid {
		t.Fatalf("carol was credited %d times, %d EUR cents (she paid %d)", n, eur, paid)
	}
	if r := A.c.Do("POST", "/transactions/"+fromCarol+"/refund", nil); r.Status != 409 || r.Code(t) != "TRANSACTION_NOT_REFUNDABLE" {
		t.Fatalf("a second refund: %d %s", r.Status, r.Body)
	}
	if A.held() != 0 {
		t.Fatalf("alice's deployment still holds %d", A.held())
	}

	// The channel and both ledgers agree to the satoshi.
	afterA := balances(t, nodeA)
	afterB := balances(t, nodeB)
	if left, posted := balancesA.Total()-afterA.Total(), A.ledger("LIGHTNING", "BTC")-lightningA; left != posted {
		t.Errorf("alice's node: %d sat left it, the ledger says %d", left, posted)
	}
	if left, posted := balancesB.Total()-afterB.Total(), B.ledger("LIGHTNING", "BTC")-lightningB; left != posted {
		t.Errorf("bob's node: %d sat left it, the ledger says %d", left, posted)
	}
	A.conserved()
	B.conserved()
	// Each platform was asked to approve what it received, with what the sender's provider
	// said of the sender.
	for _, p := range []struct {
		d      *federated
		sender string
	}{{B, "$alice@" + alice}, {A, "$carol@" + bob}} {
		info := f.hooks.asked(findIncoming(t, p.d, p.sender))
		if info == nil || info["UMA_ADDRESS"] != p.sender || info["KYC_STATUS"] != "VERIFIED" {
			t.Errorf("%s's platform was asked about %s's payment with %v", p.d.domain, p.sender, info)
		}
	}
}

// findIncoming is the id of the deployment's first incoming payment from sender.
func findIncoming(t *testing.T, d *federated, sender string) string {
	t.Helper()
	var id string
	if err := d.pool.QueryRow(context.Background(), "SELECT id::text FROM transactions WHERE type = 'INCOMING' AND source_uma_address = $1 ORDER BY created_at LIMIT 1",
		sender).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return "Transaction:" + id
}

// balances are what node holds once no payment is in flight in its channels (LND reports
// a payment settled before the channel update that settles its HTLC).
func balances(t *testing.T, node *lnd.Client) lnd.Balances {
	t.Helper()
	var b lnd.Balances
	eventually(t, 30*time.Second, "no payment in flight in the node's channels", func() bool {
		var err error
		b, err = node.Balances(context.Background())
		return err == nil && !b.InFlight()
	})
	return b
}
