// Package netguard keeps the service's outbound HTTP traffic (webhook deliveries, OIDC
// discovery and key sets) away from internal networks. It checks URLs when they are saved
// and, more importantly, every address at connect time, after DNS resolution, so a hostname
// that later resolves to a private address (DNS rebinding) is still refused.
//
// The rule is one function, CheckAddr: an address is allowed only when it is a plain
// (zone-less) IPv4 or IPv6 address outside every special-purpose range of the IANA IPv4 and
// IPv6 special-purpose address registries, outside multicast and the reserved blocks, and,
// for IPv6, inside global unicast (2000::/3). See ranges.go for the tables.
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrBlockedAddress reports a connection to a loopback, private, link-local or otherwise
// non-public address.
var ErrBlockedAddress = errors.New("address is not publicly routable")

// ErrHostNotPublic reports a host name that does not resolve, or resolves to at least one
// address CheckAddr refuses. The two cases share one text on purpose: telling them apart
// would let whoever saves a URL probe the internal DNS (does db.corp exist, and where).
var ErrHostNotPublic = errors.New("the host does not resolve, or resolves to an address that is not publicly routable")

// CheckAddr returns an error wrapping ErrBlockedAddress for any address outbound requests
// must not reach: an address with a zone (fe80::1%eth0 — a zone only makes sense for
// link-local and other scoped addresses), any special-purpose IPv4 or IPv6 range, IPv6
// outside 2000::/3, and the transition embeddings of IPv4 (IPv4-compatible, 6to4, Teredo,
// local-use NAT64). IPv4-mapped addresses (::ffff:a.b.c.d) and the well-known NAT64 prefix
// (64:ff9b::a.b.c.d) are judged by the IPv4 address they carry.
func CheckAddr(a netip.Addr) error {
	if !a.IsValid() {
		return fmt.Errorf("invalid address: %w", ErrBlockedAddress)
	}
	if a.Zone() != "" {
		return blockedAddr(a, "has a zone identifier")
	}
	if a.Is4In6() {
		if err := check4(a.Unmap()); err != nil {
			return fmt.Errorf("%s (IPv4-mapped): %w", a, err)
		}
		return nil
	}
	if a.Is4() {
		return check4(a)
	}
	if nat64WellKnown.Contains(a) {
		b := a.As16()
		if err := check4(netip.AddrFrom4([4]byte(b[12:]))); err != nil {
			return fmt.Errorf("%s (NAT64): %w", a, err)
		}
		return nil
	}
	for _, r := range special6 {
		if r.prefix.Contains(a) {
			return blockedAddr(a, r.name)
		}
	}
	if !globalUnicast6.Contains(a) {
		return blockedAddr(a, "outside IPv6 global unicast 2000::/3")
	}
	return nil
}

func check4(a netip.Addr) error {
	for _, r := range special4 {
		if r.prefix.Contains(a) {
			return blockedAddr(a, r.name)
		}
	}
	return nil
}

func blockedAddr(a netip.Addr, why string) error {
	return fmt.Errorf("%s (%s): %w", a, why, ErrBlockedAddress)
}

// Dialer returns a dialer that refuses blocked addresses at connect time unless
// allowPrivate is set. The check runs in Control, on the address the socket is about to
// connect to (after resolution, for every address tried, zone included).
func Dialer(allowPrivate bool, timeout time.Duration) *net.Dialer {
	d := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		d.Control = control
	}
	return d
}

func control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%s: %w", address, ErrBlockedAddress)
	}
	return CheckAddr(ap.Addr())
}

// Resolver looks up host addresses; *net.Resolver satisfies it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// ValidateURL checks an outbound URL when it is saved: absolute http(s) (https only when
// requireHTTPS), a host, no credentials, no fragment, and, unless allowPrivate, a host that
// is either a public IP literal in canonical form or a DNS name whose every address is
// public. Numeric hosts in the legacy forms inet_aton accepts ("2130706433", "0x7f.1",
// "017700000001", "127.1") are refused: URL parsers, proxies and resolvers disagree on
// them, and the canonical dotted quad is always available.
func ValidateURL(ctx context.Context, r Resolver, raw string, requireHTTPS, allowPrivate bool) error {
	if len(raw) > 2048 {
		return errors.New("URL is longer than 2048 characters")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("not a valid URL")
	}
	switch {
	case u.Scheme != "https" && u.Scheme != "http":
		return errors.New("URL scheme must be https or http")
	case requireHTTPS && u.Scheme != "https":
		return errors.New("URL scheme must be https")
	case u.Host == "" || u.Hostname() == "":
		return errors.New("URL has no host")
	case u.User != nil:
		return errors.New("URL must not carry credentials")
	case u.Fragment != "":
		return errors.New("URL must not have a fragment")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return errors.New("URL port must be between 1 and 65535")
		}
	}
	if allowPrivate {
		return nil
	}
	return checkHost(ctx, r, u.Hostname())
}

