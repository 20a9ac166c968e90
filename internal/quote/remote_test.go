package quote

import (
	"testing"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/fx"
	"paycore/internal/rail"
)

// elsewhere is a quote from a USD account to a receiver of another provider, the payer's
// address on the platform's domain.
func elsewhere(side Side, amount int64) (Request, Accounts) {
	r := request(side, amount)
	r.Destination = Destination{Kind: DestinationUMA, UmaAddress: "$bob@pay.bob.example"}
	a := accounts("USD", "")
	a.Destination = &DestinationState{Uma: true, Elsewhere: true, Active: true, Status: "ACTIVE", Identifier: r.Destination.UmaAddress}
	a.SenderUma, a.UmaDomain = "$alice@pay.alice.example", "pay.alice.example"
	a.Currencies = append(a.Currencies, currencies("MXN")...)
	return r, a
}

// onePercent is a Lightning-like fee reserve: 1% of the amount, at least 10.
func onePercent(sats int64) int64 { return max(sats/100, 10) }

// Before the receiver's provider is asked anything, a quote to it needs a rail that pays
// invoices and a payer whose address is on the platform's domain.
func TestCheckElsewhere(t *testing.T) {
	r, a := elsewhere(Receiving, 1000)
	if err := CheckElsewhere(r, a, true); err != nil {
		t.Fatalf("a quote that may ask: %v", err)
	}
	cases := map[string]struct {
		change  func(*Accounts)
		payable bool
		want    catalog.Code
	}{
		"no rail pays invoices": {func(*Accounts) {}, false, catalog.RailNotConfigured},
		"no platform domain":    {func(a *Accounts) { a.UmaDomain = "" }, true, catalog.InvalidInput},
		"payer elsewhere":       {func(a *Accounts) { a.SenderUma = "$alice@other.example" }, true, catalog.InvalidInput},
		"the platform pays":     {func(a *Accounts) { a.CustomerID.Valid = false; a.Source.CustomerID.Valid = false }, true, catalog.InvalidInput},
		"customer not approved": {func(a *Accounts) { a.CustomerKyc = catalog.KycPending }, true, catalog.UserNotReady},
	}
	for name, tc := range cases {
		r, a := elsewhere(Receiving, 1000)
		tc.change(&a)
		if got := codeOf(CheckElsewhere(r, a, tc.payable)); got != tc.want {
			t.Errorf("%s: %s, want %s", name, got, tc.want)
		}
	}
}

// The pay request asks the locked receiving amount in the currency named (else the
// receiver's first), or the satoshis the locked sending amount buys after the network fee
// reserve, in millisatoshis.
func TestAskFor(t *testing.T) {
	rates, pricing := fx.BuiltIn(at), fx.DefaultPricing()
	r, a := elsewhere(Receiving, 15_000)
	ask, err := AskFor(r, a, []string{"MXN", "USD"}, rates, pricing, at, onePercent)
	if err != nil || ask != (Ask{Currency: "MXN", Amount: 15_000, InCurrency: true}) {
		t.Fatalf("receiving: %+v %v", ask, err)
	}
	r.Destination.Currency = "USD"
	if ask, err := AskFor(r, a, []string{"MXN", "USD"}, rates, pricing, at, onePercent); err != nil || ask.Currency != "USD" {
		t.Fatalf("the currency named: %+v %v", ask, err)
	}
	r.Destination.Currency = "EUR"
	if _, err := AskFor(r, a, []string{"MXN", "USD"}, rates, pricing, at, onePercent); codeOf(err) != catalog.InvalidCurrency {
		t.Fatalf("a currency not offered: %v", err)
	}
	if _, err := AskFor(r, a, nil, rates, pricing, at, onePercent); codeOf(err) != catalog.InvalidCurrency {
		t.Fatalf("nothing offered: %v", err)
	}

	r, a = elsewhere(Sending, 5_000)
	ask, err = AskFor(r, a, []string{"MXN"}, rates, pricing, at, onePercent)
	if err != nil || ask.InCurrency || ask.Amount%1000 != 0 || ask.Amount <= 0 {
		t.Fatalf("sending: %+v %v", ask, err)
	}
	// The satoshis asked and their reserve are what the sending amount buys, to the satoshi.
	rate, _ := payoutRate(r, a, rates, pricing, at, "MXN")
	conv, _ := rate.Sending(5_000)
	sats := ask.Amount / 1000
	if fee := conv.Receiving - sats; fee < onePercent(sats) || onePercent(sats+1) <= fee-1 {
		t.Fatalf("%d sat asked of %d bought: the reserve %d is not the least that fits", sats, conv.Receiving, fee)
	}
	r.LockedAmount = 1
	if _, err := AskFor(r, a, []string{"MXN"}, rates, pricing, at, onePercent); codeOf(err) != catalog.AmountOutOfRange {
		t.Fatalf("too little to pay anything: %v", err)
	}
}

