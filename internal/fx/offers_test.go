package fx

import (
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/platformconfig"
	"paycore/internal/problem"
)

func supported() platformconfig.Currencies {
	both := []string{"INCOMING", "OUTGOING"}
	return platformconfig.Currencies{
		{CurrencyCode: "USD", MinAmount: 100, MaxAmount: 1_000_000, EnabledTransactionTypes: both},
		{CurrencyCode: "EUR", MinAmount: 50, MaxAmount: 500_000, EnabledTransactionTypes: []string{"OUTGOING"}},
		{CurrencyCode: "MXN", MinAmount: 1, MaxAmount: 9, EnabledTransactionTypes: []string{"INCOMING"}},
		{CurrencyCode: "USDC", MinAmount: 1, MaxAmount: 9, EnabledTransactionTypes: both},
	}
}

func TestOffers(t *testing.T) {
	tb := table(t, false)
	got, err := Offers(tb, DefaultPricing(), supported(), ListRequest{SendingAmount: DefaultSendingAmount}, t0)
	if err != nil {
		t.Fatal(err)
	}
	// Sources: the supported currencies with OUTGOING (USD, EUR, USDC); destinations: the
	// supported currencies paid out over a rail (USD over ACH, EUR over SEPA, MXN over SPEI;
	// USDC over none); never a currency to itself.
	rail := map[string]string{"USD": "ACH", "EUR": "SEPA", "MXN": "SPEI"}
	want := []string{"USD→EUR", "USD→MXN", "EUR→USD", "EUR→MXN", "USDC→USD", "USDC→EUR", "USDC→MXN"}
	if len(got) != len(want) {
		t.Fatalf("%d offers, want %v", len(got), want)
	}
	for i, o := range got {
		if pair := o.Rate.From.Code + "→" + o.Rate.To.Code; pair != want[i] {
			t.Fatalf("offer %d is %s, want %s", i, pair, want[i])
		}
		src, _ := supported().Find(o.Rate.From.Code)
		c, _ := o.Rate.Sending(DefaultSendingAmount)
		// 10,000 micro-USDC (1 cent) does not cover the 10-cent fee: it delivers nothing.
		if o.SendingAmount != DefaultSendingAmount || o.ReceivingAmount != c.Receiving || (o.ReceivingAmount == 0) != (o.Rate.From.Code == "USDC") ||
			o.MinSending != src.MinAmount || o.MaxSending != src.MaxAmount || o.Rail != rail[o.Rate.To.Code] {
			t.Fatalf("offer %+v", o)
		}
	}
	// One source, chosen destinations (any fiat of the catalogue), an amount below the fees.
	got, err = Offers(tb, DefaultPricing(), supported(), ListRequest{Source: "EUR", Destinations: []string{"JPY", "EUR"}, SendingAmount: 1}, t0)
	if err != nil || len(got) != 1 || got[0].Rate.To.Code != "JPY" || got[0].ReceivingAmount != 0 || got[0].Rail != "BANK_TRANSFER" {
		t.Fatalf("EUR to JPY below the fees: %+v %v", got, err)
	}
	for name, req := range map[string]struct {
		req   ListRequest
		field string
	}{
		"source not sent":      {ListRequest{Source: "MXN"}, "sourceCurrency"},
		"source not supported": {ListRequest{Source: "GBP"}, "sourceCurrency"},
		"crypto destination":   {ListRequest{Destinations: []string{"USDC"}}, "destinationCurrency"},
		"unknown destination":  {ListRequest{Destinations: []string{"XYZ"}}, "destinationCurrency"},
		"too large":            {ListRequest{Source: "EUR", Destinations: []string{"IDR"}, SendingAmount: 1 << 62}, "sendingAmount"},
	} {
		_, err := Offers(tb, DefaultPricing(), supported(), req.req, t0)
		w, ok := problem.ToWire(err)
		if !ok || w.Code != catalog.InvalidInput || w.Field != req.field {
			t.Errorf("%s: %v (%+v)", name, err, w)
		}
	}
}
