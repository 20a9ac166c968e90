package api_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/db/view"
	"paycore/internal/infra/sms"
)

// SMS_OTP credentials: codes go by text message to the credential's number through the
// operator's gateway (a production platform here), the code verifies into a session, a
// wrong one is refused and counted like an e-mailed code, an account holds one, and a
// malformed number is 400. Without a gateway a production platform's code is refused
// (SMS_DELIVERY_FAILED) and a sandbox platform's is kept for the development outbox.
func TestSMSOTPCredentials(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var sent []map[string]string
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]string
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &m)
		if r.Header.Get("Authorization") != "Bearer gw-token" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		mu.Lock()
		sent = append(sent, m)
		mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}))
	defer gateway.Close()
	e := newEnvWith(t, func(d *api.Deps) {
		d.SMS = sms.Gateway{URL: gateway.URL, Token: "gw-token", Client: gateway.Client()}
	})
	c, _ := e.platform(false)
	multiCurrency(t, c, true)
	acct := walletAccount(t, c, "ana@example.com")

	for _, bad := range []map[string]any{
		{"type": "SMS_OTP", "accountId": acct},
		{"type": "SMS_OTP", "accountId": acct, "phoneNumber": "4155550123"},
		{"type": "SMS_OTP", "accountId": acct, "phoneNumber": "+1 415 555 0123"},
	} {
		r := c.Do("POST", "/auth/credentials", bad)
		if r.Status != 400 || r.Field(t) != "phoneNumber" {
			t.Fatalf("%v: %d %s", bad, r.Status, r.Body)
		}
	}
	expectError(t, c.Do("POST", "/auth/credentials", map[string]any{"type": "SMS_OTP", "accountId": acct, "phoneNumber": "+14155550123", "email": "a@example.com"}), 400, "INVALID_INPUT")

	r := c.Do("POST", "/auth/credentials", map[string]any{"type": "SMS_OTP", "accountId": acct, "phoneNumber": "+14155550123"})
	if r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	var cred view.AuthMethod
	r.Decode(t, &cred)
	if cred.Type != "SMS_OTP" || cred.Nickname != "+14155550123" {
		t.Fatalf("credential %+v", cred)
	}
	mu.Lock()
	if len(sent) != 1 || sent[0]["to"] != "+14155550123" {
		t.Fatalf("gateway got %v", sent)
	}
	m := codeRe.FindStringSubmatch(sent[0]["body"])
	mu.Unlock()
	if m == nil {
		t.Fatalf("no code in %q", sent[0]["body"])
	}
	expectError(t, c.Do("POST", "/auth/credentials", map[string]any{"type": "SMS_OTP", "accountId": acct, "phoneNumber": "+14155550199"}), 400, "SMS_OTP_CREDENTIAL_ALREADY_EXISTS")

	_, pub := clientKeyPair(t)
	wrong := "999999"
	if m[1] == wrong {
		wrong = "888888"
	}
	res := expectError(t, c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"otp": wrong, "clientPublicKey": pub}), 401, "UNAUTHORIZED")
	if res["reason"] != "Invalid OTP code" {
		t.Fatalf("reason %v", res["reason"])
	}
	r = c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"type": "SMS_OTP", "otp": m[1], "clientPublicKey": pub})
	if r.Status != 200 || !strings.Contains(string(r.Body), "encryptedSessionSigningKey") {
		t.Fatalf("verify: %d %s", r.Status, r.Body)
	}
	// The code used, a challenge sends a new one by text message.
	if r := c.Do("POST", "/auth/credentials/"+cred.ID+"/challenge", nil); r.Status != 200 {
		t.Fatalf("challenge: %d %s", r.Status, r.Body)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(sent) != 2 || sent[1]["to"] != "+14155550123" || codeRe.FindStringSubmatch(sent[1]["body"]) == nil {
		t.Fatalf("the gateway got %v, want a second code", sent)
	}
	// And within 30 s of it, another is refused without sending anything.
	if r := c.Do("POST", "/auth/credentials/"+cred.ID+"/challenge", nil); r.Status != 429 || r.Header.Get("Retry-After") == "" {
		t.Fatalf("challenge at once: %d %s", r.Status, r.Body)
	}
	if len(sent) != 2 {
		t.Fatalf("the gateway got %d messages, want 2", len(sent))
	}
}

func TestSMSWithoutGateway(t *testing.T) {
	t.Parallel()
	sink := sms.NewSink(slog.New(slog.NewTextHandler(io.Discard, nil)))
	e := newEnvWith(t, func(d *api.Deps) { d.SMS, d.DevSMS = sink, sink })
	for _, p := range []struct {
		sandbox bool
		number  string
		status  int
	}{{true, "+14155550101", 201}, {false, "+14155550102", 502}} {
		c, _ := e.platform(p.sandbox)
		multiCurrency(t, c, true)
		acct := walletAccount(t, c, "x@example.com")
		r := c.Do("POST", "/auth/credentials", map[string]any{"type": "SMS_OTP", "accountId": acct, "phoneNumber": p.number})
		if r.Status != p.status || (!p.sandbox && (r.Code(t) != "SMS_DELIVERY_FAILED" || !strings.Contains(string(r.Body), "PAYCORE_SMS_URL"))) {
			t.Fatalf("sandbox %v: %d %s", p.sandbox, r.Status, r.Body)
		}
	}
	root := &apitest.Client{T: t, BaseURL: e.srv.URL, SkipValidation: true}
	var box struct {
		Data []sms.Message `json:"data"`
	}
	root.Do("GET", "/dev/sms", nil).Decode(t, &box)
	if len(box.Data) != 1 || box.Data[0].To != "+14155550101" || codeRe.FindStringSubmatch(box.Data[0].Body) == nil {
		t.Fatalf("outbox %+v", box.Data)
	}
}
