package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"paycore/api/apitest"
)

// The permission model (docs/permissions.md) as a matrix: every registered route × every
// non-empty set of token permissions. A request is authorized when it is not answered
// 403 FORBIDDEN naming a permission (details.permission).

const (
	pView, pTransact, pManage = "VIEW", "TRANSACT", "MANAGE"
)

// needs is what a request needs: nil for any platform token; public routes are
// outside the platform routes' HTTP Basic and never refused for a permission.
type needs []string

var (
	anyToken       = needs{}
	manageOnly     = needs{pManage}
	transactOnly   = needs{pTransact}
	manageTransact = needs{pManage, pTransact}
)

// routeRule classifies a route: what its request (with placeholder ids and an empty
// body) needs, and for routes whose need depends on the body or on the resource, the
// variants that tell them apart.
type routeRule struct {
	public   bool
	need     needs
	variants []permVariant
}

// permVariant is one request of a conditional route, built on fresh fixtures by a full
// token (so each permission set sees the same state).
type permVariant struct {
	name  string
	need  needs
	build func(f *permFixture) (method, path string, body any)
}

// permFixture is a platform with a full-permission client and a funded customer.
type permFixture struct {
	t        *testing.T
	full     *apitest.Client
	customer string
	account  string
}

// agent creates an agent of the fixture's customer with policy and returns its id.
func (f *permFixture) agent(policy map[string]any) string {
	f.t.Helper()
	return createAgent(f.t, f.full, f.customer, policy).Agent.ID
}

func viewOnlyPolicy() map[string]any {
	return map[string]any{"permissions": []string{"VIEW_TRANSACTIONS"}, "defaultExecutionMode": "AUTO",
		"spendingLimits": map[string]any{"currency": "USD", "perTransactionLimit": 1000}}
}

// guardedPolicy is a money agent under approval, with limits and a threshold.
func guardedPolicy() map[string]any {
	return map[string]any{"permissions": []string{"VIEW_TRANSACTIONS", "CREATE_TRANSFERS"}, "defaultExecutionMode": "APPROVAL_REQUIRED",
		"spendingLimits":     map[string]any{"currency": "USD", "perTransactionLimit": 1000, "dailyLimit": 5000, "monthlyLimit": 20000},
		"approvalThresholds": map[string]any{"currency": "USD", "amount": 100}}
}

// conditionalRules are the routes whose need depends on the body or the resource.
func conditionalRules() map[string]routeRule {
	patchPolicy := func(name string, need needs, body map[string]any) permVariant {
		return permVariant{name, need, func(f *permFixture) (string, string, any) {
			return "PATCH", "/agents/" + f.agent(guardedPolicy()) + "/policy", body
		}}
	}
	patchAgent := func(name string, need needs, body map[string]any, paused bool) permVariant {
		return permVariant{name, need, func(f *permFixture) (string, string, any) {
			id := f.agent(guardedPolicy())
			if paused {
				if r := f.full.Do("PATCH", "/agents/"+id, map[string]any{"isPaused": true}); r.Status != 200 {
					f.t.Fatalf("pause: %d %s", r.Status, r.Body)
				}
			}
			return "PATCH", "/agents/" + id, body
		}}
	}
	return map[string]routeRule{
		"POST /agents": {need: manageOnly, variants: []permVariant{
			{"view-only agent", manageOnly, func(f *permFixture) (string, string, any) {
				return "POST", "/agents", map[string]any{"name": "Reader", "customerId": f.customer, "policy": viewOnlyPolicy()}
			}},
			{"money agent", manageTransact, func(f *permFixture) (string, string, any) {
				return "POST", "/agents", map[string]any{"name": "Payer", "customerId": f.customer, "policy": agentPolicyBody(f.account)}
			}},
		}},
		"POST /agents/{agentId}/device-codes": {need: manageOnly, variants: []permVariant{
			{"view-only agent", manageOnly, func(f *permFixture) (string, string, any) {
				return "POST", "/agents/" + f.agent(viewOnlyPolicy()) + "/device-codes", nil
			}},
			{"money agent", manageTransact, func(f *permFixture) (string, string, any) {
				return "POST", "/agents/" + f.agent(guardedPolicy()) + "/device-codes", nil
			}},
		}},
		"PATCH /agents/{agentId}": {need: manageOnly, variants: []permVariant{
			patchAgent("rename", manageOnly, map[string]any{"name": "Renamed"}, false),
			patchAgent("pause", manageOnly, map[string]any{"isPaused": true}, false),
			patchAgent("resume", manageTransact, map[string]any{"isPaused": false}, true),
		}},
		"PATCH /agents/{agentId}/policy": {need: manageOnly, variants: []permVariant{
			patchPolicy("tighter limit", manageOnly, map[string]any{"spendingLimits": map[string]any{"perTransactionLimit": 10}}),
			patchPolicy("lower threshold", manageOnly, map[string]any{"approvalThresholds": map[string]any{"amount": 1}}),
			patchPolicy("drop a permission", manageOnly, map[string]any{"permissions": []string{"CREATE_TRANSFERS"}}),
			patchPolicy("AUTO", manageTransact, map[string]any{"defaultExecutionMode": "AUTO"}),
			patchPolicy("add a permission", manageTransact, map[string]any{"permissions": []string{"VIEW_TRANSACTIONS", "CREATE_TRANSFERS", "EXECUTE_QUOTES"}}),
			patchPolicy("raise a limit", manageTransact, map[string]any{"spendingLimits": map[string]any{"perTransactionLimit": 100000}}),
			patchPolicy("lift the monthly limit", manageTransact, map[string]any{"spendingLimits": map[string]any{"monthlyLimit": nil}}),
			patchPolicy("remove the threshold", manageTransact, map[string]any{"approvalThresholds": map[string]any{"amount": nil}}),
			patchPolicy("raise the threshold", manageTransact, map[string]any{"approvalThresholds": map[string]any{"amount": 5000}}),
		}},
		"POST /tokens": {need: manageOnly, variants: []permVariant{
			{"a VIEW token", needs{pManage, pView}, func(*permFixture) (string, string, any) {
				return "POST", "/tokens", map[string]any{"name": "reader", "permissions": []string{"VIEW"}}
			}},
			{"a TRANSACT token", manageTransact, func(*permFixture) (string, string, any) {
				return "POST", "/tokens", map[string]any{"name": "payer", "permissions": []string{"TRANSACT"}}
			}},
		}},
	}
}

