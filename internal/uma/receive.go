package uma

import (
	"errors"
	"fmt"

	"github.com/shopspring/decimal"

	"paycore/internal/catalog"
	"paycore/internal/money"
	"paycore/internal/platformconfig"
)

// msatsPerBTC is how many millisatoshis one bitcoin is.
var msatsPerBTC = decimal.New(1, 11)

// Multiplier is the estimated millisatoshis per smallest unit of c when one bitcoin is worth
// btcPrice (major units of c): what an LNURLP response's currency states (UMAD-04).
func Multiplier(c money.Currency, btcPrice decimal.Decimal) float64 {
	if !btcPrice.IsPositive() {
		return 0
	}
	f, _ := msatsPerBTC.Div(btcPrice.Shift(int32(c.Decimals))).Float64()
	return f
}

// ReceivingCurrencies are the currencies an LNURLP response offers for a receiver holding
// open accounts in held: those the platform supports for incoming payments, in the platform's
// order, each with its multiplier (price gives bitcoin's price in it; a currency without one
// is left out) and the platform's limits as its convertible range.
func ReceivingCurrencies(held []string, supported platformconfig.Currencies, price func(code string) (decimal.Decimal, bool)) []Currency {
	var out []Currency
	for _, s := range supported {
		if !containsCode(held, s.CurrencyCode) || !allowsIncoming(s) {
			continue
		}
		c, ok := money.Lookup(s.CurrencyCode)
		p, priced := price(s.CurrencyCode)
		if !ok || !priced {
			continue
		}
		m := Multiplier(c, p)
		if m <= 0 {
			continue
		}
		out = append(out, Currency{Code: c.Code, Name: c.Name, Symbol: c.Symbol, Multiplier: m, Decimals: c.Decimals,
			Convertible: Convertible{Min: s.MinAmount, Max: s.MaxAmount}})
	}
	return out
}

func containsCode(list []string, code string) bool {
	for _, c := range list {
		if c == code {
			return true
		}
	}
	return false
}

func allowsIncoming(c platformconfig.Currency) bool {
	for _, t := range c.EnabledTransactionTypes {
		if t == string(catalog.Incoming) {
			return true
		}
	}
	return false
}

// Sendable is the range of millisatoshis an LNURLP response accepts for currencies: from one
// satoshi to the most any currency converts (at least one satoshi).
func Sendable(currencies []Currency) (minMsats, maxMsats int64) {
	maxMsats = 1000
	for _, c := range currencies {
		if v := float64(c.Convertible.Max) * c.Multiplier; v > float64(maxMsats) {
			maxMsats = int64(min(v, 9e15))
		}
	}
	return 1000, maxMsats
}

// KycStatusOf is how an LNURLP response states a customer's KYC status.
func KycStatusOf(s catalog.KycStatus) string {
	switch s {
	case catalog.KycApproved:
		return KycVerified
	case catalog.KycPending:
		return KycPending
	case "":
		return KycUnknown
	}
	return KycNotVerified
}

// Metadata is the LNURL metadata of a receiver's pay request (LUD-06): a text and the
// identifier (LUD-16 "text/identifier").
func Metadata(address string) string {
	return `[["text/plain","Pay ` + address + ` on UMA"],["text/identifier","` + address + `"]]`
}

// More refusals of a pay request (UMAD-05) by its receiver.
var (
	// ErrInvalidCurrency: the pay request converts into a currency the receiver does not
	// offer (INVALID_CURRENCY).
	ErrInvalidCurrency = errors.New("uma: the receiver does not receive that currency")
	// ErrSenderNotAccepted: the receiver's platform does not accept the payment
	// (SENDER_NOT_ACCEPTED).
	ErrSenderNotAccepted = errors.New("uma: the receiver does not accept this payment")
	// ErrMissingPayerData: the pay request lacks payer data the receiver requires
	// (MISSING_MANDATORY_PAYER_DATA).
	ErrMissingPayerData = errors.New("uma: mandatory payer data is missing")
	// ErrParsePayRequest: the pay request cannot be read (PARSE_PAYREQ_REQUEST_ERROR).
	ErrParsePayRequest = errors.New("uma: the pay request cannot be read")
	// ErrUserNotReady: the receiver cannot receive now (USER_NOT_READY).
	ErrUserNotReady = errors.New("uma: the receiver cannot receive now")
)

// Received is what the receiver of a pay request locks: Amount smallest units of the
// currency for an invoice of InvoiceSats, stated as Converted (InvoiceSats × 1000 =
// round(Amount × Multiplier) + Fee, the fee being what rounding the invoice up to a whole
// satoshi adds).
type Received struct {
	Amount      int64
	InvoiceSats int64
	Converted   Converted
}

