package db_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/db"
	"paycore/internal/account"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/problem"
)

// internalAccount opens the USD internal account (ledger row and internal_accounts row)
// of a new customer of platform p.
func internalAccount(t *testing.T, pool *pgxpool.Pool, p uuid.UUID) uuid.UUID {
	t.Helper()
	return internalAccountIn(t, pool, p, "USD", "INTERNAL_FIAT")
}

// internalAccountIn opens an internal account of type typ in currency of a new customer
// of platform p.
func internalAccountIn(t *testing.T, pool *pgxpool.Pool, p uuid.UUID, currency string, typ catalog.AccountType) uuid.UUID {
	t.Helper()
	ctx := context.Background()
	q := db.New(pool)
	c, err := q.CustomerCreate(ctx, db.CustomerCreateParams{ID: ids.New(), PlatformID: p, PlatformCustomerID: ids.New().String(), CustomerType: "INDIVIDUAL",
		Region: "US", Currencies: []string{currency}, UmaAddress: "$" + ids.New().String() + "@p.example.com", KycStatus: "UNVERIFIED"})
	if err != nil {
		t.Fatal(err)
	}
	id := ids.New()
	if _, err := q.LedgerAccountCreate(ctx, db.LedgerAccountCreateParams{ID: id, PlatformID: p, Currency: currency, Kind: db.KindInternal}); err != nil {
		t.Fatal(err)
	}
	if _, err := q.InternalAccountCreate(ctx, db.InternalAccountCreateParams{ID: id, PlatformID: p, CustomerID: uuid.NullUUID{UUID: c.ID, Valid: true},
		Type: typ, Currency: currency}); err != nil {
		t.Fatal(err)
	}
	return id
}

func closeAccount(pool *pgxpool.Pool, p, id uuid.UUID) error {
	return db.WithTx(context.Background(), pool, func(_ *db.Queries, tx pgx.Tx) error {
		return db.InternalAccountClose(context.Background(), tx, p, id)
	})
}

func accountState(t *testing.T, pool *pgxpool.Pool, id uuid.UUID) (status string, balance, held int64) {
	t.Helper()
	err := pool.QueryRow(context.Background(), `SELECT a.status, l.balance, l.held FROM internal_accounts a JOIN ledger_balances l ON l.id = a.id
		WHERE a.id = $1`, id).Scan(&status, &balance, &held)
	if err != nil {
		t.Fatal(err)
	}
	return
}

// notEmpty is what the ACCOUNT_NOT_EMPTY refusal err must be says the account holds.
func notEmpty(t *testing.T, err error) account.Contents {
	t.Helper()
	var rf *problem.Refusal
	if !errors.As(err, &rf) || rf.Code != catalog.AccountNotEmpty {
		t.Fatalf("close: %v, want an ACCOUNT_NOT_EMPTY refusal", err)
	}
	id, err := ids.Parse(ids.InternalAccount, rf.Details["accountId"].(string))
	if err != nil {
		t.Fatal(err)
	}
	return account.Contents{AccountID: id, Currency: rf.Details["currency"].(string), Balance: rf.Details["balance"].(int64),
		Held: rf.Details["held"].(int64), Incoming: rf.Details["pendingIncomingTransactions"].(int64)}
}

