package rail_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/problem"
	"paycore/internal/rail"
)

// fake is a rail for the tests: it serves what its capabilities say and answers its name
// as the failure message, so a test sees which rail took a payment.
type fake struct {
	name string
	caps rail.Capabilities
}

func (f fake) Name() string                    { return f.name }
func (f fake) Capabilities() rail.Capabilities { return f.caps }
func (f fake) Track(context.Context, string) (rail.Outcome, error) {
	return rail.Outcome{}, rail.ErrNotFound
}
func (f fake) Cancel(_ context.Context, in rail.Instruction) error {
	if f.caps.Cancellable && in.Amount < 1_000 { // the fake bank cancels small payments
		return nil
	}
	return rail.ErrNotCancellable
}
func (f fake) Submit(_ context.Context, in rail.Instruction) (rail.Outcome, error) {
	return rail.Outcome{Status: catalog.TxCompleted, Message: f.name}, nil
}

var (
	sim  = fake{"sim", rail.Capabilities{Environments: []catalog.Environment{catalog.Sandbox}, Kinds: rail.Kinds}}
	bank = fake{"bank", rail.Capabilities{Environments: []catalog.Environment{catalog.Sandbox, catalog.Production}, Currencies: []string{"USD", "EUR"},
		Kinds: []rail.Kind{rail.ExternalAccount}, Cancellable: true, Settlement: 24 * time.Hour}}
	lnd = fake{"lnd", rail.Capabilities{Environments: []catalog.Environment{catalog.Production}, Currencies: []string{"BTC"}, Kinds: rail.Kinds}}
	// ln pays Lightning external accounts only.
	ln = fake{"ln", rail.Capabilities{Environments: []catalog.Environment{catalog.Production}, Currencies: []string{"BTC"},
		Kinds: []rail.Kind{rail.ExternalAccount}, AccountTypes: []string{"LIGHTNING"}}}
)

func TestParseRoutes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []rail.Route
		err  string
	}{
		{in: "", want: nil},
		{in: rail.DefaultRoutes, want: []rail.Route{{Environment: catalog.Sandbox, Currency: "*", Kind: "*", Rail: "sandbox"}}},
		{in: " SANDBOX:*:*=sandbox , PRODUCTION:USD:EXTERNAL_ACCOUNT=bank,PRODUCTION:BTC:UMA=lnd",
			want: []rail.Route{{Environment: catalog.Sandbox, Currency: "*", Kind: "*", Rail: "sandbox"},
				{Environment: catalog.Production, Currency: "USD", Kind: rail.ExternalAccount, Rail: "bank"},
				{Environment: catalog.Production, Currency: "BTC", Kind: rail.UMA, Rail: "lnd"}}},
		{in: "PRODUCTION:BTC:EXTERNAL_ACCOUNT:LIGHTNING=ln,PRODUCTION:BTC:EXTERNAL_ACCOUNT:*=bank",
			want: []rail.Route{{Environment: catalog.Production, Currency: "BTC", Kind: rail.ExternalAccount, AccountType: "LIGHTNING", Rail: "ln"},
				{Environment: catalog.Production, Currency: "BTC", Kind: rail.ExternalAccount, Rail: "bank"}}},
		{in: "SANDBOX:*=sandbox", err: "is not ENVIRONMENT:CURRENCY:KIND[:ACCOUNT_TYPE]=RAIL"},
		{in: "SANDBOX:*:*", err: "is not ENVIRONMENT:CURRENCY:KIND[:ACCOUNT_TYPE]=RAIL"},
		{in: "SANDBOX:*:EXTERNAL_ACCOUNT:IBAN:X=sandbox", err: "is not ENVIRONMENT:CURRENCY:KIND[:ACCOUNT_TYPE]=RAIL"},
		{in: "SANDBOX:*:UMA:IBAN=sandbox", err: "an account type routes EXTERNAL_ACCOUNT payments only"},
		{in: "SANDBOX:*:*:IBAN=sandbox", err: "an account type routes EXTERNAL_ACCOUNT payments only"},
		{in: "SANDBOX:*:EXTERNAL_ACCOUNT:iban=sandbox", err: "account type must be"},
		{in: "SANDBOX:*:EXTERNAL_ACCOUNT:IBAN=a,SANDBOX:*:EXTERNAL_ACCOUNT:IBAN=b", err: "serve the same payments"},
		{in: "STAGING:*:*=sandbox", err: "environment must be"},
		{in: "SANDBOX:usd:*=sandbox", err: "currency must be"},
		{in: "SANDBOX:USD:IBAN=sandbox", err: "kind must be"},
		{in: "SANDBOX:USD:*=Sand Box", err: "is not a lower-case name"},
		{in: "SANDBOX:*:*=sandbox,SANDBOX:*:*=other", err: "serve the same payments"},
	} {
		got, err := rail.ParseRoutes(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want an error saying %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || len(got) != len(tc.want) {
			t.Errorf("%q: %v %v", tc.in, got, err)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%q: route %d %+v, want %+v", tc.in, i, got[i], tc.want[i])
			}
		}
	}
}

