package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// fakeResolver answers names from a table; a name with several answers gives them in turn,
// the way a rebinding DNS server changes its answer between two lookups.
type fakeResolver struct {
	answers map[string][][]netip.Addr
	calls   atomic.Int64
}

func (r *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	n := r.calls.Add(1) - 1
	as, ok := r.answers[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return as[min(int(n), len(as)-1)], nil
}

func addrs(ss ...string) []netip.Addr {
	out := make([]netip.Addr, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParseAddr(s)
	}
	return out
}

// loopbackOnly is the dialer every test uses beneath the guard: should the guard ever let an
// address through that it must not, this refuses it before a packet leaves the machine (the
// tests may only reach loopback addresses), and records that it had to.
func loopbackOnly(t *testing.T) *net.Dialer {
	return &net.Dialer{Timeout: 5 * time.Second, Control: func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil || !ap.Addr().Unmap().IsLoopback() {
			t.Errorf("the guard let a connection to %s through", address)
			return errors.New("test dialer: not loopback")
		}
		return nil
	}}
}

// The guard's decision alone: nothing is dialled, and no address of these tables is ever sent
// a packet.
func TestCheckRefusesInternalAddressesAndAllowsPublicOnes(t *testing.T) {
	t.Parallel()
	g := New(Config{})
	for _, tc := range []struct {
		addr string
		why  string // in the error; "" when the address is allowed
	}{
		{"127.0.0.1", "loopback"},
		{"127.8.9.10", "loopback"},
		{"10.1.2.3", "private"},
		{"172.16.0.1", "private"},
		{"172.31.255.254", "private"},
		{"192.168.1.1", "private"},
		{"169.254.169.254", "link-local"},
		{"169.254.0.1", "link-local"},
		{"100.64.0.1", "carrier-grade NAT"},
		{"100.100.100.200", "carrier-grade NAT"},
		{"168.63.129.16", "Azure wire server"},
		{"0.0.0.0", "unspecified"},
		{"255.255.255.255", "broadcast"},
		{"224.0.0.251", "multicast"},
		{"198.18.0.1", "benchmarking"},
		{"192.0.0.192", "IETF protocol assignments"},
		{"192.0.2.1", "documentation"},
		{"192.31.196.1", "AS112"},
		{"192.52.193.1", "AMT"},
		{"192.88.99.1", "6to4 relay"},
		{"192.175.48.1", "AS112"},
		{"198.51.100.1", "documentation"},
		{"203.0.113.1", "documentation"},
		{"240.0.0.1", "reserved"},
		{"::1", "loopback"},
		{"::", "unspecified"},
		{"fe80::1", "link-local"},
		{"fe80::1%eth0", "link-local"},
		{"fd00:ec2::254", "unique-local"},
		{"fc00::1", "unique-local"},
		{"fec0::1", "site-local"},
		{"ff02::1", "multicast"},
		{"100::1", "discard-only"},
		{"100:0:0:1::1", "dummy"},
		{"2001::1", "Teredo"},
		{"2001:2::1", "IETF protocol assignments"},
		{"2001:4:112::1", "IETF protocol assignments"},
		{"2001:db8::1", "documentation"},
		{"2002:a00:1::1", "6to4"},
		{"2002:808:808::1", "6to4"},
		{"2620:4f:8000::1", "AS112"},
		{"3fff::1", "documentation"},
		{"5f00::1", "SRv6"},
		{"64:ff9b:1::1", "local-use NAT64"},
		// IPv6 forms carrying an IPv4 address are refused as that address is.
		{"::ffff:127.0.0.1", "loopback"},
		{"::ffff:10.0.0.1", "private"},
		{"::ffff:168.63.129.16", "Azure wire server"},
		{"::127.0.0.1", "loopback"},
		{"::10.0.0.1", "private"},
		{"::169.254.169.254", "link-local"},
		{"::0.0.0.2", "\"this\" network"},
		{"::ffff:0:127.0.0.1", "loopback"},
		{"::ffff:0:192.168.0.1", "private"},
		{"64:ff9b::a9fe:a9fe", "link-local"},
		{"64:ff9b::7f00:1", "loopback"},
		{"64:ff9b::168.63.129.16", "Azure wire server"},
		// Public unicast, in whatever form.
		{"8.8.8.8", ""},
		{"1.1.1.1", ""},
		{"93.184.216.34", ""},
		{"168.63.129.15", ""},
		{"168.63.129.17", ""},
		{"172.32.0.1", ""},
		{"100.128.0.1", ""},
		{"192.0.1.1", ""},
		{"2606:4700:4700::1111", ""},
		{"2001:200::1", ""},
		{"2620:4f:8001::1", ""},
		{"::ffff:8.8.8.8", ""},
		{"::8.8.8.8", ""},
		{"64:ff9b::808:808", ""},
	} {
		err := g.Check(netip.MustParseAddr(tc.addr))
		switch {
		case tc.why == "" && err != nil:
			t.Errorf("Check(%s) = %v, want allowed", tc.addr, err)
		case tc.why != "" && (!errors.Is(err, ErrBlocked) || !strings.Contains(err.Error(), tc.why)):
			t.Errorf("Check(%s) = %v, want ErrBlocked naming %q", tc.addr, err, tc.why)
		}
	}
}

