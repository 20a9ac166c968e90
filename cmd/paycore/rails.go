package main

import (
	"errors"
	"fmt"
	"io"

	"paycore/internal/catalog"
	"paycore/internal/infra/config"
	"paycore/internal/infra/lightningrail"
	"paycore/internal/infra/lnd"
	"paycore/internal/rail"
	"paycore/internal/rail/adapters"
)

// The operator's view of the payment rails (docs/rails.md): which rails this
// configuration routes payments to, what each serves, by which routes.

const railsUsage = `usage:
  paycore rails list    (the rails PAYCORE_RAILS configures, what each serves and the routes to it)`

func railsCmd(cfg config.Config, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New(railsUsage)
	}
	switch args[0] {
	case "list":
		if len(args) > 1 {
			return errors.New(railsUsage)
		}
		return railsList(cfg, stdout)
	}
	return fmt.Errorf("unknown rails command %q\n%s", args[0], railsUsage)
}

// railsList prints the rails configured, as /readyz lists them: it reads the
// configuration only, so it answers without the database or Temporal.
func railsList(cfg config.Config, stdout io.Writer) error {
	reg, _, closeRails, err := railRegistry(cfg)
	if err != nil {
		return err
	}
	defer closeRails()
	return printJSON(stdout, map[string]any{"rails": reg.Configured()})
}

// railRegistry is the registry configuration routes payments by: the rails every
// deployment has, and the Lightning rail when a node is configured (PAYCORE_LND_*), whose
// client it returns too (nil without a node). The connection to the node is made on its
// first call; closeRails closes it.
func railRegistry(cfg config.Config) (reg *rail.Registry, node *lnd.Client, closeRails func(), err error) {
	closeRails = func() {}
	var connected []rail.Rail
	if cfg.LND.Configured() {
		node, err = lnd.Dial(lnd.Config{Address: cfg.LND.Address, TLSCertPath: cfg.LND.TLSCertPath, MacaroonPath: cfg.LND.MacaroonPath})
		if err != nil {
			return nil, nil, nil, fmt.Errorf("PAYCORE_LND_*: %w", err)
		}
		closeRails = func() { _ = node.Close() }
		connected = append(connected, lightningrail.New(node, lightningrail.Options{
			Environments: []catalog.Environment{catalog.Production, catalog.Sandbox}, Timeout: cfg.LND.PaymentTimeout}))
	}
	reg, err = adapters.Registry(cfg.Rails, connected...)
	if err != nil {
		closeRails()
		return nil, nil, nil, fmt.Errorf("PAYCORE_RAILS: %w", err)
	}
	return reg, node, closeRails, nil
}