func TestNewRegistryRefusesRoutesNoRailServes(t *testing.T) {
	for _, tc := range []struct {
		routes string
		err    string
	}{
		{"SANDBOX:*:*=nobody", `no rail is named "nobody"`},
		{"PRODUCTION:*:*=sim", "does not serve"},                      // a simulated rail never serves production
		{"PRODUCTION:GBP:EXTERNAL_ACCOUNT=bank", "does not serve"},    // a currency the rail does not move
		{"PRODUCTION:USD:UMA=bank", "does not serve"},                 // a kind it does not reach
		{"PRODUCTION:BTC:EXTERNAL_ACCOUNT:IBAN=ln", "does not serve"}, // an account type it does not pay
		{"PRODUCTION:BTC:EXTERNAL_ACCOUNT:LIGHTNING=ln", ""},
		{"SANDBOX:*:*=sim,PRODUCTION:USD:*=bank,PRODUCTION:BTC:*=lnd", ""},
	} {
		routes, err := rail.ParseRoutes(tc.routes)
		if err != nil {
			t.Fatal(err)
		}
		_, err = rail.NewRegistry(routes, sim, bank, lnd, ln)
		if (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: %v, want %q", tc.routes, err, tc.err)
		}
	}
}

func TestRegistryFor(t *testing.T) {
	routes, err := rail.ParseRoutes("SANDBOX:*:*=sim,SANDBOX:USD:EXTERNAL_ACCOUNT=bank,PRODUCTION:*:*=bank,PRODUCTION:BTC:*=lnd")
	if err != nil {
		t.Fatal(err)
	}
	reg, err := rail.NewRegistry(routes, sim, bank, lnd)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env      catalog.Environment
		currency string
		kind     rail.Kind
		want     string // "" when no rail serves
	}{
		{catalog.Sandbox, "USD", rail.ExternalAccount, "bank"}, // the exact route wins
		{catalog.Sandbox, "USD", rail.UMA, "sim"},
		{catalog.Sandbox, "EUR", rail.ExternalAccount, "sim"},
		{catalog.Sandbox, "", rail.ExternalAccount, "sim"}, // a rail recorded without its currency
		{catalog.Production, "EUR", rail.ExternalAccount, "bank"},
		{catalog.Production, "BTC", rail.UMA, "lnd"},
		{catalog.Production, "GBP", rail.ExternalAccount, ""}, // routed to bank, which does not move GBP
		{catalog.Production, "EUR", rail.UMA, ""},
	} {
		target := rail.Target{Environment: tc.env, Currency: tc.currency, Kind: tc.kind}
		got, ok := reg.For(target)
		name := ""
		if ok {
			name = got.Name()
		}
		if name != tc.want {
			t.Errorf("For(%s, %q, %s) = %q, want %q", tc.env, tc.currency, tc.kind, name, tc.want)
		}
		err := reg.Require(target)
		if want := map[bool]catalog.Code{true: "", false: catalog.RailNotConfigured}[tc.want != ""]; problem.CodeOf(err) != want {
			t.Errorf("Require(%s, %q, %s) = %v, want %q", tc.env, tc.currency, tc.kind, err, want)
		}
		unavailable := rail.Unavailable()
		out, err := reg.Submit(context.Background(), rail.Instruction{Key: "k", Environment: tc.env, Currency: tc.currency, Kind: tc.kind}, unavailable, false)
		if err != nil || (tc.want == "" && out != unavailable) || (tc.want != "" && out.Message != tc.want) {
			t.Errorf("Submit(%s, %q, %s) = %+v, %v", tc.env, tc.currency, tc.kind, out, err)
		}
	}
	got := reg.Configured()
	if len(got) != 3 || got[0].Name != "bank" || len(got[0].Routes) != 2 || got[1].Name != "lnd" || got[2].Name != "sim" {
		t.Fatalf("configured %+v", got)
	}
}

