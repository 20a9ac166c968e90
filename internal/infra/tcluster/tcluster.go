// Package tcluster runs the Temporal server itself (not the development server) on this
// machine, with PostgreSQL persistence and PostgreSQL visibility in databases of their
// own whose schemas Temporal's own SQL tool creates and upgrades: the production shape
// that `make run-cluster` and the cluster test profile use. The server and the SQL tool
// are built from the Go module proxy into bin/ (make cluster-tools); the SQL tool
// carries the schemas of its own version.
package tcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/template"
	"time"

	deploytemporal "paycore/deploy/temporal"
	"paycore/internal/infra/devserver"
)

// HistoryShards is the number of history shards of the servers Start runs: each writes
// one workflow change at a time, so a benchmark's shard use is its workflow writes' time
// over HistoryShards × the wall time.
const HistoryShards = 4

// Options configures Start.
type Options struct {
	ServerPath  string // bin/temporal-server
	SQLToolPath string // bin/temporal-sql-tool
	// PostgreSQL: where the two databases live.
	PGHost     string
	PGPort     int
	PGUser     string
	PGPassword string
	// DB and VisibilityDB name the databases (created when missing).
	DB, VisibilityDB string
	// IP and Port are the frontend's gRPC address; the other services take the ports
	// Port+1 to Port+3 (gRPC), Port+10 to Port+13 (membership) and Port+20 (HTTP API); see
	// JWKSURL for the internal frontend.
	// The membership ports are stored as PostgreSQL smallints: Port+13 must stay below
	// 32768 (FreePortRange picks such a range).
	IP   string
	Port int
	// Dir is where the generated configuration goes.
	Dir string
	Log io.Writer
	// FrontendTLS, when set, makes the frontend serve TLS and require a client certificate
	// signed by its CA (the other services talk to each other in plaintext on loopback).
	FrontendTLS *FrontendTLS
	// JWKSURL, when set, turns on the server's default authorizer and JWT claim mapper:
	// every call but health checks needs "Authorization: Bearer <JWT>" signed by a key of
	// this JSON Web Key Set, its "permissions" claim granting roles ("default:write",
	// "temporal-system:admin"). The server's own worker service then goes through an
	// internal frontend (ports Port+4, Port+14 and Port+19), which checks no token.
	JWKSURL string
	// MetricsPort, when set, makes the server serve its Prometheus metrics (state
	// transitions, persistence requests, actions) on IP:MetricsPort at /metrics.
	MetricsPort int
}

// FrontendTLS are the PEM files of a frontend that requires mutual TLS.
type FrontendTLS struct {
	CAFile string // signs the client certificates accepted, and the server's own
	// CertFile and KeyFile are the server's certificate, for ServerName; the server's own
	// worker service presents it to the frontend as its client certificate.
	CertFile, KeyFile string
	ServerName        string
}

// Cluster is a running Temporal server.
type Cluster struct {
	cmd     *exec.Cmd
	Address string // host:port of the gRPC frontend
	done    chan struct{}
	err     error
}

// Start creates or upgrades the two databases' schemas, then starts the server and waits
// until its frontend accepts connections. It does not register a namespace: the caller
// does, through the frontend.
func Start(ctx context.Context, o Options) (*Cluster, error) {
	if o.IP == "" {
		o.IP = "127.0.0.1"
	}
	for _, p := range []string{o.ServerPath, o.SQLToolPath} {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("%s not found (run `make cluster-tools`): %w", p, err)
		}
	}
	for _, s := range []struct{ db, schema string }{{o.DB, "postgresql/v12/temporal"}, {o.VisibilityDB, "postgresql/v12/visibility"}} {
		if err := setupSchema(ctx, o, s.db, s.schema); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("create cluster dir: %w", err)
	}
	cfgPath := filepath.Join(o.Dir, "temporal-server.yaml")
	if err := writeConfig(cfgPath, o); err != nil {
		return nil, err
	}
	// Not tied to ctx: the caller stops the server with Stop.
	args := []string{"--config-file", cfgPath, "--allow-no-auth", "start"}
	if o.JWKSURL != "" {
		// The server's own worker service calls the internal frontend, which needs no token.
		for _, s := range []string{"frontend", "internal-frontend", "history", "matching", "worker"} {
			args = append(args, "--service", s)
		}
	}
	cmd := exec.Command(o.ServerPath, args...)
	cmd.Stdout, cmd.Stderr = o.Log, o.Log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start temporal server: %w", err)
	}
	c := &Cluster{cmd: cmd, Address: net.JoinHostPort(o.IP, strconv.Itoa(o.Port)), done: make(chan struct{})}
	go func() { c.err = cmd.Wait(); close(c.done) }()
	if err := devserver.WaitListening(ctx, c.Address, c.done, 2*time.Minute); err != nil {
		c.Stop()
		return nil, fmt.Errorf("temporal server: %w (exit: %v)", err, c.err)
	}
	return c, nil
}

// setupSchema creates database db when it is missing, with the schema-version tables, then
// applies every migration of the SQL tool's embedded schema it lacks (the tool records
// the version reached).
func setupSchema(ctx context.Context, o Options, db, schema string) error {
	base := []string{"--plugin", "postgres12", "--endpoint", o.PGHost, "--port", strconv.Itoa(o.PGPort), "--user", o.PGUser, "--database", db}
	if o.PGPassword != "" {
		base = append(base, "--password", o.PGPassword)
	}
	out, err := runTool(ctx, o.SQLToolPath, append(base, "create-database")...)
	created := err == nil
	if err != nil && !strings.Contains(out, "already exists") {
		return fmt.Errorf("create database %s: %w: %s", db, err, out)
	}
	if created {
		if out, err := runTool(ctx, o.SQLToolPath, append(base, "setup-schema", "--version", "0.0")...); err != nil {
			return fmt.Errorf("set up the schema of %s: %w: %s", db, err, out)
		}
	}
	if out, err := runTool(ctx, o.SQLToolPath, append(base, "update-schema", "--schema-name", schema)...); err != nil {
		return fmt.Errorf("upgrade the schema of %s: %w: %s", db, err, out)
	}
	return nil
}

