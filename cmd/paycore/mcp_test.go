package main

import (
	"context"
	"encoding/json"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"paycore/api"
	"paycore/internal/infra/agentmcp"
	"paycore/internal/infra/nodescript"
)

// mcpAgent is an MCP client session with `paycore mcp`'s server for an agent of w's customer,
// not signed in yet: the device code is code.
type mcpAgent struct {
	t       *testing.T
	session *mcp.ClientSession
	agentID string
	code    string
	token   string // the token file
}

func newMCPAgent(t *testing.T, w *world, policy map[string]any) *mcpAgent {
	t.Helper()
	agentID, code := createAgent(t, w.c, w.customer, policy)
	ops, err := agentmcp.Operations(api.OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	tokenFile := filepath.Join(t.TempDir(), "paycore", "agent-token")
	server, err := agentmcp.NewServer(ops, agentmcp.Config{BaseURL: w.s.baseURL, Tokens: agentmcp.FileStore{Path: tokenFile}, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	return &mcpAgent{t: t, session: session, agentID: agentID, code: code, token: tokenFile}
}

// call calls a tool and returns its result, its structured content and its text.
func (a *mcpAgent) call(name string, args map[string]any) (*mcp.CallToolResult, map[string]any, string) {
	a.t.Helper()
	res, err := a.session.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		a.t.Fatalf("%s: %v", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	var structured map[string]any
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(b, &structured)
	}
	return res, structured, text.String()
}

// TestMCPAgentPaysWithinItsPolicy drives the MCP server as an assistant would: it is told to
// sign in, signs in with the device code, finds a tool per /agents/me operation, pays within
// the policy, is refused above its limit by the service, and waits for an approval that the
// platform grants.
func TestMCPAgentPaysWithinItsPolicy(t *testing.T) {
	t.Parallel()
	s := newStack(t, fast)
	w := newWorld(t, s)
	w.fund(10_000)
	ext := w.external("000")
	a := newMCPAgent(t, w, usdPolicy(5_000, map[string]any{"approvalThresholds": map[string]any{"currency": "USD", "amount": 1_000}}))

	if res, _, text := a.call("getAgentMe", nil); !res.IsError || !strings.Contains(text, "login") {
		t.Fatalf("before login: %v %s, want a tool error telling to log in", res.IsError, text)
	}
	res, me, text := a.call("login", map[string]any{"code": a.code})
	if res.IsError || me["agentId"] != a.agentID {
		t.Fatalf("login: %s", text)
	}
	raw, err := os.ReadFile(a.token)
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(string(raw))
	if info, _ := os.Stat(a.token); !strings.HasPrefix(token, "pcagent_") || info.Mode().Perm() != 0o600 {
		t.Fatalf("token file %s: mode %v", a.token, info.Mode())
	}
	if strings.Contains(text, token) {
		t.Fatal("login showed the token")
	}

	tools, err := a.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tool := range tools.Tools {
		names[tool.Name] = true
	}
	for _, want := range []string{"login", "getAgentMe", "agentListInternalAccounts", "agentListTransactions", "agentCreateQuote",
		"agentExecuteQuote", "agentCreateTransferOut", "agentCreateTransferIn", "agentListExternalAccounts", "agentListActions", "agentGetAction"} {
		if !names[want] {
			t.Errorf("no tool %s among %d", want, len(tools.Tools))
		}
	}

	pay := func(amount int64) (*mcp.CallToolResult, map[string]any, string) {
		return a.call("agentCreateTransferOut", map[string]any{"body": map[string]any{
			"source": map[string]any{"accountId": w.account}, "destination": map[string]any{"accountId": ext}, "amount": amount}})
	}
	// Within the limit and below the threshold: executed at once.
	res, action, text := pay(500)
	if res.IsError || action["status"] != "APPROVED" || action["transaction"] == nil {
		t.Fatalf("a payment within the policy: %s", text)
	}
	// Above the per-transaction limit: the service refuses it, and the tool says so.
	res, refusal, text := pay(6_000)
	if !res.IsError || refusal["code"] == nil || !strings.Contains(text, "refused") {
		t.Fatalf("a payment above the limit: %s", text)
	}
	// Bad arguments never reach the service.
	if res, _, text := a.call("agentCreateTransferOut", map[string]any{"amount": 1}); !res.IsError || !strings.Contains(text, "invalid arguments") {
		t.Fatalf("bad arguments: %s", text)
	}
	// Above the approval threshold: pending until the platform approves; the agent polls.
	res, pending, text := pay(1_500)
	if res.IsError || pending["status"] != "PENDING_APPROVAL" || !strings.Contains(text, "agentGetAction") {
		t.Fatalf("a payment above the approval threshold: %s", text)
	}
	id := pending["id"].(string)
	if _, got, _ := a.call("agentGetAction", map[string]any{"actionId": id}); got["status"] != "PENDING_APPROVAL" {
		t.Fatalf("polled before the approval: %v", got)
	}
	if r := w.c.Do("POST", "/agents/"+a.agentID+"/actions/"+id+"/approve", nil); r.Status != 200 {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	eventually(t, 10*time.Second, "the approved action", func() bool {
		_, got, _ := a.call("agentGetAction", map[string]any{"actionId": id})
		return got["status"] == "APPROVED" && got["transaction"] != nil
	})
}

// tsToolResult is a tool's result as the TypeScript MCP client (testdata/mcpclient) reports it.
type tsToolResult struct {
	IsError           bool           `json:"isError"`
	StructuredContent map[string]any `json:"structuredContent"`
	Text              string         `json:"text"`
}

// tsCallTool calls the tool name with args through the TypeScript MCP client js.
func tsCallTool(js *nodescript.Script, name string, args map[string]any) tsToolResult {
	var res tsToolResult
	js.Call(map[string]any{"op": "call", "name": name, "arguments": args}, &res)
	return res
}

// TestMCPWithTheTypeScriptClient runs `paycore mcp` over stdio under the official TypeScript
// MCP client (@modelcontextprotocol/sdk, pinned in testdata/mcpclient), as an assistant's host
// would: connect, list the tools, sign in with the device code, pay within the limit, be
// refused above it, and wait for an approval the platform grants.
func TestMCPWithTheTypeScriptClient(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs Node 20+ and npm")
	}
	s := newStack(t, fast)
	w := newWorld(t, s)
	w.fund(10_000)
	ext := w.external("000")
	agentID, code := createAgent(t, w.c, w.customer, usdPolicy(5_000, map[string]any{"approvalThresholds": map[string]any{"currency": "USD", "amount": 1_000}}))
	bin, err := buildOnce()
	if err != nil {
		t.Fatal(err)
	}

	js := nodescript.Start(t, filepath.Join("testdata", "mcpclient"), "client.mjs", "mcpclient")
	call := func(name string, args map[string]any) tsToolResult { return tsCallTool(js, name, args) }
	tokenFile := filepath.Join(t.TempDir(), "agent-token")
	js.Call(map[string]any{"op": "connect", "command": bin, "args": []string{"mcp", "-api", s.baseURL, "-token-file", tokenFile},
		"env": map[string]string{"PAYCORE_LOG_LEVEL": "error"}}, &struct{}{})
	var listed struct {
		Tools []struct {
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"inputSchema"`
		} `json:"tools"`
	}
	js.Call(map[string]any{"op": "listTools"}, &listed)
	if len(listed.Tools) != 16 {
		t.Fatalf("%d tools, want the 15 /agents/me operations and login", len(listed.Tools))
	}

	if res := call("login", map[string]any{"code": code}); res.IsError || res.StructuredContent["agentId"] != agentID {
		t.Fatalf("login: %+v", res)
	}
	pay := func(amount int64) tsToolResult {
		return call("agentCreateTransferOut", map[string]any{"body": map[string]any{
			"source": map[string]any{"accountId": w.account}, "destination": map[string]any{"accountId": ext}, "amount": amount}})
	}
	if res := pay(500); res.IsError || res.StructuredContent["status"] != "APPROVED" {
		t.Fatalf("within the limit: %+v", res)
	}
	if res := pay(6_000); !res.IsError || !strings.Contains(res.Text, "refused") {
		t.Fatalf("above the limit: %+v", res)
	}
	pending := pay(1_500)
	if pending.IsError || pending.StructuredContent["status"] != "PENDING_APPROVAL" {
		t.Fatalf("above the approval threshold: %+v", pending)
	}
	id := pending.StructuredContent["id"].(string)
	if r := w.c.Do("POST", "/agents/"+agentID+"/actions/"+id+"/approve", nil); r.Status != 200 {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	eventually(t, 10*time.Second, "the approved action", func() bool {
		res := call("agentGetAction", map[string]any{"actionId": id})
		return res.StructuredContent["status"] == "APPROVED" && res.StructuredContent["transaction"] != nil
	})
	if b := w.balance(); b != 8_000 {
		t.Fatalf("balance %d, want 8000 (10000 - 500 - 1500)", b)
	}

	// Over streamable HTTP each client sends its own token; the server keeps none here.
	raw, err := os.ReadFile(tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	url, _ := serveMCPOverHTTP(t, s, "127.0.0.1:0", filepath.Join(t.TempDir(), "none"))
	js.Call(map[string]any{"op": "connect", "url": url}, &struct{}{})
	if res := call("getAgentMe", nil); !res.IsError || !strings.Contains(res.Text, "login") {
		t.Fatalf("over HTTP without a token: %+v", res)
	}
	js.Call(map[string]any{"op": "connect", "url": url, "token": strings.TrimSpace(string(raw))}, &struct{}{})
	if res := call("getAgentMe", nil); res.IsError || res.StructuredContent["id"] != agentID {
		t.Fatalf("over HTTP with the agent's token: %+v", res)
	}
	if res := call("agentListActions", nil); res.IsError || len(res.StructuredContent["data"].([]any)) != 2 {
		t.Fatalf("the agent's actions over HTTP: %+v", res)
	}

	// With the agent signed in on this machine: a loopback server serves a client without a
	// token as that agent (as stdio does); one reachable from other machines never does.
	local, _ := serveMCPOverHTTP(t, s, "127.0.0.1:0", tokenFile)
	js.Call(map[string]any{"op": "connect", "url": local}, &struct{}{})
	if res := call("getAgentMe", nil); res.IsError || res.StructuredContent["id"] != agentID {
		t.Fatalf("on loopback with the kept token: %+v", res)
	}
	shared, printed := serveMCPOverHTTP(t, s, "0.0.0.0:0", tokenFile)
	if !strings.Contains(printed, "each client must send its own Authorization") {
		t.Fatalf("a server on 0.0.0.0 did not say it ignores the kept token:\n%s", printed)
	}
	u, err := neturl.Parse(shared)
	if err != nil {
		t.Fatalf("%q: %v", shared, err)
	}
	js.Call(map[string]any{"op": "connect", "url": "http://127.0.0.1:" + u.Port() + "/mcp"}, &struct{}{})
	if res := call("getAgentMe", nil); !res.IsError || !strings.Contains(res.Text, "login") {
		t.Fatalf("a shared server served a client without a token: %+v", res)
	}
	if res := call("login", map[string]any{"code": "AGENT-0000-0000-0000"}); !res.IsError || !strings.Contains(res.Text, "keeps no token") {
		t.Fatalf("login on a shared server: %+v", res)
	}
	js.Call(map[string]any{"op": "close"}, &struct{}{})
}

// serveMCPOverHTTP runs `paycore mcp -http addr` for the stack's API with the agent's token
// kept in tokenFile, until the test ends: the MCP endpoint's URL, and what the command
// printed once serving.
func serveMCPOverHTTP(t *testing.T, s *stack, addr, tokenFile string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- mcpCmd(ctx, s.cfg, []string{"-http", addr, "-api", s.baseURL, "-token-file", tokenFile}, func(string) string { return "" }, out)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("mcp -http %s: %v", addr, err)
		}
	})
	var url string
	eventually(t, 10*time.Second, "the HTTP server's address", func() bool {
		_, after, ok := strings.Cut(out.String(), "MCP server at ")
		url, _, _ = strings.Cut(after, " ")
		return ok && strings.HasSuffix(url, "/mcp")
	})
	return url, out.String()
}
