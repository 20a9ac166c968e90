package quote

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"paycore/internal/catalog"
	"paycore/internal/fx"
	"paycore/internal/ids"
	"paycore/internal/incoming"
	"paycore/internal/platformconfig"
	"paycore/internal/platformfee"
	"paycore/internal/problem"
	"paycore/internal/rail"
	"paycore/internal/sandbox"
	"paycore/internal/sandbox/sandboxrail"
)

var (
	at        = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	payer     = uuid.NullUUID{UUID: uuid.MustParse("0190a000-0000-7000-8000-0000000000c1"), Valid: true}
	sourceID  = uuid.MustParse("0190a000-0000-7000-8000-0000000000a1")
	destID    = uuid.MustParse("0190a000-0000-7000-8000-0000000000b1")
	mandatory = true
)

func currencies(codes ...string) platformconfig.Currencies {
	var out platformconfig.Currencies
	for _, c := range codes {
		out = append(out, platformconfig.Currency{CurrencyCode: c, MinAmount: 1, MaxAmount: math.MaxInt64,
			EnabledTransactionTypes: []string{"INCOMING", "OUTGOING"}})
	}
	return out
}

func accounts(from, to string) Accounts {
	return Accounts{
		Source:      &SourceState{ID: sourceID, Type: catalog.InternalFiat, Status: catalog.AccountActive, Currency: from, CustomerID: payer, Available: math.MaxInt64},
		Destination: &DestinationState{ID: destID, Active: true, Status: "ACTIVE", Currency: to, CustomerID: payer, Identifier: "DE89370400440532013000"},
		Sender:      map[string]string{"FULL_NAME": "Ada Lovelace"},
		Currencies:  currencies(from, to), Environment: catalog.Sandbox, CustomerID: payer, CustomerKyc: catalog.KycApproved,
	}
}

func request(side Side, amount int64) Request {
	return Request{QuoteID: ids.New(), TransactionID: ids.New(), Source: Source{Kind: SourceAccount, AccountID: sourceID},
		Destination: Destination{Kind: DestinationAccount, AccountID: destID}, LockedSide: side, LockedAmount: amount, Lifetime: 5 * time.Minute}
}

// deposit makes r a REALTIME_FUNDING quote.
func deposit(r *Request, currency, network string) {
	r.Source = Source{Kind: SourceRealtimeFunding, Currency: currency, CryptoNetwork: network}
}

// funded is what the read finds for a deposit of the customer: no source account.
func funded(a *Accounts) {
	a.Source, a.CustomerID = nil, payer
	a.Currencies = append(a.Currencies, currencies("USDC", "BTC")...)
}

func codeOf(err error) catalog.Code {
	var fe *problem.FieldError
	if errors.As(err, &fe) {
		if fe.Code == "" {
			return catalog.InvalidInput
		}
		return fe.Code
	}
	return problem.CodeOf(err)
}