// An account closes only when it holds nothing, has nothing held and nothing on its way
// in; once closed, the ledger refuses every movement on it.
func TestInternalAccountCloseRules(t *testing.T) {
	t.Parallel()
	pool, p, _, src := setup(t)
	ctx := context.Background()
	q := db.New(pool)
	acct := internalAccount(t, pool, p)

	if err := apply(pool, "USD", db.Move{Account: src.ID, Amount: -1000}, db.Move{Account: acct, Amount: 1000}); err != nil {
		t.Fatal(err)
	}
	if ne := notEmpty(t, closeAccount(pool, p, acct)); ne.Balance != 1000 || ne.Held != 0 || ne.Incoming != 0 || ne.Currency != "USD" || ne.AccountID != acct {
		t.Fatalf("balance refusal %+v", ne)
	}
	if err := apply(pool, "USD", db.Move{Account: acct, Held: 1000}); err != nil {
		t.Fatal(err)
	}
	if ne := notEmpty(t, closeAccount(pool, p, acct)); ne.Balance != 1000 || ne.Held != 1000 {
		t.Fatalf("hold refusal %+v", ne)
	}
	// The transfer out settles: the hold is captured, the balance leaves.
	if err := apply(pool, "USD", db.Move{Account: acct, Amount: -1000, Held: -1000}, db.Move{Account: src.ID, Amount: 1000}); err != nil {
		t.Fatal(err)
	}
	// Empty, but a transfer in is on its way.
	in, err := q.TransactionCreate(ctx, db.TransactionCreateParams{ID: ids.New(), PlatformID: p, Kind: "TRANSFER_IN", Type: "INCOMING", Status: "PENDING",
		SourceKind: "EXTERNAL", SourceAccountID: uuid.NullUUID{UUID: ids.New(), Valid: true}, DestinationKind: "INTERNAL", DestinationAccountID: uuid.NullUUID{UUID: acct, Valid: true},
		Currency: "USD", Amount: 500, Reference: "ref-" + ids.New().String()})
	if err != nil {
		t.Fatal(err)
	}
	err = closeAccount(pool, p, acct)
	if ne := notEmpty(t, err); ne.Balance != 0 || ne.Held != 0 || ne.Incoming != 1 {
		t.Fatalf("incoming refusal %+v", ne)
	}
	if !strings.Contains(err.Error(), "1 incoming transaction to it is still pending") {
		t.Fatalf("the refusal does not say why: %v", err)
	}
	if status, _, _ := accountState(t, pool, acct); status != "ACTIVE" {
		t.Fatalf("refused close left the account %s", status)
	}
	if _, err := q.TransactionSetStatus(ctx, db.TransactionSetStatusParams{ID: in.ID, Status: "FAILED", FromStatuses: []string{"PENDING"}}); err != nil {
		t.Fatal(err)
	}
	if err := closeAccount(pool, p, acct); err != nil {
		t.Fatalf("close of an empty account: %v", err)
	}
	if err := closeAccount(pool, p, acct); err != nil {
		t.Fatalf("closing again: %v", err)
	}
	// Closed: no credit, no hold, no debit; nothing written.
	for name, moves := range map[string][]db.Move{
		"credit": {{Account: src.ID, Amount: -10}, {Account: acct, Amount: 10}},
		"debit":  {{Account: acct, Amount: -10}, {Account: src.ID, Amount: 10}},
		"hold":   {{Account: acct, Held: 10}},
	} {
		if err := apply(pool, "USD", moves...); !errors.Is(err, db.ErrAccountClosed) {
			t.Fatalf("%s on a closed account: %v", name, err)
		}
	}
	var entries int
	_ = pool.QueryRow(ctx, "SELECT count(*) FROM ledger_entries WHERE account_id = $1", acct).Scan(&entries)
	if status, bal, held := accountState(t, pool, acct); status != "CLOSED" || bal != 0 || held != 0 || entries != 2 {
		t.Fatalf("closed account: %s balance %d held %d, %d entries", status, bal, held, entries)
	}
	// Another platform cannot close an account.
	if err := closeAccount(pool, ids.New(), internalAccount(t, pool, p)); !db.IsNotFound(err) {
		t.Fatalf("close through another platform: %v", err)
	}
}

