package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"time"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/infra/config"
	"paycore/internal/infra/lightningrail"
	"paycore/internal/infra/lnd"
	"paycore/internal/infra/metrics"
	"paycore/internal/lightning"
	"paycore/internal/rail"
	"paycore/internal/rail/adapters"
)

// The operator's view of the payment rails (docs/rails.md): which rails this
// configuration routes payments to, what each serves, by which routes.

const railsUsage = `usage:
  paycore rails list    (the rails PAYCORE_RAILS configures, what each serves and the routes to it)
  paycore rails reconcile [-rebase]
    (the Lightning node's funds against the ledger's LIGHTNING accounts; exits 1 on a difference.
     The first run records the baseline; -rebase records it again, after moving the node's funds
     outside the ledger, such as opening a channel)`

func railsCmd(ctx context.Context, cfg config.Config, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New(railsUsage)
	}
	switch args[0] {
	case "list":
		if len(args) > 1 {
			return errors.New(railsUsage)
		}
		return railsList(cfg, stdout)
	case "reconcile":
		return railsReconcile(ctx, cfg, args[1:], stdout)
	}
	return fmt.Errorf("unknown rails command %q\n%s", args[0], railsUsage)
}

// errUnreconciled is the exit of a reconciliation that found a difference.
var errUnreconciled = errors.New("the Lightning node and the ledger differ")

// railsReconcile reconciles the deployment's Lightning node with the ledger and prints
// what it found (lightning.Reconciliation, and whether it recorded the baseline).
func railsReconcile(ctx context.Context, cfg config.Config, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("rails reconcile", flag.ContinueOnError)
	rebase := fs.Bool("rebase", false, "record the node's funds and the ledger now as the new baseline")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if !cfg.LND.Configured() {
		return errors.New("no Lightning node is configured (PAYCORE_LND_ADDRESS, PAYCORE_LND_TLS_CERT, PAYCORE_LND_MACAROON)")
	}
	// Only the database and the node: it answers while Temporal is away.
	pool, err := db.ConnectWith(ctx, cfg.DatabaseURL, db.PoolOptions{MaxConns: 2})
	if err != nil {
		return err
	}
	defer pool.Close()
	node, err := lnd.Dial(lnd.Config{Address: cfg.LND.Address, TLSCertPath: cfg.LND.TLSCertPath, MacaroonPath: cfg.LND.MacaroonPath})
	if err != nil {
		return fmt.Errorf("PAYCORE_LND_*: %w", err)
	}
	defer func() { _ = node.Close() }()
	store := db.NewStore(pool, view.Resources{})
	r, recorded, err := reconcileLightning(ctx, store, node, *rebase, time.Now())
	if err != nil {
		return err
	}
	if r.UnappliedSats, err = store.LightningUnappliedSats(ctx); err != nil {
		return err
	}
	if err := printJSON(stdout, map[string]any{"reconciliation": r, "baselineRecorded": recorded}); err != nil {
		return err
	}
	if !r.Agree {
		return errUnreconciled
	}
	return nil
}

// reconcileLightning compares the node's funds with the ledger's LIGHTNING accounts from
// the node's baseline, recording the baseline first when there is none yet or rebase asks
// for it. It compares a quiet moment: the ledger is read before and after the node, and
// again (up to ten seconds) while a payment ended in between or the node's channels carry
// payments in flight, whose amounts and fees move between the channel's sides until they
// settle.
func reconcileLightning(ctx context.Context, store db.Store, node *lnd.Client, rebase bool, now time.Time) (lightning.Reconciliation, bool, error) {
	info, err := node.Info(ctx)
	if err != nil {
		return lightning.Reconciliation{}, false, err
	}
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return lightning.Reconciliation{}, false, ctx.Err()
			case <-time.After(200 * time.Millisecond):
			}
		}
		ledger, base, ok, fees, err := store.LightningLedger(ctx, info.IdentityPubkey)
		if err != nil {
			return lightning.Reconciliation{}, false, err
		}
		funds, err := node.Balances(ctx)
		if err != nil {
			return lightning.Reconciliation{}, false, err
		}
		again, _, _, _, err := store.LightningLedger(ctx, info.IdentityPubkey)
		if err != nil {
			return lightning.Reconciliation{}, false, err
		}
		if (again != ledger || funds.InFlight()) && attempt < 50 {
			continue
		}
		if !ok || rebase {
			base = lightning.Baseline{NodeSats: funds.Total(), LedgerSats: ledger, RecordedAt: now}
			if err := store.LightningBaselineSet(ctx, info.IdentityPubkey, base); err != nil {
				return lightning.Reconciliation{}, false, err
			}
			return lightning.Reconcile(base, funds.Total(), ledger, 0), true, nil
		}
		return lightning.Reconcile(base, funds.Total(), ledger, fees), false, nil
	}
}

// railsList prints the rails configured, as /readyz lists them: it reads the
// configuration only, so it answers without the database or Temporal.
func railsList(cfg config.Config, stdout io.Writer) error {
	outbound, err := outboundClients(cfg)
	if err != nil {
		return err
	}
	reg, _, closeRails, err := railRegistry(cfg, nil, nil, outbound)
	if err != nil {
		return err
	}
	defer closeRails()
	return printJSON(stdout, map[string]any{"rails": reg.Configured()})
}

// railRegistry is the registry configuration routes payments by: the rails every
// deployment has, and the Lightning rail when a node is configured (PAYCORE_LND_*), whose
// client it returns too (nil without a node). The Lightning rail keeps the invoices of
// payouts to Lightning addresses in invoices (nil: it refuses such payouts) and resolves
// addresses through the outbound-address guard: for production never to a non-public
// address, for sandbox platforms as PAYCORE_SANDBOX_WEBHOOKS_ALLOW_PRIVATE says. The connection to
// the node is made on its first call; closeRails closes it. m counts the Lightning
// payments (nil: not counted).
func railRegistry(cfg config.Config, invoices lightningrail.PayoutInvoices, m *metrics.Metrics, outbound func(catalog.Environment) *http.Client) (reg *rail.Registry, node *lnd.Client, closeRails func(), err error) {
	closeRails = func() {}
	var connected []rail.Rail
	if cfg.LND.Configured() {
		node, err = lnd.Dial(lnd.Config{Address: cfg.LND.Address, TLSCertPath: cfg.LND.TLSCertPath, MacaroonPath: cfg.LND.MacaroonPath})
		if err != nil {
			return nil, nil, nil, fmt.Errorf("PAYCORE_LND_*: %w", err)
		}
		closeRails = func() { _ = node.Close() }
		connected = append(connected, lightningrail.New(node, lightningrail.Options{
			Environments: []catalog.Environment{catalog.Production, catalog.Sandbox}, Timeout: cfg.LND.PaymentTimeout, Invoices: invoices, Metrics: m,
			HTTP: outbound}))
	}
	reg, err = adapters.Registry(cfg.Rails, connected...)
	if err != nil {
		closeRails()
		return nil, nil, nil, fmt.Errorf("PAYCORE_RAILS: %w", err)
	}
	return reg, node, closeRails, nil
}
