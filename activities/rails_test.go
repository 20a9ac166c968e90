package activities_test

import (
	"context"
	"testing"

	"paycore/activities"
	"paycore/db"
	"paycore/internal/catalog"
	"paycore/internal/rail"
	"paycore/internal/transfer"
)

// productionPlatform is a production platform whose configuration lets USD move both ways.
func (f *fixture) productionPlatform(t *testing.T) db.Platform {
	t.Helper()
	p := f.platform(t, "PRODUCTION", "")
	if _, err := f.pool.Exec(context.Background(), `UPDATE platforms SET supported_currencies = '[{"currencyCode": "USD", "minAmount": 1,
		"maxAmount": 1000000000, "enabledTransactionTypes": ["INCOMING", "OUTGOING"], "requiredCounterpartyFields": []}]' WHERE id = $1`, p.ID); err != nil {
		t.Fatal(err)
	}
	return p
}

// A production transfer, in or out, that no rail serves (the default: no production rail
// exists) is refused when it is created, RAIL_NOT_CONFIGURED: no transaction, no hold, no
// webhook event. Before, it was created and then failed RAIL_UNAVAILABLE at its rail.
func TestCreateTransferRefusedWithoutRail(t *testing.T) {
	t.Parallel()
	f := newFixture(t, false)
	ctx := context.Background()
	a := f.account(t, f.productionPlatform(t))
	f.fund(t, a, 1_000)
	ext := f.external(t, a, "001")
	for _, kind := range []transfer.Kind{transfer.Out, transfer.In} {
		typ, w := refusalOf(func() error { _, err := f.acts.CreateTransfer(ctx, request(kind, a, ext, 100)); return err }())
		if typ != string(catalog.RailNotConfigured) || w.Code != catalog.RailNotConfigured || w.Details["currency"] != "USD" {
			t.Fatalf("%s: %s %+v", kind, typ, w)
		}
	}
	var transactions, events int
	_ = f.pool.QueryRow(ctx, "SELECT count(*) FROM transactions WHERE platform_id = $1", a.p.ID).Scan(&transactions)
	_ = f.pool.QueryRow(ctx, "SELECT count(*) FROM webhook_events WHERE platform_id = $1", a.p.ID).Scan(&events)
	if bal, held, _ := f.ledger(t, a.id); transactions != 0 || events != 0 || bal != 1_000 || held != 0 {
		t.Fatalf("refusals wrote %d transactions and %d events; balance %d held %d", transactions, events, bal, held)
	}
}

// With no rail configured at all, sandbox transfers are refused the same way; a transfer
// that reaches its rail step when no rail serves it any more (created before the
// configuration changed) fails RAIL_UNAVAILABLE, as every production transfer used to.
func TestNoRailConfigured(t *testing.T) {
	t.Parallel()
	none, err := rail.NewRegistry(nil)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixtureWith(t, func(o *activities.Options) { o.Rails = none })
	ctx := context.Background()
	a := f.fundedAccount(t, 1_000)
	ext := f.external(t, a, "002")
	if typ, _ := refusalOf(func() error { _, err := f.acts.CreateTransfer(ctx, request(transfer.Out, a, ext, 100)); return err }()); typ != string(catalog.RailNotConfigured) {
		t.Fatalf("sandbox transfer without rails: %s", typ)
	}
	r := transfer.Rail{ExternalIdentifier: "123456789002", Environment: catalog.Sandbox, Currency: "USD", Kind: transfer.Out}
	out, err := f.acts.SubmitTransfer(ctx, a.id, r)
	if err != nil || out.Status != catalog.TxFailed || out.Code != catalog.FailRailUnavailable || out.Message != "no payment rail is connected for production transfers" {
		t.Fatalf("submit without a rail: %+v %v", out, err)
	}
	// The default rails answer the sandbox's suffix rules.
	out, err = newFixture(t, false).acts.SubmitTransfer(ctx, a.id, r)
	if err != nil || out.Code != catalog.FailInsufficientFunds {
		t.Fatalf("sandbox 002: %+v %v", out, err)
	}
}
