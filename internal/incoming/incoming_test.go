package incoming

import (
	"testing"

	"paycore/internal/catalog"
)

// The platform's synchronous answer decides as the catalogue says.
func TestDecide(t *testing.T) {
	known := map[string]string{"FULL_NAME": "Ada Lovelace"}
	cases := map[string]struct {
		answer   Answer
		known    map[string]string
		approved bool
		pending  bool
		status   catalog.TransactionStatus
		reason   string
	}{
		"200 with details":    {Answer{Status: 200, Body: []byte(`{"receiverCustomerInfo":{"FULL_NAME":"Ada"}}`)}, nil, true, false, "", ""},
		"200 known details":   {Answer{Status: 200}, known, true, false, "", ""},
		"200 missing details": {Answer{Status: 200, Body: []byte(`{}`)}, nil, false, false, catalog.TxFailed, ReasonMissingPayee},
		"204":                 {Answer{Status: 204}, known, true, false, "", ""},
		"202":                 {Answer{Status: 202}, known, false, true, "", ""},
		"403":                 {Answer{Status: 403, Body: []byte(`{"reason":"RESTRICTED_JURISDICTION"}`)}, known, false, false, catalog.TxRejected, ""},
		"422":                 {Answer{Status: 422, Body: []byte(`{"requiredFields":["TAX_ID"]}`)}, known, false, false, catalog.TxFailed, ReasonMissingPayee},
		"500":                 {Answer{Status: 500}, known, false, false, catalog.TxFailed, ReasonWebhookError},
		"401":                 {Answer{Status: 401}, known, false, false, catalog.TxFailed, ReasonWebhookError},
		"no answer":           {Answer{Error: "no answer"}, known, false, false, catalog.TxFailed, ReasonWebhookError},
		"unreadable 200 body": {Answer{Status: 200, Body: []byte(`not json`)}, known, true, false, "", ""},
	}
	for name, tc := range cases {
		d := Decide(tc.answer, tc.known)
		if d.Approved != tc.approved || d.Pending != tc.pending || (!tc.approved && !tc.pending && (d.Status != tc.status || d.Reason != tc.reason)) {
			t.Errorf("%s: %+v", name, d)
		}
	}
	if d := Decide(Answer{Status: 403, Body: []byte(`{"reason":"RESTRICTED_JURISDICTION"}`)}, known); d.Message != "the receiving platform rejected the payment: RESTRICTED_JURISDICTION" {
		t.Errorf("rejection message %q", d.Message)
	}
	if d := Decide(Answer{Status: 422, Body: []byte(`{"requiredFields":["TAX_ID"]}`)}, known); d.Message != "the sender requires the receiver's details: TAX_ID" {
		t.Errorf("422 message %q", d.Message)
	}
}

// Only the spec's sandbox counterparties exist, on the sandbox domain.
func TestSandboxCounterparty(t *testing.T) {
	for _, ok := range []string{"$success.usd", "$success.eur", "$success.mxn", "$pending.long.usd", "$fail.compliance.usd"} {
		c, err := SandboxCounterparty("f", ok+"@"+SandboxDomain)
		if err != nil || c.Currency == "" || c.Scenario == "" {
			t.Errorf("%s: %+v %v", ok, c, err)
		}
	}
	for _, bad := range []string{"$success.gbp@" + SandboxDomain, "$pending.long.eur@" + SandboxDomain, "$success.usd@example.com", "success.usd@" + SandboxDomain, "$other.usd@" + SandboxDomain} {
		if _, err := SandboxCounterparty("f", bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
