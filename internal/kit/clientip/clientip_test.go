package clientip

import (
	"net/netip"
	"testing"
)

func TestResolve(t *testing.T) {
	trusted, _, ok := ParsePrefixes("10.0.0.0/8, 192.0.2.7 ,fd00::/8")
	if !ok || len(trusted) != 3 {
		t.Fatalf("ParsePrefixes: %v %v", trusted, ok)
	}
	for _, c := range []struct {
		name   string
		remote string
		xff    []string
		tr     []netip.Prefix
		want   string
	}{
		{"no proxies trusted: the peer, whatever the header", "198.51.100.1:5000", []string{"203.0.113.9"}, nil, "198.51.100.1"},
		{"untrusted peer's header ignored", "198.51.100.1:5000", []string{"203.0.113.9"}, trusted, "198.51.100.1"},
		{"trusted peer: the client it forwards", "10.1.2.3:443", []string{"203.0.113.9"}, trusted, "203.0.113.9"},
		{"a chain of trusted proxies", "10.1.2.3:443", []string{"203.0.113.9, 192.0.2.7", "10.9.9.9"}, trusted, "203.0.113.9"},
		{"a client-sent prefix is not believed", "10.1.2.3:443", []string{"1.1.1.1, 203.0.113.9"}, trusted, "203.0.113.9"},
		{"a trusted peer without the header", "10.1.2.3:443", nil, trusted, "10.1.2.3"},
		{"a malformed hop stops at the last trusted one", "10.1.2.3:443", []string{"203.0.113.9, garbage"}, trusted, "10.1.2.3"},
		{"all hops trusted: the farthest", "10.1.2.3:443", []string{"10.0.0.1"}, trusted, "10.0.0.1"},
		{"IPv6 peer", "[2001:db8::1]:443", nil, trusted, "2001:db8::1"},
		{"IPv4-mapped peer", "[::ffff:198.51.100.1]:443", nil, nil, "198.51.100.1"},
		{"bare address", "198.51.100.1", nil, nil, "198.51.100.1"},
	} {
		got, ok := Resolve(c.remote, c.xff, c.tr)
		if !ok || got.String() != c.want {
			t.Errorf("%s: %v %v, want %s", c.name, got, ok, c.want)
		}
	}
	if _, ok := Resolve("not an address", nil, nil); ok {
		t.Error("a malformed peer resolved")
	}
	if _, bad, ok := ParsePrefixes("10.0.0.0/8,nope"); ok || bad != "nope" {
		t.Errorf("a bad entry accepted (%q)", bad)
	}
	if p, _, ok := ParsePrefixes(""); !ok || len(p) != 0 {
		t.Error("an empty list")
	}
}

func TestKey(t *testing.T) {
	for in, want := range map[string]string{
		"192.0.2.1":            "192.0.2.1",
		"::ffff:192.0.2.1":     "192.0.2.1",
		"2001:db8:1:2:3:4:5:6": "2001:db8:1:2::/64",
		"2001:db8:1:2::9":      "2001:db8:1:2::/64",
		"fe80::1%eth0":         "fe80::/64",
	} {
		if got := Key(netip.MustParseAddr(in)); got != want {
			t.Errorf("Key(%s) = %s, want %s", in, got, want)
		}
	}
}

// Only an address that names a client is limited: with no trusted proxies the peer may be a
// shared ingress, and a trusted proxy itself is never the client.
func TestAttributable(t *testing.T) {
	trusted, _, _ := ParsePrefixes("10.0.0.0/8")
	for _, c := range []struct {
		addr string
		tr   []netip.Prefix
		want bool
	}{{"198.51.100.1", nil, false}, {"198.51.100.1", trusted, true}, {"10.1.2.3", trusted, false}} {
		if got := Attributable(netip.MustParseAddr(c.addr), c.tr); got != c.want {
			t.Errorf("Attributable(%s, %v) = %v", c.addr, c.tr, got)
		}
	}
}
