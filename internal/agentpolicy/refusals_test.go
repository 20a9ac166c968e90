package agentpolicy

import (
	"errors"
	"fmt"
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/fx"
	"paycore/internal/problem"
	"paycore/internal/problem/problemtest"
)

// An amount that cannot be counted in the policy currency is refused on amount, as the
// activity refused it before the rule moved here; any other failure is returned as it is.
func TestUncountable(t *testing.T) {
	noRate := fmt.Errorf("price: %w", fx.ErrNoRate)
	problemtest.Check(t, problemtest.Case{Name: "no rate", Err: Uncountable(noRate, "EUR", "USD"), Want: problem.Wire{Code: catalog.InvalidInput,
		Field: "amount", Message: "the amount in EUR cannot be counted in the policy currency USD: " + noRate.Error()}})
	down := errors.New("rates unavailable")
	if got := Uncountable(down, "EUR", "USD"); got != down {
		t.Fatalf("Uncountable(%v) = %v", down, got)
	}
}
