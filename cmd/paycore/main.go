// Command paycore is the payments service binary. Subcommands:
//
//	paycore dev                                  the whole stack for local development
//	paycore cluster [-apis 2] [-workers 2]       the Temporal server on PostgreSQL and several processes
//	paycore serve                                the REST API
//	paycore worker                               the Temporal worker, webhook relay and janitor
//	paycore migrate                              create the database if missing and migrate it
//	paycore platform create -name N [-production] [-regulated] [-uma-domain D]
//	paycore token create -platform ID -name N [-permissions VIEW,TRANSACT,MANAGE]
//	paycore payments stuck [-older-than 15m] [-status PENDING,PROCESSING]
//	paycore payments retry|fail -transaction ID -operator NAME [-reason TEXT]
//	paycore webhooks redeliver -event ID -operator NAME
//	paycore verifications review -verification ID -decision APPROVED|REJECTED -operator NAME [-reason TEXT]
//	paycore healthcheck URL                      exit 0 when URL answers 2xx (container healthchecks)
//
// Configuration comes from PAYCORE_* environment variables (see docs/operations/configuration.md).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"paycore/api"
	"paycore/db"
	"paycore/internal/ids"
	"paycore/internal/infra/config"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "paycore:", err)
		os.Exit(1)
	}
}

const usage = `usage: paycore <command> [flags]

commands:
  dev                 start Temporal dev server, migrate, API and worker; create a sandbox platform
  cluster             the production shape here: Temporal server on PostgreSQL, its UI, 2 APIs, 2 workers
  serve               serve the REST API
  worker              run the Temporal worker, webhook relay and janitor
  migrate             create the database if missing and apply migrations
  platform create     create a platform (operator only)
  token create        create an API token for a platform (operator only)
  payments stuck      list payments whose status has not changed for a while (operator only)
  payments retry      submit a payment waiting at its rail again now (operator only)
  payments fail       fail a payment waiting at its rail, its hold released (operator only)
  webhooks redeliver  deliver a webhook event again (operator only)
  rails list          the payment rails configured and the payments each serves (operator only)
  rails reconcile     the Lightning node's funds against the ledger (operator only)
  uma keys            the deployment's UMA keys, as /.well-known/lnurlpubkey publishes them (operator only)
  uma rotate-keys     new UMA signing and encryption keys (operator only)
  uma allow|block D   list the UMA provider of domain D as allowed or blocked (operator only)
  uma providers FILE  list the UMA providers of a JSON file (GET /uma-providers shows them; operator only)
  verifications review  decide a verification waiting for a manual review (operator only)
  listen              forward the platform's webhook events to a local URL (development; -forward-to URL)
  mcp                 an MCP server for an AI assistant acting as an agent (stdio, or -http ADDR); mcp login CODE
  healthcheck URL     exit 0 when URL answers 2xx within 3s (for container healthchecks)`

func run(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%s", usage)
	}
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	log := newLogger(cfg.LogLevel)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch args[0] {
	case "dev":
		return runDev(ctx, cfg, log, stdout)
	case "cluster":
		return runCluster(ctx, cfg, log, args[1:], stdout)
	case "serve":
		return serve(ctx, cfg, log)
	case "worker":
		return runWorkerCmd(ctx, cfg, log)
	case "migrate":
		if err := db.EnsureDatabase(ctx, cfg.DatabaseURL); err != nil {
			return err
		}
		return db.Migrate(ctx, cfg.DatabaseURL)
	case "platform":
		if len(args) < 2 || args[1] != "create" {
			return fmt.Errorf("usage: paycore platform create -name NAME [-production] [-regulated] [-uma-domain DOMAIN]")
		}
		return platformCreate(ctx, cfg, args[2:], stdout)
	case "token":
		if len(args) < 2 || args[1] != "create" {
			return fmt.Errorf("usage: paycore token create -platform ID -name NAME [-permissions VIEW,TRANSACT,MANAGE]")
		}
		return tokenCreate(ctx, cfg, args[2:], stdout)
	case "payments":
		return paymentsCmd(ctx, cfg, args[1:], stdout)
	case "webhooks":
		return webhooksCmd(ctx, cfg, args[1:], stdout)
	case "rails":
		return railsCmd(ctx, cfg, args[1:], stdout)
	case "uma":
		return umaCmd(ctx, cfg, args[1:], os.Stdin, stdout)
	case "verifications":
		return verificationsCmd(ctx, cfg, args[1:], stdout)
	case "listen":
		return listen(ctx, cfg, args[1:], os.Getenv, stdout)
	case "mcp":
		return mcpCmd(ctx, cfg, args[1:], os.Getenv, stdout)
	case "healthcheck":
		if len(args) != 2 {
			return fmt.Errorf("usage: paycore healthcheck URL")
		}
		return healthcheck(ctx, args[1])
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	return fmt.Errorf("unknown command %q\n%s", args[0], usage)
}

