package netlab

import (
	"bufio"
	"net"
	"strings"
	"testing"
)

// Two hosts reach each other over their own link, the test reaches each at its address,
// and a service of the test's namespace brought into a host answers there at its own
// loopback address; a host that was not linked to another does not reach it.
func TestHostsAndLinks(t *testing.T) {
	lab := New(t)
	a, b, c := lab.Host("a"), lab.Host("b"), lab.Host("c")
	addrA, _ := lab.Link(a, b)

	// A service in a, at its address on the link to b.
	ln, err := a.Listen(addrA + ":7000")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 4)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			line, _ := bufio.NewReader(conn).ReadString('\n')
			got <- strings.TrimSpace(line)
			conn.Close()
		}
	}()
	send := func(h *Host, addr, port, text string) error {
		return h.Command("bash", "-c", "echo "+text+" > /dev/tcp/"+addr+"/"+port).Run()
	}
	if err := send(b, addrA, "7000", "from-b"); err != nil {
		t.Fatalf("b to a over their link: %v", err)
	}
	if msg := <-got; msg != "from-b" {
		t.Fatalf("a got %q", msg)
	}
	if err := send(c, addrA, "7000", "from-c"); err == nil {
		t.Fatal("c reached a without a link between them")
	}

	// A service of the test's namespace, brought into b at 127.0.0.1.
	root, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	go func() {
		conn, err := root.Accept()
		if err != nil {
			return
		}
		line, _ := bufio.NewReader(conn).ReadString('\n')
		got <- strings.TrimSpace(line)
		conn.Close()
	}()
	b.Bring(root.Addr().String())
	_, port, _ := net.SplitHostPort(root.Addr().String())
	if err := send(b, "127.0.0.1", port, "brought"); err != nil {
		t.Fatalf("b to the test's service at its loopback: %v", err)
	}
	if msg := <-got; msg != "brought" {
		t.Fatalf("the test's service got %q", msg)
	}
}