// Both locked sides convert with the one rounding rule at the edges of every precision:
// the locked amount is exact, the recipient gets floor(net × multiplier), the fees are
// what the total leaves over, and locking the receiving side asks for the least net
// amount that delivers it.
func TestPriceBothSidesAtTheEdges(t *testing.T) {
	rates := fx.BuiltIn(at)
	pricing := fx.Pricing{Spread: decimal.RequireFromString("0.003"), FixedFeeUSD: decimal.RequireFromString("0.10"), VariableRate: decimal.RequireFromString("0.001")}
	pairs := [][2]string{{"USD", "JPY"}, {"JPY", "USD"}, {"USD", "USDC"}, {"USDC", "BTC"}, {"BTC", "EUR"}, {"EUR", "KRW"}, {"MXN", "BTC"}}
	for _, p := range pairs {
		a := accounts(p[0], p[1])
		for _, side := range []Side{Sending, Receiving} {
			for _, amount := range []int64{1, 2, 7, 99, 1000, 123_456_789, 9_000_000_000_000} {
				terms, err := Decide(request(side, amount), a, rates, pricing, at)
				if err != nil {
					if codeOf(err) != catalog.AmountOutOfRange {
						t.Fatalf("%s→%s %s %d: %v", p[0], p[1], side, amount, err)
					}
					continue // too small to pay the fees, or too large to convert
				}
				c, m := terms.Conversion, terms.Rate.Multiplier
				floor := func(net int64) int64 { return decimal.NewFromInt(net).Mul(m).Floor().IntPart() }
				if c.Net+c.Fees != c.Total || c.Net <= 0 || c.Receiving <= 0 || c.Fees < terms.Rate.FixedFee {
					t.Fatalf("%s→%s %s %d: %+v", p[0], p[1], side, amount, c)
				}
				switch side {
				case Sending:
					if c.Total != amount || c.Receiving != floor(c.Net) {
						t.Fatalf("%s→%s sending %d: %+v, floor %d", p[0], p[1], amount, c, floor(c.Net))
					}
				case Receiving:
					if c.Receiving != amount || floor(c.Net) < amount || floor(c.Net-1) >= amount {
						t.Fatalf("%s→%s receiving %d: net %d is not the least that delivers it", p[0], p[1], amount, c.Net)
					}
				}
				if !terms.ExpiresAt.Equal(at.Add(5 * time.Minute)) {
					t.Fatalf("expires %s", terms.ExpiresAt)
				}
			}
		}
	}
}

// The rate details multiply out to the quote's multiplier, and the variable fee shown is
// the fees beyond the fixed one.
func TestRateDetails(t *testing.T) {
	pricing := fx.Pricing{Spread: decimal.RequireFromString("0.003"), FixedFeeUSD: decimal.RequireFromString("0.10"), VariableRate: decimal.RequireFromString("0.002")}
	terms, err := Decide(request(Sending, 100_000), accounts("USD", "EUR"), fx.BuiltIn(at), pricing, at)
	if err != nil {
		t.Fatal(err)
	}
	d := terms.Details
	service, _ := decimal.NewFromString(string(d.ServiceAPIMultiplier))
	counterparty, _ := decimal.NewFromString(string(d.CounterpartyMultiplier))
	product := service.Mul(counterparty)
	if diff := product.Sub(terms.Rate.Multiplier).Abs(); diff.GreaterThan(terms.Rate.Multiplier.Mul(decimal.New(1, -12))) {
		t.Fatalf("service %s × counterparty %s = %s, multiplier %s", service, counterparty, product, terms.Rate.Multiplier)
	}
	if d.ServiceAPIFixedFee != terms.Rate.FixedFee || d.ServiceAPIVariableFeeAmount != terms.Fees-terms.Rate.FixedFee || d.ServiceAPIVariableFeeAmount <= 0 ||
		string(d.ServiceAPIVariableFeeRate) != "0.002" || d.CounterpartyFixedFee != 0 {
		t.Fatalf("details %+v, terms %+v", d, terms.Conversion)
	}
}

