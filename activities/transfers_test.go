package activities_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"paycore/activities"
	"paycore/db"
	"paycore/db/dbtest"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/events"
	"paycore/internal/ids"
	"paycore/internal/problem"
	"paycore/internal/sandbox"
	"paycore/internal/transfer"
)

// account is a customer's USD internal account on a sandbox platform, with an external
// account of the same customer.
type account struct {
	p        db.Platform
	customer uuid.UUID
	id       uuid.UUID
}

func (f *fixture) account(t *testing.T, p db.Platform) account {
	t.Helper()
	ctx := context.Background()
	c, err := dbtest.CustomerCreate(ctx, f.pool, db.CustomerCreateParams{ID: ids.New(), PlatformID: p.ID, PlatformCustomerID: ids.New().String(), CustomerType: "INDIVIDUAL",
		Region: "US", Currencies: []string{"USD"}, UmaAddress: "$" + ids.New().String() + "@p.example.com", KycStatus: "APPROVED"})
	if err != nil {
		t.Fatal(err)
	}
	id := ids.New()
	if _, err := dbtest.LedgerAccountCreate(ctx, f.pool, db.LedgerAccountCreateParams{ID: id, PlatformID: p.ID, Currency: "USD", Kind: db.KindInternal}); err != nil {
		t.Fatal(err)
	}
	if _, err := dbtest.InternalAccountCreate(ctx, f.pool, db.InternalAccountCreateParams{ID: id, PlatformID: p.ID, CustomerID: uuid.NullUUID{UUID: c.ID, Valid: true},
		Type: "INTERNAL_FIAT", Currency: "USD"}); err != nil {
		t.Fatal(err)
	}
	return account{p: p, customer: c.ID, id: id}
}

// external registers a USD external account of a's customer whose number ends in suffix.
func (f *fixture) external(t *testing.T, a account, suffix string) uuid.UUID {
	t.Helper()
	number := ids.New().String()[24:33] + suffix
	e, err := dbtest.ExternalAccountCreate(context.Background(), f.pool, db.ExternalAccountCreateParams{ID: ids.New(), PlatformID: a.p.ID,
		CustomerID: uuid.NullUUID{UUID: a.customer, Valid: true}, Currency: "USD", AccountType: "USD_ACCOUNT",
		AccountInfo: json.RawMessage(`{"accountType":"USD_ACCOUNT","accountNumber":"` + number + `"}`), Identifier: number})
	if err != nil {
		t.Fatal(err)
	}
	return e.ID
}

func (f *fixture) fund(t *testing.T, a account, amount int64) {
	t.Helper()
	err := pgx.BeginFunc(context.Background(), f.pool, func(tx pgx.Tx) error {
		src, err := db.LedgerSystemAccount(context.Background(), tx, a.p.ID, "USD", db.KindSandboxFunding)
		if err != nil {
			return err
		}
		return db.LedgerApply(context.Background(), tx, ids.New(), "USD", []db.Move{{Account: src.ID, Amount: -amount}, {Account: a.id, Amount: amount}})
	})
	if err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) closeAccount(a account) error {
	return pgx.BeginFunc(context.Background(), f.pool, func(tx pgx.Tx) error {
		return db.InternalAccountClose(context.Background(), tx, a.p.ID, a.id)
	})
}

func request(kind transfer.Kind, a account, ext uuid.UUID, amount int64) transfer.Request {
	return transfer.Request{TransactionID: ids.New(), Kind: kind, PlatformID: a.p.ID, CustomerID: ids.Some(a.customer),
		InternalAccountID: a.id, ExternalAccountID: ext, Amount: amount}
}

// fundedAccount is a customer's account holding funds on a new transferPlatform.
func (f *fixture) fundedAccount(t *testing.T, funds int64) account {
	t.Helper()
	a := f.account(t, f.transferPlatform(t))
	f.fund(t, a, funds)
	return a
}

