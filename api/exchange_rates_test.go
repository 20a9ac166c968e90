package api_test

import (
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"paycore/api/apitest"
	"paycore/db/view"
	"paycore/internal/infra/config"
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
	// 9,990 × 0.91724 = 9,163.23, rounded down; the rate shown is 1 / 0.91724 to 12
	// significant digits.
	if r.SendingAmount != 10_000 || r.Fees.Fixed != 10 || r.ReceivingAmount != 9_163 || r.ExchangeRate.String() != "1.09022720335" ||
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

// The largest sendingAmount is priced promptly, never by a search that walks to MaxInt64
// one unit at a time or by sums that wrap: a pair it fits is converted (the fees taken
// out first), a pair it overflows is refused on sendingAmount.
func TestExchangeRatesLargestAmount(t *testing.T) {
	t.Parallel()
	max := strconv.FormatInt(math.MaxInt64, 10)
	prompt := &http.Client{Timeout: 15 * time.Second}

	// Default pricing: a 10-cent fee; the net amount MaxInt64 - 10 at 0.91724 € per dollar.
	e := newEnv(t)
	c, _ := e.platform(false)
	c.HTTP = prompt
	multiCurrency(t, c, false)
	var one rateList
	c.Do("GET", "/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR&sendingAmount="+max, nil).Decode(t, &one)
	want := decimal.NewFromInt(math.MaxInt64 - 10).Mul(decimal.RequireFromString("0.91724")).Floor().IntPart()
	if len(one.Data) != 1 || one.Data[0].SendingAmount != math.MaxInt64 || one.Data[0].Fees.Fixed != 10 || one.Data[0].ReceivingAmount != want {
		t.Fatalf("USD → EUR, %s cents: %+v, want %d received", max, one.Data, want)
	}

	// A variable fee of 0.35 % on top.
	v := newEnv(t, func(c *config.Config) { c.FXPricing.VariableRate = decimal.RequireFromString("0.0035") })
	vc, _ := v.platform(false)
	vc.HTTP = prompt
	multiCurrency(t, vc, false)
	vc.Do("GET", "/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR&sendingAmount="+max, nil).Decode(t, &one)
	// The net amount n is the largest with n + 10 + ⌈0.0035 n⌉ ≤ MaxInt64: about
	// (MaxInt64 - 10) / 1.0035.
	net := decimal.NewFromInt(math.MaxInt64 - 10).Div(decimal.RequireFromString("1.0035")).Floor()
	near := net.Mul(decimal.RequireFromString("0.91724")).Floor().IntPart()
	if len(one.Data) != 1 || one.Data[0].ReceivingAmount < near-2 || one.Data[0].ReceivingAmount > near {
		t.Fatalf("USD → EUR, %s cents, variable fee: %+v, want about %d received", max, one.Data, near)
	}
	// MXN: MaxInt64 cents less the fees are more pesos than int64 holds.
	r := vc.Do("GET", "/exchange-rates?sendingAmount="+max, nil)
	if field := refusedField(t, r); field != "sendingAmount" {
		t.Fatalf("refused on %q: %s", field, r.Body)
	}
}

// refusedField is the field a 400 INVALID_INPUT refusal names (details.field).
func refusedField(t *testing.T, r *apitest.Response) string {
	t.Helper()
	d, _ := expectError(t, r, 400, "INVALID_INPUT")["details"].(map[string]any)
	field, _ := d["field"].(string)
	return field
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
	// A sandbox platform's estimate uses the moving table: SOL within ±0.2 % of the table.
	sb, _ := e.platform(true)
	multiCurrency(t, sb, false)
	sb.Do("GET", "/platform/internal-accounts", nil).Decode(t, &accts)
	sbBody := map[string]any{}
	for k, v := range body {
		sbBody[k] = v
	}
	for _, a := range accts.Data {
		if a.Balance.Currency.Code == "USDC" {
			sbBody["internalAccountId"] = a.ID
		}
	}
	if r := sb.Do("POST", "/crypto/estimate-withdrawal-fee", sbBody); r.Status != 200 {
		t.Fatalf("sandbox estimate: %d %s", r.Status, r.Body)
	} else if r.Decode(t, &est); est.ApplicationFee != 100_000 || est.TotalFee < 100_768 || est.TotalFee > 100_772 {
		t.Fatalf("sandbox estimate: %s", r.Body)
	}
	raw := *c
	raw.SkipValidation = true
	for _, tc := range []struct {
		param string
		value any
		field string
	}{
		{"cryptoNetwork", "TRON", "cryptoNetwork"},
		// A Solana address is no Bitcoin address: checked on the network asked for.
		{"cryptoNetwork", "BITCOIN", "destinationAddress"},
		{"amount", 100, "amount"}, // below the fees
		{"amount", 0, "amount"},
		{"currency", "USDT", "currency"}, // withdrawn on Solana, but the account holds USDC
		{"currency", "USD", "currency"},
		{"destinationAddress", "0xabc", "destinationAddress"},
		{"internalAccountId", "Customer:0190a000-0000-7000-8000-000000000001", "internalAccountId"},
	} {
		b := map[string]any{}
		for k, v := range body {
			b[k] = v
		}
		b[tc.param] = tc.value
		r := raw.Do("POST", "/crypto/estimate-withdrawal-fee", b)
		if field := refusedField(t, r); field != tc.field {
			t.Errorf("%s %v: refused on %q, want %s: %s", tc.param, tc.value, field, tc.field, r.Body)
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
