package agentmcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Config is what the server needs.
type Config struct {
	// BaseURL is the API's base URL, up to and including the version segment.
	BaseURL string
	// Tokens keeps the agent's access token between runs.
	Tokens TokenStore
	// HTTP calls the API (http.DefaultClient when nil).
	HTTP *http.Client
	// Version is the server's version, as MCP clients are told.
	Version string
}

// TokenStore keeps the agent's access token.
type TokenStore interface {
	// Load is the token, or "" when none is kept.
	Load() (string, error)
	Save(token string) error
	// Where says where the token is kept, for people: never the token itself.
	Where() string
}

// FileStore keeps the token in a file only its owner may read or write (0600), in a folder
// only its owner may enter (0700).
type FileStore struct{ Path string }

// DefaultTokenPath is where the token is kept unless told otherwise: paycore/agent-token in
// the user's configuration folder.
func DefaultTokenPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no folder for the agent's token: %w", err)
	}
	return filepath.Join(dir, "paycore", "agent-token"), nil
}

// Load reads the token.
func (f FileStore) Load() (string, error) {
	b, err := os.ReadFile(f.Path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the agent's token: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// Where is the file's path.
func (f FileStore) Where() string { return f.Path }

// Save writes the token, replacing any before it.
func (f FileStore) Save(token string) error {
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o700); err != nil {
		return fmt.Errorf("keep the agent's token: %w", err)
	}
	tmp := f.Path + ".new"
	if err := os.WriteFile(tmp, []byte(token+"\n"), 0o600); err != nil {
		return fmt.Errorf("keep the agent's token: %w", err)
	}
	if err := os.Chmod(tmp, 0o600); err != nil { // WriteFile keeps an existing file's mode
		return fmt.Errorf("keep the agent's token: %w", err)
	}
	if err := os.Rename(tmp, f.Path); err != nil {
		return fmt.Errorf("keep the agent's token: %w", err)
	}
	return nil
}

// NewServer is the MCP server: a tool per operation, and login.
func NewServer(ops []Operation, cfg Config) (*mcp.Server, error) {
	if cfg.HTTP == nil {
		cfg.HTTP = http.DefaultClient
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "paycore", Title: "paycore agent", Version: cfg.Version}, &mcp.ServerOptions{
		Instructions: "Tools to act for one customer as the agent a platform connected: read accounts and transactions, " +
			"make quotes and transfers within the agent's policy. If a tool says the agent is not signed in, ask the user " +
			"for the device code the platform gave them (AGENT-XXXX-XXXX-XXXX) and call login with it. A payment beyond " +
			"the policy is refused by the service; one above the approval threshold waits for the platform's approval: " +
			"poll agentGetAction with its id until its status is APPROVED, REJECTED or EXPIRED.",
	})
	for _, op := range ops {
		schema, err := compile(op.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", op.Name, err)
		}
		destructive := op.Method == "DELETE"
		s.AddTool(&mcp.Tool{Name: op.Name, Description: op.Description, InputSchema: op.InputSchema,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: op.ReadOnly(), DestructiveHint: &destructive, IdempotentHint: op.ReadOnly()}},
			cfg.handler(op, schema))
	}
	s.AddTool(&mcp.Tool{Name: "login", Description: "Signs the agent in with the device code the platform gave the user " +
		"(AGENT-XXXX-XXXX-XXXX; it works once). The access token is kept on this machine and never shown.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"code":{"type":"string","minLength":1,"maxLength":64,"description":"The device code."}},"required":["code"],"additionalProperties":false}`)},
		cfg.login)
	return s, nil
}

func compile(schema json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("tool.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("tool.json")
}

// handler calls the operation with the tool's arguments and the agent's token.
func (cfg Config) handler(op Operation, schema *jsonschema.Schema) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := map[string]any{}
		if len(req.Params.Arguments) > 0 {
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return toolError("the arguments are not a JSON object: %v", err), nil
			}
		}
		if err := schema.Validate(map[string]any(args)); err != nil {
			return toolError("invalid arguments: %v", err), nil
		}
		token, err := cfg.token(req)
		if err != nil {
			return nil, err
		}
		if token == "" {
			return toolError("the agent is not signed in: ask the user for the device code the platform gave them and call login with it"), nil
		}
		httpReq, err := cfg.request(ctx, op, args)
		if err != nil {
			return toolError("%v", err), nil
		}
		httpReq.Header.Set("Authorization", "Bearer "+token)
		status, body, err := cfg.do(httpReq)
		if err != nil {
			return toolError("the service did not answer: %v", err), nil
		}
		return answer(op, status, body), nil
	}
}

// token is the caller's bearer token (streamable HTTP) or the one kept on this machine.
func (cfg Config) token(req *mcp.CallToolRequest) (string, error) {
	if req.Extra != nil && req.Extra.Header != nil {
		if t, ok := strings.CutPrefix(req.Extra.Header.Get("Authorization"), "Bearer "); ok && t != "" {
			return t, nil
		}
	}
	if cfg.Tokens == nil {
		return "", nil
	}
	return cfg.Tokens.Load()
}