// Convert is the receiving side's rule of a pay request's amount converting into convert,
// one of the currencies the receiver offered (its multiplier and convertible range): an
// amount in that currency ("<n>.<CODE>") is received whole, the invoice rounded up to a
// whole satoshi; an amount in millisatoshis ("<n>", whole satoshis only: the ledger counts
// satoshis) is the invoice, and the receiver gets what it converts to, rounded down. The
// received amount must be within the currency's convertible range.
func Convert(amount Amount, convert string, offered []Currency) (Received, error) {
	var c *Currency
	for i := range offered {
		if offered[i].Code == convert {
			c = &offered[i]
		}
	}
	if c == nil || c.Multiplier <= 0 {
		return Received{}, fmt.Errorf("%w: %q", ErrInvalidCurrency, convert)
	}
	n, code, err := amount.Parse()
	if err != nil {
		return Received{}, err
	}
	m := decimal.NewFromFloat(c.Multiplier)
	var r Received
	switch {
	case code != "" && code != c.Code:
		return Received{}, fmt.Errorf("%w: the amount is in %s, the payment converts into %s", ErrInvalidCurrency, code, c.Code)
	case code != "":
		r.Amount = n
		r.InvoiceSats = decimal.NewFromInt(n).Mul(m).Div(decimal.NewFromInt(1000)).Ceil().IntPart()
	case n%1000 != 0:
		return Received{}, fmt.Errorf("%w: %d msat is not a whole number of satoshis", ErrInvalidAmount, n)
	default:
		r.Amount = decimal.NewFromInt(n).Div(m).Floor().IntPart()
		r.InvoiceSats = n / 1000
	}
	if r.Amount < max(c.Convertible.Min, 1) || (c.Convertible.Max > 0 && r.Amount > c.Convertible.Max) || r.InvoiceSats <= 0 {
		return Received{}, fmt.Errorf("%w: %d %s is outside %d to %d", ErrInvalidAmount, r.Amount, c.Code, c.Convertible.Min, c.Convertible.Max)
	}
	fee := r.InvoiceSats*1000 - decimal.NewFromInt(r.Amount).Mul(m).Round(0).IntPart()
	r.Converted = Converted{Amount: r.Amount, CurrencyCode: c.Code, Decimals: c.Decimals, Multiplier: c.Multiplier, Fee: max(fee, 0)}
	return r, nil
}

// PayerInformation is what a pay request tells of its payer, as the receiving platform
// sees its counterparty (counterpartyInformation): the payer's e-mail, UMA address, KYC
// status as its provider states it, and the travel-rule data decrypted (travelRule, "" none)
// with its format. The name is the counterparty's FULL_NAME, beside these.
func PayerInformation(p PayerData, travelRule string) map[string]string {
	info := map[string]string{"UMA_ADDRESS": p.Identifier}
	if p.Email != "" {
		info["EMAIL"] = p.Email
	}
	if c := p.Compliance; c != nil {
		if c.KycStatus != "" {
			info["KYC_STATUS"] = c.KycStatus
		}
		if travelRule != "" {
			info["TRAVEL_RULE_INFO"] = travelRule
			if c.TravelRuleFormat != "" {
				info["TRAVEL_RULE_FORMAT"] = c.TravelRuleFormat
			}
		}
	}
	return info
}

// ErrUnrecognizedPayeeKey: the pay request requires payee data the receiver does not give
// (UNRECOGNIZED_MANDATORY_PAYEE_DATA_KEY).
var ErrUnrecognizedPayeeKey = errors.New("uma: the sender requires payee data the receiver does not give")

// payeeMandatory are the payee data a sender may require: the identifier and compliance
// data (always sent) and the name (the receiving platform's approval gives it). The e-mail
// is sent when asked and known, so it cannot be required.
var payeeMandatory = map[string]bool{"identifier": true, "compliance": true, "name": true}

// CheckPayeeData refuses a pay request whose sender requires payee data (mandatory) the
// receiver does not give; optional keys it does not know are left out of the answer.
func CheckPayeeData(requested map[string]CounterpartyField) error {
	for key, f := range requested {
		if f.Mandatory && !payeeMandatory[key] {
			return fmt.Errorf("%w: %q", ErrUnrecognizedPayeeKey, key)
		}
	}
	return nil
}

// PayeeDataFor is the payee data answering a pay request that asked for requested: the
// identifier and compliance always, the name and e-mail (from info, what the receiving
// platform says of its customer: FULL_NAME, EMAIL) when asked and known (UMAD-06: nothing
// the sender did not ask for).
func PayeeDataFor(requested map[string]CounterpartyField, identifier string, info map[string]string, c *PayeeCompliance) PayeeData {
	d := PayeeData{Identifier: identifier, Compliance: c}
	if _, ok := requested["name"]; ok {
		d.Name = info["FULL_NAME"]
	}
	if _, ok := requested["email"]; ok {
		d.Email = info["EMAIL"]
	}
	return d
}