// Cancel asks the rail that serves the payment, which decides (the fake bank cancels
// payments under 1,000); a rail that never cancels, or no rail, is ErrNotCancellable
// without asking.
func TestRegistryCancel(t *testing.T) {
	routes, err := rail.ParseRoutes("SANDBOX:*:*=sim,SANDBOX:USD:EXTERNAL_ACCOUNT=bank")
	if err != nil {
		t.Fatal(err)
	}
	reg, err := rail.NewRegistry(routes, sim, bank)
	if err != nil {
		t.Fatal(err)
	}
	to := func(currency string, amount int64) rail.Instruction {
		return rail.Instruction{Key: "k", Environment: catalog.Sandbox, Currency: currency, Kind: rail.ExternalAccount, Amount: amount}
	}
	if err := reg.Cancel(context.Background(), to("USD", 999)); err != nil {
		t.Fatalf("the bank cancels a small payment: %v", err)
	}
	for _, in := range []rail.Instruction{to("USD", 1_000), to("EUR", 10), {Key: "k", Environment: catalog.Production, Currency: "USD", Kind: rail.ExternalAccount}} {
		if err := reg.Cancel(context.Background(), in); !errors.Is(err, rail.ErrNotCancellable) {
			t.Errorf("cancel %+v: %v, want ErrNotCancellable", in, err)
		}
	}
}

func TestNoRoutesServeNothing(t *testing.T) {
	reg, err := rail.NewRegistry(nil, sim)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := reg.For(rail.Target{Environment: catalog.Sandbox, Currency: "USD", Kind: rail.ExternalAccount}); ok || len(reg.Configured()) != 0 {
		t.Fatal("a registry without routes serves payments")
	}
	var r *problem.Refusal
	if err := reg.Require(rail.Target{Environment: catalog.Production, Currency: "USD", Kind: rail.UMA}); !errors.As(err, &r) || r.Code != catalog.RailNotConfigured || r.Details["currency"] != "USD" {
		t.Fatalf("refusal %#v", err)
	}
}

// External accounts of one type go to the rail routed for that type; other types, and
// payments whose account type is not known (recorded before it was), to the route for
// every type. Asking for any type (Any) finds a rail when one type is served. The refusal
// names the account type.
func TestRegistryForAccountType(t *testing.T) {
	routes, err := rail.ParseRoutes("PRODUCTION:BTC:EXTERNAL_ACCOUNT:LIGHTNING=ln,PRODUCTION:*:EXTERNAL_ACCOUNT=bank,PRODUCTION:EUR:EXTERNAL_ACCOUNT:*=bank")
	if err != nil {
		t.Fatal(err)
	}
	bankBTC := fake{"bank", rail.Capabilities{Environments: []catalog.Environment{catalog.Production}, Kinds: []rail.Kind{rail.ExternalAccount}}}
	reg, err := rail.NewRegistry(routes, ln, bankBTC)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		target rail.Target
		want   string
	}{
		{rail.Target{Environment: catalog.Production, Currency: "BTC", Kind: rail.ExternalAccount, AccountType: "LIGHTNING"}, "ln"},
		{rail.Target{Environment: catalog.Production, Currency: "BTC", Kind: rail.ExternalAccount, AccountType: "SPARK_WALLET"}, "bank"},
		{rail.Target{Environment: catalog.Production, Currency: "BTC", Kind: rail.ExternalAccount}, "bank"}, // not known
		{rail.Target{Environment: catalog.Production, Currency: "EUR", Kind: rail.ExternalAccount, AccountType: "IBAN"}, "bank"},
		{rail.Target{Environment: catalog.Production, Currency: "BTC", Kind: rail.UMA}, ""},
	} {
		got, ok := reg.For(tc.target)
		name := ""
		if ok {
			name = got.Name()
		}
		if name != tc.want {
			t.Errorf("For(%+v) = %q, want %q", tc.target, name, tc.want)
		}
	}

	// Only Lightning accounts are served: another type is refused, naming it; Any finds ln.
	routes, _ = rail.ParseRoutes("PRODUCTION:BTC:EXTERNAL_ACCOUNT:LIGHTNING=ln")
	reg, err = rail.NewRegistry(routes, ln)
	if err != nil {
		t.Fatal(err)
	}
	var r *problem.Refusal
	err = reg.Require(rail.Target{Environment: catalog.Production, Currency: "BTC", Kind: rail.ExternalAccount, AccountType: "SPARK_WALLET"})
	if !errors.As(err, &r) || r.Code != catalog.RailNotConfigured || r.Details["accountType"] != "SPARK_WALLET" || !strings.Contains(r.Message, "of type SPARK_WALLET") {
		t.Fatalf("refusal %#v", err)
	}
	if err := reg.Require(rail.Target{Environment: catalog.Production, Currency: "BTC", Kind: rail.ExternalAccount}); err == nil {
		t.Fatal("a payment of an unknown account type was routed to the Lightning-only rail")
	}
	if err := reg.Require(rail.Target{Environment: catalog.Production, Currency: "BTC", Kind: rail.ExternalAccount, AccountType: rail.Any}); err != nil {
		t.Fatalf("some type is served: %v", err)
	}
	out, err := reg.Submit(context.Background(), rail.Instruction{Key: "k", Environment: catalog.Production, Currency: "BTC", Kind: rail.ExternalAccount,
		AccountType: "LIGHTNING"}, rail.Unavailable(), false)
	if err != nil || out.Message != "ln" {
		t.Fatalf("submit a Lightning payout: %+v %v", out, err)
	}
	if got := reg.Configured(); len(got) != 1 || len(got[0].AccountTypes) != 1 || got[0].Routes[0] != "PRODUCTION:BTC:EXTERNAL_ACCOUNT:LIGHTNING" {
		t.Fatalf("configured %+v", got)
	}
}

