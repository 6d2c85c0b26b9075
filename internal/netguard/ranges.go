package netguard

import "net/netip"

// blockedRange is an address range no probe of a server registered by a stranger may reach,
// with what it is.
type blockedRange struct {
	prefix netip.Prefix
	what   string
}

// blockedRanges lists the ranges refused unless the operator allows them: everything that is
// not a public unicast address. IPv4-mapped and NAT64 IPv6 addresses are judged by the IPv4
// address they carry (see Blocked), so the IPv4 list covers them too.
func blockedRanges() []blockedRange {
	list := []struct{ cidr, what string }{
		{"0.0.0.0/8", "the unspecified or \"this\" network"},
		{"10.0.0.0/8", "a private network"},
		{"100.64.0.0/10", "carrier-grade NAT (and cloud metadata such as 100.100.100.200)"},
		{"127.0.0.0/8", "loopback"},
		{"169.254.0.0/16", "link-local (and cloud metadata such as 169.254.169.254)"},
		{"172.16.0.0/12", "a private network"},
		{"192.0.0.0/24", "IETF protocol assignments"},
		{"192.0.2.0/24", "documentation"},
		{"192.88.99.0/24", "6to4 relay anycast"},
		{"192.168.0.0/16", "a private network"},
		{"198.18.0.0/15", "benchmarking"},
		{"198.51.100.0/24", "documentation"},
		{"203.0.113.0/24", "documentation"},
		{"224.0.0.0/4", "multicast"},
		{"240.0.0.0/4", "reserved (and broadcast)"},
		{"::/128", "the unspecified address"},
		{"::1/128", "loopback"},
		{"64:ff9b:1::/48", "local-use NAT64"},
		{"100::/64", "discard-only"},
		{"2001::/32", "Teredo"},
		{"2001:db8::/32", "documentation"},
		{"2002::/16", "6to4"},
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

// effective is the address a connection to a would really reach, as far as can be told from
// the address alone.
func effective(a netip.Addr) netip.Addr {
	a = a.WithZone("")
	if a.Is4In6() {
		return a.Unmap()
	}
	// The well-known NAT64 prefix 64:ff9b::/96 reaches the IPv4 address in the last 32 bits.
	if nat64 := netip.MustParsePrefix("64:ff9b::/96"); nat64.Contains(a) {
		b := a.As16()
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	return a
}
