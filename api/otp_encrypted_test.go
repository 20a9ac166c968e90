package api_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"paycore/api"
	"paycore/db/view"
	"paycore/internal/ids"
	"paycore/internal/infra/sms"
	"paycore/internal/walletcrypto"
	"paycore/internal/walletcrypto/jsinterop"
)

// An OTP credential verified with an encrypted code, as @turnkey/crypto's
// encryptOtpCodeToBundle makes it: the target bundle comes with each issued code (creation,
// challenge); the code and the client's key sealed to it are checked like a plain code (a
// wrong one counts) and answered 202 with a payloadToSign bound to that key; the retry
// signed by that key (ApiKeyStamper) issues a session holding it, once. Another key, another
// body, a garbage bundle or both forms at once are refused.
func TestEncryptedOTPVerification(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var sent []string
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]string
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &m)
		mu.Lock()
		sent = append(sent, m["body"])
		mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}))
	defer gateway.Close()
	e := newEnvWith(t, func(d *api.Deps) { d.SMS = sms.Gateway{URL: gateway.URL, Client: gateway.Client()} })
	js := jsinterop.Start(t)
	lastCode := func() string {
		mu.Lock()
		defer mu.Unlock()
		m := codeRe.FindStringSubmatch(sent[len(sent)-1])
		if m == nil {
			t.Fatalf("no code in %q", sent[len(sent)-1])
		}
		return m[1]
	}
	// encrypt seals code with the client's key to bundle, as the client library does.
	encrypt := func(code, bundle string, pub []byte) string {
		t.Helper()
		var b struct{ EnclaveQuorumPublic string }
		_ = json.Unmarshal([]byte(bundle), &b)
		out, err := js.EncryptOTP(code, bundle, hex.EncodeToString(pub), b.EnclaveQuorumPublic)
		if err != nil {
			t.Fatalf("encryptOtpCodeToBundle: %v", err)
		}
		return out
	}

	c, _ := e.platform(false)
	multiCurrency(t, c, true)
	acct := walletAccount(t, c, "eve@example.com")
	r := c.Do("POST", "/auth/credentials", map[string]any{"type": "SMS_OTP", "accountId": acct, "phoneNumber": "+14155550142"})
	var cred view.AuthMethod
	r.Decode(t, &cred)
	if r.Status != 201 || !strings.Contains(cred.OtpEncryptionTargetBundle, `"version":"v1.0.0"`) {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	path := "/auth/credentials/" + cred.ID + "/verify"
	tekPriv, tekPub, err := walletcrypto.NewSessionKey()
	if err != nil {
		t.Fatal(err)
	}
	code := lastCode()

	// Refused shapes: nothing counted, nothing spent.
	expectError(t, c.Do("POST", path, map[string]any{"encryptedOtpBundle": `{"encappedPublic":"00","ciphertext":"00"}`}), 400, "INVALID_INPUT")
	expectError(t, c.Do("POST", path, map[string]any{"encryptedOtpBundle": encrypt(code, cred.OtpEncryptionTargetBundle, tekPub), "otp": code}), 400, "INVALID_INPUT")
	// A wrong code inside the bundle is a wrong code.
	wrong := "999999"
	if code == wrong {
		wrong = "888888"
	}
	if res := expectError(t, c.Do("POST", path, map[string]any{"encryptedOtpBundle": encrypt(wrong, cred.OtpEncryptionTargetBundle, tekPub)}), 401, "UNAUTHORIZED"); res["reason"] != "Invalid OTP code" {
		t.Fatalf("wrong code: %v", res)
	}

	body := map[string]any{"type": "SMS_OTP", "encryptedOtpBundle": encrypt(code, cred.OtpEncryptionTargetBundle, tekPub)}
	r = c.Do("POST", path, body)
	if r.Status != 202 {
		t.Fatalf("first leg: %d %s", r.Status, r.Body)
	}
	var ch view.Challenge
	r.Decode(t, &ch)
	if !strings.Contains(ch.PayloadToSign, hex.EncodeToString(tekPub)) || !strings.Contains(ch.PayloadToSign, "verificationToken") {
		t.Fatalf("payloadToSign %s", ch.PayloadToSign)
	}
	// The code is spent: the same bundle again finds no pending code.
	expectError(t, c.Do("POST", path, body), 400, "INVALID_INPUT")

	otherPriv, _, _ := walletcrypto.NewSessionKey()
	expectError(t, c.Do("POST", path, body, "Grid-Wallet-Signature", js.Stamp(ch.PayloadToSign, hex.EncodeToString(otherPriv)), "Request-Id", ch.RequestID), 401, "WALLET_SIGNATURE_INVALID")
	other := map[string]any{"type": "SMS_OTP", "encryptedOtpBundle": body["encryptedOtpBundle"].(string) + " "}
	expectError(t, c.Do("POST", path, other, "Grid-Wallet-Signature", js.Stamp(ch.PayloadToSign, hex.EncodeToString(tekPriv)), "Request-Id", ch.RequestID), 401, "WALLET_SIGNATURE_BODY_MISMATCH")
	expectError(t, c.Do("POST", path, body, "Grid-Wallet-Signature", "sandbox-valid-signature", "Request-Id", ch.RequestID), 401, "WALLET_SIGNATURE_MALFORMED")

	stamp := js.Stamp(ch.PayloadToSign, hex.EncodeToString(tekPriv))
	r = c.Do("POST", path, body, "Grid-Wallet-Signature", stamp, "Request-Id", ch.RequestID)
	if r.Status != 200 || strings.Contains(string(r.Body), "encryptedSessionSigningKey") {
		t.Fatalf("signed retry: %d %s", r.Status, r.Body)
	}
	var sess view.Session
	r.Decode(t, &sess)
	sid, _ := ids.Parse(ids.Session, sess.ID)
	var key []byte
	if err := e.pool.QueryRow(t.Context(), "SELECT public_key FROM auth_sessions WHERE id = $1", sid).Scan(&key); err != nil || !bytes.Equal(key, tekPub) {
		t.Fatalf("the session's key %x, want the client's %x (%v)", key, tekPub, err)
	}
	expectError(t, c.Do("POST", path, body, "Grid-Wallet-Signature", stamp, "Request-Id", ch.RequestID), 401, "UNAUTHORIZED")
}
