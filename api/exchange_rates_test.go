package api_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"paycore/db/view"
)

type rateList struct {
	Data []view.ExchangeRate `json:"data"`
}

// GET /exchange-rates prices every pair of the platform's sending currencies and payout
// currencies with the service's spread and fee, rounded in the platform's favour, and
// narrows by source, destinations and amount; every answer matches the OpenAPI document.
func TestExchangeRates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(false)
	multiCurrency(t, c, false) // USD, EUR, MXN, USDC, each both ways, 1 to 100,000,000
	var all rateList
	c.Do("GET", "/exchange-rates", nil).Decode(t, &all)
	var pairs []string
	for _, r := range all.Data {
		pairs = append(pairs, r.SourceCurrency.Code+"→"+r.DestinationCurrency.Code)
	}
	// USDC sends but is not paid out over a rail; no currency is priced to itself.
	if got := strings.Join(pairs, " "); got != "USD→EUR USD→MXN EUR→USD EUR→MXN MXN→USD MXN→EUR USDC→USD USDC→EUR USDC→MXN" {
		t.Fatalf("pairs %s", got)
	}
	r := all.Data[0]
	// 10,000 cents less the 10-cent fee, at 0.92 € per dollar less the 0.3 % spread:
	// 9,990 × 0.91724 = 9,163.23, rounded down.
	if r.SendingAmount != 10_000 || r.Fees.Fixed != 10 || r.ReceivingAmount != 9_163 || r.ExchangeRate.String() != "1.090227203349" ||
		r.DestinationPaymentRail != "SEPA" || r.MinSendingAmount != 1 || r.MaxSendingAmount != 100_000_000 || r.UpdatedAt.IsZero() {
		t.Fatalf("USD → EUR %+v", r)
	}

	var some rateList
	q := url.Values{"sourceCurrency": {"USD"}, "destinationCurrency": {"EUR", "JPY"}, "sendingAmount": {"5"}}
	c.Do("GET", "/exchange-rates?"+q.Encode(), nil).Decode(t, &some)
	if len(some.Data) != 2 || some.Data[1].DestinationCurrency.Code != "JPY" || some.Data[1].DestinationPaymentRail != "BANK_TRANSFER" ||
		some.Data[0].ReceivingAmount != 0 || some.Data[0].SendingAmount != 5 {
		t.Fatalf("USD to EUR and JPY, 5 cents: %+v", some.Data)
	}
	for query, field := range map[string]string{
		"sourceCurrency=GBP":                          "sourceCurrency",
		"destinationCurrency=USDC":                    "destinationCurrency",
		"destinationCurrency=EUR&destinationCurrency": "destinationCurrency",
		"sendingAmount=-1":                            "sendingAmount",
		"sendingAmount=1.5":                           "sendingAmount",
		"sourceCurrency=USD&sourceCurrency=EUR":       "sourceCurrency",
		"currency=USD":                                "currency",
	} {
		raw := *c
		raw.SkipValidation = true // some of these the document itself rules out
		r := raw.Do("GET", "/exchange-rates?"+query, nil)
		expectError(t, r, 400, "INVALID_INPUT")
		if !strings.Contains(string(r.Body), `"field":"`+field+`"`) {
			t.Errorf("%s: the refusal does not name %s: %s", query, field, r.Body)
		}
	}

	// A sandbox platform sees the moving table: its rates change by the minute.
	sb, _ := e.platform(true)
	multiCurrency(t, sb, false)
	var moving rateList
	sb.Do("GET", "/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR", nil).Decode(t, &moving)
	if up := moving.Data[0].UpdatedAt; !up.Equal(up.Truncate(time.Minute)) || time.Since(up) > 2*time.Minute {
		t.Fatalf("sandbox rate updated at %v", up)
	}
}

// GET /discoveries lists the seeded banks, by country and currency.
func TestDiscoveries(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(false)
	var all, mx struct {
		Data []view.Discovery `json:"data"`
	}
	c.Do("GET", "/discoveries", nil).Decode(t, &all)
	c.Do("GET", "/discoveries?country=MX&currency=MXN", nil).Decode(t, &mx)
	if len(all.Data) < 40 || len(mx.Data) != 3 || mx.Data[0].BankName != "BBVA México, S.A." || mx.Data[0].Currency != "MXN" {
		t.Fatalf("%d banks; MX: %+v", len(all.Data), mx.Data)
	}
	raw := *c
	raw.SkipValidation = true
	for query, field := range map[string]string{"country=mx": "country", "currency=USDC": "currency", "bank=x": "bank"} {
		r := raw.Do("GET", "/discoveries?"+query, nil)
		expectError(t, r, 400, "INVALID_INPUT")
		if !strings.Contains(string(r.Body), `"field":"`+field+`"`) {
			t.Errorf("%s: the refusal does not name %s: %s", query, field, r.Body)
		}
	}
}

// POST /crypto/estimate-withdrawal-fee prices a withdrawal from the platform's own crypto
// account; another platform's account is 404, and bad requests name their field.
func TestEstimateWithdrawalFee(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(false)
	multiCurrency(t, c, false)
	var accts struct{ Data []view.InternalAccount }
	c.Do("GET", "/platform/internal-accounts", nil).Decode(t, &accts)
	var usdc string
	for _, a := range accts.Data {
		if a.Balance.Currency.Code == "USDC" {
			usdc = a.ID
		}
	}
	body := map[string]any{"internalAccountId": usdc, "currency": "USDC", "cryptoNetwork": "SOLANA", "amount": 1_000_000,
		"destinationAddress": "7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV"}
	var est view.WithdrawalEstimate
	r := c.Do("POST", "/crypto/estimate-withdrawal-fee", body)
	r.Decode(t, &est)
	if r.Status != 200 || est != (view.WithdrawalEstimate{NetworkFee: 5000, NetworkFeeAsset: "SOL", ApplicationFee: 100_000, TotalFee: 100_770, NetAmount: 899_230}) {
		t.Fatalf("estimate: %d %s", r.Status, r.Body)
	}
	other, _ := e.platform(false)
	expectError(t, other.Do("POST", "/crypto/estimate-withdrawal-fee", body), 404, "ACCOUNT_NOT_FOUND")
	raw := *c
	raw.SkipValidation = true
	for field, change := range map[string]any{"cryptoNetwork": "BITCOIN", "amount": 100, "currency": "USDT", "destinationAddress": "0xabc"} {
		b := map[string]any{}
		for k, v := range body {
			b[k] = v
		}
		b[field] = change
		r := raw.Do("POST", "/crypto/estimate-withdrawal-fee", b)
		expectError(t, r, 400, "INVALID_INPUT")
		if !strings.Contains(string(r.Body), `"field":"`) {
			t.Errorf("%s: %s", field, r.Body)
		}
	}
}

// BenchmarkExchangeRates is GET /exchange-rates over HTTP for a sandbox platform with four
// currencies (nine priced pairs, the moving table), one client.
func BenchmarkExchangeRates(b *testing.B) {
	e := newEnv(b)
	c, _ := e.platform(true)
	c.SkipValidation = true // the validator's own cost would dominate
	multiCurrency(b, c, false)
	b.ResetTimer()
	for b.Loop() {
		if r := c.Do("GET", "/exchange-rates", nil); r.Status != 200 {
			b.Fatalf("%d %s", r.Status, r.Body)
		}
	}
}