// The rule refuses what a quote cannot be, each with its code.
func TestCheckRefusals(t *testing.T) {
	rates, pricing := fx.BuiltIn(at), fx.DefaultPricing()
	cases := map[string]struct {
		req  func(*Request)
		acc  func(*Accounts)
		code catalog.Code
	}{
		"no source":             {nil, func(a *Accounts) { a.Source = nil }, catalog.AccountNotFound},
		"no external":           {nil, func(a *Accounts) { a.Destination = nil }, catalog.ExternalAccountNotFound},
		"no internal":           {func(r *Request) { r.Destination.Internal = true }, func(a *Accounts) { a.Destination = nil }, catalog.AccountNotFound},
		"source closed":         {nil, func(a *Accounts) { a.Source.Status = catalog.AccountClosed }, catalog.InvalidInput},
		"destination inactive":  {nil, func(a *Accounts) { a.Destination.Active = false }, catalog.InvalidInput},
		"customer deleted":      {nil, func(a *Accounts) { a.CustomerDeleted = true }, catalog.CustomerDeleted},
		"customer not verified": {nil, func(a *Accounts) { a.CustomerKyc = catalog.KycUnverified }, catalog.UserNotReady},
		"depositor not verified": {func(r *Request) { deposit(r, "USD", "") }, func(a *Accounts) {
			funded(a)
			a.CustomerKyc = catalog.KycRejected
		}, catalog.UserNotReady},
		"same currency":              {nil, func(a *Accounts) { a.Destination.Currency = "USD" }, catalog.InvalidCurrency},
		"wrong source currency":      {func(r *Request) { r.Source.Currency = "GBP" }, nil, catalog.InvalidCurrency},
		"wrong destination currency": {func(r *Request) { r.Destination.Currency = "MXN" }, nil, catalog.InvalidCurrency},
		"other owner's external":     {nil, func(a *Accounts) { a.Destination.CustomerID = uuid.NullUUID{} }, catalog.InvalidInput},
		"other customer named":       {func(r *Request) { r.Source.CustomerID = ids.Some(ids.New()) }, nil, catalog.InvalidInput},
		"self payment":               {nil, func(a *Accounts) { a.Destination.ID = sourceID; a.Destination.Internal = true }, catalog.SelfPayment},
		"wallet immediately": {func(r *Request) { r.ImmediatelyExecute = true }, func(a *Accounts) { a.Source.Type = catalog.EmbeddedWallet },
			catalog.InvalidInput},
		"immediately, no money":       {func(r *Request) { r.ImmediatelyExecute = true }, func(a *Accounts) { a.Source.Available = 999 }, catalog.InsufficientFunds},
		"sending not enabled":         {nil, func(a *Accounts) { a.Currencies[0].EnabledTransactionTypes = []string{"INCOMING"} }, catalog.InvalidInput},
		"receiving unsupported":       {nil, func(a *Accounts) { a.Currencies = a.Currencies[:1] }, catalog.InvalidInput},
		"above the maximum":           {nil, func(a *Accounts) { a.Currencies[0].MaxAmount = 999 }, catalog.AmountOutOfRange},
		"receiving below the minimum": {nil, func(a *Accounts) { a.Currencies[1].MinAmount = 5000 }, catalog.AmountOutOfRange},
		"payee data missing": {nil, func(a *Accounts) {
			a.Currencies[1].RequiredCounterpartyFields = []platformconfig.CounterpartyField{{Name: "NATIONALITY", Mandatory: &mandatory}}
		}, catalog.MissingMandatoryUserInfo},
		"below the fees": {func(r *Request) { r.LockedAmount = 10 }, nil, catalog.AmountOutOfRange},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, a := request(Sending, 1000), accounts("USD", "EUR")
			if tc.req != nil {
				tc.req(&r)
			}
			if tc.acc != nil {
				tc.acc(&a)
			}
			_, err := Decide(r, a, rates, pricing, at)
			if got := codeOf(err); err == nil || got != tc.code {
				t.Fatalf("got %v (%s), want %s", err, got, tc.code)
			}
		})
	}
}

// A deposit-funded quote prices the deposit's currency, for the customer or the
// platform, crypto on a network that carries it.
func TestRealtimeFundingPriced(t *testing.T) {
	for _, tc := range []struct{ currency, network string }{{"USD", ""}, {"USDC", "SOLANA"}, {"USDC", "BASE"}, {"BTC", "SPARK"}} {
		r := request(Receiving, 5000)
		deposit(&r, tc.currency, tc.network)
		a := accounts("USD", "EUR")
		funded(&a)
		terms, err := Decide(r, a, fx.BuiltIn(at), fx.DefaultPricing(), at)
		if err != nil || terms.Rate.From.Code != tc.currency || terms.Receiving != 5000 {
			t.Fatalf("%s on %q: %+v %v", tc.currency, tc.network, terms.Conversion, err)
		}
	}
}