// waitForLockWaiter blocks until some session of this database waits for a row lock.
func waitForLockWaiter(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n int
		err := pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no session started waiting for the lock")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A posting that waited for the lock of a closing transaction sees the account CLOSED
// once the close commits, and a close that waited for a posting sees its money: the two
// serialize on the ledger row, in both orders.
func TestCloseAndPostingSerialize(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, p, _, src := setup(t)

	// Close first, posting waits.
	acct := internalAccount(t, pool, p)
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.InternalAccountClose(ctx, tx, p, acct); err != nil {
		t.Fatal(err)
	}
	posted := make(chan error, 1)
	go func() {
		posted <- apply(pool, "USD", db.Move{Account: src.ID, Amount: -700}, db.Move{Account: acct, Amount: 700})
	}()
	waitForLockWaiter(t, pool)
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-posted; !errors.Is(err, db.ErrAccountClosed) {
		t.Fatalf("posting after a close it waited for: %v", err)
	}
	if _, bal, _ := accountState(t, pool, acct); bal != 0 {
		t.Fatalf("a closed account was credited %d", bal)
	}

	// Posting first, close waits.
	acct = internalAccount(t, pool, p)
	tx, err = pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.LedgerApply(ctx, tx, ids.New(), "USD", []db.Move{{Account: src.ID, Amount: -700}, {Account: acct, Amount: 700}}); err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	go func() { closed <- closeAccount(pool, p, acct) }()
	waitForLockWaiter(t, pool)
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if ne := notEmpty(t, <-closed); ne.Balance != 700 {
		t.Fatalf("close after a posting it waited for: %+v", ne)
	}
	if status, _, _ := accountState(t, pool, acct); status != "ACTIVE" {
		t.Fatalf("account with money is %s", status)
	}
}

// Closes racing credits, many rounds: no closed account ever holds money and the ledger
// stays balanced.
func TestCloseRacingCredits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, p, _, src := setup(t)
	closedCount, creditedCount := 0, 0
	for range 30 {
		acct := internalAccount(t, pool, p)
		var closeErr, creditErr error
		var wg sync.WaitGroup
		gate := make(chan struct{})
		wg.Add(2)
		go func() { defer wg.Done(); <-gate; closeErr = closeAccount(pool, p, acct) }()
		go func() {
			defer wg.Done()
			<-gate
			creditErr = apply(pool, "USD", db.Move{Account: src.ID, Amount: -100}, db.Move{Account: acct, Amount: 100})
		}()
		close(gate)
		wg.Wait()
		switch {
		case closeErr == nil && creditErr == nil:
			t.Fatal("both the close and the credit succeeded")
		case closeErr == nil && errors.Is(creditErr, db.ErrAccountClosed):
			closedCount++
		case creditErr == nil && problem.CodeOf(closeErr) == catalog.AccountNotEmpty:
			creditedCount++
		default:
			t.Fatalf("close %v, credit %v", closeErr, creditErr)
		}
	}
	var stranded int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM internal_accounts a JOIN ledger_accounts l ON l.id = a.id
		WHERE a.status = 'CLOSED' AND (l.balance <> 0 OR l.held <> 0)`).Scan(&stranded); err != nil {
		t.Fatal(err)
	}
	sums, err := db.New(pool).LedgerSumByCurrency(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sums {
		if s.Total != 0 {
			t.Fatalf("%s sums to %d", s.Currency, s.Total)
		}
	}
	if stranded != 0 {
		t.Fatalf("%d closed accounts hold money", stranded)
	}
	t.Logf("%d rounds closed first, %d credited first", closedCount, creditedCount)
}

// A payment between platforms of this deployment credits the receiving customer's account
// when it settles (its destination is a UMA address, its account that customer's): it
// counts as money on its way in, from the quote's creation to its end, like a transfer in.
func TestInternalAccountCloseCountsUmaPayments(t *testing.T) {
	t.Parallel()
	pool, p, _, _ := setup(t)
	ctx := context.Background()
	q := db.New(pool)
	acct := internalAccount(t, pool, p)
	uma := "$grace@other.example.com"
	pay, err := q.TransactionCreate(ctx, db.TransactionCreateParams{ID: ids.New(), PlatformID: p, Kind: "QUOTE", Type: "OUTGOING", Status: "PENDING",
		SourceKind: "INTERNAL", SourceAccountID: uuid.NullUUID{UUID: ids.New(), Valid: true}, DestinationKind: "UMA_ADDRESS",
		DestinationAccountID: uuid.NullUUID{UUID: acct, Valid: true}, DestinationUmaAddress: &uma, Currency: "USD", Amount: 500, Reference: "ref-" + ids.New().String()})
	if err != nil {
		t.Fatal(err)
	}
	if ne := notEmpty(t, closeAccount(pool, p, acct)); ne.Incoming != 1 {
		t.Fatalf("a pending UMA payment to the account: %+v", ne)
	}
	if status, _, _ := accountState(t, pool, acct); status != "ACTIVE" {
		t.Fatalf("refused close left the account %s", status)
	}
	if _, err := q.TransactionSetStatus(ctx, db.TransactionSetStatusParams{ID: pay.ID, Status: "FAILED", FromStatuses: []string{"PENDING"}}); err != nil {
		t.Fatal(err)
	}
	if err := closeAccount(pool, p, acct); err != nil {
		t.Fatalf("close once the payment ended: %v", err)
	}
}
