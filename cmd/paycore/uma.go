package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/infra/config"
	"paycore/internal/kit/sealbox"
	"paycore/internal/platformconfig"
	"paycore/internal/uma"
)

// The operator's commands for the deployment's UMA keys (docs/uma.md): what is published,
// and a rotation.

const umaUsage = `usage:
  paycore uma keys          (the keys /.well-known/lnurlpubkey publishes; made on first use)
  paycore uma rotate-keys   (new signing and encryption keys, published from now on; the
                             previous ones still decrypt for an hour what providers encrypted
                             to them from their caches)
  paycore uma allow DOMAIN  (list the UMA provider of DOMAIN as one the deployment transacts with)
  paycore uma block DOMAIN  (refuse payments with it: COUNTERPARTY_NOT_ALLOWED)
  paycore uma providers FILE
                            (list the providers of FILE, a JSON array of {name, domain, logoUrl,
                             supportedRegions, supportedCurrencies, lei, allowListStatus}:
                             each replaces what was listed for its domain; "-" reads stdin)`

func umaCmd(ctx context.Context, cfg config.Config, args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) == 2 && (args[0] == "allow" || args[0] == "block") {
		return umaListProvider(ctx, cfg, args[1], args[0] == "allow", stdout)
	}
	if len(args) == 2 && args[0] == "providers" {
		return umaListProviders(ctx, cfg, args[1], stdin, stdout)
	}
	if len(args) != 1 || (args[0] != "keys" && args[0] != "rotate-keys") {
		return errors.New(umaUsage)
	}
	// Only the database and the master key: it answers while Temporal is away.
	key, err := sealbox.ParseKey(cfg.MasterKey)
	if err != nil {
		return fmt.Errorf("PAYCORE_MASTER_KEY: %w", err)
	}
	box, err := sealbox.New(key)
	if err != nil {
		return err
	}
	store, done, err := umaStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer done()
	now := time.Now()
	newSet := func() (uma.SealedKeySet, error) { return uma.NewSealedKeySet(box, now) }
	if args[0] == "rotate-keys" {
		fresh, err := newSet()
		if err != nil {
			return err
		}
		if err := store.UmaKeysRotate(ctx, fresh, now); err != nil {
			return err
		}
	}
	sealed, err := store.UmaKeysCurrentOrNew(ctx, newSet, now)
	if err != nil {
		return err
	}
	ks, err := sealed.Open(box)
	if err != nil {
		return err
	}
	return printJSON(stdout, map[string]any{"keys": ks.Published(now), "notAfter": ks.NotAfter})
}

// umaListProvider lists the provider of domain as allowed or blocked (uma_providers, which
// GET /uma-providers shows).
func umaListProvider(ctx context.Context, cfg config.Config, domain string, allowed bool, stdout io.Writer) error {
	if err := platformconfig.CheckDomain(domain); err != nil {
		return fmt.Errorf("%q: %w", domain, err)
	}
	store, done, err := umaStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer done()
	if err := store.UmaProviderSetAllowed(ctx, domain, allowed); err != nil {
		return err
	}
	return printJSON(stdout, map[string]any{"domain": domain, "allowListStatus": allowed})
}

// umaListProviders lists the providers of the operator's file (uma.ParseProviders; "-" is
// stdin), all or none.
func umaListProviders(ctx context.Context, cfg config.Config, file string, stdin io.Reader, stdout io.Writer) error {
	var b []byte
	var err error
	if file == "-" {
		b, err = io.ReadAll(io.LimitReader(stdin, 16<<20))
	} else {
		b, err = os.ReadFile(file)
	}
	if err != nil {
		return fmt.Errorf("read the provider list: %w", err)
	}
	list, err := uma.ParseProviders(b)
	if err != nil {
		return err
	}
	store, done, err := umaStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer done()
	if err := store.UmaProvidersPut(ctx, list); err != nil {
		return err
	}
	return printJSON(stdout, map[string]any{"listed": len(list)})
}

// umaStore is the store of the UMA commands, on a small pool of the deployment's database
// (only the database: the commands answer while Temporal is away); done closes it.
func umaStore(ctx context.Context, cfg config.Config) (db.Store, func(), error) {
	pool, err := db.ConnectWith(ctx, cfg.DatabaseURL, db.PoolOptions{MaxConns: 2})
	if err != nil {
		return db.Store{}, nil, err
	}
	return db.NewStore(pool, view.Resources{}), pool.Close, nil
}