// reserving is a rail whose network charges a fee on top: it reserves a tenth.
type reserving struct{ fake }

func (reserving) FeeReserve(amount int64) int64 { return amount / 10 }

// The registry answers the network fee reservation of the rail that serves a target: none
// for a rail whose network charges nothing on top, or where no rail serves.
func TestRegistryFeeReserve(t *testing.T) {
	routes, err := rail.ParseRoutes("PRODUCTION:BTC:EXTERNAL_ACCOUNT:LIGHTNING=ln,PRODUCTION:*:EXTERNAL_ACCOUNT=bank")
	if err != nil {
		t.Fatal(err)
	}
	reg, err := rail.NewRegistry(routes, reserving{ln}, fake{"bank", rail.Capabilities{Environments: []catalog.Environment{catalog.Production}, Kinds: []rail.Kind{rail.ExternalAccount}}})
	if err != nil {
		t.Fatal(err)
	}
	lightning := rail.Target{Environment: catalog.Production, Currency: "BTC", Kind: rail.ExternalAccount, AccountType: "LIGHTNING"}
	if reserve := reg.FeeReserve(lightning); reserve == nil || reserve(1_000) != 100 {
		t.Errorf("the Lightning rail's reserve is not answered")
	}
	if reserve := reg.FeeReserve(rail.Target{Environment: catalog.Production, Currency: "USD", Kind: rail.ExternalAccount, AccountType: "US_ACCOUNT"}); reserve != nil {
		t.Error("a rail without a network fee reserved one")
	}
	if reserve := reg.FeeReserve(rail.Target{Environment: catalog.Sandbox, Currency: "BTC", Kind: rail.UMA}); reserve != nil {
		t.Error("an unserved target reserved a fee")
	}
}

