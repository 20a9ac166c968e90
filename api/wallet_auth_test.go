package api_test

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/db/view"
	"paycore/internal/infra/mailer"
	"paycore/internal/walletcrypto/jsinterop"
)

// inbox is a real SMTP server receiving the service's mail.
type inbox struct {
	mu   sync.Mutex
	msgs []string
}

func (b *inbox) NewSession(*smtp.Conn) (smtp.Session, error) { return &smtpSession{b: b}, nil }

type smtpSession struct{ b *inbox }

func (s *smtpSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *smtpSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (s *smtpSession) Data(r io.Reader) error {
	b, _ := io.ReadAll(r)
	s.b.mu.Lock()
	s.b.msgs = append(s.b.msgs, string(b))
	s.b.mu.Unlock()
	return nil
}
func (s *smtpSession) Reset()        {}
func (s *smtpSession) Logout() error { return nil }

var codeRe = regexp.MustCompile(`code is ([0-9A-Z]+)\.`)

// lastCode returns the code of the newest message and how many messages arrived.
func (b *inbox) lastCode(t *testing.T) (string, int) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.msgs) == 0 {
		t.Fatal("no mail received")
	}
	m := codeRe.FindStringSubmatch(b.msgs[len(b.msgs)-1])
	if m == nil {
		t.Fatalf("no code in %q", b.msgs[len(b.msgs)-1])
	}
	return m[1], len(b.msgs)
}

func startInbox(t *testing.T) (*inbox, mailer.Mailer) {
	b := &inbox{}
	srv := smtp.NewServer(b)
	srv.Domain = "localhost"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	return b, mailer.NewSMTP(mailer.SMTPConfig{Host: "127.0.0.1", Port: ln.Addr().(*net.TCPAddr).Port, TLS: "none"})
}

// walletAccount creates a customer with an e-mail and returns its embedded wallet account.
func walletAccount(t testing.TB, c *apitest.Client, email string) string {
	t.Helper()
	var cust api.Customer
	r := c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "region": "US", "email": email, "currencies": []string{"USD", "USDC"}})
	if r.Status != 201 {
		t.Fatalf("customer: %d %s", r.Status, r.Body)
	}
	r.Decode(t, &cust)
	var accts api.List[view.InternalAccount]
	c.Do("GET", "/customers/internal-accounts?type=EMBEDDED_WALLET&customerId="+cust.ID, nil).Decode(t, &accts)
	if len(accts.Data) != 1 {
		t.Fatalf("wallet accounts: %+v", accts)
	}
	return accts.Data[0].ID
}

func clientKeyPair(t testing.TB) (priv *ecdh.PrivateKey, pubHex string) {
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k, hex.EncodeToString(k.PublicKey().Bytes())
}

