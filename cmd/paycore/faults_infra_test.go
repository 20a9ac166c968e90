package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"paycore/internal/infra/tcluster"
)

// unit is one supervised part of the fault test's deployment (a PostgreSQL server, the
// Temporal server, an API or a worker process). Its supervisor restarts it whenever it
// ends, after the downtime the fault chose, or at once (counted as an unplanned exit) when
// it ended by itself, as a process manager would.
type unit struct {
	name string
	// run starts one life of the unit and returns when it is ready: done closes when that
	// life ends, and kill ends it with SIGKILL.
	run func() (done <-chan struct{}, kill func(), err error)
	// logf records the unit's starts, exits and failed starts in the deployment's log.
	logf func(format string, args ...any)

	mu        sync.Mutex
	kill      func()
	up        bool
	down      time.Duration // the downtime the next restart waits (a fault's)
	planned   bool
	stopping  bool
	starts    int
	unplanned int
	failures  int // starts that failed (e.g. the database was down)
	stopped   chan struct{}
}

func newUnit(name string, logw io.Writer, run func() (<-chan struct{}, func(), error)) *unit {
	logf := func(format string, args ...any) {
		fmt.Fprintf(logw, "%s [fault test] %s: %s\n", time.Now().UTC().Format(time.RFC3339Nano), name, fmt.Sprintf(format, args...))
	}
	return &unit{name: name, run: run, logf: logf, stopped: make(chan struct{})}
}

// state describes the unit for a failure message.
func (u *unit) state() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return fmt.Sprintf("%s up=%v starts=%d unplanned=%d failed-starts=%d", u.name, u.up, u.starts, u.unplanned, u.failures)
}

// supervise keeps the unit running until stop. The first start must succeed.
func (u *unit) supervise(t *testing.T) {
	t.Helper()
	done, kill, err := u.run()
	if err != nil {
		t.Fatalf("start %s: %v", u.name, err)
	}
	u.mu.Lock()
	u.kill, u.up, u.starts = kill, true, 1
	u.mu.Unlock()
	go func() {
		defer close(u.stopped)
		for {
			<-done
			u.mu.Lock()
			u.up, u.kill = false, nil
			if u.stopping {
				u.mu.Unlock()
				return
			}
			wait := 300 * time.Millisecond
			if u.planned {
				wait = u.down
			} else {
				u.unplanned++
			}
			u.planned = false
			u.mu.Unlock()
			u.logf("exited; starting again in %s", wait)
			time.Sleep(wait)
			for {
				if u.isStopping() {
					return
				}
				if done, kill, err = u.run(); err == nil {
					break
				}
				u.mu.Lock()
				u.failures++
				u.mu.Unlock()
				u.logf("start failed: %v", err)
				time.Sleep(500 * time.Millisecond)
			}
			u.mu.Lock()
			u.kill, u.up = kill, true
			u.starts++
			u.logf("started (life %d)", u.starts)
			stopping := u.stopping
			u.mu.Unlock()
			if stopping {
				kill()
			}
		}
	}()
	t.Cleanup(u.stop)
}

func (u *unit) isStopping() bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.stopping
}

// crash kills the unit with SIGKILL; its supervisor starts it again after down. It
// reports false when the unit was not running.
func (u *unit) crash(down time.Duration) bool {
	u.mu.Lock()
	kill := u.kill
	if !u.up || kill == nil || u.stopping {
		u.mu.Unlock()
		return false
	}
	u.planned, u.down = true, down
	u.mu.Unlock()
	u.logf("SIGKILL (down %s)", down)
	kill()
	return true
}

func (u *unit) isUp() bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.up
}

// stop ends the unit for good.
func (u *unit) stop() {
	u.mu.Lock()
	if u.stopping {
		u.mu.Unlock()
		<-u.stopped
		return
	}
	u.stopping = true
	kill := u.kill
	u.mu.Unlock()
	if kill != nil {
		kill()
	}
	<-u.stopped
}

// startGroup starts a command in a process group of its own, output to logw, and returns
// when it has started; kill ends the whole group with SIGKILL, as a crash would.
func startGroup(cmd *exec.Cmd, logw io.Writer) (<-chan struct{}, func(), error) {
	cmd.Stdout, cmd.Stderr = logw, logw
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	kill := func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
	return done, kill, nil
}

// ownPostgres is a PostgreSQL server of the fault test's own, in a temporary directory on
// a loopback port, so that killing it harms no other test.
type ownPostgres struct {
	bin, dir string
	port     int
	cred     *syscall.Credential
	logw     io.Writer
}

