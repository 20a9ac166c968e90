package quote

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"paycore/internal/catalog"
	"paycore/internal/fx"
	"paycore/internal/money"
	"paycore/internal/problem"
	"paycore/internal/rail"
	"paycore/internal/uma"
)

// A quote to a UMA address of another provider (a receiver elsewhere) is priced in two
// steps. Before the quote's transaction, the receiver's provider is asked (UMA's LNURLP
// request, then its pay request) for an invoice: Ask is what the pay request asks, the
// locked receiving amount in the receiver's currency, or the satoshis the locked sending
// amount buys at the service's rate. Its answer (Remote) is then priced like any payout
// over Lightning: the sending currency buys the invoice's satoshis and the network fee the
// rail reserves, and the receiver gets what its provider converted them to.

// PayoutCurrency is the currency a payment to a receiver elsewhere crosses its rail in:
// satoshis over Lightning.
const PayoutCurrency = "BTC"

// InvoiceMargin is how long before its invoice expires a quote to a receiver elsewhere
// stops being executable: the time a payment needs to find its route.
const InvoiceMargin = time.Minute

// Ask is what the pay request to a receiver elsewhere asks: Amount of Currency's minor
// unit (the locked receiving amount) when InCurrency, else Amount millisatoshis converted
// into Currency.
type Ask struct {
	Currency   string
	Amount     int64
	InCurrency bool
}

// CheckElsewhere is the rule a quote to a receiver elsewhere must pass before its
// receiver's provider is asked anything: the quote rule (Check), a rail that pays invoices
// (payable), and a paying customer whose UMA address is on the platform's UMA domain (the
// identity the pay request is signed for).
func CheckElsewhere(r Request, a Accounts, payable bool) error {
	if err := Check(r, a); err != nil {
		return err
	}
	_, domain, _ := strings.Cut(a.SenderUma, "@")
	switch {
	case !payable:
		t, _ := payoutTarget(r, a)
		return problem.Refuse(catalog.RailNotConfigured, "no payment rail that pays Lightning invoices is configured for %s payments to UMA addresses of other providers",
			strings.ToLower(string(t.Environment))).With(map[string]any{"environment": t.Environment, "currency": t.Currency, "destinationKind": t.Kind})
	case a.UmaDomain == "":
		return problem.Field("destination.umaAddress", "paying another UMA provider's address needs the platform's umaDomain (PATCH /config)")
	case !a.CustomerID.Valid || !strings.EqualFold(domain, a.UmaDomain):
		return problem.Field("source.accountId", "paying another UMA provider's address takes a customer whose UMA address is on the platform's umaDomain %s", a.UmaDomain)
	}
	return nil
}

// AskFor is what the pay request of a quote r on a (CheckElsewhere passed) asks the
// receiver's provider, which offers the currencies offered, its first the receiver's
// preferred: the currency r names (one offered) or the first, and the locked receiving
// amount, or the satoshis the locked sending amount buys at the service's rate at the
// moment at after the rail's network fee reserve (reserve, nil none).
func AskFor(r Request, a Accounts, offered []string, rates fx.Provider, p fx.Pricing, at time.Time, reserve func(int64) int64) (Ask, error) {
	currency := r.Destination.Currency
	switch {
	case len(offered) == 0:
		return Ask{}, problem.FieldCode(catalog.InvalidCurrency, "destination.umaAddress", "the receiver's provider offers no currency")
	case currency == "":
		currency = offered[0]
	case !slices.Contains(offered, currency):
		return Ask{}, problem.FieldCode(catalog.InvalidCurrency, "destination.currency", "the receiver takes %s, not %s", strings.Join(offered, ", "), currency)
	}
	if r.LockedSide == Receiving {
		return Ask{Currency: currency, Amount: r.LockedAmount, InCurrency: true}, nil
	}
	rate, err := payoutRate(r, a, rates, p, at, currency)
	if err != nil {
		return Ask{}, err
	}
	conv, err := rate.Sending(r.LockedAmount)
	if err != nil {
		return Ask{}, problem.FieldCode(catalog.AmountOutOfRange, fieldAmount, "%d %s cannot be quoted: %v", r.LockedAmount, rate.From.Code, err)
	}
	sats := conv.Receiving
	if reserve != nil {
		sats, _ = splitReserve(conv.Receiving, reserve)
	}
	if sats <= 0 || sats > (1<<62)/1000 {
		return Ask{}, problem.FieldCode(catalog.AmountOutOfRange, fieldAmount, "%d %s is too small to pay another provider's receiver after fees", r.LockedAmount, rate.From.Code)
	}
	return Ask{Currency: currency, Amount: sats * 1000}, nil
}