// transferPlatform is a sandbox platform whose configuration lets USD move both ways.
func (f *fixture) transferPlatform(t *testing.T) db.Platform {
	t.Helper()
	p := f.platform(t, "SANDBOX", "")
	if _, err := f.pool.Exec(context.Background(), `UPDATE platforms SET supported_currencies = '[{"currencyCode": "USD", "minAmount": 1,
		"maxAmount": 1000000000, "enabledTransactionTypes": ["INCOMING", "OUTGOING"], "requiredCounterpartyFields": []}]' WHERE id = $1`, p.ID); err != nil {
		t.Fatal(err)
	}
	return p
}

func (f *fixture) ledger(t *testing.T, id uuid.UUID) (balance, held int64, status string) {
	t.Helper()
	err := f.pool.QueryRow(context.Background(), `SELECT l.balance, l.held, coalesce(a.status, '') FROM ledger_balances l
		LEFT JOIN internal_accounts a ON a.id = l.id WHERE l.id = $1`, id).Scan(&balance, &held, &status)
	if err != nil {
		t.Fatal(err)
	}
	return
}

func (f *fixture) transaction(t *testing.T, p db.Platform, id uuid.UUID) view.Transaction {
	t.Helper()
	tx, err := db.TransactionGet(context.Background(), f.pool, db.TransactionGetParams{PlatformID: p.ID, ID: id})
	if err != nil {
		t.Fatal(err)
	}
	return view.TransactionOf(tx)
}

// refusalOf is the refusal an activity's error carries: its type and its problem.Wire.
func refusalOf(err error) (string, problem.Wire) {
	var appErr *temporal.ApplicationError
	var w problem.Wire
	if !errors.As(err, &appErr) {
		return "", w
	}
	if appErr.HasDetails() {
		_ = appErr.Details(&w)
	}
	return appErr.Type(), w
}

// refusedClosed reports whether err is the refusal of a transfer in to a CLOSED account:
// the account's field named, not retried.
func refusedClosed(err error) bool {
	var appErr *temporal.ApplicationError
	typ, w := refusalOf(err)
	return errors.As(err, &appErr) && appErr.NonRetryable() && typ == string(catalog.InvalidInput) &&
		w.Code == catalog.InvalidInput && w.Field == "destination.accountId" && w.Message == "the internal account is CLOSED" && len(w.Details) == 0
}

// A transfer in and a close of its account serialize: either the transfer exists first and
// the close is refused, or the close comes first and the transfer is refused. Settling the
// transfers that were created never credits a closed account.
func TestTransferInCreationRacesClose(t *testing.T) {
	t.Parallel()
	f := newFixture(t, false)
	ctx := context.Background()
	p := f.transferPlatform(t)
	created, closed := 0, 0
	var settle []transfer.Request
	for range 30 {
		a := f.account(t, p)
		req := request(transfer.In, a, f.external(t, a, "001"), 500)
		var createErr, closeErr error
		var wg sync.WaitGroup
		gate := make(chan struct{})
		wg.Add(2)
		go func() { defer wg.Done(); <-gate; _, createErr = f.acts.CreateTransfer(ctx, req) }()
		go func() { defer wg.Done(); <-gate; closeErr = f.closeAccount(a) }()
		close(gate)
		wg.Wait()
		var ne *problem.Refusal
		switch {
		case createErr == nil && errors.As(closeErr, &ne) && ne.Code == catalog.AccountNotEmpty && ne.Details["pendingIncomingTransactions"] == int64(1):
			created++
			settle = append(settle, req)
		case closeErr == nil && refusedClosed(createErr):
			closed++
		default:
			t.Fatalf("transfer in: %v; close: %v", createErr, closeErr)
		}
	}
	for _, req := range settle {
		if _, err := f.acts.MarkTransferProcessing(ctx, req.TransactionID); err != nil {
			t.Fatal(err)
		}
		if status, err := f.acts.FinishTransfer(ctx, req, sandbox.Outcome{Status: "COMPLETED"}); err != nil || status != "COMPLETED" {
			t.Fatalf("finish: %s %v", status, err)
		}
	}
	var stranded int
	if err := f.pool.QueryRow(ctx, `SELECT count(*) FROM internal_accounts a JOIN ledger_accounts l ON l.id = a.id
		WHERE a.status = 'CLOSED' AND (l.balance <> 0 OR l.held <> 0)`).Scan(&stranded); err != nil {
		t.Fatal(err)
	}
	if stranded != 0 {
		t.Fatalf("%d closed accounts hold money", stranded)
	}
	t.Logf("%d transfers created first, %d closes first", created, closed)
}