// checkHost applies the address rules to a URL's host (as url.URL.Hostname returns it:
// without brackets, with any zone unescaped).
func checkHost(ctx context.Context, r Resolver, host string) error {
	if a, err := netip.ParseAddr(host); err == nil {
		return CheckAddr(a)
	}
	if strings.ContainsAny(host, ":%[]") {
		return fmt.Errorf("host %q is not a valid IP address: %w", host, ErrBlockedAddress)
	}
	if endsInNumber(host) {
		if a, ok := parseLegacyIPv4(host); ok {
			return fmt.Errorf("host %q is a non-canonical IPv4 address (%s); write it as a dotted quad: %w", host, a, ErrBlockedAddress)
		}
		return fmt.Errorf("host %q is neither an IPv4 address nor a DNS name: %w", host, ErrBlockedAddress)
	}
	if !isDNSName(host) {
		return fmt.Errorf("host %q is not a valid DNS name (write internationalised names as xn-- labels)", host)
	}
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	for _, local := range localNames {
		if name == local || strings.HasSuffix(name, "."+local) {
			return fmt.Errorf("host %s is a local-only name: %w", host, ErrBlockedAddress)
		}
	}
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return fmt.Errorf("host %s: %w", host, ErrHostNotPublic)
	}
	for _, a := range addrs {
		if CheckAddr(a) != nil {
			return fmt.Errorf("host %s: %w", host, ErrHostNotPublic)
		}
	}
	return nil
}

// localNames are special-use domain names that only ever resolve inside a local network.
var localNames = []string{"localhost", "local", "localdomain", "internal", "home.arpa"}

// isDNSName reports whether s is a syntactically valid (ASCII) host name: dot-separated
// labels of letters, digits, hyphens and underscores, each 1 to 63 characters, at most 253
// characters in all, an optional trailing dot.
func isDNSName(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// endsInNumber follows the WHATWG URL standard: a host whose last label (ignoring one
// trailing dot) is all digits, or "0x" followed by hex digits, is meant as an IPv4 address,
// never as a DNS name (no top-level domain is numeric).
func endsInNumber(host string) bool {
	parts := strings.Split(host, ".")
	if len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if last == "" {
		return false
	}
	if allDigits(last, 10) {
		return true
	}
	_, ok := parseNumber(last)
	return ok && (strings.HasPrefix(last, "0x") || strings.HasPrefix(last, "0X"))
}

// parseLegacyIPv4 decodes the host forms inet_aton (and the WHATWG IPv4 parser) accept: one
// to four dot-separated parts, each decimal, octal (leading 0) or hexadecimal (0x); the last
// part fills the remaining bytes. So "2130706433", "0x7f.1", "017700000001" and "127.1" are
// all 127.0.0.1.
func parseLegacyIPv4(host string) (netip.Addr, bool) {
	parts := strings.Split(host, ".")
	if len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var v uint64
	for i, p := range parts {
		n, ok := parseNumber(p)
		if !ok {
			return netip.Addr{}, false
		}
		if i < len(parts)-1 {
			if n > 255 {
				return netip.Addr{}, false
			}
			v |= n << (8 * (3 - i))
			continue
		}
		if n >= 1<<(8*(4-i)) {
			return netip.Addr{}, false
		}
		v |= n
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// parseNumber parses one part of a legacy IPv4 host; values above 2^32 are refused.
func parseNumber(s string) (uint64, bool) {
	base := 10
	switch {
	case len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X"):
		s, base = s[2:], 16
		if s == "" {
			return 0, true
		}
	case len(s) > 1 && s[0] == '0':
		s, base = s[1:], 8
	}
	if s == "" || !allDigits(s, base) {
		return 0, false
	}
	s = strings.TrimLeft(s, "0")
	if s == "" {
		return 0, true
	}
	n, err := strconv.ParseUint(s, base, 64)
	if err != nil || n > 1<<32 {
		return 0, false
	}
	return n, true
}

func allDigits(s string, base int) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case '0' <= c && c <= '7':
		case (c == '8' || c == '9') && base >= 10:
		case base == 16 && ('a' <= c && c <= 'f' || 'A' <= c && c <= 'F'):
		default:
			return false
		}
	}
	return s != ""
}