func TestEmailOTPCredentialsSessionsAndSignedRetries(t *testing.T) {
	t.Parallel()
	box, m := startInbox(t)
	e := newEnvWithMailer(t, m)
	c, _ := e.platform(false) // production: no magic values
	multiCurrency(t, c, true)
	acct := walletAccount(t, c, "ana@example.com")
	js := jsinterop.Start(t)

	// First credential: 201 with a strict AuthMethod (and the code's target bundle), and a code by e-mail.
	r := c.Do("POST", "/auth/credentials", map[string]any{"type": "EMAIL_OTP", "accountId": acct})
	if r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	keys := []string{}
	for k := range r.JSON(t) {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, ",") != "accountId,createdAt,id,nickname,otpEncryptionTargetBundle,type,updatedAt" {
		t.Fatalf("AuthMethod is not strict: %v", keys)
	}
	var cred view.AuthMethod
	r.Decode(t, &cred)
	if cred.Nickname != "ana@example.com" || cred.Type != "EMAIL_OTP" {
		t.Fatalf("credential %+v", cred)
	}
	code, sent := box.lastCode(t)
	expectError(t, c.Do("POST", "/auth/credentials", map[string]any{"type": "EMAIL_OTP", "accountId": acct}), 400, "EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS")

	// Wrong codes are refused and counted.
	_, pub := clientKeyPair(t)
	wrong := "999999"
	if code == wrong {
		wrong = "888888"
	}
	res := expectError(t, c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"otp": wrong, "clientPublicKey": pub}), 401, "UNAUTHORIZED")
	if res["reason"] != "Invalid OTP code" {
		t.Fatalf("reason %v", res["reason"])
	}
	// The sandbox code is not honoured for production platforms.
	expectError(t, c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"otp": "000000", "clientPublicKey": pub}), 401, "UNAUTHORIZED")
	// Malformed and off-curve client keys are 400.
	for _, k := range []string{"04abc", "04" + strings.Repeat("11", 64), pub[2:]} {
		expectError(t, c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"otp": code, "clientPublicKey": k}), 400, "INVALID_INPUT")
	}

	// The right code issues a session whose key the client library decrypts.
	client, pub := clientKeyPair(t)
	r = c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"otp": code, "clientPublicKey": pub})
	if r.Status != 200 {
		t.Fatalf("verify: %d %s", r.Status, r.Body)
	}
	var sess view.Session
	r.Decode(t, &sess)
	sessionKey := js.Decrypt(sess.EncryptedSessionSigningKey, hex.EncodeToString(client.Bytes()))
	if len(sessionKey) != 64 || !strings.HasPrefix(sess.ID, "Session:") {
		t.Fatalf("session %+v key %q", sess, sessionKey)
	}
	// A code works once.
	expectError(t, c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"otp": code, "clientPublicKey": pub}), 401, "UNAUTHORIZED")

	// Re-issue: a fresh code by mail, rate-limited.
	if r := c.Do("POST", "/auth/credentials/"+cred.ID+"/challenge", nil); r.Status != 200 {
		t.Fatalf("challenge: %d %s", r.Status, r.Body)
	}
	if _, n := box.lastCode(t); n != sent+1 {
		t.Fatalf("no new code mailed (%d messages)", n)
	}
	limited := c.Do("POST", "/auth/credentials/"+cred.ID+"/challenge", nil)
	expectError(t, limited, 429, "RATE_LIMITED")
	if limited.Header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}

	// Sessions list without the sealed key.
	var sessions struct{ Data []map[string]any }
	c.Do("GET", "/auth/sessions?accountId="+acct, nil).Decode(t, &sessions)
	if len(sessions.Data) != 1 || sessions.Data[0]["encryptedSessionSigningKey"] != nil {
		t.Fatalf("sessions %+v", sessions)
	}

	// (One EMAIL_OTP per account: the signed retry is exercised on session revocation.)
	other := walletAccount(t, c, "bob@example.com")
	otherCred := view.AuthMethod{}
	c.Do("POST", "/auth/credentials", map[string]any{"type": "EMAIL_OTP", "accountId": other}).Decode(t, &otherCred)
	otherCode, _ := box.lastCode(t)
	otherClient, otherPub := clientKeyPair(t)
	var otherSess view.Session
	c.Do("POST", "/auth/credentials/"+otherCred.ID+"/verify", map[string]any{"otp": otherCode, "clientPublicKey": otherPub}).Decode(t, &otherSess)
	otherKey := js.Decrypt(otherSess.EncryptedSessionSigningKey, hex.EncodeToString(otherClient.Bytes()))

	ch := c.Do("DELETE", "/auth/sessions/"+sess.ID, nil)
	if ch.Status != 202 {
		t.Fatalf("revoke session: %d %s", ch.Status, ch.Body)
	}
	var challenge view.Challenge
	ch.Decode(t, &challenge)
	if !strings.Contains(challenge.PayloadToSign, challenge.RequestID) || !strings.Contains(challenge.PayloadToSign, acct) {
		t.Fatalf("payloadToSign %q", challenge.PayloadToSign)
	}
	retry := func(stamp, requestID string) *apitest.Response {
		return c.Do("DELETE", "/auth/sessions/"+sess.ID, nil, "Service-Wallet-Signature", stamp, "Request-Id", requestID)
	}
	// A stamp over a tampered payload, a stamp by another account's session, a made-up
	// requestId and a sandbox magic value are refused.
	tampered := js.Stamp(strings.Replace(challenge.PayloadToSign, "REVOKE", "REVOKX", 1), sessionKey)
	// Each refusal has the peer's precise code and keeps the spec's reason.
	for name, tc := range map[string]struct {
		r    *apitest.Response
		code string
	}{
		"tampered":      {retry(tampered, challenge.RequestID), "WALLET_SIGNATURE_INVALID"},
		"other session": {retry(js.Stamp(challenge.PayloadToSign, otherKey), challenge.RequestID), "WALLET_SIGNATURE_INVALID"},
		"unknown id":    {retry(js.Stamp(challenge.PayloadToSign, sessionKey), "Request:0190a000-0000-7000-8000-000000000001"), "WALLET_SIGNATURE_INVALID"},
		"magic":         {retry("sandbox-valid-signature", challenge.RequestID), "WALLET_SIGNATURE_MALFORMED"},
		"no request id": {c.Do("DELETE", "/auth/sessions/"+sess.ID, nil, "Service-Wallet-Signature", js.Stamp(challenge.PayloadToSign, sessionKey)), "REQUEST_ID_MISSING"},
		"no signature":  {c.Do("DELETE", "/auth/sessions/"+sess.ID, nil, "Request-Id", challenge.RequestID), "WALLET_SIGNATURE_MISSING"},
		"under the peer's header": {c.Do("DELETE", "/auth/sessions/"+sess.ID, nil, "Grid-Wallet-Signature", tampered, "Request-Id", challenge.RequestID),
			"WALLET_SIGNATURE_INVALID"},
	} {
		res := expectError(t, tc.r, 401, tc.code)
		if res["reason"] != "Invalid Service-Wallet-Signature" {
			t.Fatalf("%s: reason %v", name, res["reason"])
		}
	}
	good := js.Stamp(challenge.PayloadToSign, sessionKey)
	if r := retry(good, challenge.RequestID); r.Status != 204 {
		t.Fatalf("signed retry: %d %s", r.Status, r.Body)
	}
	res = expectError(t, retry(good, challenge.RequestID), 401, "UNAUTHORIZED")
	if res["reason"] != "Request-Id already used" {
		t.Fatalf("replay reason %v", res["reason"])
	}
	c.Do("GET", "/auth/sessions?accountId="+acct, nil).Decode(t, &sessions)
	if len(sessions.Data) != 0 {
		t.Fatal("revoked session still listed")
	}
	// A revoked session no longer signs: revoke the other account's session with its own key
	// works, with ours does not.
	ch2 := c.Do("DELETE", "/auth/sessions/"+otherSess.ID, nil)
	var c2 view.Challenge
	ch2.Decode(t, &c2)
	expectError(t, c.Do("DELETE", "/auth/sessions/"+otherSess.ID, nil, "Service-Wallet-Signature", js.Stamp(c2.PayloadToSign, sessionKey), "Request-Id", c2.RequestID), 401, "WALLET_SIGNATURE_INVALID")
	// An expired retry is refused.
	if _, err := e.pool.Exec(context.Background(), "UPDATE signed_requests SET expires_at = now() - interval '1 second' WHERE used_at IS NULL"); err != nil {
		t.Fatal(err)
	}
	res = expectError(t, c.Do("DELETE", "/auth/sessions/"+otherSess.ID, nil, "Service-Wallet-Signature", js.Stamp(c2.PayloadToSign, otherKey), "Request-Id", c2.RequestID), 401, "UNAUTHORIZED")
	if res["reason"] != "Signed retry expired" {
		t.Fatalf("expired reason %v", res["reason"])
	}
	// The only credential cannot be revoked.
	expectError(t, c.Do("DELETE", "/auth/credentials/"+cred.ID, nil), 400, "INVALID_INPUT")
	// Another platform sees none of it.
	b, _ := e.platform(true)
	expectError(t, b.Do("GET", "/auth/credentials?accountId="+acct, nil), 404, "ACCOUNT_NOT_FOUND")
	expectError(t, b.Do("POST", "/auth/credentials/"+cred.ID+"/challenge", nil), 404, "CREDENTIAL_NOT_FOUND")
	expectError(t, b.Do("DELETE", "/auth/sessions/"+otherSess.ID, nil), 404, "SESSION_NOT_FOUND")
}

