package netguard

import (
	"context"
	"net"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// notPublic is an oracle independent of the range tables: the standard library's own
// classification, plus the IPv4 embeddings CheckAddr refuses whole.
func notPublic(a netip.Addr) bool {
	if a.Zone() != "" {
		return true
	}
	u := a.Unmap()
	if u.IsLoopback() || u.IsPrivate() || u.IsLinkLocalUnicast() || u.IsLinkLocalMulticast() || u.IsMulticast() ||
		u.IsInterfaceLocalMulticast() || u.IsUnspecified() || !u.IsGlobalUnicast() {
		return true
	}
	if u.Is6() {
		for _, p := range []string{"::/96", "2002::/16", "2001::/32", "64:ff9b:1::/48", "2001:db8::/32", "fec0::/10"} {
			if netip.MustParsePrefix(p).Contains(u) {
				return true
			}
		}
		if netip.MustParsePrefix("64:ff9b::/96").Contains(u) {
			b := u.As16()
			return notPublic(netip.AddrFrom4([4]byte(b[12:])))
		}
	}
	return false
}

var fuzzSeeds = []string{
	"::1%lo", "fe80::1%eth0", "fd00::1%lo", "ff02::1%lo", "::127.0.0.1", "2002:7f00:1::", "::ffff:127.0.0.1",
	"64:ff9b::7f00:1", "64:ff9b::808:808", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "2606:4700::1111", "1.1.1.1",
	"8.8.8.8", "127.0.0.1", "169.254.169.254", "255.255.255.255", "::", "0.0.0.0", "2606:4700::1111%eth0",
}

// FuzzCheckAddr: no zoned or special-purpose address is ever allowed.
func FuzzCheckAddr(f *testing.F) {
	for _, s := range append(fuzzSeeds, blockedAddrs...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := netip.ParseAddr(s)
		if err != nil {
			return
		}
		if CheckAddr(a) == nil && notPublic(a) {
			t.Fatalf("%s allowed", a)
		}
	})
}

// numericHost matches the hosts a resolver may read as an IPv4 number: a last label of
// digits, or 0x and hex digits.
var numericHost = regexp.MustCompile(`(^|\.)([0-9]+|0[xX][0-9a-fA-F]*)\.?$`)

// FuzzValidateURL: whatever the input, ValidateURL does not panic, and a URL it accepts has
// a host that is a canonical public address or a DNS name (every name resolves to a public
// address here, so only the host's form is under test).
func FuzzValidateURL(f *testing.F) {
	for _, s := range fuzzSeeds {
		if strings.Contains(s, ":") {
			f.Add("https://[" + strings.ReplaceAll(s, "%", "%25") + "]:8443/h")
		} else {
			f.Add("https://" + s + "/h")
		}
	}
	for _, s := range []string{"https://2130706433/", "https://0x7f.1/", "https://017700000001/", "https://127.1/",
		"https://127.0.0.1./", "https://localhost/", "https://public.example/hook", "http://[::1%25lo]/",
		"https://127.0.0.1%25lo/", "https://[v1.fe80::1]/", "https://b\u00fccher.example/", "https://a..b/"} {
		f.Add(s)
	}
	public := fakeAll{netip.MustParseAddr("93.184.216.34")}
	f.Fuzz(func(t *testing.T, raw string) {
		if ValidateURL(context.Background(), public, raw, false, false) != nil {
			return
		}
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("%q accepted but does not parse", raw)
		}
		host := u.Hostname()
		if strings.ContainsAny(host, "%[]") {
			t.Fatalf("%q accepted with host %q", raw, host)
		}
		if a, err := netip.ParseAddr(host); err == nil && notPublic(a) {
			t.Fatalf("%q accepted with address %s", raw, a)
		}
		if ip := net.ParseIP(host); ip != nil {
			if a, _ := netip.AddrFromSlice(ip); notPublic(a) {
				t.Fatalf("%q accepted with address %s", raw, a)
			}
		} else if numericHost.MatchString(host) {
			t.Fatalf("%q accepted with numeric host %q", raw, host)
		}
	})
}

// fakeAll resolves every name to the same addresses.
type fakeAll []netip.Addr

func (f fakeAll) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) { return f, nil }
