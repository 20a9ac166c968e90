package config

import (
	"testing"
	"time"
)

func TestTelemetrySettings(t *testing.T) {
	c, err := LoadFrom(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if c.OTLPEndpoint != "" || c.OTelServiceName != "paycore" || c.StuckPaymentAfter != 30*time.Minute {
		t.Fatalf("defaults: endpoint %q, service %q, stuck after %s", c.OTLPEndpoint, c.OTelServiceName, c.StuckPaymentAfter)
	}
	env := map[string]string{
		"PAYCORE_OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel-collector:4318",
		"PAYCORE_OTEL_SERVICE_NAME":           "paycore-eu",
		"PAYCORE_STUCK_PAYMENT_AFTER":         "10m",
	}
	if c, err = LoadFrom(func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if c.OTLPEndpoint != "http://otel-collector:4318" || c.OTelServiceName != "paycore-eu" || c.StuckPaymentAfter != 10*time.Minute {
		t.Fatalf("overrides not applied: %q %q %s", c.OTLPEndpoint, c.OTelServiceName, c.StuckPaymentAfter)
	}
	for _, bad := range []string{"otel-collector:4318", "grpc://collector:4317", "http://"} {
		if loadWith("PAYCORE_OTEL_EXPORTER_OTLP_ENDPOINT", bad) == nil {
			t.Errorf("endpoint %q accepted", bad)
		}
	}
	if loadWith("PAYCORE_STUCK_PAYMENT_AFTER", "soon") == nil {
		t.Error("PAYCORE_STUCK_PAYMENT_AFTER=soon accepted")
	}
}
