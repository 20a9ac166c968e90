package main

import (
	"errors"
	"fmt"
	"io"

	"paycore/internal/infra/config"
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
	reg, err := adapters.Registry(cfg.Rails)
	if err != nil {
		return fmt.Errorf("PAYCORE_RAILS: %w", err)
	}
	return printJSON(stdout, map[string]any{"rails": reg.Configured()})
}
