package config

import "testing"

// PAYCORE_RESOLVE maps host:port to ip:port, case-insensitively by host; a malformed item
// stops the service at start.
func TestResolveSetting(t *testing.T) {
	c, err := LoadFrom(func(k string) string {
		if k == "PAYCORE_RESOLVE" {
			return "Pay.Acme.Internal:80=127.0.0.1:8081, vasp2.example:443=[::1]:9443"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.Resolve["pay.acme.internal:80"] != "127.0.0.1:8081" || c.Resolve["vasp2.example:443"] != "[::1]:9443" || len(c.Resolve) != 2 {
		t.Fatalf("resolve %v", c.Resolve)
	}
	for _, bad := range []string{"pay.acme.internal=127.0.0.1:80", "pay.acme.internal:80=localhost:80", "pay.acme.internal:80", "a:1=1.2.3.4"} {
		if loadWith("PAYCORE_RESOLVE", bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
