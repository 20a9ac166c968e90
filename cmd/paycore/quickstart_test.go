package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"paycore/api/apitest"
	"paycore/db/dbtest"
	"paycore/internal/infra/nodescript"
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

	integratorQuickstarts(t, root, dir, env, shots)
}

// integratorQuickstarts runs the README's quickstarts that follow the wallet's, on the same
// `make run` and backend, as written:
//   - `paycore listen` forwarding to the backend;
//   - the Go program (examples/go-platform), whose events must reach the backend through
//     listen, signed so that the backend verifies them (it answers 200 only then);
//   - `paycore mcp login` with the device code the Go program printed, then the MCP server
//     as the README's configuration starts it, driven by the official TypeScript MCP client
//     as an assistant would: the balance, 10 USD paid at once, 30 USD paid once the platform
//     approves, 60 USD refused.
func integratorQuickstarts(t *testing.T, root, dir string, env []string, shots string) {
	t.Helper()
	readme := filepath.Join(root, "README.md")
	section := func(heading, lang string, n int) []string {
		t.Helper()
		blocks := readmeBlocks(t, readme, heading, lang)
		if len(blocks) != n {
			t.Fatalf("the README's %q has %d %s blocks, want %d", heading, len(blocks), lang, n)
		}
		return blocks
	}
	start := time.Now()
	listen := startShell(t, dir, env, section(listenHeading, "sh", 1)[0], filepath.Join(shots, "listen.log"))
	waitOutput(t, listen, "Forwarding the platform's webhook events", 2*time.Minute)

	tour := startShell(t, dir, env, section(goHeading, "sh", 1)[0], filepath.Join(shots, "go-platform.log"))
	select {
	case <-tour.done:
	case <-time.After(5 * time.Minute):
		t.Fatalf("the Go program did not finish within 5 minutes:\n%s", tour.out.String())
	}
	out := tour.out.String()
	if tour.cmd.ProcessState.ExitCode() != 0 || !strings.Contains(out, "Paid 5.00 USD out") ||
		!strings.Contains(out, "/webhooks: answered 200") {
		t.Fatalf("the Go program:\n%s", out)
	}
	code := lineAfter(t, out, "Its device code, until ")
	code = code[strings.LastIndex(code, " ")+1:]
	agentID := lineAfter(t, out, "Agent ")
	agentID, _, _ = strings.Cut(agentID, " ")
	// The TEST event and the payment's, forwarded by listen and verified by the backend.
	for _, typ := range []string{"TEST", "OUTGOING_PAYMENT_COMPLETED"} {
		eventually(t, time.Minute, "listen forwarding "+typ, func() bool {
			for _, line := range strings.Split(listen.out.String(), "\n") {
				if f := strings.Fields(line); len(f) >= 5 && f[1] == typ && f[3] == "→" && f[4] == "200" {
					return true
				}
			}
			return false
		}, listen.out.String)
	}
	t.Logf("quickstart: listen and the Go program done after %s", time.Since(start).Round(time.Second))

	// The MCP server: signed in by the README's command, then started as its configuration says.
	config := t.TempDir()
	mcpEnv := append(append([]string{}, env...), "XDG_CONFIG_HOME="+config, "DBUS_SESSION_BUS_ADDRESS=") // no keyring here: the 0600 file
	login := section(mcpHeading, "sh", 1)[0]
	if !strings.Contains(login, "AGENT-XXXX-XXXX-XXXX") {
		t.Fatalf("the README's login command has no AGENT-XXXX-XXXX-XXXX to replace:\n%s", login)
	}
	signIn := startShell(t, dir, mcpEnv, strings.Replace(login, "AGENT-XXXX-XXXX-XXXX", code, 1), filepath.Join(shots, "mcp-login.log"))
	waitOutput(t, signIn, "Signed in as Quickstart assistant", time.Minute)
	if info, err := os.Stat(filepath.Join(config, "paycore", "agent-token")); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the agent's token file: %v", err)
	}
	var hostConfig struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(section(mcpHeading, "json", 1)[0]), &hostConfig); err != nil {
		t.Fatalf("the README's MCP configuration: %v", err)
	}
	server, ok := hostConfig.MCPServers["paycore"]
	if !ok || !strings.HasSuffix(server.Command, "/bin/paycore") {
		t.Fatalf("the README's MCP configuration runs no bin/paycore: %+v", hostConfig)
	}
	js := nodescript.Start(t, filepath.Join("testdata", "mcpclient"), "client.mjs", "mcpclient-quickstart")
	js.Call(map[string]any{"op": "connect", "command": filepath.Join(dir, "bin", "paycore"), "args": server.Args,
		"env": map[string]string{"XDG_CONFIG_HOME": config, "PAYCORE_LOG_LEVEL": "error"}}, &struct{}{})
	call := func(name string, args map[string]any) tsToolResult {
		t.Helper()
		res := tsCallTool(js, name, args)
		if name != "agentCreateTransferOut" && res.IsError {
			t.Fatalf("%s: %s", name, res.Text)
		}
		return res
	}
	balance := func() (string, int64) {
		t.Helper()
		accts := call("agentListInternalAccounts", nil).StructuredContent["data"].([]any)
		if len(accts) != 1 {
			t.Fatalf("the agent sees %d accounts, want the customer's USD one", len(accts))
		}
		a := accts[0].(map[string]any)
		return a["id"].(string), int64(a["balance"].(map[string]any)["amount"].(float64))
	}
	account, before := balance()
	if before != 95_00 {
		t.Fatalf("the customer's balance %d, want 9500 (100.00 funded, 5.00 paid out)", before)
	}
	banks := call("agentListExternalAccounts", nil).StructuredContent["data"].([]any)
	if len(banks) != 1 {
		t.Fatalf("the agent sees %d external accounts, want the customer's bank account", len(banks))
	}
	bank := banks[0].(map[string]any)["id"].(string)
	pay := func(amount int64) tsToolResult {
		return call("agentCreateTransferOut", map[string]any{"body": map[string]any{
			"source": map[string]any{"accountId": account}, "destination": map[string]any{"accountId": bank}, "amount": amount}})
	}
	if res := pay(10_00); res.IsError || res.StructuredContent["status"] != "APPROVED" {
		t.Fatalf("10 USD: %+v", res)
	}
	pending := pay(30_00)
	if pending.IsError || pending.StructuredContent["status"] != "PENDING_APPROVAL" {
		t.Fatalf("30 USD: %+v", pending)
	}
	actionID := pending.StructuredContent["id"].(string)
	approveAsPlatform(t, dir, agentID, actionID)
	eventually(t, 30*time.Second, "the approved action", func() bool {
		res := call("agentGetAction", map[string]any{"actionId": actionID})
		return res.StructuredContent["status"] == "APPROVED" && res.StructuredContent["transaction"] != nil
	})
	if res := pay(60_00); !res.IsError || !strings.Contains(res.Text, "refused") {
		t.Fatalf("60 USD: %+v", res)
	}
	eventually(t, 30*time.Second, "the balance after 10 and 30 USD", func() bool { _, b := balance(); return b == 55_00 })
	js.Call(map[string]any{"op": "close"}, &struct{}{})
	t.Logf("quickstart: the assistant's payments done after %s", time.Since(start).Round(time.Second))
}

