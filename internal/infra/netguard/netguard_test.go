package netguard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"paycore/internal/infra/netguard/netguardtest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Every form named in the SSRF report, and the rest of the special-purpose registries.
var blockedAddrs = []string{
	// zones: the original bypass (Prefix.Contains is false for a zoned address)
	"::1%lo", "fe80::1%eth0", "fd00::1%lo", "ff02::1%lo", "2606:4700::1111%eth0", "::ffff:127.0.0.1%lo",
	// IPv4 transition embeddings
	"::127.0.0.1", "::8.8.8.8", // IPv4-compatible, refused whatever they carry
	"2002:7f00:1::", "2002:a00:1::", "2002:808:808::", // 6to4
	"::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", // IPv4-mapped private
	"64:ff9b::7f00:1", "64:ff9b::a00:1", "64:ff9b::a9fe:a9fe", "64:ff9b:1::808:808", // NAT64
	"2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001::53aa:64c:1:2", // Teredo (RFC 4380 example; any)
	// IPv4 special-purpose registry
	"0.0.0.0", "0.1.2.3", "10.1.2.3", "100.64.0.1", "100.127.255.254", "127.0.0.1", "127.255.255.254",
	"169.254.169.254", "172.16.0.1", "172.31.255.255", "192.0.0.9", "192.0.0.170", "192.0.2.1",
	"192.31.196.1", "192.52.193.1", "192.88.99.1", "192.168.1.1", "192.175.48.1", "198.18.0.1",
	"198.19.255.255", "198.51.100.7", "203.0.113.9", "224.0.0.1", "239.255.255.250", "240.0.0.1",
	"255.255.255.255",
	// IPv6 special-purpose registry and the rest of the non-global space
	"::", "::1", "100::1", "100:0:0:1::1", "2001:1::1", "2001:2::1", "2001:3::1", "2001:4:112::1",
	"2001:10::1", "2001:20::1", "2001:30::1", "2001:db8::1", "2620:4f:8000::1", "3fff::1", "3fff:fff::1",
	"5f00::1", "fc00::1", "fd00::1", "fe80::1", "febf::1", "fec0::1", "ff02::1", "ff0e::1",
	"4000::1", "e000::1", "1::1",
}

var publicAddrs = []string{
	"1.1.1.1", "8.8.8.8", "93.184.216.34", "192.0.1.1", "192.0.3.1", "100.63.255.255", "100.128.0.1",
	"172.15.255.255", "172.32.0.1", "198.17.255.255", "198.20.0.1", "223.255.255.255",
	"2606:4700::1111", "2606:4700:4700::1111", "2a00:1450:4001:80b::200e", "2001:4860:4860::8888",
	"::ffff:8.8.8.8",   // IPv4-mapped public: the resolver returns IPv4 answers this way
	"64:ff9b::808:808", // well-known NAT64 of a public address (DNS64 networks)
	"2620:4f:8001::1",  // next to AS112
	"3fff:1000::1",     // after the 3fff::/20 documentation block
	"2003::1",          // after 6to4
	"2001:db9::1",      // after documentation
	"2001:0200::1",     // after the IETF protocol assignments (2001::/23)
	"2c0f:f248::1",     // still 2000::/3
}

func TestCheckAddr(t *testing.T) {
	for _, s := range blockedAddrs {
		if err := CheckAddr(netip.MustParseAddr(s)); !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("%s allowed", s)
		}
	}
	for _, s := range publicAddrs {
		if err := CheckAddr(netip.MustParseAddr(s)); err != nil {
			t.Errorf("%s blocked: %v", s, err)
		}
	}
	if err := CheckAddr(netip.Addr{}); !errors.Is(err, ErrBlockedAddress) {
		t.Error("the zero address is allowed")
	}
}

// The refusal names the reason, so a platform can fix its URL.
func TestCheckAddrNamesTheRange(t *testing.T) {
	for addr, want := range map[string]string{
		"::1%lo":          "zone",
		"2002:7f00:1::":   "6to4",
		"::127.0.0.1":     "IPv4-compatible",
		"64:ff9b::7f00:1": "loopback",
		"2001::1":         "Teredo",
		"192.88.99.1":     "6to4 relay",
		"fec0::1":         "site-local",
	} {
		if err := CheckAddr(netip.MustParseAddr(addr)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want it to mention %q", addr, err, want)
		}
	}
}

type fakeResolver map[string][]netip.Addr

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := f[strings.TrimSuffix(host, ".")]; ok {
		return a, nil
	}
	return nil, errors.New("no such host")
}

