// Package netguardtest holds test helpers for code that connects to the outside world.
package netguardtest

import (
	"net"
	"testing"
	"time"
)

// TCPServer listens on a free loopback port until the test ends, handing every accepted
// connection to serve in its own goroutine, and returns the address.
func TCPServer(t testing.TB, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	return ln.Addr().String()
}

// DeadAddrs returns loopback addresses that give no HTTP answer, each in its own way, by
// the name a test reports them under: "refused" (nothing listens), "time-out" (accepts,
// then says nothing for hold) and "reset" (resets the connection once the request starts).
func DeadAddrs(t testing.TB, hold time.Duration) map[string]string {
	t.Helper()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := closed.Addr().String()
	closed.Close()
	silent := TCPServer(t, func(c net.Conn) { time.Sleep(hold); c.Close() })
	reset := TCPServer(t, func(c net.Conn) {
		_ = c.(*net.TCPConn).SetLinger(0)
		_, _ = c.Read(make([]byte, 1))
		c.Close()
	})
	return map[string]string{"refused": refused, "time-out": silent, "reset": reset}
}