// A UMA address of the sandbox's counterparties is quoted in its currency, with the
// sender's name it requires; anything else is refused with the code that says why.
func TestUmaDestinations(t *testing.T) {
	uma := func(address string) (Request, Accounts) {
		r := request(Sending, 1000)
		r.Destination = Destination{Kind: DestinationUMA, UmaAddress: address}
		a := accounts("USD", "EUR")
		a.Destination, _ = UmaDestination("destination.umaAddress", address, catalog.Sandbox)
		return r, a
	}
	r, a := uma("$success.eur@" + incoming.SandboxDomain)
	terms, err := Decide(r, a, fx.BuiltIn(at), fx.DefaultPricing(), at)
	if err != nil || terms.Rate.To.Code != "EUR" || terms.SenderInfo["FULL_NAME"] != "Ada Lovelace" {
		t.Fatalf("UMA quote: %+v %v", terms, err)
	}
	cases := map[string]struct {
		address string
		change  func(*Request, *Accounts)
		code    catalog.Code
	}{
		"not a sandbox address": {"$bob@example.com", nil, catalog.InvalidUmaAddress},
		"no such counterparty":  {"$success.gbp@" + incoming.SandboxDomain, nil, catalog.InvalidUmaAddress},
		"production platform":   {"$success.eur@" + incoming.SandboxDomain, func(_ *Request, a *Accounts) { a.Environment = catalog.Production }, catalog.InvalidUmaAddress},
		"wrong currency":        {"$success.eur@" + incoming.SandboxDomain, func(r *Request, _ *Accounts) { r.Destination.Currency = "MXN" }, catalog.InvalidCurrency},
		"sender name unknown":   {"$success.eur@" + incoming.SandboxDomain, func(_ *Request, a *Accounts) { a.Sender = nil }, catalog.MissingMandatoryUserInfo},
		"unknown lookup":        {"$success.eur@" + incoming.SandboxDomain, func(r *Request, _ *Accounts) { r.Lookup = ids.Some(ids.New()) }, catalog.LookupNotFound},
		"lookup of another": {"$success.eur@" + incoming.SandboxDomain, func(r *Request, a *Accounts) {
			r.Lookup, a.Lookup = ids.Some(ids.New()), &LookupState{ReceiverUma: "$success.usd@" + incoming.SandboxDomain}
		}, catalog.InvalidInput},
	}
	for name, tc := range cases {
		r, a := uma(tc.address)
		if tc.change != nil {
			tc.change(&r, &a)
		}
		if _, err := Decide(r, a, fx.BuiltIn(at), fx.DefaultPricing(), at); codeOf(err) != tc.code {
			t.Errorf("%s: %v (%s), want %s", name, err, codeOf(err), tc.code)
		}
	}
	for address, want := range map[string]sandbox.Outcome{
		"$success.usd@" + incoming.SandboxDomain:         {Status: catalog.TxCompleted},
		"$pending.long.usd@" + incoming.SandboxDomain:    {Status: catalog.TxCompleted, Slow: true},
		"$fail.compliance.usd@" + incoming.SandboxDomain: {Status: catalog.TxFailed, FailureReason: sandbox.ReasonQuoteExecutionFailed},
	} {
		got := payout(t, Rail{Uma: true, Identifier: address, Environment: catalog.Sandbox})
		got.Code, got.Message = "", ""
		if got != want {
			t.Errorf("%s: %+v", address, got)
		}
	}
}