// The provider's answer is priced like a Lightning payout: the sending currency buys the
// invoice's satoshis (rounded up) and the reserve; the receiver gets what its provider
// converted, and every limit applies to it too. A locked sending amount that no longer buys
// the invoice is refused.
func TestPriceRemote(t *testing.T) {
	rates, pricing := fx.BuiltIn(at), fx.DefaultPricing()
	x := &Remote{Address: "$bob@pay.bob.example", Domain: "pay.bob.example", Currency: "MXN", Decimals: 2, Amount: 15_000, Multiplier: 480.5, Fee: 1_000,
		Invoice: "lnbcrt1...", InvoiceMsat: 7_208_500, ExpiresAt: at.Add(10 * time.Minute), ReceiverName: "Bob Receiver"}
	r, a := elsewhere(Receiving, 15_000)
	a.Destination.Answered(x)
	terms, err := DecideServed(r, a, rates, pricing, at, fakeRails{reserve: onePercent})
	if err != nil {
		t.Fatal(err)
	}
	if terms.Receiving != 7_209 || terms.NetworkFee != 72 || terms.Remote != x || terms.Total <= terms.Fees {
		t.Fatalf("terms: %+v", terms)
	}
	if !terms.ExpiresAt.Equal(at.Add(5*time.Minute)) || !RemoteExpiry(at, time.Hour, *x).Equal(x.ExpiresAt.Add(-InvoiceMargin)) {
		t.Fatalf("expiry %s", terms.ExpiresAt)
	}
	if terms.Details.CounterpartyFixedFee != 72 || terms.Details.CounterpartyMultiplier == "0" || terms.ExchangeRate.Sign() <= 0 {
		t.Fatalf("details %+v, rate %s", terms.Details, terms.ExchangeRate)
	}
	if a.Destination.HolderName != "Bob Receiver" || a.Destination.Currency != "MXN" {
		t.Fatalf("the answer recorded: %+v", a.Destination)
	}

	// A sending amount: what it buys beyond the invoice is the network fee reserve.
	r, a = elsewhere(Sending, 5_000)
	a.Destination.Answered(x)
	terms, err = DecideServed(r, a, rates, pricing, at, fakeRails{reserve: onePercent})
	rate, _ := payoutRate(r, a, rates, pricing, at, "MXN")
	conv, _ := rate.Sending(5_000)
	if err != nil || terms.Total != 5_000 || terms.Receiving != 7_209 || terms.NetworkFee != conv.Receiving-7_209 {
		t.Fatalf("sending: %+v %v", terms, err)
	}
	r.LockedAmount = 100
	if _, err := DecideServed(r, a, rates, pricing, at, fakeRails{reserve: onePercent}); codeOf(err) != catalog.AmountOutOfRange {
		t.Fatalf("a sending amount that no longer buys the invoice: %v", err)
	}

	// The platform's limits apply to what the receiver gets.
	r, a = elsewhere(Receiving, 15_000)
	a.Destination.Answered(x)
	a.Currencies[len(a.Currencies)-1].MaxAmount = 10_000
	if _, err := DecideServed(r, a, rates, pricing, at, fakeRails{reserve: onePercent}); codeOf(err) != catalog.AmountOutOfRange {
		t.Fatalf("above the receiving currency's maximum: %v", err)
	}
	// Priced before its provider answered: a defect, not a refusal.
	r, a = elsewhere(Receiving, 15_000)
	if _, err := DecideServed(r, a, rates, pricing, at, fakeRails{reserve: onePercent}); err != errNotAsked {
		t.Fatalf("unanswered: %v", err)
	}
}

// fakeRails serves every payout, reserving reserve for its network's fee.
type fakeRails struct{ reserve func(int64) int64 }

func (fakeRails) Require(rail.Target) error                         { return nil }
func (f fakeRails) FeeReserve(rail.Target) func(amount int64) int64 { return f.reserve }

// What the receiver requires of the payer is checked before its provider is asked for an
// invoice, with what the customer is known by and senderCustomerInfo.
func TestCheckPayer(t *testing.T) {
	r, a := elsewhere(Receiving, 1000)
	if err := CheckPayer(r, a, "MXN", []string{"FULL_NAME"}); err != nil {
		t.Fatalf("a known name: %v", err)
	}
	err := CheckPayer(r, a, "MXN", []string{"EMAIL", "FULL_NAME"})
	if codeOf(err) != catalog.MissingMandatoryUserInfo {
		t.Fatalf("an e-mail nobody gave: %v", err)
	}
	r.SenderCustomerInfo = map[string]string{"EMAIL": "ada@example.com"}
	if err := CheckPayer(r, a, "MXN", []string{"EMAIL", "FULL_NAME"}); err != nil {
		t.Fatalf("the e-mail given: %v", err)
	}
	if a.Destination.PayerFields != nil {
		t.Fatal("the check changed the accounts it was given")
	}
}