var testResolver = fakeResolver{
	"public.example":   {netip.MustParseAddr("93.184.216.34")},
	"v6.example":       {netip.MustParseAddr("2606:4700::1111"), netip.MustParseAddr("::ffff:93.184.216.34")},
	"internal.example": {netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.0.0.5")},
	"zoned.example":    {netip.MustParseAddr("fe80::1%eth0")},
	"nat64.example":    {netip.MustParseAddr("64:ff9b::a9fe:a9fe")},
	"teredo.example":   {netip.MustParseAddr("2001:0:4136:e378:8000:63bf:3fff:fdd2")},
	"empty.example":    {},
	"printer.local":    {netip.MustParseAddr("93.184.216.34")},
	"foo.localhost":    {netip.MustParseAddr("93.184.216.34")},
}

func TestValidateURL(t *testing.T) {
	ctx := context.Background()
	ok := []string{"https://public.example/hook", "https://public.example./hook", "https://93.184.216.34:8443/x",
		"https://[2606:4700::1111]/h", "https://8.8.8.8/", "https://v6.example/", "https://[::ffff:8.8.8.8]/",
		"https://[64:ff9b::808:808]/", "https://public.example:65535/"}
	for _, u := range ok {
		if err := ValidateURL(ctx, testResolver, u, true, false); err != nil {
			t.Errorf("%s refused: %v", u, err)
		}
	}
	bad := []string{
		"http://public.example/hook", "ftp://public.example/", "https://", "not a url", "https:public.example",
		"https://user:pw@public.example/", "https://public.example/#frag", "https://public.example:0/",
		// the forms of the report
		"https://[::1%25lo]:8443/h", "https://[fe80::1%25eth0]/", "https://[fd00::1%25lo]/", "https://[ff02::1%25lo]/",
		"https://[::127.0.0.1]/", "https://[2002:7f00:1::]/", "https://[2606:4700::1111%25eth0]/",
		"https://[::ffff:127.0.0.1]/", "https://[0:0:0:0:0:ffff:7f00:1]/", "https://[64:ff9b::7f00:1]/",
		"https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "https://127.0.0.1/", "https://169.254.169.254/latest",
		"https://[::1]/", "https://[::]/", "https://0.0.0.0/", "https://192.88.99.1/", "https://255.255.255.255/",
		// numeric hosts in the forms a resolver's inet_aton accepts
		"https://2130706433/", "https://0x7f.1/", "https://017700000001/", "https://127.1/", "https://0x7f000001/",
		"https://0177.0.0.1/", "https://127.0.0.1./", "https://127.000.000.001/", "https://0/", "https://0x/",
		"https://134744072/", "https://0x08.0x08.0x08.0x08/", // 8.8.8.8, but not as a dotted quad
		"https://example.123/", "https://1.2.3.4.5/", "https://4294967296/",
		// names
		"https://localhost/", "https://localhost./", "https://LOCALHOST/", "https://foo.localhost/", "https://printer.local/",
		"https://internal.example/", "https://zoned.example/", "https://nat64.example/", "https://teredo.example/",
		"https://empty.example/", "https://unknown.example/", "https://bad_host-.example/", "https://b\u00fccher.example/",
		"https://127.0.0.1%25lo/",
	}
	for _, u := range bad {
		if err := ValidateURL(ctx, testResolver, u, true, false); err == nil {
			t.Errorf("%s accepted", u)
		}
	}
	// Sandbox platforms of a development stack may use loopback.
	if err := ValidateURL(ctx, testResolver, "http://127.0.0.1:9000/hook", false, true); err != nil {
		t.Errorf("sandbox localhost refused: %v", err)
	}
}

// A name that does not resolve and a name that resolves to a private address are refused
// with the same words: the answer must not map the internal DNS.
func TestValidateURLDoesNotMapInternalDNS(t *testing.T) {
	ctx := context.Background()
	missing := ValidateURL(ctx, testResolver, "https://unknown.example/", true, false)
	private := ValidateURL(ctx, testResolver, "https://internal.example/", true, false)
	if missing == nil || private == nil {
		t.Fatalf("accepted: %v %v", missing, private)
	}
	if strings.Replace(missing.Error(), "unknown", "internal", 1) != private.Error() {
		t.Fatalf("the answers differ:\n%s\n%s", missing, private)
	}
	if strings.Contains(private.Error(), "10.0.0.5") {
		t.Fatalf("the private address is named: %s", private)
	}
}

func TestParseLegacyIPv4(t *testing.T) {
	for in, want := range map[string]string{
		"2130706433": "127.0.0.1", "0x7f.1": "127.0.0.1", "017700000001": "127.0.0.1", "127.1": "127.0.0.1",
		"0x7f000001": "127.0.0.1", "0177.0.0.01": "127.0.0.1", "127.0.0.1.": "127.0.0.1", "0": "0.0.0.0",
		"10.0x10203": "10.1.2.3", "192.168.257": "192.168.1.1", "0xA9.0xFE.0xA9.0xFE": "169.254.169.254",
		"4294967295": "255.255.255.255", "0x": "0.0.0.0",
	} {
		if a, ok := parseLegacyIPv4(in); !ok || a.String() != want {
			t.Errorf("%s: %v %v, want %s", in, a, ok, want)
		}
	}
	for _, in := range []string{"4294967296", "256.1.1.1", "1.2.3.4.5", "08", "0x1g", "1..2", "", "127.0.0.256", "1.16777216"} {
		if a, ok := parseLegacyIPv4(in); ok {
			t.Errorf("%s parsed as %s", in, a)
		}
	}
}

// The connect-time check must refuse loopback even when the URL passed validation earlier
// (for instance a hostname re-pointed at 127.0.0.1).
func TestDialerRefusesAtConnectTime(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) }))
	defer srv.Close()
	guarded := &http.Client{Transport: &http.Transport{DialContext: Dialer(false, time.Second).DialContext}}
	_, err := guarded.Get(srv.URL)
	if !errors.Is(err, ErrBlockedAddress) {
		t.Fatalf("want ErrBlockedAddress, got %v", err)
	}
	// "localhost" resolves at dial time and is refused too.
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	if _, err := guarded.Get("http://localhost:" + port); !errors.Is(err, ErrBlockedAddress) {
		t.Fatalf("localhost: want ErrBlockedAddress, got %v", err)
	}
	open := &http.Client{Transport: &http.Transport{DialContext: Dialer(true, time.Second).DialContext}}
	resp, err := open.Get(srv.URL)
	if err != nil {
		t.Fatalf("allowPrivate dialer: %v", err)
	}
	resp.Body.Close()
}

