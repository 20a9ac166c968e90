package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/protobuf/types/known/durationpb"

	"paycore/internal/infra/config"
	"paycore/internal/infra/tcluster"
	"paycore/workflows"
)

// clusterFlags are the flags of `paycore cluster`.
type clusterFlags struct {
	server, sqlTool, ui string
	port, uiPort        int
	apis, workers       int
	temporalOnly        bool
}

// runCluster is `paycore cluster` (make run-cluster): the production shape on this machine.
// The Temporal server itself on PostgreSQL (persistence and visibility in databases of
// their own, schemas by Temporal's SQL tool), the namespace and the search attributes, the
// Temporal UI, then several API and worker processes of this binary behind it. Ctrl-C
// stops everything.
func runCluster(ctx context.Context, cfg config.Config, log *slog.Logger, args []string, stdout io.Writer) error {
	if err := refuseTemporalSecurity(cfg, "cluster"); err != nil {
		return err
	}
	fs := flag.NewFlagSet("cluster", flag.ContinueOnError)
	var f clusterFlags
	fs.StringVar(&f.server, "server", "bin/temporal-server", "the Temporal server binary")
	fs.StringVar(&f.sqlTool, "sql-tool", "bin/temporal-sql-tool", "Temporal's SQL schema tool")
	fs.StringVar(&f.ui, "ui", "bin/temporal-ui", "the Temporal UI server (skipped when missing)")
	fs.IntVar(&f.port, "port", 7233, "the Temporal frontend's port (the other services take the next ones)")
	fs.IntVar(&f.uiPort, "ui-port", 8233, "the Temporal UI's port")
	fs.IntVar(&f.apis, "apis", 2, "API processes (ports from PAYCORE_HTTP_ADDR's up)")
	fs.IntVar(&f.workers, "workers", 2, "worker processes")
	fs.BoolVar(&f.temporalOnly, "temporal-only", false, "run the Temporal server alone (the cluster test profile)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	logFile, err := os.OpenFile(filepath.Join(cfg.DataDir, "temporal-cluster.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logFile.Close()
	fmt.Fprintln(stdout, "starting the Temporal server on PostgreSQL ...")
	tc, err := StartTemporalCluster(ctx, cfg.DatabaseURL, f.server, f.sqlTool, f.port, 0, filepath.Join(cfg.DataDir, "cluster"), logFile)
	if err != nil {
		return err
	}
	defer tc.Stop()
	cfg.TemporalAddress = tc.Address
	uiURL := "off (build bin/temporal-ui)"
	if _, err := os.Stat(f.ui); err == nil {
		dir := filepath.Join(cfg.DataDir, "cluster", "ui")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		conf := fmt.Sprintf("temporalGrpcAddress: %s\nport: %d\nenableUi: true\n", tc.Address, f.uiPort)
		for _, name := range []string{"base.yaml", "cluster.yaml"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(conf), 0o644); err != nil {
				return err
			}
		}
		ui, err := startChild(f.ui, logFile, nil, "--root", dir, "--config", ".", "--env", "cluster", "start")
		if err != nil {
			return err
		}
		defer stopChild(ui)
		uiURL = fmt.Sprintf("http://127.0.0.1:%d", f.uiPort)
	}
	if f.temporalOnly {
		fmt.Fprintf(stdout, "Temporal frontend %s, UI %s (Ctrl-C stops)\n", tc.Address, uiURL)
		<-ctx.Done()
		return nil
	}
	return runPaycoreProcesses(ctx, cfg, log, f, uiURL, logFile, stdout)
}

