package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"paycore/api/apitest"
	"paycore/internal/infra/config"
	"paycore/internal/platformconfig"
)

// domainProver publishes platforms' UMA domain tokens for a stack, as each platform would on
// its own domain: one HTTP listener that the stack reaches for every domain named (port 80
// of each .internal domain, through PAYCORE_RESOLVE).
type domainProver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	tokens map[string]string // by domain
}

// newDomainProver starts the listener for domains and returns the stack setting that sends
// the stack there.
func newDomainProver(t testing.TB, domains ...string) (*domainProver, func(*config.Config)) {
	t.Helper()
	d := &domainProver{tokens: map[string]string{}}
	d.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.mu.Lock()
		token, ok := d.tokens[strings.ToLower(r.Host)]
		d.mu.Unlock()
		if r.URL.Path != platformconfig.ProofPath || !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(token + "\n"))
	}))
	t.Cleanup(d.srv.Close)
	addr := strings.TrimPrefix(d.srv.URL, "http://")
	return d, func(c *config.Config) {
		c.Resolve = map[string]string{}
		for _, domain := range domains {
			c.Resolve[domain+":80"] = addr
		}
	}
}

// publish makes domain answer token (what a platform does on its own web server).
func (d *domainProver) publish(domain, token string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.tokens[domain] = token
}

// prove has the platform of c prove its umaDomain domain: it publishes the token its
// configuration shows and asks the service to check.
func (d *domainProver) prove(t testing.TB, c *apitest.Client, domain string) {
	t.Helper()
	var cfg struct {
		UmaDomain      string
		UmaDomainProof struct{ Status, Token, URL string }
	}
	c.Do("GET", "/config", nil).Decode(t, &cfg)
	if cfg.UmaDomain != domain || cfg.UmaDomainProof.Token == "" || cfg.UmaDomainProof.URL != "http://"+domain+platformconfig.ProofPath {
		t.Fatalf("the platform's domain proof: %+v", cfg)
	}
	d.publish(domain, cfg.UmaDomainProof.Token)
	r := c.Do("POST", "/config/uma-domain/verify", nil)
	r.Decode(t, &cfg)
	if r.Status != 200 || cfg.UmaDomainProof.Status != "VERIFIED" {
		t.Fatalf("verify %s: %d %s", domain, r.Status, r.Body)
	}
}
