package api_test

import (
	"fmt"
	"strings"
	"testing"
)

// Behind an ingress every client shares the peer address (no trusted proxy configured):
// many bad redeems from it must not lock out a platform's agent redeeming its own code.
func TestAgentRedeemSharedAddressDoesNotBlockValidCode(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	cust := newCustomer(t, c, "US", "USD")
	live := createAgent(t, c, cust.ID, map[string]any{"permissions": []string{}, "defaultExecutionMode": "AUTO",
		"spendingLimits": map[string]any{"currency": "USD", "perTransactionLimit": 0}})
	anon := anonymous(c)
	for i := range 30 {
		// Each a different code, none sharing the live code's first group.
		code := fmt.Sprintf("AGENT-%04d-0000-0000", i)
		if strings.HasPrefix(live.DeviceCode.Code, code[:10]) {
			continue
		}
		expectError(t, anon.Do("POST", "/agents/device-codes/"+code+"/redeem", nil), 404, "DEVICE_CODE_NOT_FOUND")
	}
	if r := anon.Do("POST", "/agents/device-codes/"+live.DeviceCode.Code+"/redeem", nil); r.Status != 200 {
		t.Fatalf("the real agent's redeem after bad ones from the same address: %d %s", r.Status, r.Body)
	}
}

// A code dies after a few wrong tries of it: the wrong codes that share its first group
// (its identifier) count against it, wherever they come from, and then the right code no
// longer redeems, now or later.
func TestAgentRedeemCodeDiesAfterWrongTries(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	cust := newCustomer(t, c, "US", "USD")
	policy := map[string]any{"permissions": []string{}, "defaultExecutionMode": "AUTO",
		"spendingLimits": map[string]any{"currency": "USD", "perTransactionLimit": 0}}
	victim := createAgent(t, c, cust.ID, policy)
	other := createAgent(t, c, cust.ID, policy)
	anon := anonymous(c)
	id := victim.DeviceCode.Code[:len("AGENT-XXXX")]
	tries := 0
	for i := 0; tries < 5; i++ {
		wrong := fmt.Sprintf("%s-%04d-%04d", id, i, i)
		if wrong == victim.DeviceCode.Code {
			continue
		}
		tries++
		expectError(t, anon.Do("POST", "/agents/device-codes/"+wrong+"/redeem", nil), 404, "DEVICE_CODE_NOT_FOUND")
	}
	expectError(t, anon.Do("POST", "/agents/device-codes/"+victim.DeviceCode.Code+"/redeem", nil), 429, "RATE_LIMITED")
	if n := sqlCount(t, e, "SELECT count(*) FROM rate_limits WHERE key LIKE '%"+strings.TrimPrefix(id, "AGENT-")+"%'"); n != 0 {
		t.Fatal("a code's first group is kept in clear in the limits table")
	}
	// The code is dead for good: it no longer redeems once the counters are gone.
	if _, err := e.pool.Exec(t.Context(), "DELETE FROM rate_limits"); err != nil {
		t.Fatal(err)
	}
	expectError(t, anon.Do("POST", "/agents/device-codes/"+victim.DeviceCode.Code+"/redeem", nil), 400, "DEVICE_CODE_EXPIRED")
	// Another code is untouched (unless it happens to share the first group).
	if !strings.HasPrefix(other.DeviceCode.Code, id) {
		if r := anon.Do("POST", "/agents/device-codes/"+other.DeviceCode.Code+"/redeem", nil); r.Status != 200 {
			t.Fatalf("another code: %d %s", r.Status, r.Body)
		}
	}
}