// An IPv6 loopback receiver reached through a zoned literal ([::1%lo], the address of the
// report) is refused when the socket is about to connect.
func TestDialerRefusesZonedAddresses(t *testing.T) {
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback: %v", err)
	}
	var hits atomic.Int32
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(204)
	})}}
	srv.Start()
	defer srv.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	zoned := "http://[::1%25lo]:" + port + "/h"
	// The zoned address does reach the receiver when nothing guards the dial ...
	open := &http.Client{Transport: &http.Transport{DialContext: Dialer(true, time.Second).DialContext}}
	resp, err := open.Get(zoned)
	if err != nil {
		t.Skipf("the zoned loopback address is not reachable here: %v", err)
	}
	resp.Body.Close()
	if hits.Load() != 1 {
		t.Fatal("receiver not reached")
	}
	// ... and never through the guarded dialer, whatever the form.
	guarded := &http.Client{Transport: &http.Transport{DialContext: Dialer(false, time.Second).DialContext}}
	for _, u := range []string{zoned, "http://[::1]:" + port + "/h", "http://[::ffff:127.0.0.1]:" + port + "/h"} {
		if _, err := guarded.Get(u); !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("%s: want ErrBlockedAddress, got %v", u, err)
		}
	}
	for _, addr := range []string{"[fe80::1%lo]:80", "[fd00::1%lo]:80", "[ff02::1%lo]:80", "[::127.0.0.1]:80", "[2002:7f00:1::]:80"} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := Dialer(false, time.Second).DialContext(ctx, "tcp", addr)
		cancel()
		if err == nil {
			conn.Close()
		}
		if !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("%s: want ErrBlockedAddress, got %v", addr, err)
		}
	}
	if hits.Load() != 1 {
		t.Fatalf("the guarded client reached the receiver (%d requests)", hits.Load())
	}
}

// An opaque client reports a refused port, a reset connection, a silent peer, a failed name
// lookup and a refused address in the same words.
func TestOpaqueClientHidesTransportDetail(t *testing.T) {
	dead := netguardtest.DeadAddrs(t, 2*time.Second)
	refused, silent, reset := dead["refused"], dead["time-out"], dead["reset"]
	answer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(503) }))
	defer answer.Close()

	local := NewClient(ClientOptions{AllowPrivate: true, Timeout: 300 * time.Millisecond, Opaque: true})
	guarded := NewClient(ClientOptions{Timeout: 300 * time.Millisecond, Opaque: true})
	cases := []struct {
		name   string
		client *http.Client
		url    string
	}{
		{"refused", local, "http://" + refused + "/h"},
		{"time-out", local, "http://" + silent + "/h"},
		{"reset", local, "http://" + reset + "/h"},
		{"dns", local, "http://name.invalid/h"},
		{"blocked", guarded, answer.URL + "/h"},
	}
	for _, tc := range cases {
		_, err := tc.client.Get(tc.url)
		want := `Get "` + tc.url + `": ` + NoAnswer
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", tc.name, err, want)
		}
		var te *TransportError
		if !errors.As(err, &te) || Cause(err) == nil || Cause(err).Error() == NoAnswer {
			t.Errorf("%s: the cause is lost: %v", tc.name, err)
		}
	}
	if _, err := guarded.Get(answer.URL); !errors.Is(err, ErrBlockedAddress) {
		t.Errorf("blocked: errors.Is(ErrBlockedAddress) is false: %v", Cause(err))
	}
	// An HTTP answer is an answer, whatever its status.
	resp, err := local.Get(answer.URL)
	if err != nil || resp.StatusCode != 503 {
		t.Fatalf("answer: %v %v", resp, err)
	}
	resp.Body.Close()
	// The same failures keep their detail on a client that is not opaque (sandbox).
	detailed := NewClient(ClientOptions{AllowPrivate: true, Timeout: 300 * time.Millisecond})
	if _, err := detailed.Get("http://" + refused + "/h"); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("sandbox detail lost: %v", err)
	}
}