func runTool(ctx context.Context, path string, args ...string) (string, error) {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// Done is closed when the server process has exited.
func (c *Cluster) Done() <-chan struct{} { return c.done }

// FreePortRange finds n consecutive free loopback ports, all below 32768 (membership ports
// are smallints in Temporal's SQL schema), and returns the first.
func FreePortRange(n int) (int, error) {
	for first := 20000 + int(time.Now().UnixNano()%10000); first+n < 32768; first += n {
		free := true
		for p := first; p < first+n && free; p++ {
			l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
			if err != nil {
				free = false
				continue
			}
			l.Close()
		}
		if free {
			return first, nil
		}
	}
	return 0, errors.New("no range of free ports below 32768")
}

// Stop asks the server to stop, and kills it after 20 seconds.
func (c *Cluster) Stop() {
	if c == nil || c.cmd == nil || c.cmd.Process == nil {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(20 * time.Second):
		c.Kill()
	}
}

// Kill ends the server at once (SIGKILL to its process group), as a crash would.
func (c *Cluster) Kill() {
	if c == nil || c.cmd == nil || c.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	<-c.done
}

// writeConfig writes the server's configuration: SQL persistence and visibility on
// PostgreSQL (small pools: each of the four services opens its own, and PostgreSQL's
// default max_connections is 100, shared with the service), the four services on
// loopback ports, and the dynamic configuration a deployment gets
// (deploy/temporal/paycore.yaml).
func writeConfig(path string, o Options) error {
	dyn := filepath.Join(filepath.Dir(path), "dynamicconfig.yaml")
	if err := os.WriteFile(dyn, deploytemporal.DynamicConfig, 0o644); err != nil {
		return fmt.Errorf("write dynamic config: %w", err)
	}
	var b bytes.Buffer
	err := configTemplate.Execute(&b, map[string]any{"o": o, "dyn": dyn, "pg": net.JoinHostPort(o.PGHost, strconv.Itoa(o.PGPort)),
		"p": func(offset int) int { return o.Port + offset }, "shards": HistoryShards})
	if err != nil {
		return fmt.Errorf("render temporal config: %w", err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		return fmt.Errorf("write temporal config: %w", err)
	}
	return nil
}

var configTemplate = template.Must(template.New("temporal").Parse(`log:
  stdout: true
  level: warn
persistence:
  defaultStore: default
  visibilityStore: visibility
  numHistoryShards: {{.shards}}
  datastores:
    default:
      sql:
        pluginName: postgres12
        databaseName: {{.o.DB}}
        connectAddr: "{{.pg}}"
        connectProtocol: tcp
        user: "{{.o.PGUser}}"
        password: "{{.o.PGPassword}}"
        maxConns: 6
        maxIdleConns: 6
        maxConnLifetime: 1h
    visibility:
      sql:
        pluginName: postgres12
        databaseName: {{.o.VisibilityDB}}
        connectAddr: "{{.pg}}"
        connectProtocol: tcp
        user: "{{.o.PGUser}}"
        password: "{{.o.PGPassword}}"
        maxConns: 3
        maxIdleConns: 3
        maxConnLifetime: 1h
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "{{.o.IP}}"
{{- if .o.MetricsPort}}
  metrics:
    prometheus:
      timerType: histogram
      listenAddress: "{{.o.IP}}:{{.o.MetricsPort}}"
{{- end}}
{{- with .o.FrontendTLS}}
  tls:
    frontend:
      server:
        certFile: "{{.CertFile}}"
        keyFile: "{{.KeyFile}}"
        requireClientAuth: true
        clientCaFiles: ["{{.CAFile}}"]
    systemWorker:
      certFile: "{{.CertFile}}"
      keyFile: "{{.KeyFile}}"
      client:
        serverName: "{{.ServerName}}"
        rootCaFiles: ["{{.CAFile}}"]
{{- end}}
{{- with .o.JWKSURL}}
  authorization:
    jwtKeyProvider:
      keySourceURIs: ["{{.}}"]
      refreshInterval: 1m
    permissionsClaimName: permissions
    authorizer: default
    claimMapper: default
{{- end}}
services:
  frontend:
    rpc:
      grpcPort: {{call .p 0}}
      membershipPort: {{call .p 10}}
      bindOnIP: "{{.o.IP}}"
      httpPort: {{call .p 20}}
{{- if .o.JWKSURL}}
  internal-frontend:
    rpc:
      grpcPort: {{call .p 4}}
      membershipPort: {{call .p 14}}
      bindOnIP: "{{.o.IP}}"
      httpPort: {{call .p 19}}
{{- end}}
  history:
    rpc:
      grpcPort: {{call .p 1}}
      membershipPort: {{call .p 11}}
      bindOnIP: "{{.o.IP}}"
  matching:
    rpc:
      grpcPort: {{call .p 2}}
      membershipPort: {{call .p 12}}
      bindOnIP: "{{.o.IP}}"
  worker:
    rpc:
      grpcPort: {{call .p 3}}
      membershipPort: {{call .p 13}}
      bindOnIP: "{{.o.IP}}"
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: "{{.o.IP}}:{{call .p 0}}"
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: "{{.dyn}}"
  pollInterval: 10s
`))