// Should a settlement nevertheless meet a closed account, the transfer in fails
// (ACCOUNT_CLOSED) at once: no credit, no endless retry, the failure announced.
func TestSettlementIntoClosedAccountFails(t *testing.T) {
	t.Parallel()
	f := newFixture(t, false)
	ctx := context.Background()
	p := f.transferPlatform(t)
	a := f.account(t, p)
	req := request(transfer.In, a, f.external(t, a, "001"), 800)
	if _, err := f.acts.CreateTransfer(ctx, req); err != nil {
		t.Fatal(err)
	}
	if _, err := f.acts.MarkTransferProcessing(ctx, req.TransactionID); err != nil {
		t.Fatal(err)
	}
	// Closed behind the guard's back (the guard itself would refuse: money is on its way).
	if err := f.closeAccount(a); problem.CodeOf(err) != catalog.AccountNotEmpty {
		t.Fatalf("close with a transfer in pending: %v", err)
	}
	if _, err := f.pool.Exec(ctx, "UPDATE internal_accounts SET status = 'CLOSED' WHERE id = $1", a.id); err != nil {
		t.Fatal(err)
	}
	status, err := f.acts.FinishTransfer(ctx, req, sandbox.Outcome{Status: "COMPLETED"})
	if err != nil || status != "FAILED" {
		t.Fatalf("finish into a closed account: %q %v", status, err)
	}
	tx := f.transaction(t, p, req.TransactionID)
	if tx.Status != "FAILED" || tx.FailureDetails == nil || tx.FailureDetails.Code != "ACCOUNT_CLOSED" || tx.SettledAt != nil {
		t.Fatalf("transaction %+v", tx)
	}
	if bal, held, _ := f.ledger(t, a.id); bal != 0 || held != 0 {
		t.Fatalf("closed account balance %d held %d", bal, held)
	}
	var entries, failedEvents int
	_ = f.pool.QueryRow(ctx, "SELECT count(*) FROM ledger_entries WHERE transaction_id = $1", req.TransactionID).Scan(&entries)
	_ = f.pool.QueryRow(ctx, "SELECT count(*) FROM webhook_events WHERE type = $1 AND data->>'id' = $2", events.IncomingPaymentFailed, tx.ID).Scan(&failedEvents)
	if entries != 0 || failedEvents != 1 {
		t.Fatalf("%d ledger entries, %d INCOMING_PAYMENT_FAILED events", entries, failedEvents)
	}
	// Finishing again (a retried step) changes nothing and reports the same end.
	if status, err := f.acts.FinishTransfer(ctx, req, sandbox.Outcome{Status: "COMPLETED"}); err != nil || status != "FAILED" {
		t.Fatalf("finish again: %q %v", status, err)
	}
	// A new transfer in to the closed account is refused.
	if _, err := f.acts.CreateTransfer(ctx, request(transfer.In, a, f.external(t, a, "001"), 100)); !refusedClosed(err) {
		t.Fatalf("transfer in to a closed account: %v", err)
	}
}

var outgoingStatuses = map[string]bool{"PENDING": true, "EXPIRED": true, "PROCESSING": true, "COMPLETED": true, "FAILED": true}

var outgoingFailureReasons = map[string]bool{"QUOTE_EXPIRED": true, "QUOTE_RATE_UNAVAILABLE": true, "QUOTE_EXECUTION_FAILED": true,
	"FUNDING_AMOUNT_MISMATCH": true, "PAYOUT_RETURNED": true, "LIMIT_EXCEEDED": true, "ACCOUNT_CANNOT_RECEIVE": true,
	"ACCOUNT_INVALID": true, "COMPLIANCE_REJECTED": true, "LIGHTNING_PAYMENT_FAILED": true, "COUNTERPARTY_POST_TX_FAILED": true}

