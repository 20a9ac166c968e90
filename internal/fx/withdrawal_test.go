package fx

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/shopspring/decimal"

	"paycore/internal/extaccount"
	"paycore/internal/problem"
)

// A withdrawal's fees: the network's fee in its own asset, the service's fixed fee, and
// their total in the withdrawn currency, rounded up.
func TestEstimateWithdrawal(t *testing.T) {
	tb := table(t, false)
	p := DefaultPricing() // 10 US cents
	cases := []struct {
		name string
		w    Withdrawal
		want WithdrawalEstimate
	}{
		// 5,000 lamports (0.000005 SOL at 1/0.0065 = 153.85 USD) = 769.2 micro-USDC, rounded up.
		{"USDC on Solana", Withdrawal{Currency: cur(t, "USDC"), Network: "SOLANA", Amount: 1_000_000},
			WithdrawalEstimate{NetworkFee: 5000, NetworkFeeAsset: "SOL", ApplicationFee: 100_000, TotalFee: 100_770, NetAmount: 899_230}},
		// 0.0004 ETH at 3,000 USD = 1.20 USDC.
		{"USDC on Ethereum", Withdrawal{Currency: cur(t, "USDC"), Network: "ETHEREUM", Amount: 5_000_000},
			WithdrawalEstimate{NetworkFee: 400_000_000_000_000, NetworkFeeAsset: "ETH", ApplicationFee: 100_000, TotalFee: 1_300_000, NetAmount: 3_700_000}},
		// 1,500 sats plus 10 cents in BTC (0.00000105 BTC = 105 sats).
		{"BTC on Bitcoin", Withdrawal{Currency: cur(t, "BTC"), Network: "BITCOIN", Amount: 100_000},
			WithdrawalEstimate{NetworkFee: 1500, NetworkFeeAsset: "BTC", ApplicationFee: 105, TotalFee: 1605, NetAmount: 98_395}},
		{"USDB on Spark (no network fee)", Withdrawal{Currency: cur(t, "USDB"), Network: "SPARK", Amount: 1_000_000},
			WithdrawalEstimate{NetworkFee: 0, NetworkFeeAsset: "BTC", ApplicationFee: 100_000, TotalFee: 100_000, NetAmount: 900_000}},
	}
	for _, tc := range cases {
		got, err := EstimateWithdrawal(tb, p, tc.w, tc.w.Currency.Code, t0)
		if err != nil || got != tc.want {
			t.Errorf("%s: %+v %v\n want %+v", tc.name, got, err, tc.want)
		}
	}
	for name, tc := range map[string]struct {
		w     Withdrawal
		field string
	}{
		"USDC on Bitcoin":     {Withdrawal{Currency: cur(t, "USDC"), Network: "BITCOIN", Amount: 1_000_000}, "currency"},
		"unknown network":     {Withdrawal{Currency: cur(t, "USDC"), Network: "TRON", Amount: 1_000_000}, "cryptoNetwork"},
		"below the fees":      {Withdrawal{Currency: cur(t, "BTC"), Network: "BITCOIN", Amount: 1605}, "amount"},
		"fiat on any network": {Withdrawal{Currency: cur(t, "USD"), Network: "SOLANA", Amount: 1_000}, "currency"},
		// USDT is withdrawn on Solana, but the account holds USDC.
		"another currency": {Withdrawal{Currency: cur(t, "USDT"), Network: "SOLANA", Amount: 1_000_000}, "currency"},
	} {
		held := tc.w.Currency.Code
		if name == "another currency" {
			held = "USDC"
		}
		_, err := EstimateWithdrawal(tb, p, tc.w, held, t0)
		if w, ok := problem.ToWire(err); !ok || w.Field != tc.field {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The same USDT withdrawal from a USDT account is priced.
	if _, err := EstimateWithdrawal(tb, p, Withdrawal{Currency: cur(t, "USDT"), Network: "SOLANA", Amount: 1_000_000}, "USDT", t0); err != nil {
		t.Errorf("USDT from a USDT account: %v", err)
	}
}

// Fees that do not fit int64 minor units (an extreme rate table) are refused, never
// wrapped: the application fee, and the network fee converted.
func TestEstimateWithdrawalTooLarge(t *testing.T) {
	tb, err := NewTable(map[string]string{"USDC": "1e30"}, t0, false)
	if err != nil {
		t.Fatal(err)
	}
	noFee := Pricing{Spread: decimal.Zero, FixedFeeUSD: decimal.Zero, VariableRate: decimal.Zero}
	for name, tc := range map[string]struct {
		p       Pricing
		network string
	}{
		"application fee": {DefaultPricing(), "SOLANA"},
		"network fee":     {noFee, "ETHEREUM"},
	} {
		e, err := EstimateWithdrawal(tb, tc.p, Withdrawal{Currency: cur(t, "USDC"), Network: tc.network, Amount: math.MaxInt64}, "USDC", t0)
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: %+v %v", name, e, err)
		}
	}
}

// The networks withdrawals are priced on are those whose addresses are checked.
func TestNetworksMatchAddressChecks(t *testing.T) {
	if got, want := Networks(), extaccount.Networks(); !slices.Equal(got, want) {
		t.Fatalf("fx prices withdrawals on %v, extaccount checks addresses on %v", got, want)
	}
}

func TestWithdrawalRequestCheck(t *testing.T) {
	str := func(s string) *string { return &s }
	amount := int64(1_000_000)
	good := WithdrawalRequest{InternalAccountID: str("InternalAccount:0190a000-0000-7000-8000-000000000001"), Currency: str("USDC"),
		CryptoNetwork: str("SOLANA"), Amount: &amount, DestinationAddress: str("7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV")}
	w, id, err := good.Check()
	if err != nil || w.Currency.Code != "USDC" || w.Network != "SOLANA" || w.Amount != amount || id.String() != "0190a000-0000-7000-8000-000000000001" {
		t.Fatalf("%+v %v %v", w, id, err)
	}
	zero := int64(0)
	for field, change := range map[string]func(*WithdrawalRequest){
		"internalAccountId":  func(r *WithdrawalRequest) { r.InternalAccountID = str("Customer:0190a000-0000-7000-8000-000000000001") },
		"currency":           func(r *WithdrawalRequest) { r.Currency = str("USD") },
		"cryptoNetwork":      func(r *WithdrawalRequest) { r.CryptoNetwork = str("TRON") },
		"amount":             func(r *WithdrawalRequest) { r.Amount = &zero },
		"destinationAddress": func(r *WithdrawalRequest) { r.DestinationAddress = str("0x52908400098527886E0F7030069857D2E4169EE7") },
	} {
		r := good
		change(&r)
		if _, _, err := r.Check(); err == nil {
			t.Errorf("%s: accepted", field)
		} else if w, _ := problem.ToWire(err); w.Field != field {
			t.Errorf("%s: refused on %s", field, w.Field)
		}
	}
}

// A probed route's fee replaces the network's typical one (a Lightning withdrawal probed
// on its route), in the total and what arrives.
func TestEstimateWithdrawalProbedFee(t *testing.T) {
	tb := table(t, false)
	w := Withdrawal{Currency: cur(t, "BTC"), Network: "LIGHTNING", Amount: 100_000}
	typical, err := EstimateWithdrawal(tb, DefaultPricing(), w, "BTC", t0)
	if err != nil || typical.NetworkFee != 2 {
		t.Fatalf("typical: %+v %v", typical, err)
	}
	for _, fee := range []int64{0, 7} {
		w.ProbedFee = &fee
		e, err := EstimateWithdrawal(tb, DefaultPricing(), w, "BTC", t0)
		if err != nil || e.NetworkFee != fee || e.TotalFee != e.ApplicationFee+fee || e.NetAmount != 100_000-e.TotalFee {
			t.Errorf("probed %d: %+v %v", fee, e, err)
		}
	}
}
