package incoming

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// Every sandbox counterparty is listed (each scenario with each of its currencies) and
// parses back; each scenario's effect is described.
func TestSandboxAddresses(t *testing.T) {
	want := 0
	for _, cs := range scenarioCurrencies {
		want += len(cs)
	}
	got := SandboxAddresses()
	if len(got) != want {
		t.Fatalf("%d addresses for %d counterparties: %+v", len(got), want, got)
	}
	for _, c := range got {
		parsed, err := SandboxCounterparty("address", c.Address)
		if err != nil || !reflect.DeepEqual(parsed, c) {
			t.Errorf("%s: %+v %v", c.Address, parsed, err)
		}
	}
	if got[0].Address != "$success.usd@"+SandboxDomain {
		t.Errorf("first address %s", got[0].Address)
	}
	for scenario, want := range map[string]string{
		ScenarioSuccess:        "the platform is asked at once with `INCOMING_PAYMENT_PENDING`",
		ScenarioPendingLong:    "stays `PENDING` for 6 min",
		ScenarioFailCompliance: "`FAILED` with `failureDetails.code` `COMPLIANCE_CHECK_FAILED` and `failureReason` `PAY_REQUEST_FAILED`",
	} {
		if got := SandboxSenderEffect(scenario, 6*time.Minute); !strings.Contains(got, want) {
			t.Errorf("%s: %q lacks %q", scenario, got, want)
		}
	}
}
