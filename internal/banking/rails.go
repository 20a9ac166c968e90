package banking

import (
	"slices"
	"time"

	"paycore/internal/problem"
)

// PaymentRails are the payment networks a payment to a bank account or mobile wallet may
// travel on, the peer API's PaymentRail values.
var PaymentRails = []string{"ACH", "ACH_COLOMBIA", "BANK_TRANSFER", "BRE_B", "CIPS", "FAST", "FASTER_PAYMENTS", "FEDNOW", "INSTAPAY",
	"MOBILE_MONEY", "NEFT", "PAYNOW", "PESONET", "PIX", "RTGS", "RTP", "SEPA", "SEPA_INSTANT", "SPEI", "SWIFT", "UNIONPAY", "UPI", "WIRE"}

// settlement is how long a payment on each rail typically takes to reach the beneficiary
// once sent: 0 for the instant rails (real-time networks and mobile money), otherwise the
// rail's usual cycle (ACH and SEPA credit transfers the next business day, a wire or an
// NEFT batch within hours, SWIFT two days).
var settlement = map[string]time.Duration{
	"ACH": 24 * time.Hour, "ACH_COLOMBIA": 24 * time.Hour, "BANK_TRANSFER": 24 * time.Hour, "BRE_B": 0, "CIPS": 24 * time.Hour,
	"FAST": 0, "FASTER_PAYMENTS": 0, "FEDNOW": 0, "INSTAPAY": 0, "MOBILE_MONEY": 0, "NEFT": 2 * time.Hour, "PAYNOW": 0,
	"PESONET": 12 * time.Hour, "PIX": 0, "RTGS": 30 * time.Minute, "RTP": 0, "SEPA": 24 * time.Hour, "SEPA_INSTANT": 0, "SPEI": 0,
	"SWIFT": 48 * time.Hour, "UNIONPAY": 24 * time.Hour, "UPI": 0, "WIRE": 4 * time.Hour,
}

// Rail selection modes: how a payment's rail was chosen.
const (
	RailAuto   = "AUTO"   // the service chose it: the first of the account's rails
	RailManual = "MANUAL" // the platform named it (destination.paymentRail)
)

// RailChoice is the rail a payment to an external account travels on, how it was chosen,
// and how long it typically takes to settle. The zero value is no network rail (a wallet,
// a Lightning or UMA destination).
type RailChoice struct {
	Rail     string        `json:",omitempty"`
	Mode     string        `json:",omitempty"`
	Timeline time.Duration `json:",omitempty"`
}

// RailField is the request field that names a payment's rail.
const RailField = "destination.paymentRail"

// ChooseRail picks the rail of a payment to an account offering rails: the requested one
// (destination.paymentRail), which must be among them (MANUAL), else the first of them
// (AUTO). An account without rails has none (the zero RailChoice), and then nothing may
// be requested. The refusal is a 400 on RailField naming what the account offers.
func ChooseRail(requested string, offered []string) (RailChoice, error) {
	rail, mode := requested, RailManual
	switch {
	case requested == "" && len(offered) == 0:
		return RailChoice{}, nil
	case requested == "":
		rail, mode = offered[0], RailAuto
	case len(offered) == 0:
		return RailChoice{}, problem.Field(RailField, "%s: the account is not paid over a payment rail; omit it", RailField)
	case !slices.Contains(offered, requested):
		return RailChoice{}, problem.Field(RailField, "%s: the account is paid over %v, not %s", RailField, offered, requested)
	}
	return RailChoice{Rail: rail, Mode: mode, Timeline: settlement[rail]}, nil
}

// ExpectedAt is when a payment on the chosen rail sent at sent is expected to settle; nil
// for an instant rail or no rail.
func (c RailChoice) ExpectedAt(sent time.Time) *time.Time {
	if c.Rail == "" || c.Timeline == 0 {
		return nil
	}
	at := sent.Add(c.Timeline)
	return &at
}