// newOwnPostgres initialises a cluster (as the postgres user when the test runs as root:
// PostgreSQL refuses to run as root) with trust authentication on loopback.
func newOwnPostgres(t *testing.T, logw io.Writer) *ownPostgres {
	t.Helper()
	bin := os.Getenv("PAYCORE_PG_BIN")
	if bin == "" {
		matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
		if len(matches) == 0 {
			t.Fatal("no PostgreSQL server binaries (initdb) under /usr/lib/postgresql/*/bin: set PAYCORE_PG_BIN")
		}
		bin = filepath.Dir(matches[len(matches)-1])
	}
	dir, err := os.MkdirTemp("", "paycore-faults-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	p := &ownPostgres{bin: bin, dir: dir, logw: logw}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root, PostgreSQL needs the postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		p.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "initdb"), "-D", filepath.Join(dir, "data"), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: p.cred}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v: %s", err, out)
	}
	if p.port, err = freePort(); err != nil {
		t.Fatal(err)
	}
	return p
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// url is the address of database name on this server.
func (p *ownPostgres) url(name string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", p.port, name)
}

// run starts the server (recovering from the last crash) and returns once it accepts
// connections.
func (p *ownPostgres) run() (<-chan struct{}, func(), error) {
	cmd := exec.Command(filepath.Join(p.bin, "postgres"), "-D", filepath.Join(p.dir, "data"), "-p", strconv.Itoa(p.port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="+p.dir, "-c", "max_connections=300",
		// A process crash loses nothing the kernel holds; fsync would only guard against
		// the machine losing power, which this test does not simulate.
		"-c", "fsync=off", "-c", "shared_buffers=64MB")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: p.cred}
	done, kill, err := startGroup(cmd, p.logw)
	if err != nil {
		return nil, nil, fmt.Errorf("start postgres: %w", err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		conn, err := pgx.Connect(ctx, p.url("postgres"))
		if err == nil {
			_ = conn.Close(ctx)
			cancel()
			return done, kill, nil
		}
		cancel()
		select {
		case <-done:
			return nil, nil, errors.New("postgres exited during its start-up (see its log)")
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			kill()
			return nil, nil, fmt.Errorf("postgres not accepting connections: %w", err)
		}
	}
}

// temporalUnit runs the Temporal server on p: the first start creates its databases and
// registers the namespace and search attributes; a restart finds them there.
func temporalUnit(t *testing.T, p *ownPostgres, logw io.Writer) (*unit, string) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := findBin(wd)
	if err != nil {
		t.Fatal(err)
	}
	port, err := tcluster.FreePortRange(21)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	first := true
	var addr string
	u := newUnit("temporal", logw, func() (<-chan struct{}, func(), error) {
		if first {
			tc, err := StartTemporalCluster(context.Background(), p.url("paycore"), filepath.Join(bin, "temporal-server"),
				filepath.Join(bin, "temporal-sql-tool"), port, 0, dir, logw)
			if err != nil {
				return nil, nil, err
			}
			first, addr = false, tc.Address
			return tc.Done(), tc.Kill, nil
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		tc, err := tcluster.Start(ctx, tcluster.Options{ServerPath: filepath.Join(bin, "temporal-server"), SQLToolPath: filepath.Join(bin, "temporal-sql-tool"),
			PGHost: "127.0.0.1", PGPort: p.port, PGUser: "postgres",
			DB: "paycore_temporal", VisibilityDB: "paycore_temporal_visibility", Port: port, Dir: dir, Log: logw})
		if err != nil {
			return nil, nil, err
		}
		return tc.Done(), tc.Kill, nil
	})
	u.supervise(t)
	return u, addr
}

// paycoreUnit runs the service's binary with one subcommand (serve or worker) and env;
// ready says when a new life is ready (the API answers /readyz: nil when it does).
func paycoreUnit(t *testing.T, name string, env []string, logw io.Writer, ready func() error, args ...string) *unit {
	t.Helper()
	bin, err := buildOnce()
	if err != nil {
		t.Fatal(err)
	}
	env = slices.Clone(env) // the caller's later appends must not reach a restart's environment
	u := newUnit(name, logw, func() (<-chan struct{}, func(), error) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), env...)
		done, kill, err := startGroup(cmd, logw)
		if err != nil {
			return nil, nil, err
		}
		deadline := time.Now().Add(time.Minute)
		for ready != nil {
			err := ready()
			if err == nil {
				break
			}
			select {
			case <-done:
				return nil, nil, fmt.Errorf("%s exited during its start-up", name)
			case <-time.After(100 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				kill()
				return nil, nil, fmt.Errorf("%s not ready: %w", name, err)
			}
		}
		return done, kill, nil
	})
	u.supervise(t)
	return u
}