// healthcheck GETs url and fails unless it answers 2xx within 3 seconds: the image is
// distroless (no shell, no curl), so the container's HEALTHCHECK runs the binary itself.
func healthcheck(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("healthcheck: %s answered %s", url, resp.Status)
	}
	return nil
}

func newLogger(level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}

func serve(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	a, err := newApp(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer a.close()
	ln, mln, err := a.listen()
	if err != nil {
		return err
	}
	log.Info("API listening", "base_url", cfg.BaseURL())
	if mln == nil {
		log.Info("metrics listener off (PAYCORE_METRICS_ADDR)")
		return a.runAPI(ctx, ln)
	}
	log.Info("metrics listening", "url", "http://"+mln.Addr().String()+"/metrics")
	return runAll(ctx, func(ctx context.Context) error { return a.runAPI(ctx, ln) }, func(ctx context.Context) error { return a.runMetrics(ctx, mln) })
}

// runAll runs fns until ctx ends or one of them returns; then it stops the others, waits
// for them and returns the first error.
func runAll(ctx context.Context, fns ...func(context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, len(fns))
	for _, fn := range fns {
		go func() { errc <- fn(ctx) }()
	}
	err := <-errc
	cancel()
	for range len(fns) - 1 {
		if e := <-errc; err == nil {
			err = e
		}
	}
	return err
}

func runWorkerCmd(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	a, err := newApp(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer a.close()
	// The worker process serves its own health and metrics.
	addr := os.Getenv("PAYCORE_WORKER_HTTP_ADDR")
	if addr == "" {
		addr = "127.0.0.1:8081"
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", a.metrics.Handler())
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"status":"ok"}`)) })
	hs := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.ListenAndServe() }()
	defer hs.Close()
	log.Info("worker running", "metrics", "http://"+addr+"/metrics")
	return a.runWorker(ctx)
}

func platformCreate(ctx context.Context, cfg config.Config, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("platform create", flag.ContinueOnError)
	name := fs.String("name", "", "platform name (required)")
	production := fs.Bool("production", false, "create a production platform (default: sandbox)")
	regulated := fs.Bool("regulated", false, "isRegulatedFinancialInstitution")
	domain := fs.String("uma-domain", "", "UMA domain, one no other platform holds (default: a placeholder derived from the name, <name>-<6 hex>.uma.example)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	a, err := newApp(ctx, cfg, newLogger("warn"))
	if err != nil {
		return err
	}
	defer a.close()
	p, tok, err := api.CreatePlatform(ctx, a.pool, a.box, api.PlatformParams{Name: *name, Sandbox: !*production, IsRegulated: *regulated, UmaDomain: *domain})
	if err != nil {
		return err
	}
	return printJSON(stdout, map[string]any{
		"platformId": ids.Format(ids.Platform, p.ID), "environment": p.Environment,
		"isRegulatedFinancialInstitution": p.IsRegulatedFinancialInstitution,
		"tokenId":                         ids.Format(ids.Token, tok.Token.ID), "clientId": tok.Token.ID.String(), "clientSecret": tok.Secret,
		"baseUrl": cfg.BaseURL(),
	})
}

func tokenCreate(ctx context.Context, cfg config.Config, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("token create", flag.ContinueOnError)
	platform := fs.String("platform", "", "platform id (Platform:<uuid>)")
	name := fs.String("name", "", "token name (required)")
	perms := fs.String("permissions", "VIEW,TRANSACT,MANAGE", "comma-separated permissions")
	if err := fs.Parse(args); err != nil {
		return err
	}
	pid, err := ids.Parse(ids.Platform, *platform)
	if err != nil {
		return fmt.Errorf("-platform: %w", err)
	}
	a, err := newApp(ctx, cfg, newLogger("warn"))
	if err != nil {
		return err
	}
	defer a.close()
	tok, err := api.IssueToken(ctx, a.pool, pid, *name, strings.Split(*perms, ","))
	if err != nil {
		return err
	}
	return printJSON(stdout, map[string]any{"tokenId": ids.Format(ids.Token, tok.Token.ID), "clientId": tok.Token.ID.String(),
		"clientSecret": tok.Secret, "permissions": tok.Token.Permissions})
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
