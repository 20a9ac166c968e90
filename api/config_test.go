package api_test

import (
	"strings"
	"testing"

	"paycore/api"
	"paycore/internal/infra/config"
)

func TestConfigPatchAndRead(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) { c.SandboxPrivateOK = true })
	c, _ := e.platform(true)
	body := map[string]any{
		"umaDomain":         "pay.example.com",
		"proxyUmaSubdomain": "pay",
		"webhookEndpoint":   "http://127.0.0.1:9/hooks",
		"supportedCurrencies": []map[string]any{
			{"currencyCode": "USD", "minAmount": 100, "maxAmount": 1_000_000, "enabledTransactionTypes": []string{"OUTGOING", "INCOMING"},
				"requiredCounterpartyFields": []map[string]any{{"name": "FULL_NAME", "mandatory": true}}},
			{"currencyCode": "USDC", "minAmount": 0, "maxAmount": 0, "enabledTransactionTypes": []string{"INCOMING"}, "requiredCounterpartyFields": []any{}},
		},
		"embeddedWalletConfig": map[string]any{"appName": "Wallet", "otpLength": 8},
	}
	r := c.Do("PATCH", "/config", body)
	if r.Status != 200 {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	var got api.PlatformConfig
	c.Do("GET", "/config", nil).Decode(t, &got)
	if got.UmaDomain != "pay.example.com" || got.ProxyUmaSubdomain != "pay" || got.WebhookEndpoint != "http://127.0.0.1:9/hooks" {
		t.Fatalf("not persisted: %+v", got)
	}
	if !strings.HasPrefix(got.ID, "PlatformConfig:") || len(got.SupportedCurrencies) != 2 {
		t.Fatalf("bad config: %+v", got)
	}
	usd := got.SupportedCurrencies[0]
	if usd.MinAmount != 100 || usd.MaxAmount != 1_000_000 || len(usd.RequiredCounterpartyFields) != 1 || len(usd.ProviderRequiredCustomerFields) == 0 {
		t.Fatalf("bad USD item: %+v", usd)
	}
	if got.EmbeddedWalletConfig == nil || *got.EmbeddedWalletConfig.OtpLength != 8 {
		t.Fatalf("wallet config: %+v", got.EmbeddedWalletConfig)
	}
	// Nested fields omitted from a later PATCH stay unchanged; omitted top-level fields too.
	c.Do("PATCH", "/config", map[string]any{"embeddedWalletConfig": map[string]any{"expirationSeconds": 600}})
	c.Do("GET", "/config", nil).Decode(t, &got)
	if *got.EmbeddedWalletConfig.OtpLength != 8 || *got.EmbeddedWalletConfig.ExpirationSeconds != 600 || got.UmaDomain != "pay.example.com" {
		t.Fatalf("partial patch clobbered fields: %+v %+v", got, got.EmbeddedWalletConfig)
	}
	// Setting a new endpoint records a one-off TEST event for the relay to deliver.
	var events struct {
		Data []api.WebhookEvent
	}
	c.Do("GET", "/webhooks/events?type=TEST", nil).Decode(t, &events)
	if len(events.Data) != 1 {
		t.Fatalf("want one TEST event after setting the endpoint, got %d", len(events.Data))
	}
}

func TestConfigValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	cur := func(m map[string]any) map[string]any {
		base := map[string]any{"currencyCode": "USD", "minAmount": 1, "maxAmount": 10, "enabledTransactionTypes": []string{"INCOMING"}, "requiredCounterpartyFields": []any{}}
		for k, v := range m {
			if v == nil {
				delete(base, k)
			} else {
				base[k] = v
			}
		}
		return map[string]any{"supportedCurrencies": []any{base}}
	}
	cases := map[string]struct {
		body  any
		field string
	}{
		"read-only id":         {map[string]any{"id": "PlatformConfig:x"}, "id"},
		"read-only regulated":  {map[string]any{"isRegulatedFinancialInstitution": true}, "isRegulatedFinancialInstitution"},
		"read-only createdAt":  {map[string]any{"createdAt": "2025-01-01T00:00:00Z"}, "createdAt"},
		"unknown field":        {map[string]any{"colour": "blue"}, "colour"},
		"domain type":          {map[string]any{"umaDomain": 5}, "umaDomain"},
		"bad domain":           {map[string]any{"umaDomain": "not a domain"}, "umaDomain"},
		"single-label domain":  {map[string]any{"umaDomain": "localhost"}, "umaDomain"},
		"bad subdomain":        {map[string]any{"proxyUmaSubdomain": "Has Spaces"}, "proxyUmaSubdomain"},
		"webhook scheme":       {map[string]any{"webhookEndpoint": "ftp://example.com/x"}, "webhookEndpoint"},
		"webhook not url":      {map[string]any{"webhookEndpoint": "::::"}, "webhookEndpoint"},
		"webhook private":      {map[string]any{"webhookEndpoint": "http://10.0.0.1/hook"}, "webhookEndpoint"},
		"webhook loopback":     {map[string]any{"webhookEndpoint": "http://127.0.0.1:8080/hook"}, "webhookEndpoint"},
		"webhook metadata":     {map[string]any{"webhookEndpoint": "http://169.254.169.254/latest"}, "webhookEndpoint"},
		"unknown currency":     {cur(map[string]any{"currencyCode": "XYZ"}), "supportedCurrencies[0].currencyCode"},
		"lower-case currency":  {cur(map[string]any{"currencyCode": "usd"}), "supportedCurrencies[0].currencyCode"},
		"min above max":        {cur(map[string]any{"minAmount": 11}), "supportedCurrencies[0].minAmount"},
		"negative min":         {cur(map[string]any{"minAmount": -1}), "supportedCurrencies[0].minAmount"},
		"fractional amount":    {cur(map[string]any{"maxAmount": 1.5}), "supportedCurrencies[0].maxAmount"},
		"missing maxAmount":    {cur(map[string]any{"maxAmount": nil}), "supportedCurrencies[0].maxAmount"},
		"missing types":        {cur(map[string]any{"enabledTransactionTypes": nil}), "supportedCurrencies[0].enabledTransactionTypes"},
		"empty types":          {cur(map[string]any{"enabledTransactionTypes": []string{}}), "supportedCurrencies[0].enabledTransactionTypes"},
		"unknown type":         {cur(map[string]any{"enabledTransactionTypes": []string{"SIDEWAYS"}}), "supportedCurrencies[0].enabledTransactionTypes"},
		"missing counterparty": {cur(map[string]any{"requiredCounterpartyFields": nil}), "supportedCurrencies[0].requiredCounterpartyFields"},
		"unknown counterparty": {cur(map[string]any{"requiredCounterpartyFields": []any{map[string]any{"name": "SHOE_SIZE", "mandatory": true}}}), "supportedCurrencies[0].requiredCounterpartyFields[0].name"},
		"counterparty no flag": {cur(map[string]any{"requiredCounterpartyFields": []any{map[string]any{"name": "FULL_NAME"}}}), "supportedCurrencies[0].requiredCounterpartyFields[0].mandatory"},
		"duplicate currency":   {map[string]any{"supportedCurrencies": []any{cur(nil)["supportedCurrencies"].([]any)[0], cur(nil)["supportedCurrencies"].([]any)[0]}}, "supportedCurrencies[1].currencyCode"},
		"otp too short":        {map[string]any{"embeddedWalletConfig": map[string]any{"otpLength": 3}}, "embeddedWalletConfig.otpLength"},
		"expiration too long":  {map[string]any{"embeddedWalletConfig": map[string]any{"expirationSeconds": 86401}}, "embeddedWalletConfig.expirationSeconds"},
		"bad sender":           {map[string]any{"embeddedWalletConfig": map[string]any{"sendFromEmailAddress": "nope"}}, "embeddedWalletConfig.sendFromEmailAddress"},
		"bad logo":             {map[string]any{"embeddedWalletConfig": map[string]any{"logoUrl": "javascript:alert(1)"}}, "embeddedWalletConfig.logoUrl"},
		"array body":           {[]any{1}, ""},
		"malformed":            {"{\"umaDomain\": ", ""},
		"two values":           {"{} {}", ""},
		"empty body":           {"", ""},
	}
	before := c.Do("GET", "/config", nil).Body
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := c.Do("PATCH", "/config", tc.body)
			m := expectError(t, r, 400, "INVALID_INPUT")
			if tc.field != "" && !strings.Contains(tc.field, ".maxAmount") {
				d, _ := m["details"].(map[string]any)
				if d["field"] != tc.field {
					t.Fatalf("details.field = %v, want %s (%s)", d["field"], tc.field, r.Body)
				}
			}
		})
	}
	if after := c.Do("GET", "/config", nil).Body; string(after) != string(before) {
		t.Fatalf("a refused PATCH changed the config:\n%s\n%s", before, after)
	}
}

func TestProductionWebhookRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) { c.SandboxPrivateOK = true })
	prod, _ := e.platform(false)
	for _, u := range []string{"http://127.0.0.1:8080/hook", "https://127.0.0.1/hook", "https://localhost/hook", "https://[::1]/hook",
		"https://192.168.1.10/hook", "http://93.184.216.34/hook"} {
		r := prod.Do("PATCH", "/config", map[string]any{"webhookEndpoint": u})
		expectError(t, r, 400, "INVALID_INPUT")
	}
	if r := prod.Do("PATCH", "/config", map[string]any{"webhookEndpoint": "https://93.184.216.34/hook"}); r.Status != 200 {
		t.Fatalf("public https endpoint refused: %d %s", r.Status, r.Body)
	}
	// Sandbox platforms may use loopback when the operator allows it ...
	sb, _ := e.platform(true)
	if r := sb.Do("PATCH", "/config", map[string]any{"webhookEndpoint": "http://127.0.0.1:8080/hook"}); r.Status != 200 {
		t.Fatalf("sandbox localhost refused: %d %s", r.Status, r.Body)
	}
	// ... and not otherwise.
	strict := newEnv(t)
	sb2, _ := strict.platform(true)
	expectError(t, sb2.Do("PATCH", "/config", map[string]any{"webhookEndpoint": "http://127.0.0.1:8080/hook"}), 400, "INVALID_INPUT")
}
