package adapters

import (
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/rail"
)

func TestDefault(t *testing.T) {
	reg := Default()
	if r, ok := reg.For(rail.Target{Environment: catalog.Sandbox, Currency: "EUR", Kind: rail.UMA}); !ok || r.Name() != "sandbox" {
		t.Fatal("the sandbox rail does not serve sandbox payments")
	}
	if _, ok := reg.For(rail.Target{Environment: catalog.Production, Currency: "USD", Kind: rail.ExternalAccount}); ok {
		t.Fatal("a rail serves production payments by default")
	}
	routes, _ := rail.ParseRoutes("PRODUCTION:*:*=sandbox")
	if _, err := Registry(routes); err == nil {
		t.Fatal("the sandbox rail was routed production payments")
	}
}