func TestAllowListOpensOnlyItsRanges(t *testing.T) {
	t.Parallel()
	allow, err := ParseAllow("10.0.0.0/8, 192.168.7.7 ,fd12::/16")
	if err != nil {
		t.Fatal(err)
	}
	g := New(Config{Allow: allow})
	for a, want := range map[string]bool{
		"10.9.9.9": true, "::ffff:10.9.9.9": true, "192.168.7.7": true, "192.168.7.8": false,
		"fd12::1": true, "fd13::1": false, "127.0.0.1": false, "169.254.169.254": false,
	} {
		if got := g.Check(netip.MustParseAddr(a)) == nil; got != want {
			t.Errorf("Check(%s) allowed = %v, want %v", a, got, want)
		}
	}
	for _, bad := range []string{"10.0.0.0/33", "not-an-ip", "10.0.0.0/8/8"} {
		if _, err := ParseAllow(bad); err == nil {
			t.Errorf("ParseAllow(%q) succeeded", bad)
		}
	}
}

func TestCheckURLRefusesInternalTargetsAndURLsThatCannotBeStored(t *testing.T) {
	t.Parallel()
	res := &fakeResolver{answers: map[string][][]netip.Addr{
		"public.test":   {addrs("93.184.216.34")},
		"internal.test": {addrs("10.0.0.7")},
		"mixed.test":    {addrs("93.184.216.34", "192.168.0.10")},
		"metadata.test": {addrs("169.254.169.254")},
		"v6local.test":  {addrs("::1")},
	}}
	g := New(Config{Resolver: res})
	ctx := t.Context()
	for raw, want := range map[string]error{
		"https://public.test/mcp":                    nil,
		"http://93.184.216.34:8080/mcp":              nil,
		"http://127.0.0.1:8080/mcp":                  ErrBlocked,
		"http://[::1]/mcp":                           ErrBlocked,
		"http://169.254.169.254/latest/meta-data":    ErrBlocked,
		"http://[::ffff:169.254.169.254]/":           ErrBlocked,
		"http://[::127.0.0.1]:8080/mcp":              ErrBlocked,
		"http://[64:ff9b::a9fe:a9fe]/":               ErrBlocked,
		"http://168.63.129.16/machine":               ErrBlocked,
		"http://10.0.0.1/":                           ErrBlocked,
		"https://internal.test/mcp":                  ErrBlocked,
		"https://mixed.test/mcp":                     ErrBlocked,
		"https://metadata.test/":                     ErrBlocked,
		"https://v6local.test/":                      ErrBlocked,
		"ftp://public.test/":                         ErrBadURL,
		"https://user:pw@public.test/":               ErrBadURL,
		"https:///nohost":                            ErrBadURL,
		"https://public.test/mcp#frag":               ErrBadURL,
		"https://public.test:99999/":                 ErrBadURL,
		"https://" + strings.Repeat("a", 3000) + "/": ErrBadURL,
	} {
		err := g.CheckURL(ctx, raw)
		if (want == nil) != (err == nil) || (want != nil && !errors.Is(err, want)) {
			t.Errorf("CheckURL(%.60s) = %v, want %v", raw, err, want)
		}
	}
	if err := g.CheckURL(ctx, "https://nxdomain.test/"); err == nil || errors.Is(err, ErrBlocked) {
		t.Errorf("CheckURL of a name that does not resolve = %v, want a resolution error", err)
	}
}

