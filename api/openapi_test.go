package api_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/pb33f/libopenapi"
	"go.yaml.in/yaml/v3"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/internal/catalog"
)

// Every route the router serves is documented, and the document names nothing the router
// lacks.
func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	doc, err := libopenapi.NewDocument(api.OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	model, errs := doc.BuildV3Model()
	if errs != nil {
		t.Fatalf("OpenAPI model: %v", errs)
	}
	if !strings.HasPrefix(model.Model.Version, "3.1") {
		t.Fatalf("OpenAPI version %s, want 3.1", model.Model.Version)
	}
	documented := map[string]bool{}
	for path, item := range model.Model.Paths.PathItems.FromOldest() {
		for method := range item.GetOperations().FromOldest() {
			documented[strings.ToUpper(method)+" "+path] = true
		}
	}
	served := map[string]bool{}
	base := e.cfg.BasePath()
	err = chi.Walk(e.api.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		route = strings.TrimSuffix(route, "/")
		if strings.HasPrefix(route, base+"/") {
			route = strings.TrimPrefix(route, base)
		} else if route == base+"/openapi.yaml" {
			return nil // the same document, also served under the versioned prefix
		}
		served[method+" "+route] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var missing, extra []string
	for k := range served {
		if !documented[k] {
			missing = append(missing, k)
		}
	}
	for k := range documented {
		if !served[k] {
			extra = append(extra, k)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Fatalf("routes not documented: %v\ndocumented but not served: %v", missing, extra)
	}
	if len(served) < 15 {
		t.Fatalf("walked only %d routes", len(served))
	}
}

// Outgoing transactions take only the peer's outgoing statuses and failure reasons, in
// every body that carries one (responses and OUTGOING_PAYMENT_* webhooks); incoming ones
// keep theirs.
func TestOpenAPITransactionEnumsByType(t *testing.T) {
	t.Parallel()
	tx := func(typ, status, reason string) map[string]any {
		m := map[string]any{"id": "Transaction:0190a000-0000-7000-8000-000000000001", "status": status, "type": typ,
			"source":      map[string]any{"sourceType": "ACCOUNT", "accountId": "InternalAccount:0190a000-0000-7000-8000-000000000002", "currency": "USD"},
			"destination": map[string]any{"destinationType": "ACCOUNT", "accountId": "ExternalAccount:0190a000-0000-7000-8000-000000000003", "currency": "USD"},
			"customerId":  "Customer:0190a000-0000-7000-8000-000000000004", "platformCustomerId": "c-4",
			"receivedAmount": map[string]any{"amount": 100, "currency": map[string]any{"code": "USD", "name": "US Dollar", "symbol": "$", "decimals": 2}},
			"createdAt":      "2025-10-13T00:00:00Z", "updatedAt": "2025-10-13T00:00:00Z",
			"failureDetails": map[string]any{"code": "REJECTED_BY_BANK", "message": "the bank rejected the payment"}}
		m["direction"] = "CREDIT"
		if typ == "OUTGOING" {
			m["sentAmount"] = m["receivedAmount"]
			m["direction"] = "DEBIT"
		}
		if reason != "" {
			m["failureReason"] = reason
		}
		return m
	}
	envelope := func(eventType string, data any) map[string]any {
		return map[string]any{"id": "Webhook:0190a000-0000-7000-8000-000000000005", "type": eventType, "timestamp": "2025-10-13T00:00:00Z", "data": data}
	}
	for _, tc := range []struct {
		name, schema string
		body         any
		valid        bool
	}{
		{"outgoing failed, cause in failureDetails", "Transaction", tx("OUTGOING", "FAILED", ""), true},
		{"outgoing with an outgoing reason", "Transaction", tx("OUTGOING", "FAILED", "QUOTE_EXPIRED"), true},
		{"outgoing REJECTED", "Transaction", tx("OUTGOING", "REJECTED", ""), false},
		{"outgoing OFFRAMP_FAILED", "Transaction", tx("OUTGOING", "FAILED", "OFFRAMP_FAILED"), false},
		{"outgoing CREATED", "Transaction", tx("OUTGOING", "CREATED", ""), false},
		{"incoming REJECTED with OFFRAMP_FAILED", "Transaction", tx("INCOMING", "REJECTED", "OFFRAMP_FAILED"), true},
		{"incoming with an outgoing-only reason", "Transaction", tx("INCOMING", "FAILED", "LIGHTNING_PAYMENT_FAILED"), false},
		{"OUTGOING_PAYMENT_FAILED webhook", "WebhookEnvelope", envelope("OUTGOING_PAYMENT_FAILED", tx("OUTGOING", "FAILED", "")), true},
		{"OUTGOING_PAYMENT_FAILED webhook, REJECTED", "WebhookEnvelope", envelope("OUTGOING_PAYMENT_FAILED", tx("OUTGOING", "REJECTED", "")), false},
		{"OUTGOING_PAYMENT_FAILED webhook, OFFRAMP_FAILED", "WebhookEnvelope", envelope("OUTGOING_PAYMENT_FAILED", tx("OUTGOING", "FAILED", "OFFRAMP_FAILED")), false},
		{"INCOMING_PAYMENT_FAILED webhook", "WebhookEnvelope", envelope("INCOMING_PAYMENT_FAILED", tx("INCOMING", "FAILED", "OFFRAMP_FAILED")), true},
		{"TEST webhook", "WebhookEnvelope", envelope("TEST", map[string]any{}), true},
	} {
		raw, _ := json.Marshal(tc.body)
		errs := apitest.SchemaErrors(t, tc.schema, raw)
		if tc.valid && len(errs) > 0 {
			t.Errorf("%s: refused: %v", tc.name, errs)
		}
		if !tc.valid && len(errs) == 0 {
			t.Errorf("%s: accepted", tc.name)
		}
	}
}

// The customer information field names the API checks (senderCustomerInfo, a platform's
// requestedReceiverCustomerInfoFields) are the document's CustomerInfoFieldName enum.
func TestOpenAPICustomerInfoFieldsAreTheCatalogues(t *testing.T) {
	t.Parallel()
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Enum []string `yaml:"enum"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(api.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	got, want := catalog.CustomerInfoFields(), doc.Components.Schemas["CustomerInfoFieldName"].Enum
	if !slices.Equal(got, want) {
		t.Fatalf("catalog.CustomerInfoFields() %v, the document's CustomerInfoFieldName %v", got, want)
	}
}
