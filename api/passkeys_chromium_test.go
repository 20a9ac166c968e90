package api_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"paycore/api/apitest"
	"paycore/db/view"
	"paycore/internal/walletcrypto/jsinterop"
)

// evalJSON runs an async JS expression in the page and decodes its JSON string result.
func evalJSON(ctx context.Context, js string, out any) error {
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
	if err != nil {
		return err
	}
	return json.Unmarshal([]byte(s), out)
}

const pageJS = `
const b64u = b => btoa(String.fromCharCode(...new Uint8Array(b))).replace(/\+/g,'-').replace(/\//g,'_').replace(/=+$/,'');
const fromB64u = s => Uint8Array.from(atob(s.replace(/-/g,'+').replace(/_/g,'/') + '==='.slice((s.length+3)%4)), c => c.charCodeAt(0));
`

// A passkey registered and used through headless Chromium's virtual authenticator (the
// DevTools WebAuthn domain): real browser-made attestation and assertion objects.
func TestPasskeyWithChromiumVirtualAuthenticator(t *testing.T) {
	t.Parallel()
	exe := apitest.Chromium(t)
	// The page the browser runs the ceremonies on; localhost is a secure context.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	page := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<!doctype html><title>wallet</title><p>wallet</p>"))
	})}
	go func() { _ = page.Serve(ln) }()
	t.Cleanup(func() { _ = page.Close() })
	origin := fmt.Sprintf("http://localhost:%d", ln.Addr().(*net.TCPAddr).Port)

	e := newEnv(t)
	c, _ := e.platform(false)
	multiCurrency(t, c, true)
	if r := c.Do("PATCH", "/config", map[string]any{"embeddedWalletConfig": map[string]any{"passkeyRpId": "localhost", "passkeyOrigins": []string{origin}}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	acct := walletAccount(t, c, "jo@example.com")

	ctx := apitest.Browser(t, exe, 90*time.Second)
	if err := chromedp.Do(ctx, chromedp.Navigate(origin+"/"),
		apitest.VirtualAuthenticator()); err != nil {
		t.Fatalf("start browser: %v", err)
	}

	regChallenge := b64.EncodeToString([]byte("browser-registration-challenge-42"))
	var att map[string]any
	err = evalJSON(ctx, `(async () => {`+pageJS+`
		const cred = await navigator.credentials.create({publicKey: {
			challenge: fromB64u('`+regChallenge+`'), rp: {id: 'localhost', name: 'Wallet'},
			user: {id: fromB64u('dXNlcl9pZA'), name: 'jo', displayName: 'Jo'},
			pubKeyCredParams: [{type: 'public-key', alg: -7}], attestation: 'none',
			authenticatorSelection: {userVerification: 'preferred'}}});
		return JSON.stringify({credentialId: b64u(cred.rawId), clientDataJson: b64u(cred.response.clientDataJSON),
			attestationObject: b64u(cred.response.attestationObject), transports: cred.response.getTransports()});
	})()`, &att)
	if err != nil {
		t.Fatalf("navigator.credentials.create: %v", err)
	}
	r := c.Do("POST", "/auth/credentials", map[string]any{"type": "PASSKEY", "accountId": acct, "nickname": "Browser key",
		"challenge": regChallenge, "attestation": att})
	if r.Status != 201 {
		t.Fatalf("register: %d %s", r.Status, r.Body)
	}
	var cred view.AuthMethod
	r.Decode(t, &cred)

	client, pub := clientKeyPair(t)
	var ch view.PasskeyAuthChallenge
	c.Do("POST", "/auth/credentials/"+cred.ID+"/challenge", map[string]any{"clientPublicKey": pub}).Decode(t, &ch)
	var assertion map[string]any
	err = evalJSON(ctx, `(async () => {`+pageJS+`
		const a = await navigator.credentials.get({publicKey: {challenge: fromB64u('`+ch.Challenge+`'), rpId: 'localhost',
			allowCredentials: [{type: 'public-key', id: fromB64u('`+ch.CredentialID+`')}], userVerification: 'preferred'}});
		return JSON.stringify({credentialId: b64u(a.rawId), clientDataJson: b64u(a.response.clientDataJSON),
			authenticatorData: b64u(a.response.authenticatorData), signature: b64u(a.response.signature),
			userHandle: a.response.userHandle ? b64u(a.response.userHandle) : null});
	})()`, &assertion)
	if err != nil {
		t.Fatalf("navigator.credentials.get: %v", err)
	}
	// A tampered signature is refused; the real one opens a session sealed to our key.
	tampered := map[string]any{}
	for k, v := range assertion {
		tampered[k] = v
	}
	sig := assertion["signature"].(string)
	tampered["signature"] = sig[:len(sig)-4] + strings.Repeat("A", 4)
	expectError(t, c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"assertion": tampered}, "Request-Id", ch.RequestID), 401, "UNAUTHORIZED")
	r = c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"assertion": assertion}, "Request-Id", ch.RequestID)
	if r.Status != 200 {
		t.Fatalf("verify: %d %s", r.Status, r.Body)
	}
	var sess view.Session
	r.Decode(t, &sess)
	if len(jsinterop.Start(t).Decrypt(sess.EncryptedSessionSigningKey, hex.EncodeToString(client.Bytes()))) != 64 {
		t.Fatal("session key does not decrypt")
	}
}
