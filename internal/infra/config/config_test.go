package config

import (
	"testing"
	"time"
)

func TestDefaultsAndOverrides(t *testing.T) {
	env := map[string]string{
		"PAYCORE_API_PREFIX":                     "grid/",
		"PAYCORE_WEBHOOK_RETRY_INITIAL":          "250ms",
		"PAYCORE_SANDBOX_WEBHOOKS_ALLOW_PRIVATE": "true",
		"PAYCORE_HTTP_ADDR":                      "127.0.0.1:9999",
	}
	c, err := LoadFrom(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.BasePath() != "/grid/2025-10-13" {
		t.Errorf("BasePath = %q", c.BasePath())
	}
	if c.BaseURL() != "http://127.0.0.1:9999/grid/2025-10-13" {
		t.Errorf("BaseURL = %q", c.BaseURL())
	}
	if c.WebhookRetryStart != 250*time.Millisecond || !c.SandboxPrivateOK {
		t.Errorf("overrides not applied: %+v", c)
	}
	if c.WebhookRetryMax != 30*time.Minute || c.WebhookRetryAge != 168*time.Hour || c.IdempotencyTTL != 24*time.Hour {
		t.Errorf("defaults wrong: %+v", c)
	}
}

func TestRejectsBadValues(t *testing.T) {
	for k, v := range map[string]string{
		"PAYCORE_WEBHOOK_TIMEOUT":                "soon",
		"PAYCORE_MAX_BODY_BYTES":                 "-1",
		"PAYCORE_SANDBOX_WEBHOOKS_ALLOW_PRIVATE": "maybe",
		"PAYCORE_IDEMPOTENCY_TTL":                "1h",
	} {
		if loadWith(k, v) == nil {
			t.Errorf("%s=%s accepted", k, v)
		}
	}
}

func TestHTTPLimits(t *testing.T) {
	c, err := LoadFrom(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTPReadHeaderTimeout != 10*time.Second || c.HTTPReadTimeout != 30*time.Second || c.HTTPWriteTimeout != 60*time.Second ||
		c.HTTPIdleTimeout != 120*time.Second || c.HTTPMaxHeaderBytes != 64<<10 || c.MetricsAddr != "127.0.0.1:9090" {
		t.Fatalf("defaults: %+v", c)
	}
	env := map[string]string{
		"PAYCORE_HTTP_READ_HEADER_TIMEOUT": "2s",
		"PAYCORE_HTTP_READ_TIMEOUT":        "5s",
		"PAYCORE_HTTP_WRITE_TIMEOUT":       "90s",
		"PAYCORE_HTTP_IDLE_TIMEOUT":        "1m",
		"PAYCORE_HTTP_MAX_HEADER_BYTES":    "16384",
		"PAYCORE_METRICS_ADDR":             "0.0.0.0:9100",
	}
	c, err = LoadFrom(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTPReadHeaderTimeout != 2*time.Second || c.HTTPReadTimeout != 5*time.Second || c.HTTPWriteTimeout != 90*time.Second ||
		c.HTTPIdleTimeout != time.Minute || c.HTTPMaxHeaderBytes != 16384 || c.MetricsAddr != "0.0.0.0:9100" {
		t.Fatalf("overrides: %+v", c)
	}
}

// PAYCORE_METRICS_ADDR=off, or set to nothing, turns the metrics listener off; unset keeps
// the default.
func TestMetricsAddrOff(t *testing.T) {
	for _, tc := range []struct {
		value string
		set   bool
		want  string
	}{
		{"", false, "127.0.0.1:9090"},
		{"", true, ""},
		{"off", true, ""},
		{"OFF", true, ""},
		{"127.0.0.1:0", true, "127.0.0.1:0"},
	} {
		c, err := LoadLookup(func(k string) (string, bool) {
			if k == "PAYCORE_METRICS_ADDR" {
				return tc.value, tc.set
			}
			return "", false
		})
		if err != nil {
			t.Fatalf("%q (set %v): %v", tc.value, tc.set, err)
		}
		if c.MetricsAddr != tc.want {
			t.Errorf("%q (set %v): MetricsAddr %q, want %q", tc.value, tc.set, c.MetricsAddr, tc.want)
		}
	}
}

func TestRejectsBadHTTPLimits(t *testing.T) {
	for _, env := range []map[string]string{
		{"PAYCORE_HTTP_READ_TIMEOUT": "0s"},
		{"PAYCORE_HTTP_WRITE_TIMEOUT": "-5s"},
		{"PAYCORE_HTTP_IDLE_TIMEOUT": "forever"},
		{"PAYCORE_HTTP_MAX_HEADER_BYTES": "big"},
		{"PAYCORE_HTTP_MAX_HEADER_BYTES": "512"},
		{"PAYCORE_HTTP_MAX_HEADER_BYTES": "104857600"},
		// The header deadline is part of the whole-request deadline.
		{"PAYCORE_HTTP_READ_HEADER_TIMEOUT": "40s", "PAYCORE_HTTP_READ_TIMEOUT": "30s"},
		// A handler may legitimately wait IdempotencyWait + WebhookTimeout (5s + 10s).
		{"PAYCORE_HTTP_WRITE_TIMEOUT": "15s"},
		{"PAYCORE_HTTP_WRITE_TIMEOUT": "20s", "PAYCORE_IDEMPOTENCY_WAIT": "15s"},
		{"PAYCORE_METRICS_ADDR": "9090"},
		{"PAYCORE_METRICS_ADDR": "127.0.0.1:8080"}, // the API's own address
	} {
		if _, err := LoadFrom(func(k string) string { return env[k] }); err == nil {
			t.Errorf("%v accepted", env)
		}
	}
}

func TestFXSettings(t *testing.T) {
	env := map[string]string{"PAYCORE_FX_SPREAD": "0.0125", "PAYCORE_FX_FIXED_FEE_USD": "0.5", "PAYCORE_FX_RATES_FILE": "/etc/rates.json"}
	c, err := LoadFrom(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.FXPricing.Spread.String() != "0.0125" || c.FXPricing.FixedFeeUSD.String() != "0.5" || !c.FXPricing.VariableRate.IsZero() || c.FXRatesFile != "/etc/rates.json" {
		t.Fatalf("FX settings %+v %q", c.FXPricing, c.FXRatesFile)
	}
	for k, v := range map[string]string{"PAYCORE_FX_SPREAD": "1", "PAYCORE_FX_FIXED_FEE_USD": "-0.1", "PAYCORE_FX_VARIABLE_FEE": "2%"} {
		if loadWith(k, v) == nil {
			t.Errorf("%s=%s accepted", k, v)
		}
	}
}

// loadWith loads the configuration with one variable set.
func loadWith(name, value string) error {
	_, err := LoadFrom(func(n string) string {
		if n == name {
			return value
		}
		return ""
	})
	return err
}

// Documents are kept in the data directory unless PAYCORE_DOCUMENTS_URL says where.
func TestDocumentsLocation(t *testing.T) {
	c, err := LoadFrom(func(k string) string { return map[string]string{"PAYCORE_DATA_DIR": "/var/lib/paycore"}[k] })
	if err != nil || c.DocumentsLocation() != "/var/lib/paycore/documents" {
		t.Fatalf("default location %q, %v", c.DocumentsLocation(), err)
	}
	s3 := "s3://kyc-docs?region=eu-central-1"
	c, err = LoadFrom(func(k string) string { return map[string]string{"PAYCORE_DOCUMENTS_URL": s3}[k] })
	if err != nil || c.DocumentsLocation() != s3 {
		t.Fatalf("configured location %q, %v", c.DocumentsLocation(), err)
	}
}
