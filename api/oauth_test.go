package api_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"paycore/db/view"
	"paycore/internal/infra/config"
	"paycore/internal/walletcrypto/jsinterop"
)

// issuer is a real OpenID Connect issuer: discovery document and key set over HTTP, RS256
// and ES256 keys.
type issuer struct {
	srv *httptest.Server
	rsa *rsa.PrivateKey
	ec  *ecdsa.PrivateKey
}

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	ek, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	is := &issuer{rsa: rk, ec: ek}
	mux := http.NewServeMux()
	is.srv = httptest.NewServer(mux)
	t.Cleanup(is.srv.Close)
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": is.srv.URL, "jwks_uri": is.srv.URL + "/keys",
			"authorization_endpoint": is.srv.URL + "/auth", "id_token_signing_alg_values_supported": []string{"RS256", "ES256"}})
	})
	mux.HandleFunc("/keys", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
			{Key: &rk.PublicKey, KeyID: "rsa1", Algorithm: "RS256", Use: "sig"},
			{Key: &ek.PublicKey, KeyID: "ec1", Algorithm: "ES256", Use: "sig"},
		}})
	})
	return is
}

type tokenOpts struct {
	alg      jose.SignatureAlgorithm
	key      any
	kid      string
	iss, aud string
	iat      time.Time
	nonce    string
	sub      string
}

func (is *issuer) token(t *testing.T, o tokenOpts) string {
	t.Helper()
	if o.alg == "" {
		o.alg, o.key, o.kid = jose.RS256, is.rsa, "rsa1"
	}
	if o.iss == "" {
		o.iss = is.srv.URL
	}
	if o.aud == "" {
		o.aud = "paycore-wallet"
	}
	if o.iat.IsZero() {
		o.iat = time.Now()
	}
	if o.sub == "" {
		o.sub = "user-123"
	}
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: o.alg, Key: o.key}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", o.kid))
	if err != nil {
		t.Fatal(err)
	}
	claims := map[string]any{"iss": o.iss, "aud": o.aud, "sub": o.sub, "iat": o.iat.Unix(), "exp": o.iat.Add(10 * time.Minute).Unix(),
		"email": "erin@example.com", "nonce": o.nonce}
	s, err := jwt.Signed(sig).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func nonceFor(pubHex string) string {
	sum := sha256.Sum256([]byte(pubHex))
	return hex.EncodeToString(sum[:])
}

// OAUTH credentials verify tokens against the issuer's key set; every kind of bad token is
// refused with the spec's reason.
func TestOAuthCredentialsWithARealIssuer(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	e := newEnv(t, func(c *config.Config) { c.SandboxPrivateOK = true })
	c, _ := e.platform(true) // sandbox, so the loopback issuer is reachable
	multiCurrency(t, c, true)
	if r := c.Do("PATCH", "/config", map[string]any{"embeddedWalletConfig": map[string]any{
		"oidcProviders": []map[string]any{{"issuer": is.srv.URL, "audience": "paycore-wallet"}}}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	acct := walletAccount(t, c, "erin@example.com")
	r := c.Do("POST", "/auth/credentials", map[string]any{"type": "OAUTH", "accountId": acct, "oidcToken": is.token(t, tokenOpts{})})
	if r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	var cred view.AuthMethod
	r.Decode(t, &cred)
	if cred.Nickname != "erin@example.com" || cred.Type != "OAUTH" {
		t.Fatalf("credential %+v", cred)
	}
	js := jsinterop.Start(t)
	for _, alg := range []struct {
		a   jose.SignatureAlgorithm
		key any
		kid string
	}{{jose.RS256, is.rsa, "rsa1"}, {jose.ES256, is.ec, "ec1"}} {
		client, pub := clientKeyPair(t)
		tok := is.token(t, tokenOpts{alg: alg.a, key: alg.key, kid: alg.kid, nonce: nonceFor(pub)})
		r := c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"oidcToken": tok, "clientPublicKey": pub})
		if r.Status != 200 {
			t.Fatalf("%s verify: %d %s", alg.a, r.Status, r.Body)
		}
		var sess view.Session
		r.Decode(t, &sess)
		if len(js.Decrypt(sess.EncryptedSessionSigningKey, hex.EncodeToString(client.Bytes()))) != 64 {
			t.Fatalf("%s: session key does not decrypt", alg.a)
		}
	}
	_, pub := clientKeyPair(t)
	otherKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	other := newIssuer(t)
	bad := map[string]string{
		"bad signature":  is.token(t, tokenOpts{alg: jose.RS256, key: otherKey, kid: "rsa1", nonce: nonceFor(pub)}),
		"unknown issuer": other.token(t, tokenOpts{nonce: nonceFor(pub)}),
		"wrong audience": is.token(t, tokenOpts{aud: "someone-else", nonce: nonceFor(pub)}),
		"stale iat":      is.token(t, tokenOpts{iat: time.Now().Add(-2 * time.Minute), nonce: nonceFor(pub)}),
		"wrong nonce":    is.token(t, tokenOpts{nonce: nonceFor(strings.Replace(pub, "04", "05", 1))}),
		"no nonce":       is.token(t, tokenOpts{}),
		"other subject":  is.token(t, tokenOpts{sub: "user-999", nonce: nonceFor(pub)}),
		"not a jwt":      "hello",
	}
	for name, tok := range bad {
		t.Run(name, func(t *testing.T) {
			res := expectError(t, c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"oidcToken": tok, "clientPublicKey": pub}), 401, "UNAUTHORIZED")
			if res["reason"] != "Invalid OIDC token" {
				t.Fatalf("reason %v", res["reason"])
			}
		})
	}
	// The sandbox magic token works on verify, never on create.
	if r := c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"oidcToken": "sandbox-valid-oidc-token", "clientPublicKey": pub}); r.Status != 200 {
		t.Fatalf("sandbox token: %d %s", r.Status, r.Body)
	}
	acct2 := walletAccount(t, c, "finn@example.com")
	expectError(t, c.Do("POST", "/auth/credentials", map[string]any{"type": "OAUTH", "accountId": acct2, "oidcToken": "sandbox-valid-oidc-token"}), 401, "UNAUTHORIZED")
	expectError(t, c.Do("POST", "/auth/credentials", map[string]any{"type": "OAUTH", "accountId": acct2, "oidcToken": other.token(t, tokenOpts{})}), 401, "UNAUTHORIZED")
	// OAUTH has no challenge step.
	expectError(t, c.Do("POST", "/auth/credentials/"+cred.ID+"/challenge", nil), 400, "INVALID_INPUT")
	// A second credential needs the signed retry.
	if r := c.Do("POST", "/auth/credentials", map[string]any{"type": "EMAIL_OTP", "accountId": acct}); r.Status != 202 || r.JSON(t)["type"] != "EMAIL_OTP" {
		t.Fatalf("second credential: %d %s", r.Status, r.Body)
	}
}

