package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"paycore/api"
	"paycore/internal/infra/agentmcp"
	"paycore/internal/infra/config"
)

const mcpUsage = `usage: paycore mcp [-http ADDR] [-api BASE_URL] [-token-file PATH]
       paycore mcp login [-api BASE_URL] [-token-file PATH] CODE

An MCP server for an AI assistant acting as one of a platform's agents: a tool per operation
under /agents/me, and login. Over stdio by default; -http ADDR serves streamable HTTP at /mcp
instead, where each client may send its own "Authorization: Bearer <agent token>"; on an
address other than loopback each client must, and the kept token is never used. The agent
signs in with the device code the platform gave it (the login tool, or paycore mcp login
CODE); the token is never printed. It is kept in PATH (0600) when -token-file is given; else
in the OS keyring where one is present (the Keychain, the Credential Manager, or the Secret
Service of a desktop session's D-Bus); else in paycore/agent-token (0600) in the user's
configuration folder. PAYCORE_BASE_URL is the API's base URL.`

// mcpCmd is `paycore mcp`. It reads its environment through getenv.
func mcpCmd(ctx context.Context, cfg config.Config, args []string, getenv func(string) string, stdout io.Writer) error {
	login := len(args) > 0 && args[0] == "login"
	if login {
		args = args[1:]
	}
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	base := fs.String("api", cmp.Or(getenv("PAYCORE_BASE_URL"), "http://"+cfg.HTTPAddr+cfg.BasePath()), "the API's base URL, with its version")
	addr := fs.String("http", "", "serve streamable HTTP at ADDR (/mcp) instead of stdio")
	tokenFile := fs.String("token-file", "", "where the agent's token is kept")
	if err := fs.Parse(args); err != nil || (login && fs.NArg() != 1) || (!login && fs.NArg() != 0) {
		return fmt.Errorf("%s", mcpUsage)
	}
	store, err := agentmcp.OpenTokenStore(*tokenFile, getenv)
	if err != nil {
		return err
	}
	if login {
		r, err := agentmcp.Redeem(ctx, http.DefaultClient, *base, fs.Arg(0))
		if err != nil {
			return err
		}
		if err := store.Save(r.AccessToken); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Signed in as %s (%s); the token is kept in %s\n", r.AgentName, r.AgentID, store.Where())
		return nil
	}
	ops, err := agentmcp.Operations(api.OpenAPI())
	if err != nil {
		return err
	}
	if *addr == "" {
		server, err := agentmcp.NewServer(ops, agentmcp.Config{BaseURL: *base, Tokens: store, Version: config.APIVersion})
		if err != nil {
			return err
		}
		if err := server.Run(ctx, &mcp.StdioTransport{}); err != nil && !errors.Is(err, context.Canceled) {
			return fmt.Errorf("mcp over stdio: %w", err)
		}
		return nil
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("-http: %w", err)
	}
	var tokens agentmcp.TokenStore = store
	if !loopback(ln.Addr()) {
		// Reachable from other machines: a caller without a token of its own must not act as
		// the agent signed in here.
		tokens = nil
		fmt.Fprintf(stdout, "%s is reachable from other machines: each client must send its own Authorization: Bearer <agent token>\n", ln.Addr())
	}
	server, err := agentmcp.NewServer(ops, agentmcp.Config{BaseURL: *base, Tokens: tokens, Version: config.APIVersion})
	if err != nil {
		ln.Close()
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	fmt.Fprintf(stdout, "MCP server at http://%s/mcp for the API at %s\n", ln.Addr(), *base)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("mcp over HTTP: %w", err)
	}
	return nil
}

// loopback says whether addr is a loopback address, reachable from this machine only.
func loopback(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}