// OTP attempts are limited, codes expire, and sandbox magic values work only in sandbox.
func TestEmailOTPLimitsAndSandbox(t *testing.T) {
	t.Parallel()
	box, m := startInbox(t)
	e := newEnvWithMailer(t, m)
	c, _ := e.platform(true)
	multiCurrency(t, c, true)
	acct := walletAccount(t, c, "cy@example.com")
	var cred view.AuthMethod
	c.Do("POST", "/auth/credentials", map[string]any{"type": "EMAIL_OTP", "accountId": acct}).Decode(t, &cred)
	code, _ := box.lastCode(t)
	_, pub := clientKeyPair(t)
	for range 5 {
		expectError(t, c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"otp": "12345678", "clientPublicKey": pub}), 401, "UNAUTHORIZED")
	}
	// The 5th wrong code locked the credential (see TestEmailOTPLockout): the right code is
	// refused too. Once the lock is over, the code is still spent by its 5 wrong attempts.
	expectError(t, c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"otp": code, "clientPublicKey": pub}), 429, "RATE_LIMITED")
	if _, err := e.pool.Exec(context.Background(), "UPDATE auth_otp_lockouts SET locked_until = now() - interval '1 second'"); err != nil {
		t.Fatal(err)
	}
	expectError(t, c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"otp": code, "clientPublicKey": pub}), 401, "UNAUTHORIZED")
	// A fresh code, expired before use.
	if _, err := e.pool.Exec(context.Background(), "UPDATE auth_otps SET sent_at = now() - interval '1 minute'"); err != nil {
		t.Fatal(err)
	}
	c.Do("POST", "/auth/credentials/"+cred.ID+"/challenge", nil)
	code, _ = box.lastCode(t)
	if _, err := e.pool.Exec(context.Background(), "UPDATE auth_otps SET expires_at = now() - interval '1 second'"); err != nil {
		t.Fatal(err)
	}
	expectError(t, c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"otp": code, "clientPublicKey": pub}), 401, "UNAUTHORIZED")
	// Session lifetime follows the platform configuration.
	if r := c.Do("PATCH", "/config", map[string]any{"embeddedWalletConfig": map[string]any{"sessionExpirationSeconds": 3600}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	expectError(t, c.Do("PATCH", "/config", map[string]any{"embeddedWalletConfig": map[string]any{"sessionExpirationSeconds": 5}}), 400, "INVALID_INPUT")
	// Sandbox: 000000 is accepted and still yields a real sealed key.
	client, pub := clientKeyPair(t)
	r := c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"otp": "000000", "clientPublicKey": pub})
	if r.Status != 200 {
		t.Fatalf("sandbox OTP: %d %s", r.Status, r.Body)
	}
	var sess view.Session
	r.Decode(t, &sess)
	if js := jsinterop.Start(t); len(js.Decrypt(sess.EncryptedSessionSigningKey, hex.EncodeToString(client.Bytes()))) != 64 {
		t.Fatal("sandbox bundle does not decrypt")
	}
	if life := sess.ExpiresAt.Sub(sess.CreatedAt); life < 59*time.Minute || life > 61*time.Minute {
		t.Fatalf("session lifetime %s, want the configured hour", life)
	}
	// Sandbox signature on a signed retry.
	ch := c.Do("DELETE", "/auth/sessions/"+sess.ID, nil)
	var challenge view.Challenge
	ch.Decode(t, &challenge)
	if r := c.Do("DELETE", "/auth/sessions/"+sess.ID, nil, "Service-Wallet-Signature", "sandbox-valid-signature", "Request-Id", challenge.RequestID); r.Status != 204 {
		t.Fatalf("sandbox signature: %d %s", r.Status, r.Body)
	}
	// Bad input.
	for _, body := range []map[string]any{
		{"accountId": acct},
		{"type": "SMOKE_SIGNAL", "accountId": acct},
		{"type": "EMAIL_OTP"},
		{"type": "EMAIL_OTP", "accountId": "acct_1"},
		{"type": "EMAIL_OTP", "accountId": acct, "email": "nope"},
	} {
		expectError(t, c.Do("POST", "/auth/credentials", body), 400, "INVALID_INPUT")
	}
	var fiat api.List[view.InternalAccount]
	c.Do("GET", "/customers/internal-accounts?type=INTERNAL_FIAT", nil).Decode(t, &fiat)
	expectError(t, c.Do("POST", "/auth/credentials", map[string]any{"type": "EMAIL_OTP", "accountId": fiat.Data[0].ID}), 400, "INVALID_INPUT")
}

