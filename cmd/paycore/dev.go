package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"

	"paycore/api"
	"paycore/db"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/infra/config"
	"paycore/internal/infra/devserver"
	"paycore/internal/kit/sealbox"
	"paycore/internal/problem"
	"paycore/workflows"
)

// devCredentials are kept in the data folder so a restart prints the same credentials.
type devCredentials struct {
	PlatformID   string `json:"platformId"`
	TokenID      string `json:"tokenId"`
	ClientID     string `json:"clientId"`
	ClientSecret string `json:"clientSecret"`
}

// runDev starts the whole stack on embedded defaults: the pinned Temporal dev server
// (persisted under the data folder, with its UI), the database and its migrations, a
// sandbox platform on first start, the API and the worker. Ctrl-C stops everything.
func runDev(ctx context.Context, cfg config.Config, log *slog.Logger, stdout io.Writer) error {
	if err := refuseTemporalSecurity(cfg, "dev"); err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	if os.Getenv("PAYCORE_SANDBOX_WEBHOOKS_ALLOW_PRIVATE") == "" {
		cfg.SandboxPrivateOK = true // local receivers are the point of a dev stack
	}
	if err := useLocalMasterKey(&cfg); err != nil {
		return err
	}
	host, port, err := net.SplitHostPort(cfg.TemporalAddress)
	if err != nil {
		return fmt.Errorf("PAYCORE_TEMPORAL_ADDRESS: %w", err)
	}
	var portN int
	_, _ = fmt.Sscan(port, &portN)
	logFile, err := os.OpenFile(filepath.Join(cfg.DataDir, "temporal.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logFile.Close()
	fmt.Fprintln(stdout, "starting Temporal dev server ...")
	ts, err := devserver.Start(ctx, devserver.Options{
		CLIPath: cfg.TemporalCLI, IP: host, Port: portN, UIPort: cfg.TemporalUIPort,
		DBFile: filepath.Join(cfg.DataDir, "temporal.db"), SearchAttributes: workflows.SearchAttributeNames, Log: logFile,
	})
	if err != nil {
		return err
	}
	defer ts.Stop()
	fmt.Fprintln(stdout, "preparing database ...")
	if err := prepareDatabase(ctx, cfg); err != nil {
		return err
	}
	a, err := newApp(ctx, cfg, log)
	if err != nil {
		return err
	}
	a.dev = true
	defer a.close()
	creds, err := ensureSandboxPlatform(ctx, a)
	if err != nil {
		return err
	}
	ln, mln, err := a.listen()
	if err != nil {
		return err
	}
	metricsURL := "off (set PAYCORE_METRICS_ADDR to serve them)"
	if mln != nil {
		metricsURL = "http://" + mln.Addr().String() + "/metrics"
	}
	fmt.Fprintf(stdout, `
paycore is running (Ctrl-C stops everything)

  API base URL     %s
  OpenAPI          %s/openapi.yaml
  API token id     %s
  API secret       %s
  (HTTP Basic: clientId %s, password the secret)
  Temporal UI      %s
  Metrics          %s
  Mailbox          %s/dev/mailbox (sandbox platforms' one-time codes; set PAYCORE_SMTP_HOST to send real mail)
  Text messages    %s/dev/sms (sandbox platforms' SMS codes; set PAYCORE_SMS_URL to send real ones)
  Data             %s

  curl -u %s:%s %s/config
`, cfg.BaseURL(), cfg.BaseURL(), creds.TokenID, creds.ClientSecret, creds.ClientID, ts.UIURL, metricsURL, cfg.PublicBaseURL, cfg.PublicBaseURL, cfg.DataDir,
		creds.ClientID, creds.ClientSecret, cfg.BaseURL())
	run := []func(context.Context) error{
		func(ctx context.Context) error { return a.runAPI(ctx, ln) },
		a.runWorker,
	}
	if mln != nil {
		run = append(run, func(ctx context.Context) error { return a.runMetrics(ctx, mln) })
	}
	err = runAll(ctx, run...)
	fmt.Fprintln(stdout, "stopped")
	return err
}

// devCredentialsPath is where `paycore dev` keeps the sandbox platform's credentials in the
// data folder dataDir.
func devCredentialsPath(dataDir string) string {
	return filepath.Join(dataDir, "sandbox-platform.json")
}

// readDevCredentials reads the sandbox platform's credentials `paycore dev` keeps in dataDir
// (an error wrapping os.ErrNotExist when there are none).
func readDevCredentials(dataDir string) (devCredentials, error) {
	var creds devCredentials
	path := devCredentialsPath(dataDir)
	b, err := os.ReadFile(path)
	if err != nil {
		return creds, err
	}
	if err := json.Unmarshal(b, &creds); err != nil {
		return creds, fmt.Errorf("read %s: %w", path, err)
	}
	return creds, nil
}

func ensureSandboxPlatform(ctx context.Context, a *app) (devCredentials, error) {
	path := devCredentialsPath(a.cfg.DataDir)
	creds, err := readDevCredentials(a.cfg.DataDir)
	if err == nil {
		id, err := ids.Parse(ids.Platform, creds.PlatformID)
		if err == nil {
			if _, err := db.PlatformGet(ctx, a.pool, id); err == nil {
				return creds, nil
			}
		}
		// The database was reset: create a new platform.
	} else if !errors.Is(err, os.ErrNotExist) {
		return creds, err
	}
	params := api.PlatformParams{Name: "Sandbox Platform", Sandbox: true, UmaDomain: "sandbox.uma.localhost"}
	p, tok, err := api.CreatePlatform(ctx, a.pool, a.box, params)
	if problem.CodeOf(err) == catalog.UmaDomainTaken {
		// The credentials file was lost, not the database: the earlier sandbox platform
		// keeps its domain (a domain belongs to one platform), the new one gets a placeholder.
		params.UmaDomain = ""
		p, tok, err = api.CreatePlatform(ctx, a.pool, a.box, params)
	}
	if err != nil {
		return creds, err
	}
	creds = devCredentials{PlatformID: ids.Format(ids.Platform, p.ID), TokenID: ids.Format(ids.Token, tok.Token.ID),
		ClientID: tok.Token.ID.String(), ClientSecret: tok.Secret}
	b, _ := json.MarshalIndent(creds, "", "  ")
	return creds, os.WriteFile(path, b, 0o600)
}

func readOrCreate(path string, create func() string) (string, error) {
	if b, err := os.ReadFile(path); err == nil {
		return strings.TrimSpace(string(b)), nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	v := create()
	if err := os.WriteFile(path, []byte(v+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return v, nil
}

// useLocalMasterKey gives a local stack without PAYCORE_MASTER_KEY the key kept in the data
// folder (created on first start), so a restart can read what it sealed.
func useLocalMasterKey(cfg *config.Config) error {
	if cfg.MasterKey != "" {
		return nil
	}
	k, err := readOrCreate(filepath.Join(cfg.DataDir, "master.key"), sealbox.NewKey)
	if err != nil {
		return err
	}
	cfg.MasterKey = k
	return nil
}

// prepareDatabase creates the service's database when it is missing and migrates it.
func prepareDatabase(ctx context.Context, cfg config.Config) error {
	if err := db.EnsureDatabase(ctx, cfg.DatabaseURL); err != nil {
		return err
	}
	return db.Migrate(ctx, cfg.DatabaseURL)
}