// The README's sections integratorQuickstarts runs.
const (
	listenHeading = "### Quickstart: webhooks on localhost"
	goHeading     = "### Quickstart: a platform in Go"
	mcpHeading    = "### Quickstart: an AI assistant as the customer's agent"
)

// lineAfter is the rest of the first line of out that starts with prefix.
func lineAfter(t *testing.T, out, prefix string) string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			return strings.TrimSpace(rest)
		}
	}
	t.Fatalf("no line starting %q in:\n%s", prefix, out)
	return ""
}

// approveAsPlatform approves the agent's action with the sandbox platform's token, which
// `make run` wrote to dir/.data/sandbox-platform.json.
func approveAsPlatform(t *testing.T, dir, agentID, actionID string) {
	t.Helper()
	creds, err := readDevCredentials(filepath.Join(dir, ".data"))
	if err != nil {
		t.Fatal(err)
	}
	c := &apitest.Client{T: t, BaseURL: "http://127.0.0.1:8080/api/2025-10-13", User: creds.ClientID, Password: creds.ClientSecret}
	if r := c.Do("POST", "/agents/"+agentID+"/actions/"+actionID+"/approve", nil); r.Status != http.StatusOK {
		t.Fatalf("approve %s: %d %s", actionID, r.Status, r.Body)
	}
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
	readme := filepath.Join(root, "README.md")
	for _, want := range []struct{ heading, lang, has string }{
		{listenHeading, "sh", "bin/paycore listen -platform-secret -forward-to http://localhost:3000/webhooks"},
		{goHeading, "sh", "cd examples/go-platform && go run ."},
		{mcpHeading, "sh", "bin/paycore mcp login AGENT-XXXX-XXXX-XXXX"},
		{mcpHeading, "json", `"args": ["mcp"]`},
	} {
		got := readmeBlocks(t, readme, want.heading, want.lang)
		if len(got) != 1 || !strings.Contains(got[0], want.has) {
			t.Errorf("the README's %q: %d %s blocks, want one with %q", want.heading, len(got), want.lang, want.has)
		}
	}
	// The breaking-change check the README tells API changers to run is the target .ci/run runs.
	if got := readmeBlocks(t, readme, "## Changing the API", "sh"); len(got) != 1 || strings.TrimSpace(got[0]) != "make api-compat" {
		t.Errorf("the README's \"## Changing the API\": %q, want one block `make api-compat`", got)
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ci), "\nmake api-compat\n") {
		t.Error(".ci/run does not run make api-compat")
	}
}

// quickstartBlocks returns the shell blocks of the README's "### Quickstart" section, in
// order.
func quickstartBlocks(t *testing.T, readme string) []string {
	t.Helper()
	return readmeBlocks(t, readme, "### Quickstart", "sh")
}

// readmeBlocks returns the blocks fenced as lang (sh, json) of the README's section under
// heading, in order.
func readmeBlocks(t *testing.T, readme, heading, lang string) []string {
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
		case line == heading:
			in = true
		case in && (strings.HasPrefix(line, "## ") || strings.HasPrefix(line, "### ")):
			return blocks
		case in && block == nil && line == "```"+lang:
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
			if strings.Contains(s.out.String(), text) { // printed just before it ended
				return
			}
			t.Fatalf("the quickstart's command ended before printing %q:\n%s", text, s.out.String())
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q within %s:\n%s", text, timeout, s.out.String())
		}
	}
}