// CheckPayer is the check, before the pay request, that the sender's information covers
// what the receiver elsewhere requires of the payer (required, its LNURLP response's
// mandatory payer data) and what the platform requires for payments in currency: the
// refusal Price would give after it (MISSING_MANDATORY_USER_INFO), before the receiver's
// provider is asked for an invoice.
func CheckPayer(r Request, a Accounts, currency string, required []string) error {
	d := *a.Destination
	d.PayerFields = required
	a.Destination = &d
	_, err := senderInfo(r, a, currency)
	return err
}

// payoutRate is the service's rate from the sending currency into the payout's currency,
// with the platform's fee on a payment the receiver gets in receiving.
func payoutRate(r Request, a Accounts, rates fx.Provider, p fx.Pricing, at time.Time, receiving string) (fx.Rate, error) {
	from, ok := money.Lookup(a.SendingCurrency(r))
	btc, _ := money.Lookup(PayoutCurrency)
	if !ok {
		return fx.Rate{}, problem.FieldCode(catalog.InvalidCurrency, fieldSource, "%s cannot be converted", a.SendingCurrency(r))
	}
	rate, err := fx.Price(rates, from, btc, p, at)
	if err != nil {
		return fx.Rate{}, problem.FieldCode(catalog.InvalidCurrency, fieldSource, "%s → %s cannot be priced: %v", from.Code, btc.Code, err)
	}
	return withPlatformFee(rate, r, a, receiving)
}

// Remote is what a receiver's provider answered a quote's pay request with, once checked:
// the receiver gets Amount of Currency's minor unit (Decimals digits) for an Invoice of
// InvoiceMsat millisatoshis at Multiplier millisatoshis a unit plus its Fee
// (millisatoshis), payable until ExpiresAt.
type Remote struct {
	Address     string
	Domain      string
	Currency    string
	Decimals    int
	Amount      int64
	Multiplier  float64
	Fee         int64
	Invoice     string
	InvoiceMsat int64
	ExpiresAt   time.Time
	// AnsweredAt is when the provider answered.
	AnsweredAt time.Time
	// ReceiverName is the payee's name, when its provider told it.
	ReceiverName string `json:",omitempty"`
	// UtxoCallback is where the receiver's provider asks to be told which channels carried
	// the payment (UMAD-07); "" none. PayerDomain is the platform's UMA domain the requests
	// were signed for, which signs that callback too.
	UtxoCallback string `json:",omitempty"`
	PayerDomain  string `json:",omitempty"`
	// PayerFields are the payer's details the receiver requires (FULL_NAME, EMAIL).
	PayerFields []string `json:",omitempty"`
}

// ValidElsewhere reports whether address is a UMA address another provider could answer
// for ($name@domain).
func ValidElsewhere(address string) bool {
	_, _, err := uma.SplitAddress(address)
	return err == nil
}

// Answered records on d, a receiver elsewhere, its provider's answer x: what it receives
// in, its name and the payer details it requires.
func (d *DestinationState) Answered(x *Remote) {
	d.Remote, d.Currency, d.PayerFields = x, x.Currency, x.PayerFields
	if x.ReceiverName != "" {
		d.HolderName = x.ReceiverName
	}
}

// Sats is what the invoice asks in whole satoshis, rounded up: what the ledger moves.
func (x Remote) Sats() int64 { return rail.SatsUp(x.InvoiceMsat) }