// A production platform verifies every token: structurally valid but unsigned-by-the-issuer
// tokens are refused on create too.
func TestOAuthProductionRefusesUnverifiedTokens(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	e := newEnv(t)
	c, p := e.platform(false)
	multiCurrency(t, c, true)
	// A production platform's issuer must be https, on a public host.
	expectError(t, c.Do("PATCH", "/config", map[string]any{"embeddedWalletConfig": map[string]any{
		"oidcProviders": []map[string]any{{"issuer": is.srv.URL, "audience": "paycore-wallet"}}}}), 400, "INVALID_INPUT")
	expectError(t, c.Do("PATCH", "/config", map[string]any{"embeddedWalletConfig": map[string]any{
		"oidcProviders": []map[string]any{{"issuer": "https://127.0.0.1:1", "audience": "paycore-wallet"}}}}), 400, "INVALID_INPUT")
	setIssuerDirect(t, e, p.ID.String(), "https://127.0.0.1:1")
	acct := walletAccount(t, c, "gus@example.com")
	forged := is.token(t, tokenOpts{iss: "https://127.0.0.1:1"})
	res := expectError(t, c.Do("POST", "/auth/credentials", map[string]any{"type": "OAUTH", "accountId": acct, "oidcToken": forged}), 401, "UNAUTHORIZED")
	if res["reason"] != "Invalid OIDC token" {
		t.Fatalf("reason %v", res["reason"])
	}
}

// Refused tokens say which check failed, in plain words, never go-oidc's text.
func TestOAuthRefusalsInPlainWords(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	e := newEnv(t, func(c *config.Config) { c.SandboxPrivateOK = true })
	c, _ := e.platform(true)
	multiCurrency(t, c, true)
	if r := c.Do("PATCH", "/config", map[string]any{"embeddedWalletConfig": map[string]any{
		"oidcProviders": []map[string]any{{"issuer": is.srv.URL, "audience": "paycore-wallet"}}}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	acct := walletAccount(t, c, "hana@example.com")
	var cred view.AuthMethod
	c.Do("POST", "/auth/credentials", map[string]any{"type": "OAUTH", "accountId": acct, "oidcToken": is.token(t, tokenOpts{})}).Decode(t, &cred)
	_, pub := clientKeyPair(t)
	otherKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	for name, tc := range map[string]struct{ token, want string }{
		"bad signature":  {is.token(t, tokenOpts{alg: jose.RS256, key: otherKey, kid: "rsa1", nonce: nonceFor(pub)}), "signature could not be verified with the issuer's published keys"},
		"wrong audience": {is.token(t, tokenOpts{aud: "someone-else", nonce: nonceFor(pub)}), `aud does not include "paycore-wallet"`},
		"HMAC":           {is.token(t, tokenOpts{alg: jose.HS256, key: []byte("0123456789abcdef0123456789abcdef"), kid: "h", nonce: nonceFor(pub)}), `signed with "HS256"`},
	} {
		r := c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"type": "OAUTH", "oidcToken": tc.token, "clientPublicKey": pub})
		plainRefusal(t, name, r, "Invalid OIDC token", tc.want)
	}
}