// A route may name one platform of its environment: that platform's payments go to its
// rail before the environment's routes, every other platform's keep theirs, and a target
// whose platform is not known matches the environment's routes only.
func TestPlatformRoutes(t *testing.T) {
	opted := uuid.MustParse("0190a000-0000-7000-8000-0000000000f1")
	routes, err := rail.ParseRoutes("SANDBOX:*:*=sim,SANDBOX/Platform:" + opted.String() + ":BTC:EXTERNAL_ACCOUNT:LIGHTNING=lnsand")
	if err != nil {
		t.Fatal(err)
	}
	if routes[1].Platform != opted || routes[1].String() != "SANDBOX/"+opted.String()+":BTC:EXTERNAL_ACCOUNT:LIGHTNING=lnsand" {
		t.Fatalf("parsed %+v as %s", routes[1], routes[1])
	}
	lnsand := fake{"lnsand", rail.Capabilities{Environments: []catalog.Environment{catalog.Sandbox, catalog.Production}, Currencies: []string{"BTC"},
		Kinds: []rail.Kind{rail.ExternalAccount}, AccountTypes: []string{"LIGHTNING"}}}
	reg, err := rail.NewRegistry(routes, sim, lnsand)
	if err != nil {
		t.Fatal(err)
	}
	lightning := rail.Target{Environment: catalog.Sandbox, Currency: "BTC", Kind: rail.ExternalAccount, AccountType: "LIGHTNING"}
	for _, tc := range []struct {
		platform uuid.UUID
		want     string
	}{{opted, "lnsand"}, {uuid.MustParse("0190a000-0000-7000-8000-0000000000f2"), "sim"}, {uuid.Nil, "sim"}} {
		target := lightning
		target.Platform = tc.platform
		if got, ok := reg.For(target); !ok || got.Name() != tc.want {
			t.Errorf("platform %s: routed to %v, want %s", tc.platform, got, tc.want)
		}
		in := rail.Instruction{Key: "k", Environment: catalog.Sandbox, Platform: tc.platform, Currency: "BTC", Kind: rail.ExternalAccount, AccountType: "LIGHTNING"}
		if out, err := reg.Submit(context.Background(), in, rail.Unavailable(), false); err != nil || out.Message != tc.want {
			t.Errorf("platform %s: submitted to %q (%v), want %s", tc.platform, out.Message, err, tc.want)
		}
	}
	other := lightning
	other.Platform, other.AccountType = opted, "IBAN"
	if got, ok := reg.For(other); !ok || got.Name() != "sim" {
		t.Errorf("the opted-in platform's other payments went to %v", got)
	}
	for _, bad := range []string{"SANDBOX/nope:BTC:UMA=sim", "SANDBOX/:BTC:UMA=sim", "SANDBOX/" + uuid.Nil.String() + ":BTC:UMA=sim",
		"SANDBOX/" + opted.String() + ":BTC:UMA=sim,SANDBOX/Platform:" + opted.String() + ":BTC:UMA=sim"} {
		if _, err := rail.ParseRoutes(bad); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
}

// invoicer is a rail that pays the invoices other providers answer (a Lightning rail).
type invoicer struct{ fake }

func (invoicer) ReadInvoice(context.Context, string) (rail.Invoice, error) {
	return rail.Invoice{}, nil
}

// A refund goes back by a rail that refunds by itself; to a UMA address, a rail that pays
// invoices carries it by paying one of the sender's provider; any other rail cannot.
func TestRegistryRefunds(t *testing.T) {
	refunds := fake{"refunds", rail.Capabilities{Environments: []catalog.Environment{catalog.Sandbox}, Kinds: rail.Kinds, Refunds: true}}
	lightning := invoicer{fake{"lightning", rail.Capabilities{Environments: []catalog.Environment{catalog.Production}, Currencies: []string{"BTC"},
		Kinds: []rail.Kind{rail.ExternalAccount, rail.UMA}, AccountTypes: []string{"LIGHTNING"}}}}
	routes, err := rail.ParseRoutes("SANDBOX:*:*=refunds,PRODUCTION:BTC:*=lightning,PRODUCTION:USD:EXTERNAL_ACCOUNT=bank")
	if err != nil {
		t.Fatal(err)
	}
	r, err := rail.NewRegistry(routes, refunds, lightning, bank)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		t                 rail.Target
		refundable, payer bool
	}{
		{rail.Target{Environment: catalog.Sandbox, Currency: "USD", Kind: rail.UMA}, true, false},
		{rail.Target{Environment: catalog.Production, Currency: "BTC", Kind: rail.UMA}, false, true},
		{rail.Target{Environment: catalog.Production, Currency: "BTC", Kind: rail.ExternalAccount, AccountType: "LIGHTNING"}, false, false},
		{rail.Target{Environment: catalog.Production, Currency: "USD", Kind: rail.ExternalAccount, AccountType: "US_ACCOUNT"}, false, false},
		{rail.Target{Environment: catalog.Production, Currency: "EUR", Kind: rail.UMA}, false, false},
	} {
		_, payer := r.RefundPayer(tc.t)
		if r.Refundable(tc.t) != tc.refundable || payer != tc.payer {
			t.Errorf("%+v: refundable %v, by an invoice %v", tc.t, r.Refundable(tc.t), payer)
		}
	}
}

// checker is a rail whose provider checks owners' liveness.
type checker struct{ fake }

