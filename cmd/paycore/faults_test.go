package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/db"
	"paycore/db/view"
	"paycore/internal/infra/config"
	"paycore/internal/kit/sealbox"
)

// The seeded fault test (make test-faults): a deployment of its own (a PostgreSQL server,
// the Temporal server on it, 2 API and 2 worker processes of the real binary, all on
// loopback) runs a concurrent bank workload while a seeded schedule kills, with SIGKILL
// and at random moments, an API process, a worker process, the Temporal server and
// PostgreSQL, each started again after a random downtime. Clients retry what got no
// answer with the same Idempotency-Key, on either API. At the end every accepted payment
// finished exactly once (and a repeat of every request answers as the first did), every
// currency sums to zero, no balance went negative at any sample, every account's balance
// is what its completed payments add up to, no hold is left, and every webhook event was
// delivered.
//
// PAYCORE_FAULT_SEED picks the schedule (default: the clock; logged, so a failure can be
// replayed), PAYCORE_FAULT_RUNS how many runs (each with the next seed and a deployment
// of its own), PAYCORE_FAULT_DURATION how long the faults go on in each run (45s).
func TestSeededFaults(t *testing.T) {
	if os.Getenv("PAYCORE_TEST_FAULTS") == "" {
		t.Skip("the seeded fault test runs in `make test-faults` (PAYCORE_TEST_FAULTS=1): it needs bin/temporal-server and takes minutes")
	}
	seed := uint64(time.Now().UnixNano() % 1_000_000)
	if v := os.Getenv("PAYCORE_FAULT_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("PAYCORE_FAULT_SEED=%q: %v", v, err)
		}
		seed = n
	}
	runs := 1
	if v := os.Getenv("PAYCORE_FAULT_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("PAYCORE_FAULT_RUNS=%q: a positive number", v)
		}
		runs = n
	}
	duration := 45 * time.Second
	if v := os.Getenv("PAYCORE_FAULT_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			t.Fatalf("PAYCORE_FAULT_DURATION=%q: a positive duration", v)
		}
		duration = d
	}
	var total faultReport
	for i := range runs {
		s := seed + uint64(i)
		t.Run(fmt.Sprintf("seed=%d", s), func(t *testing.T) {
			r := runFaults(t, s, duration)
			total.add(r)
			t.Logf("run (seed %d): %s", s, &r)
		})
	}
	t.Logf("%d runs: %s", runs, &total)
}

// faultReport counts what a run did.
type faultReport struct {
	runs                                 int
	faults                               map[string]int
	unplanned, failedStarts              int
	requests, retries                    int
	payments, completed, failed, refused int
	events, duplicateDeliveries          int
	samples                              int64
}

func (r *faultReport) add(o faultReport) {
	if r.faults == nil {
		r.faults = map[string]int{}
	}
	r.runs++
	for k, v := range o.faults {
		r.faults[k] += v
	}
	r.unplanned += o.unplanned
	r.failedStarts += o.failedStarts
	r.requests += o.requests
	r.retries += o.retries
	r.payments += o.payments
	r.completed += o.completed
	r.failed += o.failed
	r.refused += o.refused
	r.events += o.events
	r.duplicateDeliveries += o.duplicateDeliveries
	r.samples += o.samples
}

func (r *faultReport) String() string {
	var kinds []string
	n := 0
	for _, k := range []string{"api", "worker", "temporal", "postgres"} {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, r.faults[k]))
		n += r.faults[k]
	}
	return fmt.Sprintf("%d faults injected (%s), %d unplanned exits, %d failed restarts; %d requests (%d resends after no answer or a 5xx); "+
		"%d payments checked (%d completed, %d failed), %d refused; %d webhook events all delivered (%d duplicate deliveries); %d invariant samples",
		n, strings.Join(kinds, ", "), r.unplanned, r.failedStarts, r.requests, r.retries, r.payments, r.completed, r.failed, r.refused,
		r.events, r.duplicateDeliveries, r.samples)
}

// faultRequest is one request of the workload, repeated with its key until it gets an
// answer that is not a failure of the deployment.
type faultRequest struct {
	method, path, body, key string
	status                  int
	code, id, txID          string
}

// faultClient sends requests to either API, retrying with the same Idempotency-Key.
type faultClient struct {
	apis       []string
	user, pass string
	retries    atomic.Int64
	requests   atomic.Int64
}

