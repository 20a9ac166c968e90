// Package devserver runs the pinned Temporal CLI development server as a child process,
// with the project's search attributes registered and the dynamic configuration tuned for
// one small machine. `paycore dev` and the end-to-end tests both use it.
package devserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// Options configures Start.
type Options struct {
	CLIPath          string   // the temporal binary
	IP               string   // defaults to 127.0.0.1
	Port             int      // gRPC port; 0 picks a free one
	UIPort           int      // ignored when Headless
	Headless         bool     // no Web UI
	DBFile           string   // SQLite file; empty keeps state in memory
	SearchAttributes []string // Keyword attributes to register
	Log              io.Writer
}

// Server is a running dev server.
type Server struct {
	cmd     *exec.Cmd
	Address string // host:port of the gRPC frontend
	UIURL   string // empty when headless
	done    chan struct{}
	err     error
}

// Start launches the dev server and waits until its frontend accepts connections.
func Start(ctx context.Context, o Options) (*Server, error) {
	if o.IP == "" {
		o.IP = "127.0.0.1"
	}
	if _, err := os.Stat(o.CLIPath); err != nil {
		return nil, fmt.Errorf("temporal CLI not found at %s (run `make tools`): %w", o.CLIPath, err)
	}
	if o.Port == 0 {
		p, err := FreePort()
		if err != nil {
			return nil, err
		}
		o.Port = p
	}
	args := []string{"server", "start-dev",
		"--ip", o.IP, "--port", strconv.Itoa(o.Port),
		"--log-level", "error",
		"--dynamic-config-value", "matching.numTaskqueueReadPartitions=1",
		"--dynamic-config-value", "matching.numTaskqueueWritePartitions=1",
		"--dynamic-config-value", "frontend.enableUpdateWorkflowExecution=true",
		"--dynamic-config-value", "frontend.enableExecuteMultiOperation=true",
		"--dynamic-config-value", "system.enableEagerWorkflowStart=true",
		"--dynamic-config-value", "system.enableActivityEagerExecution=true",
	}
	for _, sa := range o.SearchAttributes {
		args = append(args, "--search-attribute", sa+"=Keyword")
	}
	s := &Server{Address: net.JoinHostPort(o.IP, strconv.Itoa(o.Port)), done: make(chan struct{})}
	if o.Headless {
		args = append(args, "--headless")
	} else {
		if o.UIPort == 0 {
			o.UIPort = o.Port + 1000
		}
		args = append(args, "--ui-port", strconv.Itoa(o.UIPort))
		s.UIURL = fmt.Sprintf("http://%s:%d", o.IP, o.UIPort)
	}
	if o.DBFile != "" {
		if err := os.MkdirAll(filepath.Dir(o.DBFile), 0o755); err != nil {
			return nil, fmt.Errorf("create dev server data dir: %w", err)
		}
		args = append(args, "--db-filename", o.DBFile)
	}
	// Not tied to ctx: the caller stops the server with Stop, after its workers are done.
	cmd := exec.Command(o.CLIPath, args...)
	cmd.Stdout, cmd.Stderr = o.Log, o.Log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start temporal dev server: %w", err)
	}
	s.cmd = cmd
	go func() { s.err = cmd.Wait(); close(s.done) }()
	if err := WaitListening(ctx, s.Address, s.done, 90*time.Second); err != nil {
		s.Stop()
		return nil, fmt.Errorf("temporal dev server: %w (exit: %v)", err, s.err)
	}
	return s, nil
}

// ErrExited reports that a server process exited before it accepted connections.
var ErrExited = errors.New("exited during start-up")

// WaitListening waits until addr accepts TCP connections, for at most timeout: ErrExited
// when exited is closed first (the server process ended), ctx's error when it ends.
func WaitListening(ctx context.Context, addr string, exited <-chan struct{}, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		c, err := net.DialTimeout("tcp", addr, 500*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-exited:
			return ErrExited
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not accept connections within %s", addr, timeout)
		}
	}
}

// Stop asks the server to shut down (SIGTERM), waiting up to 15 seconds before killing it.
func (s *Server) Stop() {
	if s == nil || s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
	}
}

// FreePort asks the kernel for an unused TCP port on loopback.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// FindCLI looks for bin/temporal in dir and its parents (tests run in package
// directories); PAYCORE_TEMPORAL_CLI overrides.
func FindCLI(dir string) (string, error) {
	if p := os.Getenv("PAYCORE_TEMPORAL_CLI"); p != "" {
		return p, nil
	}
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "bin", "temporal")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil || filepath.Dir(d) == d {
			return "", fmt.Errorf("no bin/temporal under %s: run `make tools`", d)
		}
	}
}