func (checker) LivenessPasses(_ context.Context, address string) (bool, error) {
	return !strings.HasSuffix(address, "x"), nil
}

// A liveness check is offered for an external account only when the rail that serves it
// checks owners, and its verdict is that rail's.
func TestRegistryLivenessChecker(t *testing.T) {
	kyc := checker{fake{"kyc", rail.Capabilities{Environments: []catalog.Environment{catalog.Production}, Currencies: []string{"USDC"},
		Kinds: []rail.Kind{rail.ExternalAccount}}}}
	routes, err := rail.ParseRoutes("PRODUCTION:USDC:EXTERNAL_ACCOUNT=kyc,PRODUCTION:USD:EXTERNAL_ACCOUNT=bank")
	if err != nil {
		t.Fatal(err)
	}
	r, err := rail.NewRegistry(routes, kyc, bank)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := r.LivenessChecker(rail.Target{Environment: catalog.Production, Currency: "USDC", Kind: rail.ExternalAccount, AccountType: "ETHEREUM_WALLET"})
	if !ok {
		t.Fatal("the kyc rail's accounts are not offered a liveness check")
	}
	if pass, _ := c.LivenessPasses(context.Background(), "0xabc"); !pass {
		t.Fatal("the rail's verdict was not asked")
	}
	for _, tc := range []rail.Target{
		{Environment: catalog.Production, Currency: "USD", Kind: rail.ExternalAccount, AccountType: "US_ACCOUNT"},
		{Environment: catalog.Production, Currency: "EUR", Kind: rail.ExternalAccount, AccountType: "IBAN"},
		{Environment: catalog.Sandbox, Currency: "USDC", Kind: rail.ExternalAccount, AccountType: "ETHEREUM_WALLET"},
	} {
		if _, ok := r.LivenessChecker(tc); ok {
			t.Errorf("%+v: offered a liveness check by a rail without a provider", tc)
		}
	}
}

// ledgerRail is a rail that remembers the payments it took, by key, as a bank's API does.
type ledgerRail struct {
	fake
	submitted map[string]int
	tracked   map[string]rail.Outcome
}

func (l *ledgerRail) Submit(_ context.Context, in rail.Instruction) (rail.Outcome, error) {
	l.submitted[in.Key]++
	out := rail.Outcome{Status: catalog.TxCompleted, Message: "submitted"}
	l.tracked[in.Key] = rail.Outcome{Status: catalog.TxCompleted, Message: "tracked"}
	return out, nil
}

func (l *ledgerRail) Track(_ context.Context, key string) (rail.Outcome, error) {
	if out, ok := l.tracked[key]; ok {
		return out, nil
	}
	return rail.Outcome{}, rail.ErrNotFound
}

// A payment handed in again after its answer was lost is asked of its rail by its key
// first: a payment the rail has is answered as it ended, never submitted twice; one it
// does not know is submitted. A first attempt is submitted without asking.
func TestRegistrySubmitResumed(t *testing.T) {
	l := &ledgerRail{fake: fake{"bank", rail.Capabilities{Environments: []catalog.Environment{catalog.Production}, Kinds: rail.Kinds}},
		submitted: map[string]int{}, tracked: map[string]rail.Outcome{}}
	routes, _ := rail.ParseRoutes("PRODUCTION:*:*=bank")
	reg, err := rail.NewRegistry(routes, l)
	if err != nil {
		t.Fatal(err)
	}
	in := rail.Instruction{Key: "tx-1", Environment: catalog.Production, Currency: "USD", Kind: rail.ExternalAccount}
	if out, err := reg.Submit(context.Background(), in, rail.Unavailable(), true); err != nil || out.Message != "submitted" || l.submitted["tx-1"] != 1 {
		t.Fatalf("resumed, unknown to the rail: %+v %v %v", out, err, l.submitted)
	}
	if out, err := reg.Submit(context.Background(), in, rail.Unavailable(), true); err != nil || out.Message != "tracked" || l.submitted["tx-1"] != 1 {
		t.Fatalf("resumed, known to the rail: %+v %v %v", out, err, l.submitted)
	}
	if out, err := reg.Submit(context.Background(), in, rail.Unavailable(), false); err != nil || out.Message != "submitted" || l.submitted["tx-1"] != 2 {
		t.Fatalf("a first attempt: %+v %v %v", out, err, l.submitted)
	}
}