// The sender's information the quote carries is the customer's, completed by the
// request; it satisfies the receiving currency's mandatory fields, and optional ones are
// not required.
func TestSenderInfo(t *testing.T) {
	a := accounts("USD", "EUR")
	optional := false
	a.Currencies[1].RequiredCounterpartyFields = []platformconfig.CounterpartyField{{Name: "FULL_NAME", Mandatory: &mandatory},
		{Name: "NATIONALITY", Mandatory: &mandatory}, {Name: "TAX_ID", Mandatory: &optional}}
	r := request(Sending, 1000)
	r.SenderCustomerInfo = map[string]string{"NATIONALITY": "GB", "FULL_NAME": "Ada King"}
	terms, err := Decide(r, a, fx.BuiltIn(at), fx.DefaultPricing(), at)
	if err != nil {
		t.Fatal(err)
	}
	if terms.SenderInfo["FULL_NAME"] != "Ada King" || terms.SenderInfo["NATIONALITY"] != "GB" || a.Sender["FULL_NAME"] != "Ada Lovelace" {
		t.Fatalf("sender info %v (customer's %v)", terms.SenderInfo, a.Sender)
	}
}

// A payout's outcome: sandbox suffixes as the spec's table says, internal destinations
// complete, production payouts fail before any money leaves.
func TestRailOutcome(t *testing.T) {
	want := map[string]sandbox.Outcome{
		"002": {Status: catalog.TxFailed, FailureReason: sandbox.ReasonQuoteExecutionFailed},
		"003": {Status: catalog.TxCompleted, Slow: true},
		"004": {Status: catalog.TxFailed, FailureReason: sandbox.ReasonCounterpartyFailed, Refund: sandbox.RefundTransactionFailed},
		"005": {Status: catalog.TxCompleted, Returned: true},
		"006": {Status: catalog.TxFailed, Refund: sandbox.RefundUserCancellation},
		"007": {Status: catalog.TxFailed, FailureReason: sandbox.ReasonCounterpartyFailed, Refund: sandbox.RefundTransactionFailed, PaidOut: true, RefundFails: true},
		"008": {Status: catalog.TxFailed, FailureReason: catalog.ReasonLimitExceeded},
		"009": {Status: catalog.TxFailed, FailureReason: catalog.ReasonAccountCannotReceive},
		"010": {Status: catalog.TxFailed, FailureReason: catalog.ReasonAccountInvalid},
		"011": {Status: catalog.TxFailed, FailureReason: catalog.ReasonComplianceRejected},
		"012": {Status: catalog.TxFailed, FailureReason: catalog.ReasonQuoteRateUnavailable},
		"013": {Status: catalog.TxCompleted},
	}
	for suffix, w := range want {
		got := payout(t, Rail{Identifier: "DE8937040044053201" + "0" + suffix, Environment: catalog.Sandbox, Currency: "EUR"})
		got.Code, got.Message = "", ""
		if got != w {
			t.Errorf("%s: %+v, want %+v", suffix, got, w)
		}
	}
	if out := payout(t, Rail{Internal: true, Identifier: "x002", Environment: catalog.Production}); out.Status != catalog.TxCompleted {
		t.Fatalf("internal destination: %+v", out)
	}
	if out := payout(t, Rail{Identifier: "x001", Environment: catalog.Production, Currency: "EUR"}); out.Status != catalog.TxFailed || out.Code != catalog.FailRailUnavailable || out.PaidOut || out.Refund != "" {
		t.Fatalf("production payout: %+v", out)
	}
	if out := payout(t, Rail{Identifier: "x002", Environment: catalog.Sandbox, Deposit: true}); out.Refund != sandbox.RefundTransactionFailed {
		t.Fatalf("failed payout of a deposit: %+v", out)
	}
}

// A payout to a bank account tells its rail the network it travels on and its purpose.
func TestRailInstructionCarriesItsRail(t *testing.T) {
	in, ok := Rail{Identifier: "DE89370400440532013000", AccountType: "EUR_ACCOUNT", Environment: catalog.Sandbox, Currency: "EUR", Amount: 5,
		PaymentRail: "SEPA_INSTANT", Purpose: "GIFT", Remittance: "INV-1"}.Instruction()
	if !ok || in.PaymentRail != "SEPA_INSTANT" || in.PurposeOfPayment != "GIFT" || in.RemittanceInformation != "INV-1" || in.Payment != rail.Payout {
		t.Fatalf("%+v", in)
	}
}

