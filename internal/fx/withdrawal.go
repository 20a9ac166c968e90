package fx

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"paycore/internal/extaccount"
	"paycore/internal/ids"
	"paycore/internal/money"
	"paycore/internal/problem"
)

// network is a crypto network withdrawals go out on: the currencies withdrawn on it, the
// asset its fee is paid in, and a typical fee in that asset's major unit. nativeUSD prices
// a fee asset the rate table does not hold (ETH, POL).
type network struct {
	assets         []string
	native         string
	nativeDecimals int32
	fee            decimal.Decimal
	nativeUSD      decimal.Decimal
}

var networks = map[string]network{
	"SOLANA":    {assets: []string{"USDC", "USDT", "SOL"}, native: "SOL", nativeDecimals: 9, fee: decimal.RequireFromString("0.000005")},
	"ETHEREUM":  {assets: []string{"USDC"}, native: "ETH", nativeDecimals: 18, fee: decimal.RequireFromString("0.0004"), nativeUSD: decimal.NewFromInt(3000)},
	"BASE":      {assets: []string{"USDC"}, native: "ETH", nativeDecimals: 18, fee: decimal.RequireFromString("0.000002"), nativeUSD: decimal.NewFromInt(3000)},
	"POLYGON":   {assets: []string{"USDC"}, native: "POL", nativeDecimals: 18, fee: decimal.RequireFromString("0.01"), nativeUSD: decimal.RequireFromString("0.5")},
	"SPARK":     {assets: []string{"BTC", "USDB"}, native: "BTC", nativeDecimals: 8, fee: decimal.Zero},
	"LIGHTNING": {assets: []string{"BTC"}, native: "BTC", nativeDecimals: 8, fee: decimal.RequireFromString("0.00000002")},
	"BITCOIN":   {assets: []string{"BTC"}, native: "BTC", nativeDecimals: 8, fee: decimal.RequireFromString("0.000015")},
}

// NetworkCarries reports whether currency moves on the crypto network.
func NetworkCarries(network, currency string) bool {
	n, ok := networks[network]
	return ok && slices.Contains(n.assets, currency)
}

// WithdrawalRequest is the body of POST /crypto/estimate-withdrawal-fee.
type WithdrawalRequest struct {
	InternalAccountID  *string `json:"internalAccountId"`
	Currency           *string `json:"currency"`
	CryptoNetwork      *string `json:"cryptoNetwork"`
	Amount             *int64  `json:"amount"`
	DestinationAddress *string `json:"destinationAddress"`
}

// Check checks the request's shape and its destination address on the network, and
// returns the withdrawal and the internal account it comes from.
func (r WithdrawalRequest) Check() (Withdrawal, uuid.UUID, error) {
	switch {
	case r.InternalAccountID == nil:
		return Withdrawal{}, uuid.Nil, problem.Field("internalAccountId", "internalAccountId is required")
	case r.Currency == nil:
		return Withdrawal{}, uuid.Nil, problem.Field("currency", "currency is required")
	case r.CryptoNetwork == nil:
		return Withdrawal{}, uuid.Nil, problem.Field("cryptoNetwork", "cryptoNetwork is required")
	case r.Amount == nil || *r.Amount <= 0:
		return Withdrawal{}, uuid.Nil, problem.Field("amount", "amount is required: a positive integer in the smallest unit of the currency")
	case r.DestinationAddress == nil:
		return Withdrawal{}, uuid.Nil, problem.Field("destinationAddress", "destinationAddress is required")
	}
	id, err := ids.Parse(ids.InternalAccount, *r.InternalAccountID)
	if err != nil {
		return Withdrawal{}, uuid.Nil, problem.Field("internalAccountId", "internalAccountId must be an InternalAccount id")
	}
	cur, ok := money.Lookup(*r.Currency)
	if !ok || cur.Kind != money.Crypto {
		return Withdrawal{}, uuid.Nil, problem.Field("currency", "currency must be a crypto currency such as USDC")
	}
	if _, ok := networks[*r.CryptoNetwork]; !ok {
		return Withdrawal{}, uuid.Nil, problem.Field("cryptoNetwork", "cryptoNetwork must be one of %s", strings.Join(Networks(), ", "))
	}
	if msg := extaccount.CheckAddress(*r.CryptoNetwork, *r.DestinationAddress); msg != "" {
		return Withdrawal{}, uuid.Nil, problem.Field("destinationAddress", "destinationAddress %s on %s", msg, *r.CryptoNetwork)
	}
	return Withdrawal{Currency: cur, Network: *r.CryptoNetwork, Amount: *r.Amount, Destination: *r.DestinationAddress}, id, nil
}