func newEnvWithMailer(t *testing.T, m mailer.Mailer) *env {
	return newEnvWith(t, func(d *api.Deps) { d.Mailer = m })
}

// Refresh, wallet updates and export all go through the signed retry with a session key.
func TestWalletSignedOperations(t *testing.T) {
	t.Parallel()
	box, m := startInbox(t)
	e := newEnvWithMailer(t, m)
	c, _ := e.platform(false)
	multiCurrency(t, c, true)
	acct := walletAccount(t, c, "dee@example.com")
	js := jsinterop.Start(t)
	var cred view.AuthMethod
	c.Do("POST", "/auth/credentials", map[string]any{"type": "EMAIL_OTP", "accountId": acct}).Decode(t, &cred)
	code, _ := box.lastCode(t)
	client, pub := clientKeyPair(t)
	var sess view.Session
	c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"otp": code, "clientPublicKey": pub}).Decode(t, &sess)
	key := js.Decrypt(sess.EncryptedSessionSigningKey, hex.EncodeToString(client.Bytes()))

	signed := func(method, path string, body any) *apitest.Response {
		t.Helper()
		first := c.Do(method, path, body)
		if first.Status != 202 {
			t.Fatalf("%s %s: %d %s", method, path, first.Status, first.Body)
		}
		var ch view.Challenge
		first.Decode(t, &ch)
		return c.Do(method, path, body, "Service-Wallet-Signature", js.Stamp(ch.PayloadToSign, key), "Request-Id", ch.RequestID)
	}
	// The retry must repeat the challenged request: another body is refused.
	first := c.Do("PATCH", "/internal-accounts/"+acct, map[string]any{"privateEnabled": true})
	var ch view.Challenge
	first.Decode(t, &ch)
	res := expectError(t, c.Do("PATCH", "/internal-accounts/"+acct, map[string]any{"privateEnabled": false},
		"Service-Wallet-Signature", js.Stamp(ch.PayloadToSign, key), "Request-Id", ch.RequestID), 401, "WALLET_SIGNATURE_BODY_MISMATCH")
	if res["reason"] != "Invalid Service-Wallet-Signature" {
		t.Fatalf("reason %v", res["reason"])
	}
	r := signed("PATCH", "/internal-accounts/"+acct, map[string]any{"privateEnabled": true})
	if r.Status != 200 || r.JSON(t)["privateEnabled"] != true {
		t.Fatalf("wallet update: %d %s", r.Status, r.Body)
	}

	// Refresh: a new session sealed to a new client key.
	client2, pub2 := clientKeyPair(t)
	r = signed("POST", "/auth/sessions/"+sess.ID+"/refresh", map[string]any{"clientPublicKey": pub2})
	if r.Status != 201 {
		t.Fatalf("refresh: %d %s", r.Status, r.Body)
	}
	var fresh view.Session
	r.Decode(t, &fresh)
	key2 := js.Decrypt(fresh.EncryptedSessionSigningKey, hex.EncodeToString(client2.Bytes()))
	if fresh.ID == sess.ID || key2 == key {
		t.Fatal("refresh returned the same session")
	}

	// Export: the recovery phrase sealed to the client key; the same phrase every time.
	client3, pub3 := clientKeyPair(t)
	r = signed("POST", "/internal-accounts/"+acct+"/export", map[string]any{"clientPublicKey": pub3})
	if r.Status != 200 {
		t.Fatalf("export: %d %s", r.Status, r.Body)
	}
	var exp view.ExportedWallet
	r.Decode(t, &exp)
	phraseHex := js.Decrypt(exp.EncryptedWalletCredentials, hex.EncodeToString(client3.Bytes()))
	phrase, _ := hex.DecodeString(phraseHex)
	if words := strings.Fields(string(phrase)); len(words) != 24 {
		t.Fatalf("recovery phrase has %d words", len(words))
	}
	if strings.Contains(string(r.Body), string(phrase)) {
		t.Fatal("phrase in clear in the response")
	}
	r = signed("POST", "/internal-accounts/"+acct+"/export", map[string]any{"clientPublicKey": pub3})
	var exp2 view.ExportedWallet
	r.Decode(t, &exp2)
	again, _ := hex.DecodeString(js.Decrypt(exp2.EncryptedWalletCredentials, hex.EncodeToString(client3.Bytes())))
	if string(again) != string(phrase) || exp2.EncryptedWalletCredentials == exp.EncryptedWalletCredentials {
		t.Fatal("exports differ in phrase or reuse the same ciphertext")
	}
	expectError(t, c.Do("POST", "/internal-accounts/"+acct+"/export", map[string]any{"clientPublicKey": "04zz"}), 400, "INVALID_INPUT")
	var fiat api.List[view.InternalAccount]
	c.Do("GET", "/customers/internal-accounts?type=INTERNAL_FIAT", nil).Decode(t, &fiat)
	expectError(t, c.Do("POST", "/internal-accounts/"+fiat.Data[0].ID+"/export", map[string]any{"clientPublicKey": pub3}), 400, "INVALID_INPUT")
	// Changing the customer's e-mail moves the EMAIL_OTP credential: signed retry.
	var list struct{ Data []view.AuthMethod }
	c.Do("GET", "/auth/credentials?accountId="+acct, nil).Decode(t, &list)
	var cust api.List[api.Customer]
	c.Do("GET", "/customers?currency=USDC", nil).Decode(t, &cust)
	r = signed("PATCH", "/customers/"+cust.Data[0].ID, map[string]any{"customerType": "INDIVIDUAL", "email": "dee@new.example"})
	if r.Status != 200 || r.JSON(t)["email"] != "dee@new.example" {
		t.Fatalf("email change: %d %s", r.Status, r.Body)
	}
	c.Do("GET", "/auth/credentials?accountId="+acct, nil).Decode(t, &list)
	if list.Data[0].Nickname != "dee@new.example" {
		t.Fatalf("credential did not follow the e-mail: %+v", list.Data)
	}
	// Other changes need no signature.
	if r := c.Do("PATCH", "/customers/"+cust.Data[0].ID, map[string]any{"customerType": "INDIVIDUAL", "fullName": "Dee Dee"}); r.Status != 200 {
		t.Fatalf("plain patch: %d %s", r.Status, r.Body)
	}
	// An expired session's key signs nothing.
	if _, err := e.pool.Exec(context.Background(), "UPDATE auth_sessions SET expires_at = now() - interval '1 second' WHERE id = $1", uuidPart(fresh.ID)); err != nil {
		t.Fatal(err)
	}
	first = c.Do("POST", "/internal-accounts/"+acct+"/export", map[string]any{"clientPublicKey": pub3})
	first.Decode(t, &ch)
	expectError(t, c.Do("POST", "/internal-accounts/"+acct+"/export", map[string]any{"clientPublicKey": pub3},
		"Service-Wallet-Signature", js.Stamp(ch.PayloadToSign, key2), "Request-Id", ch.RequestID), 401, "WALLET_SIGNATURE_INVALID")
	// A revoked session's key signs nothing any more.
	signed("DELETE", "/auth/sessions/"+sess.ID, nil)
	first = c.Do("POST", "/internal-accounts/"+acct+"/export", map[string]any{"clientPublicKey": pub3})
	first.Decode(t, &ch)
	expectError(t, c.Do("POST", "/internal-accounts/"+acct+"/export", map[string]any{"clientPublicKey": pub3},
		"Service-Wallet-Signature", js.Stamp(ch.PayloadToSign, key), "Request-Id", ch.RequestID), 401, "WALLET_SIGNATURE_INVALID")
}