// permissionRules classifies every route; a route missing here fails the test.
func permissionRules() map[string]routeRule {
	rules := map[string]routeRule{}
	set := func(need needs, routes ...string) {
		for _, r := range routes {
			rules[r] = routeRule{need: need}
		}
	}
	public := func(routes ...string) {
		for _, r := range routes {
			rules[r] = routeRule{public: true}
		}
	}
	// Outside the platform routes: health, documents, hosted pages, the agents' own routes.
	public("GET /healthz", "GET /readyz", "GET /openapi.yaml", "GET /docs", "GET /docs/{asset}", "GET /docs/document",
		"GET /kyc/{token}", "POST /kyc/{token}", "GET /invite/{invitationCode}", "GET /sandbox/liveness", "GET /dev/mailbox", "GET /dev/sms",
		"GET /docs/openapi.yaml", "GET /.well-known/lnurlp/{user}", "GET /.well-known/lnurlp/{user}/callback", "POST /.well-known/lnurlp/{user}/callback", "POST /uma/utxo-callback/{transactionId}", "GET /.well-known/lnurlpubkey")
	// The agents' own routes: the device-code redeem (no credential) and /agents/me (the
	// agent's Bearer token, checked against its policy; a platform token is not one).
	public("POST /agents/device-codes/{code}/redeem", "GET /agents/me", "GET /agents/me/actions",
		"GET /agents/me/actions/{actionId}", "GET /agents/me/external-accounts", "POST /agents/me/external-accounts",
		"GET /agents/me/external-accounts/{externalAccountId}", "DELETE /agents/me/external-accounts/{externalAccountId}",
		"GET /agents/me/internal-accounts", "POST /agents/me/quotes", "GET /agents/me/quotes/{quoteId}",
		"POST /agents/me/quotes/{quoteId}/execute", "GET /agents/me/transactions", "GET /agents/me/transactions/{transactionId}",
		"POST /agents/me/transfer-in", "POST /agents/me/transfer-out")
	// Reads: any token.
	set(anyToken, "GET /config", "GET /tokens", "GET /tokens/{tokenId}", "GET /uma-providers", "GET /vasps", "GET /exchange-rates",
		"GET /discoveries", "POST /crypto/estimate-withdrawal-fee", "GET /customers", "GET /customers/internal-accounts", "GET /customers/end-user-terms",
		"GET /customers/{customerId}", "GET /beneficial-owners", "GET /beneficial-owners/{beneficialOwnerId}",
		"GET /verifications", "GET /verifications/{verificationId}", "GET /platform/internal-accounts",
		"GET /customers/external-accounts", "GET /customers/external-accounts/{externalAccountId}",
		"GET /platform/external-accounts", "GET /platform/external-accounts/{externalAccountId}", "GET /auth/credentials",
		"GET /auth/sessions", "GET /quotes/{quoteId}", "GET /receiver/uma/{receiverUmaAddress}",
		"GET /receiver/external-account/{accountId}", "GET /transactions", "GET /transactions/{transactionId}",
		"GET /invitations/{invitationCode}", "GET /documents", "GET /documents/{documentId}", "GET /customers/bulk/jobs/{jobId}",
		"GET /webhooks/events", "GET /webhooks/events/stream", "GET /webhooks/events/{eventId}", "GET /webhooks/signing-key", "GET /agents",
		"GET /agents/approvals", "GET /agents/device-codes/{code}/status", "GET /agents/{agentId}")
	// Configuration that cannot move money.
	set(manageOnly, "PATCH /config", "POST /config/uma-domain/verify", "DELETE /tokens/{tokenId}", "POST /customers", "PATCH /customers/{customerId}",
		"DELETE /customers/{customerId}", "POST /customers/{customerId}/kyc-link", "POST /beneficial-owners",
		"PATCH /beneficial-owners/{beneficialOwnerId}", "POST /verifications", "PATCH /internal-accounts/{id}",
		"DELETE /customers/external-accounts/{externalAccountId}", "DELETE /platform/external-accounts/{externalAccountId}",
		"POST /auth/credentials", "DELETE /auth/credentials/{id}", "POST /auth/credentials/{id}/challenge",
		"POST /auth/credentials/{id}/verify", "DELETE /auth/sessions/{id}", "POST /auth/sessions/{id}/refresh",
		"POST /documents", "PUT /documents/{documentId}", "DELETE /documents/{documentId}", "POST /customers/bulk/csv",
		"POST /webhooks/test", "POST /sandbox/webhooks/test", "POST /webhooks/events/{eventId}/redeliver",
		"GET /webhooks/secret", "POST /webhooks/secret/rotate", "DELETE /agents/{agentId}")
	// Money moves, or a payee or the wallet's keys leave: TRANSACT (with MANAGE where the
	// route configures something).
	set(transactOnly, "POST /sandbox/internal-accounts/{accountId}/fund", "POST /transfer-out", "POST /transfer-in",
		"POST /quotes", "POST /quotes/{quoteId}/execute", "POST /sandbox/send", "POST /transactions/{transactionId}/approve",
		"POST /transactions/{transactionId}/reject", "POST /transactions/{transactionId}/cancel", "POST /transactions/{transactionId}/refund", "POST /sandbox/uma/receive", "POST /invitations",
		"POST /invitations/{invitationCode}/claim", "POST /invitations/{invitationCode}/cancel",
		"POST /agents/{agentId}/actions/{actionId}/approve", "POST /agents/{agentId}/actions/{actionId}/reject")
	set(manageTransact, "POST /customers/external-accounts", "POST /platform/external-accounts", "POST /internal-accounts/{id}/export",
		"POST /customers/external-accounts/{externalAccountId}/challenge", "POST /customers/external-accounts/{externalAccountId}/verify",
		"POST /platform/external-accounts/{externalAccountId}/challenge", "POST /platform/external-accounts/{externalAccountId}/verify")
	for route, rule := range conditionalRules() {
		rules[route] = rule
	}
	return rules
}