func TestDialContextDialsOnlyAllowedAddresses(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	res := &fakeResolver{answers: map[string][][]netip.Addr{
		"svc.test":      {addrs("127.0.0.1")},
		"internal.test": {addrs("10.0.0.7")},
		"both.test":     {addrs("10.0.0.7", "127.0.0.1")},
		"localhost":     {addrs("127.0.0.1", "::1")},
	}}
	ctx := t.Context()
	closed := New(Config{Resolver: res, Dialer: loopbackOnly(t)})
	open := New(Config{Resolver: res, Dialer: loopbackOnly(t), Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	for _, tc := range []struct {
		g       *Guard
		address string
		ok      bool
	}{
		{closed, "127.0.0.1:" + port, false},
		{closed, "svc.test:" + port, false},
		{closed, "localhost:" + port, false},
		{open, "127.0.0.1:" + port, true},
		{open, "svc.test:" + port, true},
		{open, "both.test:" + port, true}, // the internal answer is skipped, never dialled
		{open, "internal.test:" + port, false},
		{open, "127.0.0.2:" + port, false},
		{open, "10.0.0.7:" + port, false},
	} {
		conn, err := tc.g.DialContext(ctx, "tcp", tc.address)
		if tc.ok {
			if err != nil {
				t.Errorf("dial %s: %v", tc.address, err)
				continue
			}
			conn.Close()
		} else if !errors.Is(err, ErrBlocked) {
			t.Errorf("dial %s = %v, want ErrBlocked", tc.address, err)
		}
	}
	if _, err := open.DialContext(ctx, "udp", "127.0.0.1:"+port); !errors.Is(err, ErrBlocked) {
		t.Errorf("udp dial = %v, want ErrBlocked", err)
	}
}

// A name that resolved to an allowed address when it was registered and resolves to an
// internal one when it is probed is refused at the probe.
func TestDNSRebindingIsCaughtAtDialTime(t *testing.T) {
	t.Parallel()
	res := &fakeResolver{answers: map[string][][]netip.Addr{"rebind.test": {addrs("93.184.216.34"), addrs("127.0.0.1")}}}
	g := New(Config{Resolver: res, Dialer: loopbackOnly(t)})
	if err := g.CheckURL(t.Context(), "http://rebind.test:8080/mcp"); err != nil {
		t.Fatalf("registration: %v", err)
	}
	_, err := g.DialContext(t.Context(), "tcp", "rebind.test:8080")
	if !errors.Is(err, ErrBlocked) {
		t.Fatalf("dial after rebinding = %v, want ErrBlocked", err)
	}
}

func TestControlRefusesAtConnectTime(t *testing.T) {
	t.Parallel()
	g := New(Config{})
	if err := g.Control("tcp4", "127.0.0.1:80", nil); !errors.Is(err, ErrBlocked) {
		t.Errorf("Control(127.0.0.1) = %v", err)
	}
	if err := g.Control("tcp4", "93.184.216.34:443", nil); err != nil {
		t.Errorf("Control(public) = %v", err)
	}
	if err := g.Control("tcp", "garbage", nil); !errors.Is(err, ErrBlocked) {
		t.Errorf("Control(garbage) = %v", err)
	}
}

// Redirects go through the same dialer: an allowed server cannot send the client on to an
// internal address, by literal address or by name.
func TestGuardedClientRefusesRedirectsToInternalAddresses(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "secret")
	}))
	defer target.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(target.URL, "http://"))
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	_, rport, _ := net.SplitHostPort(strings.TrimPrefix(redirector.URL, "http://"))
	res := &fakeResolver{answers: map[string][][]netip.Addr{
		"front.test":    {addrs("127.0.0.1")},
		"internal.test": {addrs("10.0.0.8")},
	}}
	// Only the redirector's address and port... the guard allows by address, so the target
	// sits on another loopback address that is not allowed.
	g := New(Config{Resolver: res, Dialer: loopbackOnly(t), Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	client := g.HTTPClient(5 * time.Second)
	front := "http://front.test:" + rport + "/?to="
	for _, to := range []string{
		"http://127.0.0.2:" + port + "/",
		"http://internal.test:" + port + "/",
		"http://169.254.169.254/latest/meta-data/",
		"http://[::1]:" + port + "/",
	} {
		resp, err := client.Get(front + url.QueryEscape(to))
		if err == nil {
			resp.Body.Close()
			t.Errorf("redirect to %s: got status %d, want a refused dial", to, resp.StatusCode)
			continue
		}
		if !errors.Is(err, ErrBlocked) {
			t.Errorf("redirect to %s: %v, want ErrBlocked", to, err)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("the internal target was reached %d times", hits.Load())
	}
	// The same client reaches the allowed server itself.
	resp, err := client.Get("http://front.test:" + rport + "/?to=" + url.QueryEscape("http://front.test:"+rport+"/x?to=/y"))
	if err == nil {
		resp.Body.Close()
	} else if !strings.Contains(err.Error(), "redirects") {
		t.Errorf("a loop between allowed URLs: %v, want the redirect bound", err)
	}
}
