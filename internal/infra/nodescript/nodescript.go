// Package nodescript runs a Node script from tests, so that the service's wire formats are
// checked against the JavaScript libraries others use: the script reads one JSON request per
// line on its stdin and answers one JSON line on its stdout ({"error": "..."} for a
// refusal), its packages installed from its committed package-lock.json (npmci).
package nodescript

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"sync"
	"testing"

	"paycore/internal/infra/npmci"
)

// installs holds, per package directory, the one `npm ci` of this test binary.
var installs sync.Map

// install runs npm ci in dir once per test binary, under the machine-wide lock called lock
// (test binaries run in parallel: one installs while the others wait).
func install(dir, lock string) error {
	once, _ := installs.LoadOrStore(dir, sync.OnceValue(func() error {
		unlock, err := npmci.Lock(lock)
		if err != nil {
			return err
		}
		defer unlock()
		return npmci.Install(dir)
	}))
	return once.(func() error)()
}

// Script talks to one running script.
type Script struct {
	in  *json.Encoder
	out *bufio.Scanner
	mu  sync.Mutex
	t   testing.TB
}

// Start installs the packages of dir when needed (npm ci, under the lock called lock) and
// starts `node script` there; it stops with the test.
func Start(t testing.TB, dir, script, lock string) *Script {
	t.Helper()
	if err := install(dir, lock); err != nil {
		t.Fatalf("installing the Node packages of %s: %v", dir, err)
	}
	cmd := exec.Command("node", script)
	cmd.Dir = dir
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start node: %v", err)
	}
	t.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return &Script{in: json.NewEncoder(stdin), out: sc, t: t}
}

// Try sends req and decodes the answer into resp; a refusal ({"error": ...}) is the error.
func (s *Script) Try(req, resp any) error {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.in.Encode(req); err != nil {
		s.t.Fatal(err)
	}
	if !s.out.Scan() {
		s.t.Fatalf("node answered nothing: %v", s.out.Err())
	}
	var refusal struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(s.out.Bytes(), &refusal); err != nil {
		s.t.Fatalf("node answered %q", s.out.Text())
	}
	if refusal.Error != "" {
		return errors.New(refusal.Error)
	}
	if err := json.Unmarshal(s.out.Bytes(), resp); err != nil {
		s.t.Fatalf("node answered %q: %v", s.out.Text(), err)
	}
	return nil
}

// Call is Try, failing the test on a refusal.
func (s *Script) Call(req, resp any) {
	s.t.Helper()
	if err := s.Try(req, resp); err != nil {
		s.t.Fatalf("node: %v", err)
	}
}
