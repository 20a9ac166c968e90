package db_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/db"
	"paycore/db/dbtest"
	"paycore/db/view"
	"paycore/internal/account"
	"paycore/internal/catalog"
	"paycore/internal/customer"
	"paycore/internal/extaccount"
	"paycore/internal/kit/sealbox"
	"paycore/internal/platformconfig"
	"paycore/internal/problem"
)

func newBox(t testing.TB) *sealbox.Box {
	t.Helper()
	key, err := sealbox.ParseKey(sealbox.NewKey())
	if err != nil {
		t.Fatal(err)
	}
	box, err := sealbox.New(key)
	if err != nil {
		t.Fatal(err)
	}
	return box
}

// provision creates a sandbox platform through the provisioning operation.
func provision(t testing.TB, pool *pgxpool.Pool, box *sealbox.Box) (db.Platform, platformconfig.Settings) {
	t.Helper()
	spec, err := platformconfig.Provision(platformconfig.PlatformParams{Name: "Constraint Platform", Sandbox: true})
	if err != nil {
		t.Fatal(err)
	}
	p, tok, err := db.PlatformProvision(context.Background(), pool, box, spec, []string{"VIEW", "TRANSACT", "MANAGE"})
	if err != nil {
		t.Fatal(err)
	}
	if tok.Secret == "" || len(tok.Token.Permissions) != 3 {
		t.Fatalf("first token %+v", tok.Token)
	}
	s, err := db.PlatformSettings(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, s
}

// refusedWith checks that err is the domain refusal with code, however it is wrapped.
func refusedWith(t *testing.T, err error, code catalog.Code) {
	t.Helper()
	var r *problem.Refusal
	if !errors.As(err, &r) || r.Code != code {
		t.Fatalf("err = %v, want the refusal %s", err, code)
	}
}

func count(t *testing.T, pool *pgxpool.Pool, query string, args ...any) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func newCustomer(t testing.TB, s platformconfig.Settings, platformCustomerID, uma string) customer.New {
	t.Helper()
	n, err := individual(s, platformCustomerID, uma)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// individual is a new individual customer in the US of a platform with settings s, checked
// by the customer rule.
func individual(s platformconfig.Settings, platformCustomerID, uma string) (customer.New, error) {
	typ, region := "INDIVIDUAL", "US"
	n, err := customer.Create(customer.Input{CustomerType: &typ, Region: &region, PlatformCustomerID: &platformCustomerID, UmaAddress: &uma}, s)
	if err != nil {
		return customer.New{}, fmt.Errorf("new customer %s: %w", platformCustomerID, err)
	}
	return n, nil
}

func TestCustomerCreateConstraints(t *testing.T) {
	pool, _ := dbtest.NewPool(t)
	store := db.NewStore(pool, view.Resources{})
	box := newBox(t)
	ctx := context.Background()
	p, s := provision(t, pool, box)
	if n := count(t, pool, "SELECT count(*) FROM internal_accounts WHERE platform_id = $1 AND customer_id IS NULL", p.ID); n != 1 {
		t.Fatalf("provisioning opened %d platform accounts, want 1 (USD)", n)
	}

	first, err := db.CustomerOpen(ctx, pool, box, p.ID, newCustomer(t, s, "p-1", "$ana@"+s.UmaDomain))
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.CustomerOpen(ctx, pool, box, p.ID, newCustomer(t, s, "p-2", "$ana@"+s.UmaDomain))
	refusedWith(t, err, catalog.UmaAddressExists)
	_, err = db.CustomerOpen(ctx, pool, box, p.ID, newCustomer(t, s, "p-1", "$bob@"+s.UmaDomain))
	refusedWith(t, err, catalog.PlatformCustomerIDExists)
	if n := count(t, pool, "SELECT count(*) FROM customers"); n != 1 {
		t.Fatalf("%d customers, want 1", n)
	}
	if n := count(t, pool, "SELECT count(*) FROM internal_accounts WHERE customer_id IS NOT NULL"); n != 1 {
		t.Fatalf("refused creations opened accounts: %d customer accounts, want 1", n)
	}

	// An update to another customer's UMA address is refused the same way.
	second, err := db.CustomerOpen(ctx, pool, box, p.ID, newCustomer(t, s, "p-2", "$bob@"+s.UmaDomain))
	if err != nil {
		t.Fatal(err)
	}
	_, err = store.CustomerPatch(ctx, box, db.CustomerPatchParams{PlatformID: p.ID, ID: second.ID,
		Check: func(r customer.Record) (customer.Change, error) {
			r.UmaAddress = first.UmaAddress
			return customer.Change{Record: r}, nil
		}})
	refusedWith(t, err, catalog.UmaAddressExists)

	// Opening a second open account of one currency and type is a conflict.
	err = db.WithTx(ctx, pool, func(q *db.Queries, _ pgx.Tx) error {
		return db.InternalAccountOpen(ctx, q, box, p.ID, uuid.NullUUID{UUID: first.ID, Valid: true}, account.Opening{Currency: "USD", Type: catalog.InternalFiat})
	})
	refusedWith(t, err, catalog.Conflict)

	// Deleting: once, then refused; an unknown customer is not found.
	if _, err := db.CustomerDelete(ctx, pool, p.ID, second.ID); err != nil {
		t.Fatal(err)
	}
	_, err = db.CustomerDelete(ctx, pool, p.ID, second.ID)
	refusedWith(t, err, catalog.CustomerDeleted)
	_, err = db.CustomerDelete(ctx, pool, p.ID, uuid.New())
	refusedWith(t, err, catalog.UserNotFound)
}

func TestExternalAccountAddConstraint(t *testing.T) {
	pool, _ := dbtest.NewPool(t)
	box := newBox(t)
	ctx := context.Background()
	p, s := provision(t, pool, box)
	c, err := db.CustomerOpen(ctx, pool, box, p.ID, newCustomer(t, s, "p-1", "$ana@"+s.UmaDomain))
	if err != nil {
		t.Fatal(err)
	}
	cid := "Customer:" + c.ID.String()
	currency, yes := "USD", true
	req := extaccount.Request{CustomerID: &cid, Currency: &currency, DefaultUmaDepositAccount: &yes,
		AccountInfo: []byte(`{"accountType":"USD_ACCOUNT","accountNumber":"123456789001","routingNumber":"021000021",
			"beneficiary":{"beneficiaryType":"INDIVIDUAL","fullName":"Grace Hopper"}}`)}
	n, err := req.Check(false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExternalAccountAdd(ctx, pool, p.ID, n); err != nil {
		t.Fatal(err)
	}
	_, err = db.ExternalAccountAdd(ctx, pool, p.ID, n)
	refusedWith(t, err, catalog.ExternalAccountExists)

	// The same account of the platform itself is another owner's.
	n.CustomerID, n.Default = uuid.NullUUID{}, false
	if _, err := db.ExternalAccountAdd(ctx, pool, p.ID, n); err != nil {
		t.Fatal(err)
	}
	if k := count(t, pool, "SELECT count(*) FROM external_accounts WHERE platform_id = $1", p.ID); k != 2 {
		t.Fatalf("%d external accounts, want 2", k)
	}
}
