// Package clientip decides which address a request comes from, for limits kept per
// source address. It is the connection's peer address (net/http's RemoteAddr); the
// X-Forwarded-For header is read only when the peer is one of the operator's trusted
// proxies (PAYCORE_TRUSTED_PROXIES), and then only as far as the chain of trusted
// proxies goes, so that a client cannot choose its address by sending the header itself.
package clientip

import (
	"net"
	"net/netip"
	"strings"
)

// Resolve returns the source address of a request whose peer is remoteAddr ("host:port"
// or a bare address) and which carries the X-Forwarded-For values forwardedFor (each a
// comma-separated list, in the order the header lines came). When the peer is not in
// trusted, the peer is the source. Otherwise the addresses of X-Forwarded-For are walked
// from the right (the nearest hop first), skipping trusted proxies; the first untrusted
// one is the source. A malformed entry ends the walk at the last trusted hop. ok is false
// when remoteAddr is not an address.
func Resolve(remoteAddr string, forwardedFor []string, trusted []netip.Prefix) (addr netip.Addr, ok bool) {
	peer, ok := parse(remoteAddr)
	if !ok {
		return netip.Addr{}, false
	}
	if !isTrusted(peer, trusted) {
		return peer, true
	}
	var hops []string
	for _, line := range forwardedFor {
		hops = append(hops, strings.Split(line, ",")...)
	}
	source := peer
	for i := len(hops) - 1; i >= 0; i-- {
		hop, ok := parse(strings.TrimSpace(hops[i]))
		if !ok {
			break
		}
		source = hop
		if !isTrusted(hop, trusted) {
			break
		}
	}
	return source, true
}

// Attributable reports whether addr, a source address Resolve returned, names a client and
// may be limited per address: only when trusted proxies are configured (the operator said
// how requests arrive) and addr is not one of them. Without them the peer may be an ingress
// that every client shares, and limiting it would let any caller lock out all others.
func Attributable(addr netip.Addr, trusted []netip.Prefix) bool {
	return len(trusted) > 0 && !isTrusted(addr, trusted)
}

// Key is the form addr is counted under: an IPv4 address as itself, an IPv6 address by
// its /64 network (a host is usually given a whole /64, so counting single addresses
// would let it change address at will); an IPv4-mapped IPv6 address as the IPv4 one.
func Key(addr netip.Addr) string {
	addr = addr.Unmap()
	if addr.Is4() {
		return addr.String()
	}
	p, err := addr.WithZone("").Prefix(64)
	if err != nil {
		return addr.String()
	}
	return p.String()
}

// ParsePrefixes reads a comma-separated list of CIDR prefixes or single addresses
// ("10.0.0.0/8, 192.0.2.7"); ok is false, with the offending entry, when one is neither.
func ParsePrefixes(s string) (prefixes []netip.Prefix, bad string, ok bool) {
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if p, err := netip.ParsePrefix(part); err == nil {
			prefixes = append(prefixes, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(part)
		if err != nil {
			return nil, part, false
		}
		a = a.Unmap()
		prefixes = append(prefixes, netip.PrefixFrom(a, a.BitLen()))
	}
	return prefixes, "", true
}

func parse(s string) (netip.Addr, bool) {
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap().WithZone(""), true
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
