package netguard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"
)

func TestCheckAddr(t *testing.T) {
	for _, s := range []string{"127.0.0.1", "10.1.2.3", "172.20.0.1", "192.168.1.1", "169.254.169.254",
		"100.64.0.1", "0.0.0.0", "::1", "fe80::1", "fd00::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "224.0.0.1"} {
		if err := CheckAddr(netip.MustParseAddr(s)); !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("%s allowed", s)
		}
	}
	for _, s := range []string{"8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "93.184.216.34"} {
		if err := CheckAddr(netip.MustParseAddr(s)); err != nil {
			t.Errorf("%s blocked: %v", s, err)
		}
	}
}

type fakeResolver map[string][]netip.Addr

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := f[host]; ok {
		return a, nil
	}
	return nil, errors.New("no such host")
}

func TestValidateURL(t *testing.T) {
	r := fakeResolver{
		"public.example":   {netip.MustParseAddr("93.184.216.34")},
		"internal.example": {netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.0.0.5")},
	}
	ctx := context.Background()
	ok := []string{"https://public.example/hook", "https://93.184.216.34:8443/x"}
	for _, u := range ok {
		if err := ValidateURL(ctx, r, u, true, false); err != nil {
			t.Errorf("%s refused: %v", u, err)
		}
	}
	bad := []string{"http://public.example/hook", "https://internal.example/", "https://127.0.0.1/",
		"https://localhost/", "https://[::1]/", "ftp://public.example/", "https://", "not a url",
		"https://user:pw@public.example/", "https://unknown.example/", "https://169.254.169.254/latest"}
	for _, u := range bad {
		if err := ValidateURL(ctx, r, u, true, false); err == nil {
			t.Errorf("%s accepted", u)
		}
	}
	if err := ValidateURL(ctx, r, "http://127.0.0.1:9000/hook", false, true); err != nil {
		t.Errorf("sandbox localhost refused: %v", err)
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
