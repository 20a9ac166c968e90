package api_test

import (
	"bufio"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"paycore/api"
	"paycore/internal/infra/config"
)

// These tests drive the real http.Server of the API (api.NewHTTPServer, as runAPI builds
// it) over raw TCP connections: clients that send slowly, never read, or send too much.
// Every assertion is "the server closed the connection (or answered) before a generous
// deadline"; without the limits the connections stay open and the deadline passes.

// liveServer is the API behind api.NewHTTPServer on a loopback port.
type liveServer struct {
	*env
	addr   string
	closed chan struct{} // one value per connection the server closed
}

func startLiveServer(t *testing.T, tweak func(*config.Config)) *liveServer {
	t.Helper()
	var tweaks []func(*config.Config)
	if tweak != nil {
		tweaks = append(tweaks, tweak)
	}
	e := newEnv(t, tweaks...)
	srv := api.NewHTTPServer(e.cfg, e.api)
	ls := &liveServer{env: e, closed: make(chan struct{}, 1024)}
	srv.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateClosed {
			ls.closed <- struct{}{}
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ls.addr = ln.Addr().String()
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ls
}

// waitClosed waits until the server has closed n connections, or fails at deadline.
func (ls *liveServer) waitClosed(t *testing.T, n int, deadline time.Duration, what string) {
	t.Helper()
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	for i := range n {
		select {
		case <-ls.closed:
		case <-timer.C:
			t.Fatalf("%s: the server closed %d of %d connections within %s", what, i, n, deadline)
		}
	}
}

// generous is the deadline by which a limit of d must have cut a client off: three times
// d, plus room for a loaded (-race) machine. It only bounds the test; nothing here
// measures how fast the server is.
func generous(d time.Duration) time.Duration { return 3*d + 5*time.Second }

func basicAuth(user, password string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
}

// outcome is what a raw client saw: everything the server sent until it closed the
// connection, and whether the client's own deadline passed first (the server held on).
type outcome struct {
	response string
	heldOpen bool
	err      error
}

// rawClient sends head, then (when dribble) one more byte every second until the server
// closes the connection; it reads whatever the server answers until the connection ends
// or the deadline passes.
func rawClient(t *testing.T, addr, head string, dribble bool, deadline time.Duration) <-chan outcome {
	t.Helper()
	out := make(chan outcome, 1)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	go func() {
		defer conn.Close()
		if _, err := io.WriteString(conn, head); err != nil {
			out <- outcome{err: err}
			return
		}
		stop := make(chan struct{})
		defer close(stop)
		if dribble {
			go func() {
				tick := time.NewTicker(time.Second)
				defer tick.Stop()
				for {
					select {
					case <-stop:
						return
					case <-tick.C:
						if _, err := conn.Write([]byte("x")); err != nil {
							return
						}
					}
				}
			}()
		}
		_ = conn.SetReadDeadline(time.Now().Add(deadline))
		b, err := io.ReadAll(conn)
		var ne net.Error
		held := errors.As(err, &ne) && ne.Timeout()
		if held || errors.Is(err, net.ErrClosed) {
			err = nil
		}
		out <- outcome{response: string(b), heldOpen: held}
	}()
	return out
}

// Clients that send their headers and then a body one byte a second are cut off by the
// read timeout, whether the handler is reading the body (authenticated) or the request
// was answered without it (no credentials). So are clients that never finish their headers.
func TestSlowClientsAreCutOff(t *testing.T) {
	t.Parallel()
	const readTimeout = 2 * time.Second
	ls := startLiveServer(t, func(c *config.Config) {
		c.HTTPReadHeaderTimeout = time.Second
		c.HTTPReadTimeout = readTimeout
	})
	c, _ := ls.platform(true)
	post := "POST " + ls.cfg.BasePath() + "/tokens HTTP/1.1\r\nHost: paycore\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n"
	heads := map[string]string{
		"authenticated":   post + "Authorization: " + basicAuth(c.User, c.Password) + "\r\n\r\n{",
		"unauthenticated": post + "\r\n{",
		"slow headers":    "POST " + ls.cfg.BasePath() + "/tokens HTTP/1.1\r\nHost: paycore\r\nX-Slow: ",
	}
	const perKind = 20
	deadline := generous(readTimeout)
	var results []<-chan outcome
	var kinds []string
	for kind, head := range heads {
		for range perKind {
			results = append(results, rawClient(t, ls.addr, head, true, deadline))
			kinds = append(kinds, kind)
		}
	}
	for i, ch := range results {
		o := <-ch
		if o.err != nil {
			t.Fatalf("%s client: %v", kinds[i], o.err)
		}
		if o.heldOpen {
			t.Fatalf("%s client still connected after %s (read timeout %s); it got %q", kinds[i], deadline, readTimeout, firstLine(o.response))
		}
		switch kinds[i] {
		case "authenticated": // the handler's read of the body fails at the deadline
			if !strings.HasPrefix(o.response, "HTTP/1.1 400 ") {
				t.Errorf("authenticated slow body answered %q", firstLine(o.response))
			}
		case "unauthenticated": // answered without reading the body
			if !strings.HasPrefix(o.response, "HTTP/1.1 401 ") || !strings.Contains(o.response, "Connection: close") {
				t.Errorf("unauthenticated slow body answered %q", o.response)
			}
		}
	}
	ls.waitClosed(t, len(results), deadline, "slow clients")
}

// Clients that send requests but never read the answers are cut off by the write timeout
// once the answers fill the connection's buffers.
func TestClientsThatNeverReadAreCutOff(t *testing.T) {
	t.Parallel()
	const writeTimeout = 2 * time.Second
	ls := startLiveServer(t, func(c *config.Config) { c.HTTPWriteTimeout = writeTimeout })
	// Pipelined requests for the OpenAPI document (about 190 KB each): more answers per
	// connection (about 9 MB) than the kernel buffers between server and client can hold.
	req := "GET /openapi.yaml HTTP/1.1\r\nHost: paycore\r\n\r\n"
	const clients = 10
	for range clients {
		c, err := net.Dial("tcp", ls.addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		_ = c.(*net.TCPConn).SetReadBuffer(4 << 10)
		if _, err := io.WriteString(c, strings.Repeat(req, 50)); err != nil {
			t.Fatal(err)
		}
	}
	ls.waitClosed(t, clients, generous(writeTimeout), "clients that never read")
}

// A keep-alive connection without a next request is closed after the idle timeout.
func TestIdleConnectionsAreClosed(t *testing.T) {
	t.Parallel()
	const idle = time.Second
	ls := startLiveServer(t, func(c *config.Config) { c.HTTPIdleTimeout = idle })
	conn, err := net.Dial("tcp", ls.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: paycore\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Close {
		t.Fatalf("healthz: %d, close %v", resp.StatusCode, resp.Close)
	}
	_ = conn.SetReadDeadline(time.Now().Add(generous(idle)))
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		t.Fatalf("idle connection not closed by the server: %v", err)
	}
}

// Request headers over PAYCORE_HTTP_MAX_HEADER_BYTES (64 KiB by default) are refused with
// 431; headers under it are served.
func TestHeaderSizeLimit(t *testing.T) {
	t.Parallel()
	ls := startLiveServer(t, nil)
	if ls.cfg.HTTPMaxHeaderBytes != 64<<10 {
		t.Fatalf("default header limit %d", ls.cfg.HTTPMaxHeaderBytes)
	}
	status := func(headerBytes int) int {
		t.Helper()
		conn, err := net.Dial("tcp", ls.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
		head := "GET /healthz HTTP/1.1\r\nHost: paycore\r\nX-Filler: " + strings.Repeat("a", headerBytes) + "\r\n\r\n"
		go func() { _, _ = io.WriteString(conn, head) }()
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%d header bytes: %v", headerBytes, err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := status(32 << 10); s != 200 {
		t.Fatalf("32 KiB of headers: %d, want 200", s)
	}
	if s := status(100 << 10); s != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("100 KiB of headers: %d, want 431", s)
	}
}

// A request that is answered without its body (no credentials, a missing permission) is
// answered at once, before any of the body arrives, and the connection is then closed:
// authentication and permission checks never wait for the body, and neither does the
// server on their behalf.
func TestEarlyAnswerDoesNotWaitForTheBody(t *testing.T) {
	t.Parallel()
	ls := startLiveServer(t, func(c *config.Config) { c.HTTPReadTimeout = time.Minute })
	_, p := ls.platform(true)
	tok, err := api.IssueToken(t.Context(), ls.pool, p.ID, "viewer", []string{"VIEW"})
	if err != nil {
		t.Fatal(err)
	}
	viewer := basicAuth(tok.Token.ID.String(), tok.Secret)
	base := ls.cfg.BasePath()
	for _, tc := range []struct {
		name, head string
		status     int
	}{
		{"unauthenticated, idempotent route", "POST " + base + "/tokens HTTP/1.1\r\nIdempotency-Key: k1\r\nContent-Length: 100000\r\n", 401},
		{"unauthenticated, chunked, signed-retry route", "PATCH " + base + "/internal-accounts/InternalAccount:0190a000-0000-7000-8000-000000000001 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n", 401},
		{"bad credentials", "POST " + base + "/customers HTTP/1.1\r\nAuthorization: " + basicAuth("0190a000-0000-7000-8000-000000000001", "nope") + "\r\nContent-Length: 200000\r\n", 401},
		{"missing permission", "POST " + base + "/tokens HTTP/1.1\r\nAuthorization: " + viewer + "\r\nIdempotency-Key: k2\r\nContent-Length: 100000\r\n", 403},
		{"unknown route", "POST /nowhere HTTP/1.1\r\nContent-Length: 100000\r\n", 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// The body never comes; the read timeout (a minute) is far away.
			o := <-rawClient(t, ls.addr, tc.head+"Host: paycore\r\nContent-Type: application/json\r\n\r\n", false, 20*time.Second)
			if o.err != nil {
				t.Fatal(o.err)
			}
			if o.heldOpen {
				t.Fatalf("no answer and connection open without the body: got %q", o.response)
			}
			resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(o.response)), nil)
			if err != nil {
				t.Fatalf("answer %q: %v", o.response, err)
			}
			if resp.StatusCode != tc.status || !resp.Close {
				t.Fatalf("status %d (want %d), Connection: close %v", resp.StatusCode, tc.status, resp.Close)
			}
		})
	}
}

// A declared Content-Length over the limit is answered 413 before any of the body is read,
// even without credentials, and the connection is closed.
func TestDeclaredOversizeBody(t *testing.T) {
	t.Parallel()
	ls := startLiveServer(t, func(c *config.Config) {
		c.MaxBodyBytes = 1 << 20
		c.HTTPReadTimeout = time.Minute
	})
	head := fmt.Sprintf("POST %s/customers HTTP/1.1\r\nHost: paycore\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", ls.cfg.BasePath(), 5<<20)
	o := <-rawClient(t, ls.addr, head, false, 20*time.Second)
	if o.err != nil || o.heldOpen {
		t.Fatalf("no answer without the body: %q %v", o.response, o.err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(o.response)), nil)
	if err != nil {
		t.Fatalf("answer %q: %v", o.response, err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 413 || !resp.Close || !strings.Contains(string(body), `"code":"PAYLOAD_TOO_LARGE"`) || !strings.Contains(string(body), `"status":413`) {
		t.Fatalf("%d close=%v %s", resp.StatusCode, resp.Close, body)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\r\n")
	return line
}
