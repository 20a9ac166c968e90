package walletauth

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/platformconfig"
)

// jwt builds an unsigned-looking token with header alg and the claims.
func jwt(alg string, claims map[string]any) string {
	h, _ := json.Marshal(map[string]string{"alg": alg, "typ": "JWT"})
	c, _ := json.Marshal(claims)
	return base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c) + ".c2ln"
}

var providersCfg = platformconfig.Wallet{OidcProviders: &[]platformconfig.OIDCProvider{
	{Issuer: "https://id.example", Audience: "client-1"}, {Issuer: "https://other.example", Audience: "client-2"}}}

func TestUnverifiedClaims(t *testing.T) {
	c, err := UnverifiedClaims(jwt("RS256", map[string]any{"iss": "https://id.example", "email": "a@b.example"}))
	if err != nil || c.Issuer() != "https://id.example" || c.Email() != "a@b.example" {
		t.Fatalf("%v %v", c, err)
	}
	for tok, msg := range map[string]string{
		"sandbox-valid-oidc-token": "oidcToken is not a JWT (header.payload.signature)",
		"a.b.":                     "oidcToken is not a JWT",
		"a.!!.c":                   "oidcToken payload is not base64url",
		"a.bm9wZQ.c":               "oidcToken payload is not JSON",
	} {
		_, err := UnverifiedClaims(tok)
		check(t, tok, err, want{code: catalog.Unauthorized, reason: ReasonBadOIDC, msg: msg})
	}
}

func TestFindProvider(t *testing.T) {
	p, err := FindProvider(providersCfg, "https://other.example")
	if err != nil || p.Audience != "client-2" {
		t.Fatalf("%+v %v", p, err)
	}
	_, err = FindProvider(providersCfg, "https://evil.example")
	check(t, "unknown issuer", err, want{code: catalog.Unauthorized, reason: ReasonBadOIDC, msg: "not one of the platform's OIDC providers"})
	_, err = FindProvider(platformconfig.Wallet{}, "https://id.example")
	check(t, "no providers", err, want{code: catalog.Unauthorized, reason: ReasonBadOIDC, msg: "not one of the platform's OIDC providers"})
}

func TestCheckFresh(t *testing.T) {
	text := sha256.Sum256([]byte(testClientKey))
	nonce := hex.EncodeToString(text[:])
	for name, tc := range map[string]struct {
		iat   any
		nonce string
		key   string
		want  want
	}{
		"fresh, no key":      {float64(t0.Add(-30 * time.Second).Unix()), "", "", want{}},
		"fresh, bound":       {float64(t0.Unix()), nonce, testClientKey, want{}},
		"fresh, upper nonce": {float64(t0.Unix()), strings.ToUpper(nonce), strings.ToUpper(testClientKey), want{}},
		"old":                {float64(t0.Add(-61 * time.Second).Unix()), "", "", want{code: catalog.Unauthorized, reason: ReasonBadOIDC, msg: "the token's iat must be at most 60 seconds before the request"}},
		"future":             {float64(t0.Add(61 * time.Second).Unix()), "", "", want{code: catalog.Unauthorized, reason: ReasonBadOIDC, msg: "iat must be"}},
		"no iat":             {nil, "", "", want{code: catalog.Unauthorized, reason: ReasonBadOIDC, msg: "iat must be"}},
		"unbound":            {float64(t0.Unix()), "", testClientKey, want{code: catalog.Unauthorized, reason: ReasonBadOIDC, msg: "the token's nonce must be the hex SHA-256 of clientPublicKey"}},
		"bound to another":   {float64(t0.Unix()), hex.EncodeToString(make([]byte, 32)), testClientKey, want{code: catalog.Unauthorized, reason: ReasonBadOIDC, msg: "nonce"}},
	} {
		claims := Claims{}
		if tc.iat != nil {
			claims["iat"] = tc.iat
		}
		check(t, name, CheckFresh(claims, tc.nonce, tc.key, t0), tc.want)
	}
	raw, _ := hex.DecodeString(testClientKey)
	bin := sha256.Sum256(raw)
	if !NonceMatches(hex.EncodeToString(bin[:]), testClientKey) {
		t.Fatal("a nonce over the raw key bytes is refused")
	}
}

func TestTokenProblem(t *testing.T) {
	exp := t0.Add(-time.Hour)
	aud := Claims{"aud": []any{"x", "client-1"}, "exp": float64(exp.Unix())}
	for name, tc := range map[string]struct {
		token   string
		claims  Claims
		expired *time.Time
		want    string
	}{
		"expired":       {jwt("RS256", nil), aud, &exp, "the token expired at 2025-10-13T11:00:00Z"},
		"no exp":        {jwt("RS256", nil), Claims{"aud": "client-1"}, &exp, "the token has no exp (expiry) claim"},
		"HS256":         {jwt("HS256", nil), aud, nil, `the token is signed with "HS256"; RS256 or ES256 are accepted`},
		"other aud":     {jwt("ES256", nil), Claims{"aud": "client-2"}, nil, `the token's aud does not include "client-1", the audience configured for its issuer`},
		"no aud":        {jwt("ES256", nil), Claims{}, nil, `the token's aud does not include "client-1", the audience configured for its issuer`},
		"not yet valid": {jwt("RS256", nil), Claims{"aud": "client-1", "nbf": float64(t0.Add(time.Hour).Unix())}, nil, "the token is not valid yet: its nbf (not before) is in the future"},
		"signature":     {jwt("RS256", nil), aud, nil, "the token's signature could not be verified with the issuer's published keys (jwks_uri)"},
	} {
		if got := TokenProblem(tc.token, tc.claims, "client-1", tc.expired, t0); got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
	}
}

func TestIdentities(t *testing.T) {
	id := Identity{Issuer: "https://id.example", Subject: "sub-1", Email: "a@b.example"}
	if string(id.Details()) != `{"issuer":"https://id.example","subject":"sub-1"}` {
		t.Fatalf("details %s", id.Details())
	}
	if id.Nickname() != "a@b.example" || (Identity{Subject: "sub-1"}).Nickname() != "sub-1" {
		t.Fatal("nickname is the e-mail, else the subject")
	}
	stored := StoredIdentity(id.Details())
	check(t, "same", CheckSameIdentity(stored, id), want{})
	check(t, "other subject", CheckSameIdentity(stored, Identity{Issuer: id.Issuer, Subject: "sub-2"}),
		want{code: catalog.Unauthorized, reason: ReasonBadOIDC, msg: "the token identifies someone else than this credential"})
	check(t, "other issuer", CheckSameIdentity(stored, Identity{Issuer: "https://other.example", Subject: "sub-1"}),
		want{code: catalog.Unauthorized, reason: ReasonBadOIDC, msg: "someone else"})

	got, err := SandboxIdentity(providersCfg, Claims{"iss": "https://id.example", "sub": "s", "email": "e@x.example"})
	if err != nil || got != (Identity{Issuer: "https://id.example", Subject: "s", Email: "e@x.example"}) {
		t.Fatalf("%+v %v", got, err)
	}
	_, err = SandboxIdentity(providersCfg, Claims{"iss": "https://evil.example", "sub": "s"})
	check(t, "sandbox, unknown issuer", err, want{code: catalog.Unauthorized, reason: ReasonBadOIDC, msg: "or it has no subject"})
	_, err = SandboxIdentity(providersCfg, Claims{"iss": "https://id.example"})
	check(t, "sandbox, no subject", err, want{code: catalog.Unauthorized, reason: ReasonBadOIDC, msg: "or it has no subject"})
}