// StartTemporalCluster starts the Temporal server on the PostgreSQL server of databaseURL
// (databases paycore_temporal and paycore_temporal_visibility, named after the service's
// database), with the default namespace and the project's search attributes registered.
// A metricsPort other than 0 serves the server's Prometheus metrics there.
func StartTemporalCluster(ctx context.Context, databaseURL, server, sqlTool string, port, metricsPort int, dir string, logw io.Writer) (*tcluster.Cluster, error) {
	o, err := clusterOptions(databaseURL)
	if err != nil {
		return nil, err
	}
	o.ServerPath, o.SQLToolPath, o.Port, o.MetricsPort, o.Dir, o.Log = server, sqlTool, port, metricsPort, dir, logw
	tc, err := tcluster.Start(ctx, o)
	if err != nil {
		return nil, err
	}
	regCtx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-tc.Done(): // the server died during its start-up
			cancel()
		case <-regCtx.Done():
		}
	}()
	err = registerNamespace(regCtx, tc.Address, workflows.SearchAttributeNames)
	cancel()
	if err != nil {
		tc.Stop()
		return nil, err
	}
	return tc, nil
}

// clusterOptions are the PostgreSQL settings of a Temporal server on the PostgreSQL server
// of databaseURL: databases <name>_temporal and <name>_temporal_visibility.
func clusterOptions(databaseURL string) (tcluster.Options, error) {
	u, err := url.Parse(databaseURL)
	if err != nil {
		return tcluster.Options{}, fmt.Errorf("PAYCORE_DATABASE_URL: %w", err)
	}
	pgPort := 5432
	if p := u.Port(); p != "" {
		pgPort, _ = strconv.Atoi(p)
	}
	password, _ := u.User.Password()
	dbName := filepath.Base(u.Path)
	return tcluster.Options{PGHost: u.Hostname(), PGPort: pgPort, PGUser: u.User.Username(), PGPassword: password,
		DB: dbName + "_temporal", VisibilityDB: dbName + "_temporal_visibility"}, nil
}

// registerNamespace creates the default namespace (3 days of retention) and registers the
// Keyword search attributes in it, then waits until the frontend serves them.
func registerNamespace(ctx context.Context, address string, attrs []string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var c client.Client
	for {
		var err error
		if c, err = client.DialContext(ctx, client.Options{HostPort: address}); err == nil {
			break
		}
		if ctx.Err() != nil {
			return fmt.Errorf("connect to temporal at %s: %w", address, err)
		}
		time.Sleep(500 * time.Millisecond) // the frontend is not healthy yet
	}
	defer c.Close()
	var err error
	for {
		_, err = c.WorkflowService().RegisterNamespace(ctx, &workflowservice.RegisterNamespaceRequest{
			Namespace: "default", WorkflowExecutionRetentionPeriod: durationpb.New(72 * time.Hour)})
		var exists *serviceerror.NamespaceAlreadyExists
		if err == nil || errors.As(err, &exists) {
			break
		}
		if ctx.Err() != nil {
			return fmt.Errorf("register namespace: %w", err)
		}
		time.Sleep(500 * time.Millisecond) // the server is still starting
	}
	want := map[string]enumspb.IndexedValueType{}
	for _, a := range attrs {
		want[a] = enumspb.INDEXED_VALUE_TYPE_KEYWORD
	}
	// Only the missing ones are added: a namespace from an earlier version has some, and a
	// request naming one it has fails whole.
	for {
		var list *operatorservice.ListSearchAttributesResponse
		list, err = c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: "default"})
		if err == nil {
			for name := range list.GetCustomAttributes() {
				delete(want, name)
			}
			if len(want) == 0 {
				break
			}
			_, err = c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{Namespace: "default", SearchAttributes: want})
		}
		var exists *serviceerror.AlreadyExists
		if err == nil || errors.As(err, &exists) {
			break
		}
		if ctx.Err() != nil {
			return fmt.Errorf("register search attributes: %w", err)
		}
		time.Sleep(500 * time.Millisecond)
	}
	// The frontend's namespace cache learns the attributes' mapping a little later: a
	// workflow started with all of them (then terminated) proves it has.
	var sa []temporal.SearchAttributeUpdate
	for _, a := range attrs {
		sa = append(sa, temporal.NewSearchAttributeKeyKeyword(a).ValueSet("probe"))
	}
	for i := 0; ; i++ {
		id := fmt.Sprintf("paycore-cluster-probe-%d-%d", os.Getpid(), i)
		_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: "paycore-cluster-probe",
			TypedSearchAttributes: temporal.NewSearchAttributes(sa...), WorkflowRunTimeout: time.Minute}, "Probe")
		if err == nil {
			return c.TerminateWorkflow(ctx, id, "", "search attributes probe")
		}
		if ctx.Err() != nil {
			return fmt.Errorf("search attributes not served: %w", err)
		}
		time.Sleep(time.Second)
	}
}

