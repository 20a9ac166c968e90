package quote

import (
	"maps"
	"strings"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// The refusals of a payment to a UMA address whose provider is elsewhere, whichever
// request meets them (a receiver lookup, a quote, a refund paid over UMA). Each names
// field in its details ("" names none): the request's field that holds the address.

// NotUmaAddress is the refusal of an address that is no UMA address ($name@domain):
// INVALID_UMA_ADDRESS.
func NotUmaAddress(address, field string) error {
	return onField(problem.Refuse(catalog.InvalidUmaAddress, "%s is not a UMA address ($name@domain)", address), field, nil)
}

// CounterpartyRefused is the refusal of an address whose provider the deployment does not
// transact with (cause, from uma.CheckCounterparty): 403 COUNTERPARTY_NOT_ALLOWED.
func CounterpartyRefused(cause error, field string) error {
	return onField(problem.Refuse(catalog.CounterpartyNotAllowed, "%v", cause), field, nil)
}

// LnurlpFailed is the refusal of an address whose provider did not answer the LNURLP
// request as UMA requires (cause): INVALID_UMA_ADDRESS, its details those failure tells of
// the failure (details.failure LNURLP_FAILED, details.umaCode the protocol's code of the
// cause where there is one).
func LnurlpFailed(address, field string, cause error, failure map[string]any) error {
	return onField(problem.Refuse(catalog.InvalidUmaAddress, "the UMA provider of %s did not answer the LNURLP request as UMA requires: %v", address, cause),
		field, failure)
}

// PayRequestFailed is the refusal of a payment whose receiver's provider did not answer
// its pay request with an invoice the service may pay (cause): 424 PAYREQ_REQUEST_FAILED,
// its details those failure tells of the failure (details.failure PAY_REQUEST_FAILED,
// details.umaCode where there is one).
func PayRequestFailed(address, field string, cause error, failure map[string]any) error {
	return onField(problem.Refuse(catalog.PayreqRequestFailed, "the UMA provider of %s did not answer the pay request with an invoice this service may pay: %s",
		address, strings.TrimPrefix(cause.Error(), "uma: ")), field, failure)
}

// onField gives refusal r the details failure and, when field is not "", field.
func onField(r *problem.Refusal, field string, failure map[string]any) error {
	details := maps.Clone(failure)
	if field != "" {
		if details == nil {
			details = map[string]any{}
		}
		details["field"] = field
	}
	if details != nil {
		r = r.With(details)
	}
	return r
}
