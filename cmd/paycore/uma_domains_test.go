package main

import (
	"context"
	"strings"
	"testing"

	"paycore/api"
	"paycore/db"
	"paycore/internal/ids"
	"paycore/internal/incoming"
)

// The forged local sender: a platform that holds the sandbox's counterparties' domain
// would be paid "from" addresses on it that are not its customers (and another platform
// could have created such a customer on it). The domain is reserved (409
// UMA_DOMAIN_TAKEN); for a platform stored on it before, an incoming payment from an
// address on its domain that is not one of its customers is refused
// (UMA_SENDER_NOT_CUSTOMER), and nothing is credited.
func TestSandboxReceiveForgedLocalSender(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	victim := newWorld(t, s)
	squatter := newWorld(t, s)
	// A platform stored on the domain before the rule.
	if _, err := s.app.pool.Exec(context.Background(), "UPDATE platforms SET uma_domain = $1 WHERE id = $2", incoming.SandboxDomain, victim.platform.ID); err != nil {
		t.Fatal(err)
	}
	sender := "$success.usd@" + incoming.SandboxDomain
	expectCode(t, "the squatter's customer on the victim's domain", squatter.c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL",
		"region": "US", "currencies": []string{"USD"}, "umaAddress": sender}), 400, "INVALID_INPUT")
	var cust api.Customer
	victim.c.Do("GET", "/customers/"+victim.customer, nil).Decode(t, &cust)
	expectCode(t, "a payment from an address on the victim's domain that is not its customer", victim.c.Do("POST", "/sandbox/uma/receive",
		map[string]any{"senderUmaAddress": sender, "receiverUmaAddress": cust.UmaAddress, "receivingCurrencyCode": "USD", "receivingCurrencyAmount": 500}),
		400, "UMA_SENDER_NOT_CUSTOMER")
	if got := victim.balance(); got != 0 {
		t.Fatalf("the victim was credited %d", got)
	}
	// Nobody takes the domain now, its holder included.
	for name, w := range map[string]*world{"victim": victim, "squatter": squatter} {
		expectCode(t, name+" takes the sandbox's domain", w.c.Do("PATCH", "/config", map[string]any{"umaDomain": incoming.SandboxDomain}), 409, "UMA_DOMAIN_TAKEN")
	}
}

// `paycore dev` whose credentials file is gone while its database is kept creates a new
// sandbox platform on a placeholder domain: the first keeps sandbox.uma.localhost.
func TestDevSandboxPlatformWithoutItsCredentials(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	first := &app{cfg: s.app.cfg, pool: s.app.pool, box: s.app.box}
	first.cfg.DataDir = t.TempDir()
	second := &app{cfg: s.app.cfg, pool: s.app.pool, box: s.app.box}
	second.cfg.DataDir = t.TempDir()
	var domains []string
	for _, a := range []*app{first, second} {
		creds, err := ensureSandboxPlatform(context.Background(), a)
		if err != nil {
			t.Fatal(err)
		}
		id, err := ids.Parse(ids.Platform, creds.PlatformID)
		if err != nil {
			t.Fatal(err)
		}
		p, err := db.PlatformGet(context.Background(), s.app.pool, id)
		if err != nil {
			t.Fatal(err)
		}
		domains = append(domains, p.UmaDomain)
	}
	if domains[0] != "sandbox.uma.localhost" || !strings.HasSuffix(domains[1], ".uma.example") {
		t.Fatalf("domains %v", domains)
	}
}