// runPaycoreProcesses migrates the database, makes sure the sandbox platform exists, then
// runs f.apis API processes (on consecutive ports from PAYCORE_HTTP_ADDR's) and f.workers
// worker processes of this binary until ctx ends.
func runPaycoreProcesses(ctx context.Context, cfg config.Config, log *slog.Logger, f clusterFlags, uiURL string, logw io.Writer, stdout io.Writer) error {
	if err := useLocalMasterKey(&cfg); err != nil {
		return err
	}
	if err := prepareDatabase(ctx, cfg); err != nil {
		return err
	}
	a, err := newApp(ctx, cfg, log)
	if err != nil {
		return err
	}
	creds, err := ensureSandboxPlatform(ctx, a)
	a.close()
	if err != nil {
		return err
	}
	host, port, err := net.SplitHostPort(cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("PAYCORE_HTTP_ADDR: %w", err)
	}
	base, _ := strconv.Atoi(port)
	env := []string{"PAYCORE_TEMPORAL_ADDRESS=" + cfg.TemporalAddress, "PAYCORE_MASTER_KEY=" + cfg.MasterKey,
		"PAYCORE_DATABASE_URL=" + cfg.DatabaseURL, "PAYCORE_DATA_DIR=" + cfg.DataDir}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var children []*exec.Cmd
	defer func() {
		for _, c := range children {
			stopChild(c)
		}
	}()
	var apiURLs []string
	for i := range f.apis {
		addr := net.JoinHostPort(host, strconv.Itoa(base+i))
		c, err := startChild(self, logw, append(env, "PAYCORE_HTTP_ADDR="+addr, fmt.Sprintf("PAYCORE_METRICS_ADDR=127.0.0.1:%d", 9090+i)), "serve")
		if err != nil {
			return err
		}
		children = append(children, c)
		apiURLs = append(apiURLs, "http://"+addr+cfg.BasePath())
	}
	for i := range f.workers {
		c, err := startChild(self, logw, append(env, fmt.Sprintf("PAYCORE_WORKER_HTTP_ADDR=127.0.0.1:%d", 8181+i)), "worker")
		if err != nil {
			return err
		}
		children = append(children, c)
	}
	fmt.Fprintf(stdout, `
paycore cluster is running (Ctrl-C stops everything)

  Temporal         %s (the Temporal server on PostgreSQL)
  Temporal UI      %s
  API processes    %v
  Worker processes %d
  API token id     %s
  API secret       %s
  Logs             %s

  curl -u %s:%s %s/config
`, cfg.TemporalAddress, uiURL, apiURLs, f.workers, creds.TokenID, creds.ClientSecret, filepath.Join(cfg.DataDir, "temporal-cluster.log"),
		creds.ClientID, creds.ClientSecret, apiURLs[0])
	<-ctx.Done()
	return nil
}

// startChild starts a process whose output goes to logw, with env added to ours.
func startChild(path string, logw io.Writer, env []string, args ...string) (*exec.Cmd, error) {
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logw, logw
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s %v: %w", path, args, err)
	}
	return cmd, nil
}

// stopChild stops a child gracefully (SIGTERM), and kills it after 25 seconds.
func stopChild(c *exec.Cmd) {
	_ = c.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = c.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(25 * time.Second):
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		<-done
	}
}