// request is the operation's HTTP request for args.
func (cfg Config) request(ctx context.Context, op Operation, args map[string]any) (*http.Request, error) {
	path := op.Path
	for _, p := range op.PathParams {
		path = strings.Replace(path, "{"+p+"}", url.PathEscape(fmt.Sprint(args[p])), 1)
	}
	q := url.Values{}
	for _, p := range op.QueryParams {
		if v, ok := args[p]; ok {
			q.Set(p, fmt.Sprint(v))
		}
	}
	u := strings.TrimSuffix(cfg.BaseURL, "/") + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	var body io.Reader = http.NoBody
	if op.Body {
		b, err := json.Marshal(args["body"])
		if err != nil {
			return nil, fmt.Errorf("encode the body: %w", err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, op.Method, u, body)
	if err != nil {
		return nil, fmt.Errorf("request: %w", err)
	}
	if op.Body {
		req.Header.Set("Content-Type", "application/json")
	}
	if op.Idempotent {
		key, _ := args["idempotencyKey"].(string)
		if key == "" {
			key = rand.Text()
		}
		req.Header.Set("Idempotency-Key", key)
	}
	req.Header.Set("User-Agent", "paycore-mcp/1")
	return req, nil
}

func (cfg Config) do(req *http.Request) (int, []byte, error) {
	resp, err := cfg.HTTP.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return 0, nil, err
	}
	return resp.StatusCode, body, nil
}

// answer is the tool's result: the answer's JSON as structured content, and a line saying
// what happened before it. An error answer is a tool error whose text names the refusal.
func answer(op Operation, status int, body []byte) *mcp.CallToolResult {
	var v map[string]any
	if len(bytes.TrimSpace(body)) > 0 {
		if err := json.Unmarshal(body, &v); err != nil {
			return toolError("%s %s answered %d with a body that is not a JSON object", op.Method, op.Path, status)
		}
	}
	if v == nil {
		v = map[string]any{}
	}
	res := &mcp.CallToolResult{StructuredContent: v}
	line := fmt.Sprintf("%s: %d", op.Name, status)
	if status >= 400 {
		res.IsError = true
		line = fmt.Sprintf("%s refused: %d %v: %v", op.Name, status, v["code"], v["message"])
	} else if v["status"] == "PENDING_APPROVAL" {
		line = fmt.Sprintf("%s: %v waits for the platform's approval; poll agentGetAction with actionId %v", op.Name, v["id"], v["id"])
	} else if s, ok := v["status"].(string); ok {
		line = fmt.Sprintf("%s: %v %s", op.Name, v["id"], s)
	}
	res.Content = []mcp.Content{&mcp.TextContent{Text: line + "\n" + string(body)}}
	return res
}

// login redeems a device code and keeps the token.
func (cfg Config) login(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Code string `json:"code"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &args); err != nil || strings.TrimSpace(args.Code) == "" {
		return toolError("login needs the device code: {\"code\": \"AGENT-XXXX-XXXX-XXXX\"}"), nil
	}
	if cfg.Tokens == nil { // checked first: a redeemed code cannot be redeemed again
		return toolError("this server keeps no token (it reads each caller's bearer token)"), nil
	}
	redeemed, err := Redeem(ctx, cfg.HTTP, cfg.BaseURL, args.Code)
	if err != nil {
		return toolError("%v", err), nil
	}
	if err := cfg.Tokens.Save(redeemed.AccessToken); err != nil {
		return nil, err
	}
	out := map[string]any{"agentId": redeemed.AgentID, "agentName": redeemed.AgentName, "policy": redeemed.Policy}
	return &mcp.CallToolResult{StructuredContent: out, Content: []mcp.Content{&mcp.TextContent{
		Text: fmt.Sprintf("signed in as %s (%s); the token is kept on this machine", redeemed.AgentName, redeemed.AgentID)}}}, nil
}

// Redeemed is a redeemed device code.
type Redeemed struct {
	AgentID     string         `json:"agentId"`
	AgentName   string         `json:"agentName"`
	AccessToken string         `json:"accessToken"`
	Policy      map[string]any `json:"policy"`
}

// Redeem redeems a device code (POST /agents/device-codes/{code}/redeem, no credentials).
func Redeem(ctx context.Context, client *http.Client, baseURL, code string) (Redeemed, error) {
	u := strings.TrimSuffix(baseURL, "/") + "/agents/device-codes/" + url.PathEscape(strings.TrimSpace(code)) + "/redeem"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, http.NoBody)
	if err != nil {
		return Redeemed{}, fmt.Errorf("redeem: %w", err)
	}
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return Redeemed{}, fmt.Errorf("redeem: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		var env struct{ Code, Message string }
		_ = json.Unmarshal(body, &env)
		return Redeemed{}, fmt.Errorf("the device code was refused: %d %s: %s", resp.StatusCode, env.Code, env.Message)
	}
	var r Redeemed
	if err := json.Unmarshal(body, &r); err != nil || r.AccessToken == "" {
		return Redeemed{}, errors.New("the redeem answer holds no token")
	}
	return r, nil
}

func toolError(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}}}
}
