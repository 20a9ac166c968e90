// Package netlab gives tests hosts of their own: Linux network namespaces, each joined to
// the test's namespace by a virtual link and, where asked, to another host by one, so that
// deployments under test reach each other only over a network, by their own addresses.
// Services of the test's namespace (PostgreSQL, Temporal, Lightning nodes) are brought into
// a host at the same loopback address by a forwarder, so a process in the host is
// configured as it would be on the test's machine.
//
// It needs root (CAP_NET_ADMIN) and the ip command; New skips the test otherwise.
package netlab

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// Lab is a set of hosts, removed when the test ends.
type Lab struct {
	t      testing.TB
	prefix string
	net    int // the second octet of the lab's addresses
	links  atomic.Int32
}

var labs atomic.Int32

// New is an empty lab; it skips the test where namespaces cannot be made.
func New(t testing.TB) *Lab {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("netlab: network namespaces need root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("netlab: the ip command is not installed (iproute2)")
	}
	n := int(labs.Add(1))
	return &Lab{t: t, prefix: fmt.Sprintf("nl%d%d", os.Getpid()%10000, n), net: 100 + (os.Getpid()+n)%100}
}

// Host is a network namespace: Addr is its address on its link to the test's namespace
// (where the test reaches it), Gateway the test's side of that link.
type Host struct {
	lab           *Lab
	Name, NS      string
	Addr, Gateway string
}

// run runs the ip command.
func run(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Host makes a host named name, linked to the test's namespace.
func (l *Lab) Host(name string) *Host {
	l.t.Helper()
	i := int(l.links.Add(1))
	h := &Host{lab: l, Name: name, NS: l.prefix + "-" + name,
		Gateway: fmt.Sprintf("10.%d.%d.1", l.net, i), Addr: fmt.Sprintf("10.%d.%d.2", l.net, i)}
	outside, inside := fmt.Sprintf("%so%d", l.prefix, i), fmt.Sprintf("%si%d", l.prefix, i)
	steps := [][]string{
		{"netns", "add", h.NS},
		{"link", "add", outside, "type", "veth", "peer", "name", inside},
		{"link", "set", inside, "netns", h.NS},
		{"addr", "add", h.Gateway + "/30", "dev", outside},
		{"link", "set", outside, "up"},
		{"-n", h.NS, "addr", "add", h.Addr + "/30", "dev", inside},
		{"-n", h.NS, "link", "set", inside, "up"},
		{"-n", h.NS, "link", "set", "lo", "up"},
	}
	l.t.Cleanup(func() { _ = run("netns", "del", h.NS); _ = run("link", "del", outside) })
	for _, s := range steps {
		if err := run(s...); err != nil {
			l.t.Fatal(err)
		}
	}
	return h
}

// Link joins hosts a and b by a link of their own and answers each one's address on it:
// what the other dials to reach it.
func (l *Lab) Link(a, b *Host) (addrA, addrB string) {
	l.t.Helper()
	i := int(l.links.Add(1))
	addrA, addrB = fmt.Sprintf("10.%d.%d.1", l.net, i), fmt.Sprintf("10.%d.%d.2", l.net, i)
	ea, eb := fmt.Sprintf("%sa%d", l.prefix, i), fmt.Sprintf("%sb%d", l.prefix, i)
	steps := [][]string{
		{"link", "add", ea, "type", "veth", "peer", "name", eb},
		{"link", "set", ea, "netns", a.NS},
		{"link", "set", eb, "netns", b.NS},
		{"-n", a.NS, "addr", "add", addrA + "/30", "dev", ea},
		{"-n", b.NS, "addr", "add", addrB + "/30", "dev", eb},
		{"-n", a.NS, "link", "set", ea, "up"},
		{"-n", b.NS, "link", "set", eb, "up"},
	}
	for _, s := range steps {
		if err := run(s...); err != nil {
			l.t.Fatal(err)
		}
	}
	return addrA, addrB
}

// Command is name with args to run in the host.
func (h *Host) Command(name string, args ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", h.NS, name}, args...)...)
}

// Listen opens a listener in the host (its namespace) at addr.
func (h *Host) Listen(addr string) (net.Listener, error) {
	type opened struct {
		ln  net.Listener
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		// The goroutine's thread enters the host's namespace, opens the listener (which stays
		// in the namespace it was made in) and comes back. The thread must not end: a child
		// process it started earlier (a server started with Pdeathsig) would be signalled.
		runtime.LockOSThread()
		home, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			runtime.UnlockOSThread()
			ch <- opened{err: err}
			return
		}
		defer home.Close()
		f, err := os.Open("/var/run/netns/" + h.NS)
		if err != nil {
			runtime.UnlockOSThread()
			ch <- opened{err: err}
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			ch <- opened{err: fmt.Errorf("enter %s: %w", h.NS, err)}
			return
		}
		ln, err := net.Listen("tcp", addr)
		if unix.Setns(int(home.Fd()), unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread() // back home: the thread may serve other goroutines
		} // else it stays locked and ends with this goroutine, in the host's namespace
		ch <- opened{ln, err}
	}()
	o := <-ch
	return o.ln, o.err
}

// Bring makes target, a TCP service of the test's namespace at 127.0.0.1:port, reachable
// in the host at the same address, until the test ends.
func (h *Host) Bring(target string) {
	t := h.lab.t
	t.Helper()
	ln, err := h.Listen(target)
	if err != nil {
		t.Fatalf("netlab: bring %s into %s: %v", target, h.Name, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() { defer wg.Done(); pipe(ctx, c, target) }()
		}
	}()
}

// pipe joins c to a new connection to target, both ways, until either side or ctx ends.
func pipe(ctx context.Context, c net.Conn, target string) {
	defer c.Close()
	var d net.Dialer
	u, err := d.DialContext(ctx, "tcp", target)
	if err != nil {
		return
	}
	defer u.Close()
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src) // ends when either side closes
		if tc, ok := dst.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		done <- struct{}{}
	}
	go cp(u, c)
	go cp(c, u)
	select {
	case <-done:
		<-done
	case <-ctx.Done():
	}
}