// Withdrawal is a crypto withdrawal to estimate: an amount of a currency (smallest unit)
// out on a network.
type Withdrawal struct {
	Currency    money.Currency
	Network     string
	Amount      int64
	Destination string
	// ProbedFee, when set, is the network fee a probe of the route to the destination
	// found, in the network's native minor unit (satoshis on Lightning): it replaces the
	// network's typical fee.
	ProbedFee *int64
}

// WithdrawalEstimate is what a withdrawal costs: the network fee in its own asset, the
// service's fee, the total in the withdrawn currency (the network fee converted at the
// current rate, rounded up) and what arrives.
type WithdrawalEstimate struct {
	NetworkFee      int64
	NetworkFeeAsset string
	ApplicationFee  int64
	TotalFee        int64
	NetAmount       int64
}

// EstimateWithdrawal prices a withdrawal from an account holding accountCurrency under the
// pricing's fixed fee (the application fee) with the rates at a moment. The currency must
// be the account's and withdrawn on the network, and the amount must cover the fees.
func EstimateWithdrawal(rates Provider, p Pricing, w Withdrawal, accountCurrency string, at time.Time) (WithdrawalEstimate, error) {
	if accountCurrency != w.Currency.Code {
		return WithdrawalEstimate{}, problem.Field("currency", "the internal account holds %s, not %s", accountCurrency, w.Currency.Code)
	}
	n, ok := networks[w.Network]
	if !ok {
		return WithdrawalEstimate{}, problem.Field("cryptoNetwork", "cryptoNetwork must be one of %s", strings.Join(Networks(), ", "))
	}
	if !slices.Contains(n.assets, w.Currency.Code) {
		return WithdrawalEstimate{}, problem.Field("currency", "%s is not withdrawn on %s (it withdraws %s)", w.Currency.Code, w.Network, strings.Join(n.assets, ", "))
	}
	usdToCur, _, err := rates.Mid(Base, w.Currency.Code, at)
	if err != nil {
		return WithdrawalEstimate{}, err
	}
	curPerNative := n.nativeUSD.Mul(usdToCur)
	if n.nativeUSD.IsZero() {
		if curPerNative, _, err = rates.Mid(n.native, w.Currency.Code, at); err != nil {
			return WithdrawalEstimate{}, err
		}
	}
	fee := n.fee
	if w.ProbedFee != nil {
		fee = decimal.NewFromInt(*w.ProbedFee).Shift(-n.nativeDecimals)
	}
	e := WithdrawalEstimate{NetworkFee: fee.Shift(n.nativeDecimals).IntPart(), NetworkFeeAsset: n.native}
	if e.ApplicationFee, err = minorUnitsUp(p.FixedFeeUSD, usdToCur, w.Currency.Decimals); err != nil {
		return WithdrawalEstimate{}, fmt.Errorf("application fee in %s: %w", w.Currency.Code, err)
	}
	networkFee, err := minorUnitsUp(fee, curPerNative, w.Currency.Decimals)
	if err != nil || networkFee > math.MaxInt64-e.ApplicationFee {
		return WithdrawalEstimate{}, fmt.Errorf("network fee of %s in %s: %w", w.Network, w.Currency.Code, ErrTooLarge)
	}
	e.TotalFee = e.ApplicationFee + networkFee
	if w.Amount <= e.TotalFee {
		return e, problem.Field("amount", "amount %d does not cover the withdrawal's fees of %d %s", w.Amount, e.TotalFee, w.Currency.Code).
			With(map[string]any{"totalFee": e.TotalFee})
	}
	e.NetAmount = w.Amount - e.TotalFee
	return e, nil
}

// Networks are the crypto networks withdrawals go out on, sorted.
func Networks() []string {
	out := make([]string, 0, len(networks))
	for name := range networks {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}
