package lightning

import (
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