// permSets are every non-empty subset of the three permissions.
func permSets() [][]string {
	all := []string{pView, pTransact, pManage}
	var out [][]string
	for mask := 1; mask < 1<<len(all); mask++ {
		var s []string
		for i, p := range all {
			if mask&(1<<i) != 0 {
				s = append(s, p)
			}
		}
		out = append(out, s)
	}
	return out
}

func holds(perms []string, need needs) bool {
	for _, n := range need {
		if !slices.Contains(perms, n) {
			return false
		}
	}
	return true
}

// refusedForPermission reports whether an answer is the refusal of a permission the
// token lacks: 403 FORBIDDEN naming it in details.permission.
func refusedForPermission(t *testing.T, status int, body []byte) bool {
	t.Helper()
	if status != http.StatusForbidden {
		return false
	}
	var env struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("403 outside the envelope: %s", body)
	}
	perm, _ := env.Details["permission"].(string)
	if env.Code != "FORBIDDEN" || perm == "" {
		return false
	}
	if !strings.Contains(env.Message, perm) {
		t.Fatalf("refusal does not name %s: %s", perm, body)
	}
	return true
}

var pathParam = regexp.MustCompile(`\{[^}]+\}`)

func TestPermissionMatrix(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	full, _ := e.platform(true)
	base := e.cfg.BasePath()
	rules := permissionRules()

	tokens := map[string]*apitest.Client{}
	for _, perms := range permSets() {
		r := full.Do("POST", "/tokens", map[string]any{"name": strings.Join(perms, "+"), "permissions": perms})
		if r.Status != 201 {
			t.Fatalf("create token %v: %d %s", perms, r.Status, r.Body)
		}
		var tok struct{ ID, ClientSecret string }
		r.Decode(t, &tok)
		c := full.With(strings.TrimPrefix(tok.ID, "Token:"), tok.ClientSecret)
		c.SkipValidation = true
		tokens[strings.Join(perms, "+")] = c
	}
	sendOnce := func(c *apitest.Client, method, path string, body any) (int, []byte) {
		t.Helper()
		var rd io.Reader = http.NoBody
		if body != nil {
			raw, _ := json.Marshal(body)
			rd = strings.NewReader(string(raw))
		}
		req, _ := http.NewRequest(method, c.BaseURL+path, rd)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		req.SetBasicAuth(c.User, c.Password)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, out
	}
	// send sends body where the operation takes one: the input rules refuse any body, {}
	// included, to an operation that declares none, before authentication.
	send := func(c *apitest.Client, method, path string, body any) (int, []byte) {
		status, out := sendOnce(c, method, path, body)
		if body != nil && status == http.StatusBadRequest && bytes.Contains(out, []byte("this operation takes no request body")) {
			return sendOnce(c, method, path, nil)
		}
		return status, out
	}
	check := func(label string, perms []string, need needs, status int, body []byte) {
		t.Helper()
		want := holds(perms, need)
		if got := !refusedForPermission(t, status, body); got != want {
			t.Errorf("%s with %v: authorized=%v, want %v (needs %v): %d %s", label, perms, got, want, need, status, body)
		}
	}

	seen := map[string]bool{}
	err := chi.Walk(e.api.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		route = strings.TrimSuffix(route, "/")
		inBase := strings.HasPrefix(route, base+"/")
		key := method + " " + strings.TrimPrefix(route, base)
		if route == base+"/openapi.yaml" {
			key = "GET /openapi.yaml"
		}
		seen[key] = true
		rule, ok := rules[key]
		if !ok {
			t.Errorf("%s is not classified in the permission model (permissionRules, docs/permissions.md)", key)
			return nil
		}
		path := pathParam.ReplaceAllString(strings.TrimPrefix(route, base), "x")
		if key == "GET /webhooks/events/stream" {
			path += "?after=x" // refused after the permission check; a valid start streams until the client hangs up
		}
		for _, perms := range permSets() {
			c := tokens[strings.Join(perms, "+")]
			var body any
			if method != "GET" && method != "DELETE" {
				body = map[string]any{}
			}
			if !inBase || rule.public {
				c = c.With(c.User, c.Password)
				c.BaseURL = strings.TrimSuffix(c.BaseURL, base)
				path = pathParam.ReplaceAllString(route, "x")
				status, out := send(c, method, path, body)
				if refusedForPermission(t, status, out) {
					t.Errorf("public route %s refused %v for a permission: %s", key, perms, out)
				}
				continue
			}
			status, out := send(c, method, path, body)
			check(key, perms, rule.need, status, out)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k, rule := range rules {
		if !seen[k] && !rule.public {
			t.Errorf("%s is classified but not registered", k)
		}
	}

	// The conditional routes, variant by variant, each on fresh fixtures.
	cust := newCustomer(t, full, "US", "USD")
	f := &permFixture{t: t, full: full, customer: cust.ID, account: accountsByCurrency(t, full, cust.ID)["USD"].ID}
	for route, rule := range conditionalRules() {
		for _, v := range rule.variants {
			for _, perms := range permSets() {
				method, path, body := v.build(f)
				status, out := send(tokens[strings.Join(perms, "+")], method, path, body)
				if status >= 400 && status != 403 {
					t.Errorf("%s (%s) with %v: %d %s", route, v.name, perms, status, out)
				}
				check(route+" ("+v.name+")", perms, v.need, status, out)
			}
		}
	}
}
