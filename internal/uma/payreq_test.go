package uma

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

// A pay request's amount is millisatoshis ("n") or smallest units of a currency ("n.CODE"),
// sent as a string or, by LNURL senders, a number.
func TestPayRequestAmount(t *testing.T) {
	for in, want := range map[string]struct {
		amount   int64
		currency string
	}{`"1000.USD"`: {1000, "USD"}, `"150000"`: {150000, ""}, `150000`: {150000, ""}} {
		var a Amount
		if err := json.Unmarshal([]byte(in), &a); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if n, c, err := a.Parse(); err != nil || n != want.amount || c != want.currency {
			t.Errorf("%s: %d %q %v", in, n, c, err)
		}
	}
	for _, bad := range []Amount{"", "0", "-5", "1.2.USD", "1.", "abc", "9223372036854775808"} {
		if _, _, err := bad.Parse(); !errors.Is(err, ErrInvalidAmount) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	var a Amount
	if err := json.Unmarshal([]byte(`{"x":1}`), &a); err == nil {
		t.Error("an object was taken for an amount")
	}
	if _, err := (PayRequest{}).SignablePayload(); !errors.Is(err, ErrNotUma) {
		t.Errorf("a pay request without compliance data: %v", err)
	}
}

// The sender pays an invoice only when it carries what the response states: the amount
// asked (in millisatoshis, or delivered whole in the receiving currency at the stated rate
// plus fee), no more than the payment may spend, payable long enough.
func TestCheckInvoice(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	mxn := PayRequest{Amount: "1000.MXN", Convert: "MXN"}
	msat := PayRequest{Amount: "150000", Convert: "MXN"}
	resp := PayReqResponse{Converted: &Converted{Amount: 1000, CurrencyCode: "MXN", Decimals: 2, Multiplier: 56.5, Fee: 2000}}
	ok := func(req PayRequest, r PayReqResponse, invoice int64, expires time.Time, limit int64) error {
		return r.CheckInvoice(req, invoice, expires, now.Add(time.Minute), limit)
	}
	if err := ok(mxn, resp, 58_500, now.Add(time.Hour), 100_000); err != nil {
		t.Fatalf("a matching invoice: %v", err)
	}
	if err := ok(msat, resp, 150_000, now.Add(time.Hour), 200_000); err != nil {
		t.Fatalf("a matching msat invoice: %v", err)
	}
	short := resp
	short.Converted = &Converted{Amount: 999, CurrencyCode: "MXN", Multiplier: 56.5, Fee: 2000}
	other := resp
	other.Converted = &Converted{Amount: 1000, CurrencyCode: "USD", Multiplier: 56.5, Fee: 2000}
	for name, err := range map[string]error{
		"more than the rate and fee":   ok(mxn, resp, 58_502, now.Add(time.Hour), 100_000),
		"less delivered than asked":    ok(mxn, short, 58_443, now.Add(time.Hour), 100_000),
		"another currency":             ok(mxn, other, 58_500, now.Add(time.Hour), 100_000),
		"no conversion":                ok(mxn, PayReqResponse{}, 58_500, now.Add(time.Hour), 100_000),
		"more than the payment spends": ok(mxn, resp, 58_500, now.Add(time.Hour), 58_499),
		"expiring too soon":            ok(mxn, resp, 58_500, now.Add(time.Minute), 100_000),
		"amountless":                   ok(msat, resp, 0, now.Add(time.Hour), 200_000),
		"another msat amount":          ok(msat, resp, 150_001, now.Add(time.Hour), 200_000),
	} {
		if !errors.Is(err, ErrInvoiceMismatch) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A post-transaction callback is heard only from the provider of the payment's sender, at
// the receiving platform's own domain, for a payment received over UMA.
func TestCheckCallbackTarget(t *testing.T) {
	for name, tc := range map[string]struct {
		domain, platform, sender, vasp string
		overUma                        bool
		ok                             bool
	}{
		"its sender's provider":           {"pay.acme.example", "pay.acme.example", "$alice@vasp1.example", "VASP1.example", true, true},
		"another provider":                {"pay.acme.example", "pay.acme.example", "$alice@vasp1.example", "vasp3.example", true, false},
		"at another platform's domain":    {"pay.other.example", "pay.acme.example", "$alice@vasp1.example", "vasp1.example", true, false},
		"at a domain not served":          {"", "pay.acme.example", "$alice@vasp1.example", "vasp1.example", true, false},
		"a payment not received over UMA": {"pay.acme.example", "pay.acme.example", "$alice@vasp1.example", "vasp1.example", false, false},
		"a sender that is no address":     {"pay.acme.example", "pay.acme.example", "", "vasp1.example", true, false},
	} {
		err := CheckCallbackTarget(tc.domain, tc.platform, tc.sender, tc.vasp, tc.overUma)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrRequestNotFound)) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if e := Refusal(ErrRequestNotFound); e.Status != 404 || e.Code != "REQUEST_NOT_FOUND" {
		t.Errorf("refusal %+v", e)
	}
}
