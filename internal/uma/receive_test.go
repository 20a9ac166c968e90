package uma

import (
	"errors"
	"testing"
	"time"
)

// The receiver's conversion of a pay request: an amount in the receiving currency is
// received whole with the invoice rounded up to a whole satoshi (the difference stated as
// the fee), an amount in millisatoshis is the invoice and converts rounded down; the
// convertible range, the currency offered and whole satoshis are enforced. The sender's own
// check (CheckInvoice) accepts every conversion made.
func TestConvert(t *testing.T) {
	// $100,000 a bitcoin: a cent is 10,000 msat; MXN at 1,700,000: a centavo is 588.2352… msat.
	offered := []Currency{
		{Code: "USD", Decimals: 2, Multiplier: 10000, Convertible: Convertible{Min: 100, Max: 1_000_000}},
		{Code: "MXN", Decimals: 2, Multiplier: 588.2352941176471, Convertible: Convertible{Min: 1, Max: 10_000_000}},
	}
	for name, tc := range map[string]struct {
		amount, convert string
		received, sats  int64
		fee             int64
		err             error
	}{
		"dollars":                    {"1000.USD", "USD", 1000, 10_000, 0, nil},
		"millisatoshis into dollars": {"10005000", "USD", 1000, 10_005, 5000, nil},
		"pesos rounded up to a sat":  {"1234.MXN", "MXN", 1234, 726, 118, nil},
		"millisatoshis into pesos":   {"726000", "MXN", 1234, 726, 118, nil},
		"below the range":            {"99.USD", "USD", 0, 0, 0, ErrInvalidAmount},
		"above the range":            {"1000001.USD", "USD", 0, 0, 0, ErrInvalidAmount},
		"a part of a satoshi":        {"10000500", "USD", 0, 0, 0, ErrInvalidAmount},
		"a currency not offered":     {"1000.EUR", "EUR", 0, 0, 0, ErrInvalidCurrency},
		"an amount in another":       {"1000.MXN", "USD", 0, 0, 0, ErrInvalidCurrency},
		"nothing":                    {"0.USD", "USD", 0, 0, 0, ErrInvalidAmount},
		"a negative amount":          {"-5", "USD", 0, 0, 0, ErrInvalidAmount},
		"not a number":               {"ten.USD", "USD", 0, 0, 0, ErrInvalidAmount},
	} {
		t.Run(name, func(t *testing.T) {
			r, err := Convert(Amount(tc.amount), tc.convert, offered)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err %v, want %v", err, tc.err)
			}
			if err != nil {
				if Refusal(err).Status != 400 {
					t.Errorf("refused with %+v", Refusal(err))
				}
				return
			}
			if r.Amount != tc.received || r.InvoiceSats != tc.sats || r.Converted.Fee != tc.fee || r.Converted.Amount != tc.received || r.Converted.CurrencyCode != tc.convert {
				t.Fatalf("got %+v, want %d for %d sat, fee %d", r, tc.received, tc.sats, tc.fee)
			}
			req := PayRequest{Amount: Amount(tc.amount), Convert: tc.convert}
			resp := PayReqResponse{Converted: &r.Converted}
			now := time.Now()
			if err := resp.CheckInvoice(req, r.InvoiceSats*1000, now.Add(time.Hour), now, 1<<50); err != nil {
				t.Fatalf("the sender's check refuses the receiver's conversion: %v", err)
			}
		})
	}
}

// The payee data a receiver gives: what a sender may require (identifier, compliance, name),
// and only what it asked for beside the identifier and compliance data.
func TestPayeeData(t *testing.T) {
	if err := CheckPayeeData(map[string]CounterpartyField{"identifier": {Mandatory: true}, "name": {Mandatory: true}, "countryCode": {}}); err != nil {
		t.Errorf("requirements it meets: %v", err)
	}
	for _, key := range []string{"countryCode", "email", "accountNumber"} {
		err := CheckPayeeData(map[string]CounterpartyField{key: {Mandatory: true}})
		if !errors.Is(err, ErrUnrecognizedPayeeKey) || Refusal(err).Status != 501 {
			t.Errorf("%s required: %v", key, err)
		}
	}
	info := map[string]string{"FULL_NAME": "Carol Receiver", "EMAIL": "carol@example.com"}
	c := &PayeeCompliance{Signature: "30"}
	if d := PayeeDataFor(nil, "$carol@pay.example", info, c); d.Identifier != "$carol@pay.example" || d.Compliance != c || d.Name != "" || d.Email != "" {
		t.Errorf("nothing asked: %+v", d)
	}
	d := PayeeDataFor(map[string]CounterpartyField{"name": {Mandatory: true}, "email": {}}, "$carol@pay.example", info, c)
	if d.Name != "Carol Receiver" || d.Email != "carol@example.com" {
		t.Errorf("name and e-mail asked: %+v", d)
	}
}
