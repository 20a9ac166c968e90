package quote

import (
	"errors"
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/platformconfig"
	"paycore/internal/problem"
	"paycore/internal/problem/problemtest"
)

// A lookup prices from the sender's first currency the platform sends, never the one it
// looks up; a sender with none is refused.
func TestSendingCurrency(t *testing.T) {
	supported := currencies("USD", "EUR")
	supported = append(supported, platformconfig.Currency{CurrencyCode: "GBP", EnabledTransactionTypes: []string{"INCOMING"}})
	for _, c := range []struct {
		sender    []string
		receiving string
		want      string
	}{
		{nil, "BTC", "USD"},
		{nil, "USD", "EUR"},
		{[]string{"EUR"}, "BTC", "EUR"},
	} {
		if got, err := SendingCurrency(supported, c.sender, c.receiving); got != c.want || err != nil {
			t.Errorf("%v to %s: %q %v, want %q", c.sender, c.receiving, got, err, c.want)
		}
	}
	_, err := SendingCurrency(supported, []string{"GBP"}, "BTC")
	problemtest.Check(t, problemtest.Case{Name: "no sending currency", Err: err, Want: problem.Wire{Code: catalog.InvalidCurrency,
		Message: "the sender has no currency to pay BTC from (the platform's supported currencies with OUTGOING enabled)"}})
}

// The lookup's own refusals are answered byte for byte as the API answered them when it
// built them itself.
func TestLookupRefusals(t *testing.T) {
	field := map[string]any{"field": "receiverUmaAddress"}
	problemtest.Check(t,
		problemtest.Case{Name: "LookupAmbiguous", Err: LookupAmbiguous("$bob@pay.example"), Want: problem.Wire{Code: catalog.InvalidUmaAddress,
			Message: "$bob@pay.example names more than one receiver on this deployment", Details: field}},
		problemtest.Case{Name: "LookupNoCurrency", Err: LookupNoCurrency(), Want: problem.Wire{Code: catalog.InvalidCurrency,
			Message: "the receiver takes no currency", Details: field}},
	)
}

// The refusals of a payment to another provider's UMA address are one function each,
// whichever request meets them (the lookup names receiverUmaAddress, a quote
// destination.umaAddress, a refund no field).
func TestUmaRefusals(t *testing.T) {
	failure := map[string]any{"failure": "LNURLP_FAILED", "umaCode": "INVALID_SIGNATURE"}
	cause := errors.New("uma: the LNURLP request failed: bad signature")
	blocked := errors.New("uma: payments with this provider are not allowed: evil.example is blocked")
	payFailure := map[string]any{"failure": "PAY_REQUEST_FAILED"}
	problemtest.Check(t,
		problemtest.Case{Name: "NotUmaAddress", Err: NotUmaAddress("bob%x", FieldLookupUma), Want: problem.Wire{Code: catalog.InvalidUmaAddress,
			Message: "bob%x is not a UMA address ($name@domain)", Details: map[string]any{"field": "receiverUmaAddress"}}},
		problemtest.Case{Name: "NotUmaAddress, no field", Err: NotUmaAddress("bob%x", ""), Want: problem.Wire{Code: catalog.InvalidUmaAddress,
			Message: "bob%x is not a UMA address ($name@domain)"}},
		problemtest.Case{Name: "CounterpartyRefused", Err: CounterpartyRefused(blocked, "destination.umaAddress"),
			Want: problem.Wire{Code: catalog.CounterpartyNotAllowed, Message: blocked.Error(), Details: map[string]any{"field": "destination.umaAddress"}}},
		problemtest.Case{Name: "LnurlpFailed", Err: LnurlpFailed("$bob@pay.example", FieldLookupUma, cause, failure), Want: problem.Wire{Code: catalog.InvalidUmaAddress,
			Message: "the UMA provider of $bob@pay.example did not answer the LNURLP request as UMA requires: uma: the LNURLP request failed: bad signature",
			Details: map[string]any{"failure": "LNURLP_FAILED", "umaCode": "INVALID_SIGNATURE", "field": "receiverUmaAddress"}}},
		problemtest.Case{Name: "PayRequestFailed, no field", Err: PayRequestFailed("$alice@here.example", "", errors.New("uma: the sender's provider offers no currency"), payFailure),
			Want: problem.Wire{Code: catalog.PayreqRequestFailed,
				Message: "the UMA provider of $alice@here.example did not answer the pay request with an invoice this service may pay: the sender's provider offers no currency",
				Details: payFailure}},
	)
	if len(failure) != 2 || len(payFailure) != 1 {
		t.Errorf("a refusal changed the failure it was given: %v, %v", failure, payFailure)
	}
}
