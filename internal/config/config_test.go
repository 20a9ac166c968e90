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
		if _, err := LoadFrom(func(n string) string {
			if n == k {
				return v
			}
			return ""
		}); err == nil {
			t.Errorf("%s=%s accepted", k, v)
		}
	}
}