// priceRemote prices r to the receiver elsewhere a.Destination.Remote (see Price): the
// sending currency buys the invoice's satoshis and the rail's network fee reserve. A
// locked sending amount must still buy the invoice (the pay request asked what it bought
// at the same moment); every limit of the platform's configuration applies to the sending
// total and to what the receiver gets.
func priceRemote(r Request, a Accounts, rates fx.Provider, p fx.Pricing, at time.Time, reserve func(int64) int64) (Priced, error) {
	x := a.Destination.Remote
	rate, err := payoutRate(r, a, rates, p, at, x.Currency)
	if err != nil {
		return Priced{}, err
	}
	sats := x.Sats()
	var conv fx.Conversion
	var networkFee int64
	if r.LockedSide == Sending {
		if conv, err = rate.Sending(r.LockedAmount); err == nil {
			if networkFee = conv.Receiving - sats; networkFee < 0 {
				return Priced{}, problem.FieldCode(catalog.AmountOutOfRange, fieldAmount,
					"the receiver's invoice asks %d sat, more than %d %s buys: quote again", sats, r.LockedAmount, rate.From.Code)
			}
		}
	} else {
		if reserve != nil {
			networkFee = reserve(sats)
		}
		conv, err = rate.Receiving(sats + networkFee)
	}
	if err != nil {
		return Priced{}, problem.FieldCode(catalog.AmountOutOfRange, fieldAmount, "%d %s cannot be quoted: %v", r.LockedAmount, lockedCurrency(r, rate.From, money.Currency{Code: x.Currency}), err)
	}
	conv.Receiving = sats
	if conv.Net <= 0 {
		return Priced{}, problem.FieldCode(catalog.AmountOutOfRange, fieldAmount, "%d is too small: after fees nothing would be received", r.LockedAmount)
	}
	if err := a.Currencies.CheckAmount(rate.From.Code, catalog.Outgoing, conv.Total); err != nil {
		return Priced{}, amountField(err)
	}
	if err := a.Limits.CheckSize(fieldAmount, rate.From.Code, conv.Total); err != nil {
		return Priced{}, err
	}
	if err := a.Currencies.CheckAmount(x.Currency, catalog.Outgoing, x.Amount); err != nil {
		return Priced{}, amountField(err)
	}
	if r.ImmediatelyExecute && a.Source != nil && a.Source.Available < conv.Total {
		return Priced{}, problem.FieldCode(catalog.InsufficientFunds, fieldAmount,
			"executing the quote at once takes %d %s, above the account's available balance", conv.Total, rate.From.Code)
	}
	info, err := senderInfo(r, a, x.Currency)
	if err != nil {
		return Priced{}, err
	}
	return Priced{Rate: rate, Conversion: conv, NetworkFee: networkFee, ExchangeRate: remoteExchangeRate(rate.From, conv.Net, *x),
		SenderInfo: info, Remote: x}, nil
}

// remoteExchangeRate is what one unit the receiver gets cost in sending units (major),
// fees excluded: the net sending amount over the amount received.
func remoteExchangeRate(from money.Currency, net int64, x Remote) decimal.Decimal {
	return fx.ExchangeRateOf(from, net, money.Currency{Code: x.Currency, Decimals: x.Decimals}, x.Amount)
}

// remoteDetails are the rate details of a quote to a receiver elsewhere: the receiver's
// provider converts one mSAT into 1/Multiplier receiving units, and its fixed fee is the
// network fee the quote reserves (satoshis, the payout's currency); the service's
// multiplier converts one sending minor unit into mSATs.
func (p Priced) remoteDetails() RateDetails {
	x := p.Remote
	counterparty := decimal.Zero
	if x.Multiplier > 0 {
		counterparty = decimal.NewFromInt(1).DivRound(decimal.NewFromFloat(x.Multiplier), 30)
	}
	return RateDetails{
		CounterpartyMultiplier:      positiveNumber(counterparty),
		CounterpartyFixedFee:        p.NetworkFee,
		ServiceAPIMultiplier:        positiveNumber(p.Rate.Multiplier.Mul(decimal.New(1000, 0))),
		ServiceAPIFixedFee:          p.Rate.FixedFee,
		ServiceAPIVariableFeeRate:   json.Number(p.Rate.VariableRate.String()),
		ServiceAPIVariableFeeAmount: p.Fees - p.PlatformFees - p.Rate.FixedFee,
	}
}

// positiveNumber is number for a decimal that may be zero.
func positiveNumber(d decimal.Decimal) json.Number {
	if !d.IsPositive() {
		return "0"
	}
	return number(d)
}

// RemoteExpiry is when a quote to a receiver elsewhere created at now stops being
// executable: after its lifetime, or InvoiceMargin before its invoice expires, whichever
// comes first.
func RemoteExpiry(now time.Time, lifetime time.Duration, x Remote) time.Time {
	return minTime(now.Add(lifetime), x.ExpiresAt.Add(-InvoiceMargin))
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// errNotAsked is a quote to a receiver elsewhere priced before its provider was asked: a
// defect of the caller, not a refusal.
var errNotAsked = errors.New("quote: a receiver elsewhere is priced only with its provider's answer")
