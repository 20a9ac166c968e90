package catalog

import (
	"slices"
	"testing"
)

// An outgoing payment's failure reason is the granular one its code names, before any
// given; the peer's deprecated and incoming-only reasons become QUOTE_EXECUTION_FAILED; an
// incoming payment keeps the reason given, else its code's (COLLECTION_FAILED for money not
// collected). Every reason is within its type's enumeration.
func TestFailureReason(t *testing.T) {
	for _, tc := range []struct {
		typ   TransactionType
		code  Code
		given string
		want  string
	}{
		{Outgoing, FailAccountClosed, "", ReasonAccountInvalid},
		{Outgoing, FailRejectedByBank, ReasonCounterpartyFailed, ReasonAccountCannotReceive},
		{Outgoing, FailReturnedByBank, "", ReasonPayoutReturned},
		{Outgoing, FailCompliance, ReasonQuoteExecutionFailed, ReasonComplianceRejected},
		{Outgoing, FailLimitExceeded, "", ReasonLimitExceeded},
		{Outgoing, FailRateUnavailable, "", ReasonQuoteRateUnavailable},
		{Outgoing, FailNoRoute, ReasonLightningFailed, ReasonQuoteExecutionFailed},
		{Outgoing, FailInvoiceAmount, ReasonPayRequestFailed, ReasonQuoteExecutionFailed},
		{Outgoing, FailQuoteExecution, ReasonQuoteExecutionFailed, ReasonQuoteExecutionFailed},
		{Outgoing, FailCounterparty, ReasonCounterpartyFailed, ReasonCounterpartyFailed},
		{Outgoing, FailInsufficientFunds, "", ""},
		{Outgoing, FailUserCancelled, "", ""},
		{Outgoing, FailByOperator, "", ""},
		{Incoming, FailCompliance, ReasonPayRequestFailed, ReasonPayRequestFailed},
		{Incoming, FailTimedOut, "", ReasonCollectionFailed},
		{Incoming, FailComplianceRejected, "", ReasonComplianceRejected},
		{Incoming, FailUserCancelled, "", ""},
	} {
		got := FailureReason(tc.typ, tc.code, tc.given)
		if got != tc.want {
			t.Errorf("%s %s %q: %q, want %q", tc.typ, tc.code, tc.given, got, tc.want)
		}
		list := OutgoingFailureReasons
		if tc.typ == Incoming {
			list = IncomingFailureReasons
		}
		if got != "" && !slices.Contains(list, got) {
			t.Errorf("%s %s: %q is no %s failure reason", tc.typ, tc.code, got, tc.typ)
		}
	}
	for code, r := range outgoingByCode {
		if !slices.Contains(OutgoingFailureReasons, r) {
			t.Errorf("%s names %s, no outgoing failure reason", code, r)
		}
	}
	for code, r := range incomingByCode {
		if !slices.Contains(IncomingFailureReasons, r) {
			t.Errorf("%s names %s, no incoming failure reason", code, r)
		}
	}
}