// A bank rejection of a transfer out (sandbox 004) ends FAILED with the rejection in
// failureDetails and the peer's granular reason ACCOUNT_CANNOT_RECEIVE, within the
// outgoing statuses and reasons, in the stored transaction and
// in every OUTGOING_PAYMENT event; so does an outcome recorded as REJECTED by a workflow
// that started before this rule.
func TestBankRejectionOfTransferOutIsFailed(t *testing.T) {
	t.Parallel()
	f := newFixture(t, false)
	ctx := context.Background()
	a := f.fundedAccount(t, 10_000)
	p := a.p
	submit := func(id uuid.UUID, rail transfer.Rail) (sandbox.Outcome, error) {
		return f.acts.SubmitTransfer(ctx, id, rail)
	}
	for _, tc := range []struct {
		name    string
		outcome func(req transfer.Request, rail transfer.Rail) (sandbox.Outcome, error)
	}{
		{"sandbox 004", func(req transfer.Request, rail transfer.Rail) (sandbox.Outcome, error) {
			return submit(req.TransactionID, rail)
		}},
		{"sandbox 004 recorded without the rail", func(req transfer.Request, _ transfer.Rail) (sandbox.Outcome, error) {
			return submit(req.TransactionID, transfer.Rail{})
		}},
		{"sandbox 004 scheduled with the transaction id only", func(req transfer.Request, _ transfer.Rail) (sandbox.Outcome, error) {
			// An activity task scheduled before the rail travelled in the request has one
			// argument, the transaction id as a string; the worker decodes it into the
			// parameters as here, leaving the rail empty.
			dc := converter.GetDefaultDataConverter()
			payloads, err := dc.ToPayloads(req.TransactionID.String())
			if err != nil {
				return sandbox.Outcome{}, err
			}
			var id uuid.UUID
			var rail transfer.Rail
			if err := dc.FromPayloads(payloads, &id, &rail); err != nil {
				return sandbox.Outcome{}, err
			}
			return submit(id, rail)
		}},
		{"recorded REJECTED", func(transfer.Request, transfer.Rail) (sandbox.Outcome, error) {
			return sandbox.Outcome{Status: "REJECTED", Code: "REJECTED_BY_BANK", Message: "the receiving bank rejected the payment"}, nil
		}},
	} {
		req := request(transfer.Out, a, f.external(t, a, "004"), 1_000)
		created, err := f.acts.CreateTransfer(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if created.Rail != (transfer.Rail{ExternalIdentifier: created.Rail.ExternalIdentifier, AccountType: "USD_ACCOUNT", Environment: catalog.Sandbox, Platform: req.PlatformID, Currency: "USD", Kind: transfer.Out, Amount: 1_000}) ||
			!strings.HasSuffix(created.Rail.ExternalIdentifier, "004") {
			t.Fatalf("%s: the create step found rail %+v", tc.name, created.Rail)
		}
		if _, err := f.acts.MarkTransferProcessing(ctx, req.TransactionID); err != nil {
			t.Fatal(err)
		}
		out, err := tc.outcome(req, created.Rail)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		status, err := f.acts.FinishTransfer(ctx, req, out)
		if err != nil || status != "FAILED" {
			t.Fatalf("%s: finish %q %v", tc.name, status, err)
		}
		tx := f.transaction(t, p, req.TransactionID)
		if tx.Status != "FAILED" || tx.FailureReason == nil || *tx.FailureReason != "ACCOUNT_CANNOT_RECEIVE" || tx.FailureDetails == nil || tx.FailureDetails.Code != "REJECTED_BY_BANK" {
			t.Fatalf("%s: transaction %+v (failureReason %v)", tc.name, tx, tx.FailureReason)
		}
		if bal, held, _ := f.ledger(t, a.id); bal != 10_000 || held != 0 {
			t.Fatalf("%s: balance %d held %d, want the hold released", tc.name, bal, held)
		}
		rows, err := f.pool.Query(ctx, "SELECT type, data FROM webhook_events WHERE data->>'id' = $1 ORDER BY created_at, id", tx.ID)
		if err != nil {
			t.Fatal(err)
		}
		var seen []string
		for rows.Next() {
			var typ string
			var data view.Transaction
			var raw []byte
			if err := rows.Scan(&typ, &raw); err != nil {
				t.Fatal(err)
			}
			_ = json.Unmarshal(raw, &data)
			seen = append(seen, typ)
			if !outgoingStatuses[string(data.Status)] || (data.FailureReason != nil && !outgoingFailureReasons[*data.FailureReason]) {
				t.Fatalf("%s: %s carries status %s, failureReason %v", tc.name, typ, data.Status, data.FailureReason)
			}
			if typ == events.OutgoingPaymentFailed && (data.Status != "FAILED" || data.FailureDetails == nil || data.FailureDetails.Code != "REJECTED_BY_BANK") {
				t.Fatalf("%s: %s payload %s", tc.name, typ, raw)
			}
		}
		if len(seen) != 3 || seen[2] != events.OutgoingPaymentFailed {
			t.Fatalf("%s: events %v", tc.name, seen)
		}
	}
}

// The create step refuses with the rule's refusal, carried as a problem.Wire the API
// answers from, and writes nothing; a created transfer is created once however often the
// step runs.
func TestCreateTransferRefusalsAndRepeats(t *testing.T) {
	t.Parallel()
	f := newFixture(t, false)
	ctx := context.Background()
	a := f.fundedAccount(t, 1_000)
	ext := f.external(t, a, "001")

	typ, w := refusalOf(func() error { _, err := f.acts.CreateTransfer(ctx, request(transfer.Out, a, ext, 1_001)); return err }())
	if typ != string(catalog.InsufficientFunds) || w.Code != catalog.InsufficientFunds || w.Field != "amount" || w.Message != "the account's available balance is below 1001" {
		t.Fatalf("beyond the balance: %s %+v", typ, w)
	}
	typ, w = refusalOf(func() error {
		_, err := f.acts.CreateTransfer(ctx, request(transfer.Out, a, uuid.MustParse("0190a000-0000-7000-8000-000000000009"), 10))
		return err
	}())
	if typ != string(catalog.ExternalAccountNotFound) || w.Message != "external account not found" {
		t.Fatalf("unknown external account: %s %+v", typ, w)
	}
	var n int
	_ = f.pool.QueryRow(ctx, "SELECT count(*) FROM transactions").Scan(&n)
	if bal, held, _ := f.ledger(t, a.id); n != 0 || bal != 1_000 || held != 0 {
		t.Fatalf("refusals wrote %d transactions, balance %d held %d", n, bal, held)
	}

	req := request(transfer.Out, a, ext, 400)
	first, err := f.acts.CreateTransfer(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	again, err := f.acts.CreateTransfer(ctx, req)
	if err != nil || string(again.Resource) != string(first.Resource) || again.Rail != first.Rail || !first.Rail.Known() {
		t.Fatalf("repeated create: %+v %v, first %+v", again, err, first)
	}
	if _, held, _ := f.ledger(t, a.id); held != 400 {
		t.Fatalf("held %d after a repeated create, want 400", held)
	}

	// Money leaves an embedded wallet only with a signature bound to the transfer.
	if _, err := f.pool.Exec(ctx, "UPDATE internal_accounts SET type = 'EMBEDDED_WALLET' WHERE id = $1", a.id); err != nil {
		t.Fatal(err)
	}
	typ, w = refusalOf(func() error { _, err := f.acts.CreateTransfer(ctx, request(transfer.Out, a, ext, 100)); return err }())
	if typ != string(catalog.WalletSignatureRequired) || w.Code != catalog.WalletSignatureRequired {
		t.Fatalf("unsigned wallet transfer: %s %+v", typ, w)
	}
}

// Attempts at one transfer that run at the same time (a retried create overlapping the
// first) create it once, and every attempt answers it: none is refused on the hold the
// first one made.
func TestConcurrentCreatesOfOneTransfer(t *testing.T) {
	t.Parallel()
	f := newFixture(t, false)
	ctx := context.Background()
	a := f.fundedAccount(t, 1_000)
	req := request(transfer.Out, a, f.external(t, a, "001"), 600)
	const n = 8
	results := make([]activities.CreatedTransfer, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() { defer wg.Done(); <-gate; results[i], errs[i] = f.acts.CreateTransfer(ctx, req) }()
	}
	close(gate)
	wg.Wait()
	for i := range n {
		if errs[i] != nil || string(results[i].Resource) != string(results[0].Resource) || results[i].Rail != results[0].Rail {
			t.Fatalf("attempt %d: %v %s", i, errs[i], results[i].Resource)
		}
	}
	if _, held, _ := f.ledger(t, a.id); held != 600 {
		t.Fatalf("held %d, want the one hold of 600", held)
	}
}

// A create answer recorded before CreatedTransfer existed (the bare Transaction) decodes
// as the resource, so a workflow replayed from such a history answers a repeated create
// with the transaction rather than null; a current answer decodes as itself.
func TestCreatedTransferDecodesRecordedAnswers(t *testing.T) {
	old := `{"id":"Transaction:0190a000-0000-7000-8000-000000000001","status":"PENDING","type":"OUTGOING"}`
	var c activities.CreatedTransfer
	if err := json.Unmarshal([]byte(old), &c); err != nil || string(c.Resource) != old || c.Rail.Known() {
		t.Fatalf("recorded answer: %+v %v", c, err)
	}
	cur := activities.CreatedTransfer{Resource: json.RawMessage(`{"id":"Transaction:x"}`), Rail: transfer.Rail{ExternalIdentifier: "123", Environment: catalog.Sandbox}}
	b, _ := json.Marshal(cur)
	var back activities.CreatedTransfer
	if err := json.Unmarshal(b, &back); err != nil || string(back.Resource) != `{"id":"Transaction:x"}` || back.Rail != cur.Rail {
		t.Fatalf("current answer: %+v %v", back, err)
	}
}

// A rail's reason that is not the peer's for outgoing payments (PAY_REQUEST_FAILED, which
// names an incoming payment's failure; the deprecated LIGHTNING_PAYMENT_FAILED) is stored
// as QUOTE_EXECUTION_FAILED, which supersedes both: the finish is within the database's
// enumeration instead of refused by it (and retried without end).
func TestOutgoingFailureReasonsStayWithinTheEnumeration(t *testing.T) {
	t.Parallel()
	f := newFixture(t, false)
	ctx := context.Background()
	a := f.fundedAccount(t, 10_000)
	for _, given := range []string{"PAY_REQUEST_FAILED", "LIGHTNING_PAYMENT_FAILED"} {
		req := request(transfer.Out, a, f.external(t, a, "001"), 1_000)
		if _, err := f.acts.CreateTransfer(ctx, req); err != nil {
			t.Fatal(err)
		}
		if _, err := f.acts.MarkTransferProcessing(ctx, req.TransactionID); err != nil {
			t.Fatal(err)
		}
		out := sandbox.Outcome{Status: "FAILED", Code: "INVOICE_EXPIRED", Message: "the invoice expired", FailureReason: given}
		if status, err := f.acts.FinishTransfer(ctx, req, out); err != nil || status != "FAILED" {
			t.Fatalf("%s: finish %q %v", given, status, err)
		}
		if tx := f.transaction(t, a.p, req.TransactionID); tx.FailureReason == nil || *tx.FailureReason != "QUOTE_EXECUTION_FAILED" {
			t.Fatalf("%s: stored failureReason %v", given, tx.FailureReason)
		}
	}
}
