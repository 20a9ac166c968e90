package uma

import (
	"errors"
	"net/url"
	"testing"
	"time"
)

// A request with every UMA parameter is an UMA request of its host's user; with none, a
// plain LNURL-pay request; with some, refused; in another major version, refused with the
// versions spoken (UMAD-08).
func TestParseLnurlpRequest(t *testing.T) {
	k := newKey(t)
	r := NewLnurlpRequest(k, "$bob@vasp2.example", "vasp1.example", false, time.Unix(1_700_000_000, 0))
	u, err := r.URL()
	if err != nil {
		t.Fatal(err)
	}
	parsed, _ := url.Parse(u)
	got, isUma, err := ParseLnurlpRequest("vasp2.example", "$bob", parsed.Query())
	if err != nil || !isUma || got != r {
		t.Fatalf("read back %+v (%v, %v), sent %+v", got, isUma, err, r)
	}
	if err := k.Public().Verify(got.SignablePayload(), got.Signature); err != nil {
		t.Fatal(err)
	}
	if _, isUma, err := ParseLnurlpRequest("vasp2.example", "bob", url.Values{}); isUma || err != nil {
		t.Errorf("a plain LNURL-pay request: %v %v", isUma, err)
	}
	for name, tc := range map[string]struct {
		user string
		q    url.Values
		want error
	}{
		"some parameters": {"$bob", url.Values{"nonce": {"1"}, "signature": {"ab"}}, ErrMissingParameters},
		"bad timestamp":   {"$bob", with(parsed.Query(), "timestamp", "soon"), ErrInvalidTimestamp},
		"bad user":        {"$bo/b", parsed.Query(), ErrInvalidAddress},
		"empty user":      {"", parsed.Query(), ErrInvalidAddress},
		"another major":   {"$bob", with(parsed.Query(), "umaVersion", "2.0"), &UnsupportedVersionError{}},
		"not a version":   {"$bob", with(parsed.Query(), "umaVersion", "one"), &UnsupportedVersionError{}},
	} {
		_, _, err := ParseLnurlpRequest("vasp2.example", tc.user, tc.q)
		var uv *UnsupportedVersionError
		if _, wantVersion := tc.want.(*UnsupportedVersionError); wantVersion && !errors.As(err, &uv) || !wantVersion && !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}
	if v, err := NegotiateVersion("1.3"); v != "1.0" || err != nil {
		t.Errorf("1.3 negotiated to %q, %v", v, err)
	}
}

func with(q url.Values, k, v string) url.Values {
	c := url.Values{}
	for key, vals := range q {
		c[key] = append([]string(nil), vals...)
	}
	c.Set(k, v)
	return c
}

// Addresses are "$user@domain"; local domains are reached over http, others over https.
func TestAddressesAndSchemes(t *testing.T) {
	if u, d, err := SplitAddress("$bob@vasp2.example"); err != nil || u != "$bob" || d != "vasp2.example" || !ValidDomain("localhost:8080") {
		t.Errorf("split: %q %q %v", u, d, err)
	}
	for _, bad := range []string{"bob@vasp2.example", "$@vasp2.example", "$bob@", "$bob", "$b/ob@x", "$bob@x/y", "$bob@a@b", "$bob@x\x00y",
		"$bob@x\xffy", "$bob@x y", "$bob@-x", "$bob@x:port"} {
		if _, _, err := SplitAddress(bad); !errors.Is(err, ErrInvalidAddress) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	for domain, want := range map[string]string{"vasp2.example": "https", "localhost:8080": "http", "127.0.0.1": "http", "bank.internal": "http",
		"wallet.local:9": "http", "localhost.example": "https"} {
		if got := Scheme(domain); got != want {
			t.Errorf("Scheme(%s) = %s", domain, got)
		}
	}
}

// A host under the proxy domain names one platform's proxy subdomain: one DNS label, any
// case, a port ignored; nothing else does.
func TestProxySubdomain(t *testing.T) {
	for host, want := range map[string]string{
		"acme.uma.example.net": "acme", "ACME.uma.Example.net:443": "acme", "a-1.uma.example.net": "a-1",
		"uma.example.net": "", "a.b.uma.example.net": "", "-a.uma.example.net": "", "acme.example.net": "", "a_b.uma.example.net": "",
	} {
		got, ok := ProxySubdomain(host, "uma.example.net")
		if got != want || ok != (want != "") {
			t.Errorf("%s: %q %v, want %q", host, got, ok, want)
		}
	}
	if _, ok := ProxySubdomain("acme.uma.example.net", ""); ok {
		t.Error("a subdomain without a proxy domain")
	}
}
