package config

import (
	"testing"
	"time"
)

// The agent settings: device-code lifetime, redeem limits and the trusted proxies.
func TestAgentSettings(t *testing.T) {
	d := Defaults()
	if d.AgentDeviceCodeLifetime != 15*time.Minute || d.AgentRedeemPerAddress != 10 || d.AgentRedeemPerCode != 5 ||
		d.AgentRedeemWindow != 15*time.Minute || len(d.TrustedProxies) != 0 {
		t.Fatalf("defaults %+v", d)
	}
	env := map[string]string{
		"PAYCORE_AGENT_DEVICE_CODE_LIFETIME":     "2m",
		"PAYCORE_AGENT_REDEEM_LIMIT_PER_ADDRESS": "3",
		"PAYCORE_AGENT_REDEEM_LIMIT_PER_CODE":    "2",
		"PAYCORE_AGENT_REDEEM_WINDOW":            "1h",
		"PAYCORE_TRUSTED_PROXIES":                "10.0.0.0/8, 2001:db8::/32,192.0.2.1",
	}
	c, err := LoadFrom(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.AgentDeviceCodeLifetime != 2*time.Minute || c.AgentRedeemPerAddress != 3 || c.AgentRedeemPerCode != 2 ||
		c.AgentRedeemWindow != time.Hour || len(c.TrustedProxies) != 3 || c.TrustedProxies[2].String() != "192.0.2.1/32" {
		t.Fatalf("overrides %+v", c)
	}
	for k, v := range map[string]string{
		"PAYCORE_AGENT_DEVICE_CODE_LIFETIME":     "0s",
		"PAYCORE_AGENT_REDEEM_LIMIT_PER_ADDRESS": "0",
		"PAYCORE_AGENT_REDEEM_LIMIT_PER_CODE":    "many",
		"PAYCORE_AGENT_REDEEM_WINDOW":            "-1m",
		"PAYCORE_TRUSTED_PROXIES":                "10.0.0.0/8, proxy.internal",
	} {
		if loadWith(k, v) == nil {
			t.Errorf("%s=%q accepted", k, v)
		}
	}
}