// retryable says whether an answer (or its absence) is the deployment failing, so the same
// request is sent again.
func retryable(r *apitest.Response, err error) bool {
	if err != nil || r.Status >= 500 || r.Status == http.StatusTooManyRequests {
		return true
	}
	return r.Status == http.StatusConflict && strings.Contains(string(r.Body), "IDEMPOTENCY_REQUEST_IN_PROGRESS")
}

// send sends req until it is answered, or until giveUp (the request stays unanswered and
// is settled at the end).
func (c *faultClient) send(req *faultRequest, start int, giveUp time.Time) bool {
	c.requests.Add(1)
	for i := start; ; i++ {
		cl := &apitest.Client{BaseURL: c.apis[i%len(c.apis)], User: c.user, Password: c.pass}
		r, err := doRaw(cl, req.method, req.path, req.body, req.key)
		if !retryable(r, err) {
			req.status = r.Status
			var v struct {
				ID            string `json:"id"`
				Code          string `json:"code"`
				TransactionID string `json:"transactionId"`
			}
			_ = json.Unmarshal(r.Body, &v)
			req.id, req.code, req.txID = v.ID, v.Code, v.TransactionID
			return true
		}
		c.retries.Add(1)
		if time.Now().After(giveUp) {
			return false
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func runFaults(t *testing.T, seed uint64, duration time.Duration) faultReport {
	rep := faultReport{faults: map[string]int{}}
	logf, err := os.CreateTemp("", fmt.Sprintf("paycore-faults-%d-*.log", seed))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	t.Logf("seed %d; the deployment's logs: %s", seed, logf.Name())
	d := startFaultDeployment(t, &lockedWriter{w: logf})
	defer d.stop()
	b := openFaultBank(t, d)
	stopMonitor := d.monitor()

	faultsEnd := time.Now().Add(duration)
	fc := &faultClient{apis: d.apis, user: b.c.User, pass: b.c.Password}
	requests := b.workload(seed, fc, faultsEnd, faultsEnd.Add(2*time.Minute), func() {
		d.injectFaults(t, rand.New(rand.NewPCG(seed, 0x5eed)), faultsEnd, &rep)
	})
	d.whole(t, &rep)

	accepted := checkAnswers(t, fc, requests, &rep)
	d.settled(t)
	if samples, violations, last := stopMonitor(); violations > 0 {
		t.Fatalf("%d of %d samples broke an invariant; the last: %s", violations, samples, last)
	} else {
		rep.samples = samples
	}
	d.checkPayments(t, b, accepted, &rep)
	d.checkMoney(t, b)
	d.checkWebhooks(t, b, &rep)
	return rep
}

// faultDeployment is the fault test's own deployment: PostgreSQL, the Temporal server on
// it, 2 API and 2 worker processes, each a supervised unit; pool observes its database.
type faultDeployment struct {
	units     map[string][]*unit // by kind: postgres, temporal, api, worker
	apis      []string
	masterKey string
	pool      *pgxpool.Pool
}

func startFaultDeployment(t *testing.T, logw io.Writer) *faultDeployment {
	t.Helper()
	pg := newOwnPostgres(t, logw)
	pgUnit := newUnit("postgres", logw, pg.run)
	pgUnit.supervise(t)
	bin, err := buildOnce()
	if err != nil {
		t.Fatal(err)
	}
	d := &faultDeployment{masterKey: sealbox.NewKey()}
	dbURL := pg.url("paycore")
	env := []string{"PAYCORE_DATABASE_URL=" + dbURL, "PAYCORE_MASTER_KEY=" + d.masterKey, "PAYCORE_DATA_DIR=" + t.TempDir(),
		"PAYCORE_TASK_QUEUE=paycore-faults", "PAYCORE_DATABASE_MAX_CONNS=8", "PAYCORE_LOG_LEVEL=warn",
		"PAYCORE_SANDBOX_WEBHOOKS_ALLOW_PRIVATE=true", "PAYCORE_WEBHOOK_RETRY_INITIAL=100ms", "PAYCORE_WEBHOOK_RETRY_MAX_INTERVAL=1s",
		"PAYCORE_SANDBOX_SLOW_DELAY=2s", "PAYCORE_SANDBOX_QUOTE_SLOW_DELAY=2s", "PAYCORE_SANDBOX_QUOTE_RETURN_DELAY=1s",
		"PAYCORE_METRICS_ADDR=off"}
	migrate := exec.Command(bin, "migrate")
	migrate.Env = append(os.Environ(), append(env, "PAYCORE_TEMPORAL_ADDRESS=127.0.0.1:1")...)
	if out, err := migrate.CombinedOutput(); err != nil {
		t.Fatalf("migrate: %v: %s", err, out)
	}
	temporal, addr := temporalUnit(t, pg, logw)
	env = append(env, "PAYCORE_TEMPORAL_ADDRESS="+addr)
	d.units = map[string][]*unit{"postgres": {pgUnit}, "temporal": {temporal}}
	for i := range 2 {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		d.apis = append(d.apis, fmt.Sprintf("http://127.0.0.1:%d%s", port, config.Defaults().BasePath()))
		readyz := fmt.Sprintf("http://127.0.0.1:%d/readyz", port)
		d.units["api"] = append(d.units["api"], paycoreUnit(t, fmt.Sprintf("api-%d", i),
			append(env, fmt.Sprintf("PAYCORE_HTTP_ADDR=127.0.0.1:%d", port)), logw, func() error { return healthcheck(context.Background(), readyz) }, "serve"))
		wport, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		d.units["worker"] = append(d.units["worker"], paycoreUnit(t, fmt.Sprintf("worker-%d", i),
			append(env, fmt.Sprintf("PAYCORE_WORKER_HTTP_ADDR=127.0.0.1:%d", wport)), logw, nil, "worker"))
	}
	if d.pool, err = pgxpool.New(context.Background(), dbURL); err != nil {
		t.Fatal(err)
	}
	return d
}

// stop ends every unit, the service's processes first, then closes the observer's pool.
func (d *faultDeployment) stop() {
	for _, kind := range []string{"api", "worker", "temporal", "postgres"} {
		for _, u := range d.units[kind] {
			u.stop()
		}
	}
	d.pool.Close()
}

// injectFaults kills, until end, one running unit every 1.5 to 4 seconds and lets it come
// back after 0.2 to 2 seconds: each kind once first (in a seeded order), then at random.
func (d *faultDeployment) injectFaults(t *testing.T, rng *rand.Rand, end time.Time, rep *faultReport) {
	kinds := []string{"api", "worker", "temporal", "postgres"}
	rng.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
	start := time.Now()
	for i := 0; time.Now().Before(end); i++ {
		time.Sleep(time.Duration(1500+rng.IntN(2500)) * time.Millisecond)
		kind := kinds[rng.IntN(len(kinds))]
		if i < len(kinds) {
			kind = kinds[i]
		}
		us := d.units[kind]
		u := us[rng.IntN(len(us))]
		down := time.Duration(200+rng.IntN(1800)) * time.Millisecond
		if u.crash(down) {
			rep.faults[kind]++
			t.Logf("%6.1fs SIGKILL %s (down %s)", time.Since(start).Seconds(), u.name, down)
		}
	}
}

// whole waits until every unit runs again and both APIs are ready, and counts the exits
// and failed starts nobody planned.
func (d *faultDeployment) whole(t *testing.T, rep *faultReport) {
	t.Helper()
	var all []*unit
	for _, us := range d.units {
		all = append(all, us...)
	}
	eventually(t, 3*time.Minute, "every unit running", func() bool {
		for _, u := range all {
			if !u.isUp() {
				return false
			}
		}
		return healthcheck(context.Background(), strings.Replace(d.apis[0], config.Defaults().BasePath(), "/readyz", 1)) == nil &&
			healthcheck(context.Background(), strings.Replace(d.apis[1], config.Defaults().BasePath(), "/readyz", 1)) == nil
	}, func() string {
		var states []string
		for _, u := range all {
			states = append(states, u.state())
		}
		return strings.Join(states, "; ")
	})
	for _, u := range all {
		u.mu.Lock()
		rep.unplanned += u.unplanned
		rep.failedStarts += u.failures
		u.mu.Unlock()
	}
}

// monitor samples, every 100 ms while the database is up, that no internal account is
// negative and every currency sums to zero; stop ends it and returns the samples taken,
// those that broke an invariant and the last such.
func (d *faultDeployment) monitor() (stop func() (samples, violations int64, last string)) {
	done, finished := make(chan struct{}), make(chan struct{})
	var samples, violations int64
	var last string
	go func() {
		defer close(finished)
		for {
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			var negative, unbalanced int
			err := d.pool.QueryRow(ctx, `
				SELECT (SELECT count(*) FROM ledger_balances WHERE kind = 'INTERNAL' AND (balance - held < 0 OR balance < 0 OR held < 0)),
				       (SELECT count(*) FROM (SELECT currency FROM ledger_balances GROUP BY currency HAVING sum(balance) <> 0) x)`).Scan(&negative, &unbalanced)
			cancel()
			if err == nil {
				samples++
				if negative > 0 || unbalanced > 0 {
					violations++
					last = fmt.Sprintf("%d negative accounts, %d unbalanced currencies", negative, unbalanced)
				}
			}
		}
	}()
	return func() (int64, int64, string) {
		close(done)
		<-finished
		return samples, violations, last
	}
}

// faultBank is the workload's bank: a sandbox platform (its webhooks to rc) with 4 funded
// customers, each with USD accounts for every transfer outcome and EUR accounts for every
// quote outcome.
type faultBank struct {
	c         *apitest.Client
	platform  db.Platform
	rc        *receiver
	customers []faultCustomer
}

type faultCustomer struct {
	account     string
	exts, euros []string
}

// funding is what openFaultBank puts into every customer's account.
const funding = 1_000_000

func openFaultBank(t *testing.T, d *faultDeployment) *faultBank {
	t.Helper()
	key, _ := sealbox.ParseKey(d.masterKey)
	box, err := sealbox.New(key)
	if err != nil {
		t.Fatal(err)
	}
	p, tok, err := api.CreatePlatform(context.Background(), d.pool, box, api.PlatformParams{Name: "Faults", Sandbox: true, IsRegulated: true})
	if err != nil {
		t.Fatal(err)
	}
	b := &faultBank{c: &apitest.Client{T: t, BaseURL: d.apis[0], User: tok.Token.ID.String(), Password: tok.Secret}, platform: p, rc: newReceiver(t, nil)}
	setEndpoint(t, b.c, b.rc.srv.URL)
	if r := b.c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), currencyItem("EUR")}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	suffixes := []string{"001", "001", "001", "002", "003", "004", "005", "009"}
	quoteSuffixes := []string{"001", "001", "002", "003", "004", "005", "006", "007", "009"}
	for range 4 {
		r := b.c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": "US", "fullName": "Ada Lovelace", "currencies": []string{"USD"}})
		var cust api.Customer
		r.Decode(t, &cust)
		var accts api.List[view.InternalAccount]
		b.c.Do("GET", "/customers/internal-accounts?customerId="+cust.ID, nil).Decode(t, &accts)
		w := &world{t: t, c: b.c, customer: cust.ID, account: accts.Data[0].ID}
		w.fund(funding)
		cu := faultCustomer{account: w.account}
		for _, s := range suffixes {
			cu.exts = append(cu.exts, w.external(s))
		}
		for _, s := range quoteSuffixes {
			cu.euros = append(cu.euros, w.euroAccount(s))
		}
		b.customers = append(b.customers, cu)
	}
	return b
}

// workload runs 8 clients sending transfers out, transfers in and quotes (created, then
// executed) until end, while faults runs; a request without an answer is retried until
// giveUp. It returns every request sent.
func (b *faultBank) workload(seed uint64, fc *faultClient, end, giveUp time.Time, faults func()) []*faultRequest {
	var mu sync.Mutex
	var requests []*faultRequest
	sent := func(r *faultRequest) {
		mu.Lock()
		requests = append(requests, r)
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for client := range 8 {
		rng := rand.New(rand.NewPCG(seed, uint64(client)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; time.Now().Before(end); n++ {
				cu := b.customers[rng.IntN(len(b.customers))]
				amount := 1 + rng.IntN(20_000)
				key := fmt.Sprintf("faults-%d-%d-%d", seed, client, n)
				req := &faultRequest{method: "POST", key: key}
				switch op := rng.IntN(10); {
				case op < 5:
					req.path = "/transfer-out"
					req.body = fmt.Sprintf(`{"source":{"accountId":%q},"destination":{"accountId":%q},"amount":%d}`, cu.account, cu.exts[rng.IntN(len(cu.exts))], amount)
				case op < 7:
					req.path = "/transfer-in"
					req.body = fmt.Sprintf(`{"source":{"accountId":%q},"destination":{"accountId":%q},"amount":%d}`, cu.exts[rng.IntN(len(cu.exts))], cu.account, amount)
				default:
					req.path = "/quotes"
					req.body = fmt.Sprintf(`{"source":{"sourceType":"ACCOUNT","accountId":%q},"destination":{"destinationType":"ACCOUNT","accountId":%q},"lockedCurrencySide":"SENDING","lockedCurrencyAmount":%d}`,
						cu.account, cu.euros[rng.IntN(len(cu.euros))], 100+amount)
				}
				answered := fc.send(req, client+n, giveUp)
				sent(req)
				if req.path == "/quotes" && answered && req.status == 201 {
					x := &faultRequest{method: "POST", path: "/quotes/" + req.id + "/execute", key: key + "-execute"}
					fc.send(x, client+n+1, giveUp)
					sent(x)
				}
			}
		}()
	}
	faults()
	wg.Wait()
	return requests
}

// checkAnswers settles every request left without an answer, then repeats each one with
// its key: the repeat must answer as the first did. It returns the payments accepted (by
// transaction id): every transfer answered 201 and every quote executed.
func checkAnswers(t *testing.T, fc *faultClient, requests []*faultRequest, rep *faultReport) map[string]bool {
	t.Helper()
	settle := time.Now().Add(3 * time.Minute)
	for i, req := range requests {
		if req.status == 0 && !fc.send(req, i, settle) {
			t.Fatalf("%s %s (key %s) never answered", req.method, req.path, req.key)
		}
	}
	for i, req := range requests {
		again := *req
		if !fc.send(&again, i+1, settle) {
			t.Fatalf("repeat of %s %s (key %s) never answered", req.method, req.path, req.key)
		}
		if again.status != req.status || again.id != req.id {
			t.Fatalf("%s %s (key %s) answered %d %s %s, repeated %d %s %s", req.method, req.path, req.key,
				req.status, req.id, req.code, again.status, again.id, again.code)
		}
	}
	rep.requests, rep.retries = int(fc.requests.Load()), int(fc.retries.Load())
	accepted := map[string]bool{}
	for _, req := range requests {
		switch {
		case req.status == 201 && req.path != "/quotes":
			accepted[req.id] = true
		case req.status == 200 && strings.HasSuffix(req.path, "/execute"):
			if req.txID == "" {
				t.Fatalf("executed quote %s without a transactionId", req.id)
			}
			accepted[req.txID] = true
		case req.status == 201:
		case req.status == 400 && req.code == "INSUFFICIENT_FUNDS", req.status == 409 && req.code == "QUOTE_NOT_PENDING":
			rep.refused++
		default:
			t.Fatalf("%s %s (key %s): %d %s", req.method, req.path, req.key, req.status, req.code)
		}
	}
	return accepted
}

// settled waits until every payment is final, no refund is pending and every webhook
// event is delivered.
func (d *faultDeployment) settled(t *testing.T) {
	t.Helper()
	eventually(t, 3*time.Minute, "every payment and refund to settle and every webhook event to be delivered", func() bool {
		var open, undelivered int
		err := d.pool.QueryRow(context.Background(), `
			SELECT (SELECT count(*) FROM transactions WHERE status IN ('CREATED','PENDING','PROCESSING') OR refund_status = 'PENDING'),
			       (SELECT count(*) FROM webhook_events WHERE status <> 'DELIVERED')`).Scan(&open, &undelivered)
		return err == nil && open == 0 && undelivered == 0
	}, func() string {
		open := queryStrings(t, d.pool, `SELECT concat_ws(' ', id, kind, status, refund_status, updated_at) FROM transactions
			WHERE status IN ('CREATED','PENDING','PROCESSING') OR refund_status = 'PENDING' LIMIT 10`)
		undelivered := queryStrings(t, d.pool, `SELECT concat_ws(' ', id, type, status, dispatched_at, attempt_count, last_error, created_at) FROM webhook_events
			WHERE status <> 'DELIVERED' LIMIT 10`)
		return fmt.Sprintf("open payments %q; undelivered events %q", open, undelivered)
	})
}

// checkPayments: the payments stored are exactly the ones accepted, each final.
func (d *faultDeployment) checkPayments(t *testing.T, b *faultBank, accepted map[string]bool, rep *faultReport) {
	t.Helper()
	stored := map[string]string{}
	for _, row := range queryStrings(t, d.pool, `
		SELECT id::text || ' ' || status FROM transactions WHERE platform_id = $1 AND kind IN ('TRANSFER_OUT','TRANSFER_IN','QUOTE')`, b.platform.ID) {
		id, status, _ := strings.Cut(row, " ")
		stored[id] = status
	}
	for id := range accepted {
		switch status, ok := stored[bareID(id)]; {
		case !ok:
			t.Fatalf("accepted payment %s is not stored", id)
		case status == "COMPLETED":
			rep.completed++
		case status == "FAILED":
			rep.failed++
		default:
			t.Fatalf("payment %s ended %s", id, status)
		}
	}
	if len(stored) != len(accepted) {
		t.Fatalf("%d payments stored, %d accepted: a retried request made a second payment", len(stored), len(accepted))
	}
	rep.payments = len(accepted)
	if rep.payments < 20 || rep.completed == 0 || rep.failed == 0 {
		t.Fatalf("workload too small: %d payments (%d completed, %d failed)", rep.payments, rep.completed, rep.failed)
	}
}

// checkMoney: every currency sums to zero, nothing is held, every balance equals its
// postings and what its funding and completed payments add up to.
func (d *faultDeployment) checkMoney(t *testing.T, b *faultBank) {
	t.Helper()
	var held int64
	var mismatched int
	if err := d.pool.QueryRow(context.Background(), `
		SELECT coalesce(sum(held), 0),
		       (SELECT count(*) FROM ledger_balances a WHERE a.balance <> coalesce((SELECT sum(amount) FROM ledger_entries e WHERE e.account_id = a.id), 0))
		FROM ledger_accounts`).Scan(&held, &mismatched); err != nil {
		t.Fatal(err)
	}
	unbalanced := queryStrings(t, d.pool, "SELECT currency FROM ledger_balances GROUP BY currency HAVING sum(balance) <> 0")
	if held != 0 || len(unbalanced) > 0 || mismatched != 0 {
		t.Fatalf("held %d, unbalanced currencies %v, %d accounts whose balance differs from their postings", held, unbalanced, mismatched)
	}
	for _, cu := range b.customers {
		var balance, movements int64
		if err := d.pool.QueryRow(context.Background(), `
			SELECT (SELECT balance FROM ledger_balances WHERE id = $1::uuid),
			       (SELECT $2 + coalesce(sum(CASE WHEN type = 'INCOMING' THEN amount ELSE -amount END), 0) FROM transactions
			        WHERE kind <> 'SANDBOX_FUNDING' AND (status = 'COMPLETED' OR refund_status = 'FAILED') AND (destination_account_id = $1::uuid OR source_account_id = $1::uuid))`,
			bareID(cu.account), int64(funding)).Scan(&balance, &movements); err != nil {
			t.Fatal(err)
		}
		if balance != movements {
			t.Fatalf("account %s: balance %d, its funding and completed payments add up to %d", cu.account, balance, movements)
		}
	}
}

// checkWebhooks: every event stored reached the endpoint, and every payment's final
// status has its event.
func (d *faultDeployment) checkWebhooks(t *testing.T, b *faultBank, rep *faultReport) {
	t.Helper()
	time.Sleep(500 * time.Millisecond) // a late duplicate would arrive now
	seen := map[string]int{}
	for i := range b.rc.count() {
		var e struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(b.rc.get(i).body, &e)
		seen[bareID(e.ID)]++
	}
	events := queryStrings(t, d.pool, "SELECT id::text FROM webhook_events WHERE platform_id = $1", b.platform.ID)
	for _, id := range events {
		if seen[id] == 0 {
			t.Fatalf("webhook event %s was stored but never delivered", id)
		}
	}
	for _, n := range seen {
		rep.duplicateDeliveries += n - 1
	}
	rep.events = len(events)
	missing := queryStrings(t, d.pool, `
		SELECT t.id::text FROM transactions t WHERE t.platform_id = $1 AND t.kind IN ('TRANSFER_OUT','TRANSFER_IN','QUOTE')
		AND NOT EXISTS (SELECT 1 FROM webhook_events e WHERE e.platform_id = t.platform_id AND e.data->>'id' LIKE '%' || t.id::text AND e.data->>'status' = t.status)`, b.platform.ID)
	if len(missing) > 0 {
		t.Fatalf("%d payments have no webhook event for their final status, e.g. %s", len(missing), missing[0])
	}
}

// queryStrings runs a query of one text column and returns its rows.
func queryStrings(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// bareID is the UUID of a typed id ("Webhook:…"), or the id itself.
func bareID(id string) string {
	if _, rest, ok := strings.Cut(id, ":"); ok {
		return rest
	}
	return id
}

// lockedWriter serialises the writes of the deployment's processes into one log.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
