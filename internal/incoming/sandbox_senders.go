package incoming

import (
	"fmt"
	"strings"
	"time"

	"paycore/internal/sandbox"
)

// SandboxScenarios are the scenarios of the sandbox's UMA counterparties, in the order the
// reference lists them.
func SandboxScenarios() []string {
	return []string{ScenarioSuccess, ScenarioPendingLong, ScenarioFailCompliance}
}

// SandboxAddresses lists every sandbox UMA counterparty ($<scenario>.<currency>@<sandbox
// domain>), scenario by scenario.
func SandboxAddresses() []Counterparty {
	var out []Counterparty
	for _, s := range SandboxScenarios() {
		for _, c := range scenarioCurrencies[s] {
			out = append(out, Counterparty{Address: "$" + s + "." + strings.ToLower(c) + "@" + SandboxDomain, Scenario: s, Currency: c})
		}
	}
	return out
}

// SandboxSenderEffect says in one line of Markdown how a payment a sandbox counterparty of
// scenario sends (POST /sandbox/uma/receive) goes; slow is how long pending.long waits.
func SandboxSenderEffect(scenario string, slow time.Duration) string {
	ask := "with `INCOMING_PAYMENT_PENDING`; the payment follows its answer"
	switch scenario {
	case ScenarioPendingLong:
		return fmt.Sprintf("stays `PENDING` for %s, then the platform is asked %s", sandbox.FormatDelay(slow), ask)
	case ScenarioFailCompliance:
		return "the platform is not asked: " + sandbox.Describe(ComplianceFailure().Outcome(), slow, 0)
	}
	return "the platform is asked at once " + ask
}
