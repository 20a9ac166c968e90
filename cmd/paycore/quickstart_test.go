package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"paycore/api/apitest"
	"paycore/db/dbtest"
)

// The README's quickstart, run as written (make test-quickstart): its shell blocks, taken
// from the README itself, in a copy of the working tree (so its .data/ and bin/paycore are
// the copy's), then the browser steps it describes in headless Chromium with a virtual
// authenticator: create a wallet, register a passkey, sign in, pay 10 USDC as euros; the
// payment COMPLETED on the page and its webhook verified by the backend. The commands use
// the defaults (ports 8080, 7233, 8233, 9090 and 3000 must be free); only the database is
// one of the test's own (PAYCORE_DATABASE_URL), dropped afterwards. It logs how long each
// part took.
func TestQuickstart(t *testing.T) {
	if os.Getenv("PAYCORE_TEST_QUICKSTART") == "" {
		t.Skip("the quickstart test runs in `make test-quickstart` (PAYCORE_TEST_QUICKSTART=1): it needs the default ports free")
	}
	exe := apitest.Chromium(t)
	root := kitTools(t)
	blocks := quickstartBlocks(t, filepath.Join(root, "README.md"))
	if len(blocks) != 2 {
		t.Fatalf("the README's quickstart has %d shell blocks; this test runs two (make run, then the backend)", len(blocks))
	}
	for _, port := range []int{8080, 7233, 8233, 9090, 3000} {
		if l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err != nil {
			t.Fatalf("port %d is in use: the quickstart's commands use the defaults (stop `make run` first)", port)
		} else {
			l.Close()
		}
	}
	dir := copyWorkingTree(t, root)
	name := fmt.Sprintf("paycore_quickstart_%d", os.Getpid())
	env := []string{"PAYCORE_DATABASE_URL=" + strings.Replace(dbtest.AdminURL(), "/postgres?", "/"+name+"?", 1)}
	t.Cleanup(func() { dropDatabases(name) })
	shots := kitArtefacts(t, "quickstart")

	start := time.Now()
	run := startShell(t, dir, env, blocks[0], filepath.Join(shots, "make-run.log"))
	waitOutput(t, run, "paycore is running", 15*time.Minute)
	ready := time.Since(start)
	backend := startShell(t, dir, env, blocks[1], filepath.Join(shots, "backend.log"))
	b := &kitBackend{origin: "http://localhost:3000", url: "http://127.0.0.1:3000"}
	eventually(t, 10*time.Minute, "the backend on :3000", func() bool { return healthcheck(context.Background(), b.url+"/api/config") == nil },
		func() string { return backend.out.String() })
	served := time.Since(start)

	// The browser part, as the README tells it.
	ctx := kitBrowser(t, exe, b.origin)
	p := &kitPage{t: t, ctx: ctx, dir: shots}
	p.shot("01-start")
	p.waitStatus("info", "Create a wallet")
	p.signUp()
	p.registerPasskey()
	p.signIn()
	p.pay("10.00")
	var txID string
	eventually(t, time.Minute, "the payment COMPLETED on the page", func() bool {
		p.click("refresh-button")
		p.waitStatus("ok", "Up to date")
		txID = p.attr(`#transactions tr:first-child[data-status="COMPLETED"]`, "data-transaction-id") // the newest row: the payment, not the funding
		return txID != ""
	})
	b.waitVerified(t, "OUTGOING_PAYMENT_COMPLETED", txID)
	p.shot("07-completed")
	t.Logf("quickstart: `make run` ready after %s, the backend serving the page after %s, the payment completed and its webhook verified after %s",
		ready.Round(time.Second), served.Round(time.Second), time.Since(start).Round(time.Second))
}

// The README's quickstart keeps the shape TestQuickstart runs (which needs Chromium and the
// default ports): two shell blocks, `make run` first, then the backend started from the
// repository's root.
func TestQuickstartBlocks(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	blocks := quickstartBlocks(t, filepath.Join(root, "README.md"))
	if len(blocks) != 2 {
		t.Fatalf("the README's quickstart has %d shell blocks; TestQuickstart runs two (make run, then the backend)", len(blocks))
	}
	if strings.TrimSpace(blocks[0]) != "make run" {
		t.Errorf("the quickstart's first block is %q, not `make run`", blocks[0])
	}
	if !strings.Contains(blocks[1], "node examples/platform-backend/server.mjs") {
		t.Errorf("the quickstart's second block does not start the platform backend:\n%s", blocks[1])
	}
}

// quickstartBlocks returns the shell blocks of the README's "### Quickstart" section, in
// order.
func quickstartBlocks(t *testing.T, readme string) []string {
	t.Helper()
	f, err := os.Open(readme)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []string
	var block *strings.Builder
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "### Quickstart":
			in = true
		case in && (strings.HasPrefix(line, "## ") || strings.HasPrefix(line, "### ")):
			return blocks
		case in && block == nil && line == "```sh":
			block = &strings.Builder{}
		case in && block != nil && line == "```":
			blocks = append(blocks, block.String())
			block = nil
		case block != nil:
			block.WriteString(line + "\n")
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return blocks
}

// copyWorkingTree copies the repository's files (tracked, and untracked ones not ignored)
// into a temporary directory, with its bin/temporal linked, so that the quickstart builds
// and keeps its data there.
func copyWorkingTree(t *testing.T, root string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	dir := t.TempDir()
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join(root, rel)
		info, err := os.Lstat(src)
		if err != nil || !info.Mode().IsRegular() {
			continue // deleted in the working tree, or not a file
		}
		dst := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "bin", "temporal")); err == nil {
		if err := os.Symlink(filepath.Join(root, "bin", "temporal"), filepath.Join(dir, "bin", "temporal")); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// shell is a shell block running in its own process group.
type shell struct {
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
}

// startShell runs script with bash in dir (env added to the test's), its output kept and
// written to logPath; the test's end interrupts it as Ctrl-C would, and kills what is left.
func startShell(t *testing.T, dir string, env []string, script, logPath string) *shell {
	t.Helper()
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	s := &shell{cmd: exec.Command("bash", "-e", "-c", script), out: &syncBuffer{}, done: make(chan struct{})}
	s.cmd.Dir = dir
	s.cmd.Env = append(os.Environ(), env...)
	w := io.MultiWriter(s.out, logf)
	s.cmd.Stdout, s.cmd.Stderr = w, w
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.cmd.Wait(); close(s.done); logf.Close() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGINT)
		select {
		case <-s.done:
		case <-time.After(30 * time.Second):
			_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
			<-s.done
		}
	})
	return s
}

// waitOutput waits until the shell's output holds text, failing when it exits first.
func waitOutput(t *testing.T, s *shell, text string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !bytes.Contains([]byte(s.out.String()), []byte(text)) {
		select {
		case <-s.done:
			t.Fatalf("the quickstart's command ended before printing %q:\n%s", text, s.out.String())
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q within %s:\n%s", text, timeout, s.out.String())
		}
	}
}
