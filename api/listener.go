package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"

	"paycore/internal/catalog"
)

// EnvelopeListener wraps the API's listener so that the few answers net/http writes by
// itself, before any handler runs (a request line it cannot parse, such as a path with a
// bad %-escape; headers over the size limit; a transfer coding other than chunked, 501),
// come in the JSON error envelope like every other error instead of as plain text.
func EnvelopeListener(ln net.Listener) net.Listener { return envelopeListener{ln} }

type envelopeListener struct{ net.Listener }

func (l envelopeListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return envelopeConn{c}, nil
}

type envelopeConn struct{ net.Conn }

// protocolErrorHeaders is how net/http ends the status line of the answers it writes
// itself; handler answers of this service are never text/plain.
var protocolErrorHeaders = []byte("\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n")

func (c envelopeConn) Write(p []byte) (int, error) {
	if !bytes.HasPrefix(p, []byte("HTTP/1.1 4")) && !bytes.HasPrefix(p, []byte("HTTP/1.1 501 ")) {
		return c.Conn.Write(p)
	}
	i := bytes.Index(p, protocolErrorHeaders)
	if i < 0 {
		return c.Conn.Write(p)
	}
	var status int
	if _, err := fmt.Sscanf(string(p[len("HTTP/1.1 "):i]), "%d", &status); err != nil ||
		(status < 400 || status > 499) && status != http.StatusNotImplemented {
		return c.Conn.Write(p)
	}
	detail := string(p[i+len(protocolErrorHeaders):])
	code, msg := catalog.InvalidInput, "the request could not be parsed: "+detail
	switch status {
	case http.StatusRequestHeaderFieldsTooLarge:
		msg = "the request headers are larger than the server accepts"
	case http.StatusBadRequest:
		msg = "the request line or headers could not be parsed (check %-escapes in the path and header syntax)"
	case http.StatusNotImplemented:
		// The only 501 net/http writes itself: a Transfer-Encoding other than chunked.
		code, msg = catalog.NotImplemented, "unsupported Transfer-Encoding: a request body is sent with Content-Length or Transfer-Encoding: chunked, and no other transfer coding"
	}
	body, _ := json.Marshal(Error{Status: status, Code: code, Message: msg})
	out := "HTTP/1.1 " + strconv.Itoa(status) + " " + http.StatusText(status) +
		"\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " + strconv.Itoa(len(body)+1) + "\r\n\r\n" + string(body) + "\n"
	if _, err := c.Conn.Write([]byte(out)); err != nil {
		return 0, err
	}
	return len(p), nil
}
