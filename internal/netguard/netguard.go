// Package netguard keeps outbound webhook traffic away from internal networks. It checks
// URLs when they are saved and, more importantly, every address at connect time, after DNS
// resolution, so a hostname that later resolves to a private address (DNS rebinding) is
// still refused.
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// ErrBlockedAddress reports a connection to a loopback, private, link-local or otherwise
// non-public address.
var ErrBlockedAddress = errors.New("address is not publicly routable")

var blocked = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("127.0.0.0/8"),
	netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("224.0.0.0/4"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("::/128"),
	netip.MustParsePrefix("::1/128"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("fc00::/7"),
	netip.MustParsePrefix("fe80::/10"),
	netip.MustParsePrefix("ff00::/8"),
}

// CheckAddr returns ErrBlockedAddress for any address a webhook must not reach.
func CheckAddr(a netip.Addr) error {
	a = a.Unmap()
	if !a.IsValid() {
		return ErrBlockedAddress
	}
	for _, p := range blocked {
		if p.Contains(a) {
			return fmt.Errorf("%s: %w", a, ErrBlockedAddress)
		}
	}
	return nil
}

// Dialer returns a dialer that refuses blocked addresses at connect time unless
// allowPrivate is set.
func Dialer(allowPrivate bool, timeout time.Duration) *net.Dialer {
	d := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		d.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%s: %w", address, ErrBlockedAddress)
			}
			return CheckAddr(ap.Addr())
		}
	}
	return d
}

// Resolver looks up host addresses; *net.Resolver satisfies it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// ValidateURL checks a webhook URL when it is saved: absolute http(s) (https only when
// requireHTTPS), a host, no credentials, no fragment, and, unless allowPrivate, a host
// whose every address is public.
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
	if allowPrivate {
		return nil
	}
	host := u.Hostname()
	if a, err := netip.ParseAddr(host); err == nil {
		return CheckAddr(a)
	}
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return fmt.Errorf("%s: %w", host, ErrBlockedAddress)
	}
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("host %s does not resolve", host)
	}
	for _, a := range addrs {
		if err := CheckAddr(a); err != nil {
			return fmt.Errorf("host %s resolves to %w", host, err)
		}
	}
	return nil
}