func uuidPart(id string) string {
	_, rest, _ := strings.Cut(id, ":")
	return rest
}

// A compressed clientPublicKey opens a session whose signing key stays on the client: no
// encryptedSessionSigningKey is answered, the session's key is the client's, and signed
// retries stamped with it (by the Turnkey stamper) are accepted, under either signature
// header; a stamp by any other key is not. Sessions name their credential.
func TestClientHeldSessionKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	multiCurrency(t, c, true)
	acct := walletAccount(t, c, "held@example.com")
	js := jsinterop.Start(t)
	var cred view.AuthMethod
	if r := c.Do("POST", "/auth/credentials", map[string]any{"type": "EMAIL_OTP", "accountId": acct}); r.Status != 201 {
		t.Fatalf("credential: %d %s", r.Status, r.Body)
	} else {
		r.Decode(t, &cred)
	}
	client, _ := clientKeyPair(t)
	full := client.PublicKey().Bytes()
	compressed := hex.EncodeToString(append([]byte{0x02 | full[64]&1}, full[1:33]...))
	r := c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"otp": "000000", "clientPublicKey": compressed})
	if r.Status != 200 || strings.Contains(string(r.Body), "encryptedSessionSigningKey") {
		t.Fatalf("verify with a compressed key: %d %s", r.Status, r.Body)
	}
	var sess view.Session
	r.Decode(t, &sess)
	if sess.CredentialID != cred.ID {
		t.Fatalf("session %+v", sess)
	}
	var list struct{ Data []view.Session }
	c.Do("GET", "/auth/sessions?accountId="+acct, nil).Decode(t, &list)
	if len(list.Data) != 1 || list.Data[0].CredentialID != cred.ID || list.Data[0].EncryptedSessionSigningKey != "" {
		t.Fatalf("sessions %+v", list.Data)
	}
	own := hex.EncodeToString(client.Bytes())
	other, _ := clientKeyPair(t)
	for _, tc := range []struct {
		key, header string
		status      int
	}{{hex.EncodeToString(other.Bytes()), "Service-Wallet-Signature", 401}, {own, "Service-Wallet-Signature", 200}, {own, "Grid-Wallet-Signature", 200}} {
		body := map[string]any{"privateEnabled": tc.status == 200 && tc.header == "Service-Wallet-Signature"}
		first := c.Do("PATCH", "/internal-accounts/"+acct, body)
		var ch view.Challenge
		first.Decode(t, &ch)
		r := c.Do("PATCH", "/internal-accounts/"+acct, body, tc.header, js.Stamp(ch.PayloadToSign, tc.key), "Request-Id", ch.RequestID)
		if r.Status != tc.status || (tc.status == 401 && r.Code(t) != "WALLET_SIGNATURE_INVALID") {
			t.Fatalf("stamp under %s (%d wanted): %d %s", tc.header, tc.status, r.Status, r.Body)
		}
	}
	// A malformed compressed key is 400.
	expectError(t, c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"otp": "000000", "clientPublicKey": "05" + compressed[2:]}), 400, "INVALID_INPUT")
}
