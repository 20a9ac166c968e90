package api_test

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"testing"

	"paycore/api/apitest"
)

// The squatting attack: a platform sets its umaDomain to another platform's domain and
// creates a customer with the victim's customer's address. The domain is refused (409
// UMA_DOMAIN_TAKEN, in either case), so the address cannot be taken on it either, and the
// victim's customer is still found (by the squatter's own lookups too). The sandbox's
// counterparties' domain is reserved for every platform.
func TestUmaDomainSquatting(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	victim, _ := e.platform(true)
	squatter, _ := e.platform(true)
	if r := victim.Do("PATCH", "/config", map[string]any{"umaDomain": "pay.victim.example"}); r.Status != 200 {
		t.Fatalf("the victim's domain: %d %s", r.Status, r.Body)
	}
	body := map[string]any{"customerType": "INDIVIDUAL", "region": "US", "kycStatus": "APPROVED", "fullName": "Alice Victim",
		"currencies": []string{"USD"}, "umaAddress": "$alice@pay.victim.example"}
	if r := victim.Do("POST", "/customers", body); r.Status != 201 {
		t.Fatalf("the victim's customer: %d %s", r.Status, r.Body)
	}
	expectError(t, squatter.Do("PATCH", "/config", map[string]any{"umaDomain": "pay.victim.example"}), 409, "UMA_DOMAIN_TAKEN")
	expectError(t, squatter.Do("POST", "/customers", body), 400, "INVALID_INPUT")
	var cfg map[string]any
	squatter.Do("GET", "/config", nil).Decode(t, &cfg)
	if cfg["umaDomain"] == "pay.victim.example" {
		t.Fatalf("the squatter holds the victim's domain: %v", cfg)
	}
	for name, c := range map[string]*apitest.Client{"victim": victim, "squatter": squatter} {
		multiCurrency(t, c, false)
		sender := newCustomer(t, c, "MX", "MXN")
		if r := c.Do("GET", "/receiver/uma/"+url.PathEscape("$alice@pay.victim.example")+"?customerId="+sender.ID, nil); r.Status != 200 {
			t.Fatalf("the %s looks the victim's customer up: %d %s", name, r.Status, r.Body)
		}
	}
	expectError(t, squatter.Do("PATCH", "/config", map[string]any{"umaDomain": "sandbox.uma.paycore.dev"}), 409, "UMA_DOMAIN_TAKEN")
	// The victim may set its own domain again.
	if r := victim.Do("PATCH", "/config", map[string]any{"umaDomain": "pay.victim.example"}); r.Status != 200 {
		t.Fatalf("the victim's domain again: %d %s", r.Status, r.Body)
	}
}

// Many platforms claim one domain at once: exactly one wins, every other is refused with
// 409 UMA_DOMAIN_TAKEN (the unique index decides between claims the check let through).
func TestUmaDomainConcurrentClaims(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const n = 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[string]int{}
	platforms := make([]func() (int, string), n)
	for i := range n {
		c, _ := e.platform(true)
		platforms[i] = func() (int, string) {
			r := c.Do("PATCH", "/config", map[string]any{"umaDomain": "contested.example.com"})
			if r.Status == 200 {
				return 200, ""
			}
			return r.Status, r.Code(t)
		}
	}
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			status, code := platforms[i]()
			mu.Lock()
			statuses[fmt.Sprintf("%d %s", status, code)]++
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	if statuses["200 "] != 1 || statuses["409 UMA_DOMAIN_TAKEN"] != n-1 {
		t.Fatalf("answers %v, want one 200 and %d 409 UMA_DOMAIN_TAKEN", statuses, n-1)
	}
	var holders int
	if err := e.pool.QueryRow(context.Background(), "SELECT count(*) FROM platforms WHERE uma_domain = 'contested.example.com'").Scan(&holders); err != nil || holders != 1 {
		t.Fatalf("%d platforms hold the domain (%v)", holders, err)
	}
}

// UMA addresses are unique on the deployment. A platform that moved to another domain
// leaves its customers' addresses on the old one: another platform cannot claim that
// domain (409 UMA_DOMAIN_TAKEN); and where one holds it anyway (stored before the rule),
// an address another platform's customer has is refused on every path that sets one: create
// (409 UMA_ADDRESS_EXISTS) and update.
func TestUmaAddressUniqueAcrossPlatforms(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, _ := e.platform(true)
	b, bp := e.platform(true)
	if r := a.Do("PATCH", "/config", map[string]any{"umaDomain": "old.a.example"}); r.Status != 200 {
		t.Fatalf("a's domain: %d %s", r.Status, r.Body)
	}
	body := map[string]any{"customerType": "INDIVIDUAL", "region": "US", "currencies": []string{"USD"}, "umaAddress": "$bob@old.a.example"}
	if r := a.Do("POST", "/customers", body); r.Status != 201 {
		t.Fatalf("a's customer: %d %s", r.Status, r.Body)
	}
	if r := a.Do("PATCH", "/config", map[string]any{"umaDomain": "new.a.example"}); r.Status != 200 {
		t.Fatalf("a moves: %d %s", r.Status, r.Body)
	}
	expectError(t, b.Do("PATCH", "/config", map[string]any{"umaDomain": "old.a.example"}), 409, "UMA_DOMAIN_TAKEN")
	// A platform stored on that domain before the rule existed.
	if _, err := e.pool.Exec(context.Background(), "UPDATE platforms SET uma_domain = 'old.a.example' WHERE id = $1", bp.ID); err != nil {
		t.Fatal(err)
	}
	expectError(t, b.Do("POST", "/customers", body), 409, "UMA_ADDRESS_EXISTS")
	body["umaAddress"] = "$carol@old.a.example"
	r := b.Do("POST", "/customers", body)
	if r.Status != 201 {
		t.Fatalf("b's customer: %d %s", r.Status, r.Body)
	}
	id := r.JSON(t)["id"].(string)
	expectError(t, b.Do("PATCH", "/customers/"+id, map[string]any{"customerType": "INDIVIDUAL", "umaAddress": "$bob@old.a.example"}), 409, "UMA_ADDRESS_EXISTS")
	multiCurrency(t, b, false)
	sender := newCustomer(t, b, "MX", "MXN")
	if r := b.Do("GET", "/receiver/uma/"+url.PathEscape("$bob@old.a.example")+"?customerId="+sender.ID, nil); r.Status != 200 {
		t.Fatalf("the address names one receiver: %d %s", r.Status, r.Body)
	}
}
