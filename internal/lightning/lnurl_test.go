package lightning

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAddressURL(t *testing.T) {
	for in, want := range map[string]string{
		"alice@example.com":     "https://example.com/.well-known/lnurlp/alice",
		" Bob.B+1@Pay.Example ": "https://pay.example/.well-known/lnurlp/bob.b+1",
		"carol@localhost:8443":  "https://localhost:8443/.well-known/lnurlp/carol",
		"no-at-sign":            "",
		"@example.com":          "",
		"eve@":                  "",
		"eve@example.com/path":  "",
		"eve@user@example.com":  "",
		"ev il@example.com":     "",
	} {
		got, err := AddressURL(in)
		if (err != nil) != (want == "") || got != want {
			t.Errorf("AddressURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// A pay request is taken only when it is one, with an https callback, amounts that make
// sense and metadata that is a JSON array; a service's refusal is said.
func TestParsePayRequest(t *testing.T) {
	good := `{"tag":"payRequest","callback":"https://pay.example/cb?u=alice","minSendable":1000,"maxSendable":100000000,"metadata":"[[\"text/plain\",\"alice\"]]"}`
	p, err := ParsePayRequest([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	cb, err := p.CallbackURL(21_000)
	if err != nil || cb != "https://pay.example/cb?amount=21000000&u=alice" {
		t.Fatalf("callback %q %v", cb, err)
	}
	if _, err := p.CallbackURL(200_000); err == nil {
		t.Fatal("an amount above maxSendable was asked for")
	}
	for name, body := range map[string]string{
		"refusal":       `{"status":"ERROR","reason":"no such user"}`,
		"garbage":       `<html>nope</html>`,
		"another tag":   strings.Replace(good, "payRequest", "withdrawRequest", 1),
		"http callback": strings.Replace(good, "https://pay.example", "http://pay.example", 1),
		"no amounts":    strings.Replace(good, `"minSendable":1000`, `"minSendable":0`, 1),
		"max below min": strings.Replace(good, `"maxSendable":100000000`, `"maxSendable":10`, 1),
		"metadata":      strings.Replace(good, `"[[\"text/plain\",\"alice\"]]"`, `"plain"`, 1),
	} {
		if _, err := ParsePayRequest([]byte(body)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := ParseInvoiceAnswer([]byte(`{"status":"ERROR","reason":"amount too low"}`)); err == nil || !strings.Contains(err.Error(), "amount too low") {
		t.Errorf("refused invoice: %v", err)
	}
	if pr, err := ParseInvoiceAnswer([]byte(`{"pr":"lnbcrt1x","routes":[]}`)); err != nil || pr != "lnbcrt1x" {
		t.Errorf("invoice answer: %q %v", pr, err)
	}
	// The invoice must be for the amount asked and commit to the metadata.
	if err := CheckAddressInvoice(p, Invoice{AmountMsat: 21_000_000}, p.DescriptionHash(), 21_000); err != nil {
		t.Errorf("the right invoice: %v", err)
	}
	if err := CheckAddressInvoice(p, Invoice{AmountMsat: 22_000_000}, p.DescriptionHash(), 21_000); err == nil {
		t.Error("an invoice for another amount was taken")
	}
	if err := CheckAddressInvoice(p, Invoice{AmountMsat: 21_000_000}, strings.Repeat("0", 64), 21_000); err == nil {
		t.Error("an invoice committing to other metadata was taken")
	}
}

// A customer's address answers a pay request committing to its identifier, and takes
// whole satoshis within its bounds.
func TestAddressPayRequest(t *testing.T) {
	p := AddressPayRequest("https://pay.example/.well-known/lnurlp/alice/callback", "Alice", "Pay.Example")
	if _, err := ParsePayRequest(mustJSON(t, p)); err != nil || !strings.Contains(p.Metadata, `"text/identifier","alice@pay.example"`) {
		t.Fatalf("pay request %+v: %v", p, err)
	}
	if UmaAddressOf("Alice", "Pay.Example") != "$alice@pay.example" {
		t.Fatal(UmaAddressOf("Alice", "Pay.Example"))
	}
	for msat, want := range map[string]int64{"2000000": 2000, "1000": 1, "999": -1, "1500": -1, "x": -1, "10000000001000": -1} {
		got, err := ReceiveAmount(msat)
		if (err != nil) != (want < 0) || (want >= 0 && got != want) {
			t.Errorf("ReceiveAmount(%s) = %d, %v", msat, got, err)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
