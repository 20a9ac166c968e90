package netguard

import "net/netip"

type addrRange struct {
	prefix netip.Prefix
	name   string
}

func r(prefix, name string) addrRange { return addrRange{netip.MustParsePrefix(prefix), name} }

// special4 is the IANA IPv4 Special-Purpose Address Registry (every entry, including the
// few marked globally reachable: anycast and AS112 service addresses are never a webhook
// receiver), plus multicast and the reserved 240.0.0.0/4 (which holds 255.255.255.255).
// https://www.iana.org/assignments/iana-ipv4-special-registry
var special4 = []addrRange{
	r("0.0.0.0/8", `"this network"`),
	r("10.0.0.0/8", "private-use"),
	r("100.64.0.0/10", "shared address space"),
	r("127.0.0.0/8", "loopback"),
	r("169.254.0.0/16", "link-local"),
	r("172.16.0.0/12", "private-use"),
	r("192.0.0.0/24", "IETF protocol assignments"),
	r("192.0.2.0/24", "documentation"),
	r("192.31.196.0/24", "AS112"),
	r("192.52.193.0/24", "AMT"),
	r("192.88.99.0/24", "6to4 relay anycast"),
	r("192.168.0.0/16", "private-use"),
	r("192.175.48.0/24", "AS112 direct delegation"),
	r("198.18.0.0/15", "benchmarking"),
	r("198.51.100.0/24", "documentation"),
	r("203.0.113.0/24", "documentation"),
	r("224.0.0.0/4", "multicast"),
	r("255.255.255.255/32", "limited broadcast"),
	r("240.0.0.0/4", "reserved"),
}

// special6 is the IANA IPv6 Special-Purpose Address Registry (every entry), plus the
// deprecated IPv4-compatible and site-local ranges and multicast. Most of these lie outside
// 2000::/3 and would be refused by that rule anyway; they are listed so that the refusal
// names the range. More specific entries come first.
// https://www.iana.org/assignments/iana-ipv6-special-registry
//
// The IPv4 transition ranges are refused whole rather than judged by the IPv4 address they
// embed: 6to4 (2002::/16) and its relays are deprecated (RFC 7526), Teredo (2001::/32)
// reaches its client only through a relay and carries both a server and an obfuscated
// client address, IPv4-compatible addresses (::a.b.c.d) were deprecated by RFC 4291, and
// the local-use NAT64 prefix (64:ff9b:1::/48) belongs to whatever translator the network
// runs. No legitimate receiver needs them; any of them can lead to an internal IPv4 host
// through a tunnel or translator of the deployment's own network. The well-known NAT64
// prefix 64:ff9b::/96 is the one exception (see CheckAddr): with DNS64 it is how every
// IPv4-only public receiver resolves, so it is judged by the IPv4 address it carries.
var special6 = []addrRange{
	r("::/128", "unspecified"),
	r("::1/128", "loopback"),
	r("::/96", "IPv4-compatible"),
	r("64:ff9b:1::/48", "local-use NAT64"),
	r("100::/64", "discard-only"),
	r("100:0:0:1::/64", "dummy prefix"),
	r("2001::/32", "Teredo"),
	r("2001::/23", "IETF protocol assignments"),
	r("2001:db8::/32", "documentation"),
	r("2002::/16", "6to4"),
	r("2620:4f:8000::/48", "AS112 direct delegation"),
	r("3fff::/20", "documentation"),
	r("5f00::/16", "SRv6 SIDs"),
	r("fc00::/7", "unique local"),
	r("fe80::/10", "link-local"),
	r("fec0::/10", "site-local"),
	r("ff00::/8", "multicast"),
}

var (
	// nat64WellKnown is the well-known NAT64 prefix (RFC 6052); see CheckAddr.
	nat64WellKnown = netip.MustParsePrefix("64:ff9b::/96")
	// globalUnicast6 is the only IPv6 block IANA allocates to registries; everything outside
	// it is reserved or special.
	globalUnicast6 = netip.MustParsePrefix("2000::/3")
)
