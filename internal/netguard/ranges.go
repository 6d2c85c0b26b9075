package netguard

import "net/netip"

// blockedRange is an address range no probe of a server registered by a stranger may reach,
// with what it is.
type blockedRange struct {
	prefix netip.Prefix
	what   string
}

// blockedRanges lists the ranges refused unless the operator allows them: everything that is
// not a public unicast address, after the IANA IPv4 and IPv6 Special-Purpose Address
// Registries (RFC 6890 and its updates), the multicast ranges, and cloud addresses that
// answer the machine rather than the internet. IPv6 forms that carry an IPv4 address (mapped,
// compatible, translated, NAT64) are judged by that address too (see embedded4), so the IPv4
// list covers them.
func blockedRanges() []blockedRange {
	list := []struct{ cidr, what string }{
		{"0.0.0.0/8", "the unspecified or \"this\" network"},
		{"10.0.0.0/8", "a private network"},
		{"100.64.0.0/10", "carrier-grade NAT (and cloud metadata such as 100.100.100.200)"},
		{"127.0.0.0/8", "loopback"},
		{"168.63.129.16/32", "the Azure wire server (platform metadata and agent channel)"},
		{"169.254.0.0/16", "link-local (and cloud metadata such as 169.254.169.254)"},
		{"172.16.0.0/12", "a private network"},
		{"192.0.0.0/24", "IETF protocol assignments (and cloud metadata such as 192.0.0.192)"},
		{"192.0.2.0/24", "documentation"},
		{"192.31.196.0/24", "AS112 (DNS sink for private names)"},
		{"192.52.193.0/24", "AMT relay anycast"},
		{"192.88.99.0/24", "6to4 relay anycast"},
		{"192.168.0.0/16", "a private network"},
		{"192.175.48.0/24", "AS112 direct delegation (DNS sink)"},
		{"198.18.0.0/15", "benchmarking"},
		{"198.51.100.0/24", "documentation"},
		{"203.0.113.0/24", "documentation"},
		{"224.0.0.0/4", "multicast"},
		{"240.0.0.0/4", "reserved (and broadcast)"},
		{"::/128", "the unspecified address"},
		{"::1/128", "loopback"},
		{"64:ff9b:1::/48", "local-use NAT64"},
		{"100::/64", "discard-only"},
		{"100:0:0:1::/64", "the dummy IPv6 prefix"},
		{"2001::/23", "IETF protocol assignments (Teredo, benchmarking, AMT, AS112, ORCHID)"},
		{"2001:db8::/32", "documentation"},
		{"2002::/16", "6to4"},
		{"2620:4f:8000::/48", "AS112 direct delegation (DNS sink)"},
		{"3fff::/20", "documentation"},
		{"5f00::/16", "segment routing (SRv6) SIDs"},
		{"fc00::/7", "unique-local (and cloud metadata such as fd00:ec2::254)"},
		{"fe80::/10", "link-local"},
		{"fec0::/10", "site-local"},
		{"ff00::/8", "multicast"},
	}
	out := make([]blockedRange, len(list))
	for i, r := range list {
		out[i] = blockedRange{netip.MustParsePrefix(r.cidr), r.what}
	}
	return out
}

// embedded4 is the IPv4 address an IPv6 address carries in its last 32 bits, for the forms
// whose connection (by the kernel, a translator or a tunnel) may reach that IPv4 address:
// IPv4-mapped (::ffff:0:0/96), the deprecated IPv4-compatible (::/96, e.g. ::127.0.0.1),
// SIIT's IPv4-translated (::ffff:0:0:0/96) and the well-known NAT64 prefix (64:ff9b::/96).
// ok is false for any other address. 6to4 (2002::/16) and Teredo, which carry one elsewhere,
// are refused whole.
func embedded4(a netip.Addr) (v4 netip.Addr, ok bool) {
	a = a.WithZone("")
	if a.Is4() {
		return netip.Addr{}, false
	}
	if a.Is4In6() {
		return a.Unmap(), true
	}
	for _, cidr := range []string{"::/96", "::ffff:0:0:0/96", "64:ff9b::/96"} {
		if netip.MustParsePrefix(cidr).Contains(a) {
			b := a.As16()
			return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), true
		}
	}
	return netip.Addr{}, false
}