// payout is how r's payout ends with the default rails (the sandbox rail for sandbox
// platforms, none for production), as the rail step submits it.
func payout(t *testing.T, r Rail) rail.Outcome {
	t.Helper()
	in, ok := r.Instruction()
	if !ok {
		return r.Completed()
	}
	routes, err := rail.ParseRoutes(rail.DefaultRoutes)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := rail.NewRegistry(routes, sandboxrail.Rail{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := reg.Submit(context.Background(), in, r.Unavailable(), false)
	if err != nil {
		t.Fatal(err)
	}
	return r.Settle(out)
}

// The rail rule: a quote paying out to an external account or a UMA address that no
// configured rail serves is refused RAIL_NOT_CONFIGURED when it is requested (with the
// default routes, every production payout), before its price or the balance is judged; a
// payment into an internal account needs no rail.
func TestDecideServed(t *testing.T) {
	routes, err := rail.ParseRoutes(rail.DefaultRoutes)
	if err != nil {
		t.Fatal(err)
	}
	defaults, err := rail.NewRegistry(routes, sandboxrail.Rail{})
	if err != nil {
		t.Fatal(err)
	}
	production := func(a *Accounts) { a.Environment = catalog.Production }
	for name, tc := range map[string]struct {
		req  func(*Request)
		acc  func(*Accounts)
		want catalog.Code
	}{
		"sandbox external account":          {nil, nil, ""},
		"production external account":       {nil, production, catalog.RailNotConfigured},
		"production, immediately, no money": {func(r *Request) { r.ImmediatelyExecute = true }, func(a *Accounts) { production(a); a.Source.Available = 999 }, catalog.RailNotConfigured},
		"production, other customer named":  {func(r *Request) { r.Source.CustomerID = ids.Some(ids.New()) }, production, catalog.InvalidInput},
		"production internal account": {func(r *Request) { r.Destination.Internal = true }, func(a *Accounts) {
			production(a)
			a.Destination.Internal, a.Destination.CustomerID = true, uuid.NullUUID{UUID: ids.New(), Valid: true}
		}, ""},
		"production UMA address": {nil, func(a *Accounts) { production(a); a.Destination.Uma = true }, catalog.RailNotConfigured},
	} {
		r, a := request(Sending, 1000), accounts("USD", "EUR")
		if tc.req != nil {
			tc.req(&r)
		}
		if tc.acc != nil {
			tc.acc(&a)
		}
		_, err := DecideServed(r, a, fx.BuiltIn(at), fx.DefaultPricing(), at, defaults)
		if got := codeOf(err); got != tc.want && !(tc.want == "" && err == nil) {
			t.Errorf("%s: %v (%s), want %q", name, err, got, tc.want)
		}
		if tc.want == catalog.RailNotConfigured {
			continue
		}
		if _, decided := Decide(r, a, fx.BuiltIn(at), fx.DefaultPricing(), at); codeOf(decided) != codeOf(err) {
			t.Errorf("%s: DecideServed %v, Decide %v", name, err, decided)
		}
	}
}

// reserveRails serves every payout with a rail whose network fee reservation is 1% of the
// amount, at least 10 (the Lightning rail's rule).
type reserveRails struct{}

func (reserveRails) Require(rail.Target) error { return nil }
func (reserveRails) FeeReserve(rail.Target) func(int64) int64 {
	return func(a int64) int64 { return max(a/100, 10) }
}

// A payout over a rail whose network charges a fee on top reserves that fee in the quote:
// the payer buys the receiving amount plus the reserve (counterpartyFixedFee), the receiving
// amount is what the recipient gets, and the payout's fee limit is the reserve. Locking
// either side gives the recipient the most the total pays for; a total that does not cover
// the reserve is refused.
func TestNetworkFeeReserved(t *testing.T) {
	rates := fx.BuiltIn(at)
	a := accounts("USD", "BTC")
	plain, err := DecideServed(request(Receiving, 100_000), a, rates, fx.DefaultPricing(), at, noReserve{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecideServed(request(Receiving, 100_000), a, rates, fx.DefaultPricing(), at, reserveRails{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Receiving != 100_000 || got.NetworkFee != 1_000 || got.Details.CounterpartyFixedFee != 1_000 {
		t.Errorf("receiving locked: receiving %d, network fee %d, counterpartyFixedFee %d; want 100000, 1000, 1000",
			got.Receiving, got.NetworkFee, got.Details.CounterpartyFixedFee)
	}
	if got.Total <= plain.Total {
		t.Errorf("the reserve costs the payer nothing: total %d, without it %d", got.Total, plain.Total)
	}
	if plain.NetworkFee != 0 || plain.Details.CounterpartyFixedFee != 0 {
		t.Errorf("a rail without a network fee reserved %d", plain.NetworkFee)
	}
	// The same total, locked on the sending side, buys the same: the recipient's amount
	// plus its reserve within what the total converts to.
	sent, err := DecideServed(request(Sending, got.Total), a, rates, fx.DefaultPricing(), at, reserveRails{})
	if err != nil {
		t.Fatal(err)
	}
	gross := sent.Receiving + sent.NetworkFee
	if sent.Receiving < 100_000 || sent.NetworkFee < max(sent.Receiving/100, 10) || sent.Receiving+1+max((sent.Receiving+1)/100, 10) <= gross {
		t.Errorf("sending locked: receiving %d with a network fee of %d of %d bought: not the most the total pays for", sent.Receiving, sent.NetworkFee, gross)
	}
	r := Rail{Currency: "BTC", Amount: sent.Receiving, FeeLimit: sent.NetworkFee, TransactionID: ids.New()}
	if in, _ := r.Instruction(); in.FeeLimit != sent.NetworkFee || in.Amount != sent.Receiving {
		t.Errorf("the payout's instruction %+v does not carry the reserve as its fee limit", in)
	}
	// A total that converts to no more than the reserve pays nothing out.
	small := request(Sending, plain.Rate.FixedFee+1)
	if bare, err := DecideServed(small, a, rates, fx.DefaultPricing(), at, noReserve{}); err != nil || bare.Receiving > 10 {
		t.Fatalf("%d cents should convert to at most 10 sats: %+v %v", small.LockedAmount, bare.Conversion, err)
	}
	if _, err := DecideServed(small, a, rates, fx.DefaultPricing(), at, reserveRails{}); codeOf(err) != catalog.AmountOutOfRange {
		t.Errorf("a total below the reserve: %v", err)
	}
	for _, tc := range []struct{ gross, amount, fee int64 }{{0, 0, 0}, {10, 0, 10}, {11, 1, 10}, {1_010, 1_000, 10}, {1_011, 1_001, 10}, {101_000, 100_000, 1_000}, {101_001, 100_001, 1_000}} {
		if amount, fee := splitReserve(tc.gross, func(a int64) int64 { return max(a/100, 10) }); amount != tc.amount || fee != tc.fee {
			t.Errorf("split %d: %d + %d, want %d + %d", tc.gross, amount, fee, tc.amount, tc.fee)
		}
	}
}

// noReserve serves every payout with a rail whose network charges nothing on top.
type noReserve struct{}

func (noReserve) Require(rail.Target) error                { return nil }
func (noReserve) FeeReserve(rail.Target) func(int64) int64 { return nil }

// A platform's fee: its configuration applies to a cross-currency quote sent in its
// currency, an override replaces it, it is
// part of the fees and apart from the service's in the rate details, and a fee needs the
// platform's own account in the sending currency.
func TestPlatformFee(t *testing.T) {
	pricing := fx.Pricing{Spread: decimal.RequireFromString("0.003"), FixedFeeUSD: decimal.RequireFromString("0.10"), VariableRate: decimal.RequireFromString("0.002")}
	rates := fx.BuiltIn(at)
	platformAccount := uuid.NullUUID{UUID: ids.New(), Valid: true}
	configs := platformfee.Configs{{FeeType: platformfee.CrossCurrency, SourceCurrency: "USD", VariableFeeBps: 30, FixedFee: platformfee.FixedFee{Amount: 50, Currency: "USD"}}}
	decide := func(r Request, a Accounts) Terms {
		t.Helper()
		terms, err := Decide(r, a, rates, pricing, at)
		if err != nil {
			t.Fatal(err)
		}
		return terms
	}
	base := decide(request(Sending, 100_000), accounts("USD", "EUR"))
	if base.PlatformFees != 0 {
		t.Fatalf("no configuration, a platform fee of %d", base.PlatformFees)
	}
	a := accounts("USD", "EUR")
	a.FeeConfigs, a.PlatformAccount = configs, platformAccount
	withFee := decide(request(Sending, 100_000), a)
	// 30 bps of the net amount, rounded up, and 50 cents.
	want := decimal.NewFromInt(withFee.Net).Mul(decimal.RequireFromString("0.003")).Ceil().IntPart() + 50
	if withFee.PlatformFees != want || withFee.Fees <= base.Fees || withFee.Net+withFee.Fees != 100_000 || withFee.Receiving >= base.Receiving {
		t.Fatalf("with a fee: %+v, want platform fees %d (without: %+v)", withFee.Conversion, want, base.Conversion)
	}
	if d := withFee.Details; d.ServiceAPIVariableFeeAmount != withFee.Fees-withFee.PlatformFees-d.ServiceAPIFixedFee {
		t.Fatalf("the service's variable fee shown includes the platform's: %+v", d)
	}
	// Locking the receiving side, the sender pays the fee on top.
	recv := decide(request(Receiving, 90_000), a)
	if recv.Receiving != 90_000 || recv.PlatformFees <= 50 {
		t.Fatalf("receiving: %+v", recv.Conversion)
	}
	// An override replaces the configuration.
	r := request(Sending, 100_000)
	r.PlatformFeeOverride = &platformfee.Override{PlatformFixedFee: platformfee.FixedFee{Amount: 7, Currency: "USD"}}
	if got := decide(r, a); got.PlatformFees != 7 {
		t.Fatalf("override of 7: %d", got.PlatformFees)
	}
	// Refusals: no platform account to be paid in; an override in another currency than
	// the quote's; a quote sent in a currency fees are not charged in yet.
	noAccount := a
	noAccount.PlatformAccount = uuid.NullUUID{}
	if _, err := Decide(request(Sending, 100_000), noAccount, rates, pricing, at); codeOf(err) != catalog.InvalidInput {
		t.Fatalf("no platform account: %v", err)
	}
	eur := accounts("EUR", "USD")
	eur.FeeConfigs, eur.PlatformAccount = configs, platformAccount
	if got := decide(request(Sending, 100_000), eur); got.PlatformFees != 0 {
		t.Fatalf("a USD configuration charged a EUR quote: %d", got.PlatformFees)
	}
	if _, err := Decide(r, eur, rates, pricing, at); codeOf(err) != catalog.NotImplemented {
		t.Fatalf("override on a EUR quote: %v", err)
	}
	r.PlatformFeeOverride.PlatformFixedFee.Currency = "EUR"
	if _, err := Decide(r, a, rates, pricing, at); codeOf(err) != catalog.InvalidInput {
		t.Fatalf("override in EUR on a USD quote: %v", err)
	}
}
