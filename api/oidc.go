package api

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

	"paycore/internal/netguard"
)

// OIDCProvider is an identity provider a platform accepts for OAUTH credentials.
type OIDCProvider struct {
	Issuer   string `json:"issuer"`
	Audience string `json:"audience"`
}

const (
	reasonBadOIDC  = "Invalid OIDC token"
	sandboxOIDC    = "sandbox-valid-oidc-token"
	oidcMaxAge     = 60 * time.Second
	maxOIDCClients = 10
)

// oidcClaims are the parts of a verified token the service uses.
type oidcClaims struct {
	Issuer  string
	Subject string
	Email   string
}

// oidcProviders caches discovered providers (go-oidc keeps each key set fresh).
type oidcProviders struct {
	mu        sync.Mutex
	providers map[string]*oidc.Provider
	public    *http.Client
	private   *http.Client
}

// newOIDCProviders builds the discovery and key-set clients: the production one never
// reaches a non-public address (checked at connect time) and reports every transport
// failure in the same words, so a token's verification error does not say whether an
// issuer's jwks_uri port was refused, reset or silent.
func newOIDCProviders(allowPrivateSandbox bool) *oidcProviders {
	client := func(allowPrivate, opaque bool) *http.Client {
		return netguard.NewClient(netguard.ClientOptions{AllowPrivate: allowPrivate, Opaque: opaque, Timeout: 10 * time.Second, MaxRedirects: 5})
	}
	return &oidcProviders{providers: map[string]*oidc.Provider{}, public: client(false, true), private: client(allowPrivateSandbox, false)}
}

func (o *oidcProviders) provider(ctx context.Context, issuer string, sandbox bool) (*oidc.Provider, error) {
	key := fmt.Sprintf("%v|%s", sandbox, issuer)
	o.mu.Lock()
	p, ok := o.providers[key]
	o.mu.Unlock()
	if ok {
		return p, nil
	}
	hc := o.public
	if sandbox {
		hc = o.private
	}
	p, err := oidc.NewProvider(oidc.ClientContext(ctx, hc), issuer)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	o.providers[key] = p
	o.mu.Unlock()
	return p, nil
}

// unverifiedClaims reads a structurally valid JWT's payload without checking anything.
func unverifiedClaims(token string) (map[string]any, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 || parts[2] == "" {
		return nil, fmt.Errorf("oidcToken is not a JWT (header.payload.signature)")
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return nil, fmt.Errorf("oidcToken payload is not base64url")
	}
	var claims map[string]any
	if err := json.Unmarshal(raw, &claims); err != nil {
		return nil, fmt.Errorf("oidcToken payload is not JSON")
	}
	return claims, nil
}

// platformProviders reads the OIDC providers of the caller's platform.
func (s *Server) platformProviders(ctx context.Context) ([]OIDCProvider, error) {
	c, err := s.walletConfig(ctx)
	if err != nil || c.OidcProviders == nil {
		return nil, err
	}
	return *c.OidcProviders, nil
}

// nonceMatches checks the token's nonce binds it to the client key: the hex SHA-256 of the
// clientPublicKey text (or of its raw bytes).
func nonceMatches(nonce, clientPublicKey string) bool {
	text := sha256.Sum256([]byte(strings.ToLower(clientPublicKey)))
	raw, _ := hex.DecodeString(clientPublicKey)
	bin := sha256.Sum256(raw)
	return strings.EqualFold(nonce, hex.EncodeToString(text[:])) || strings.EqualFold(nonce, hex.EncodeToString(bin[:]))
}

// verifyOIDC checks a token against the issuer's key set: an issuer the platform allows,
// its audience, an iat at most 60 seconds old and, when clientPublicKey is given, a nonce
// bound to it.
func (s *Server) verifyOIDC(ctx context.Context, token, clientPublicKey string) (oidcClaims, error) {
	bad := func(msg string) (oidcClaims, error) { return oidcClaims{}, unauthorized(reasonBadOIDC, msg) }
	claims, err := unverifiedClaims(token)
	if err != nil {
		return bad(err.Error())
	}
	iss, _ := claims["iss"].(string)
	providers, err := s.platformProviders(ctx)
	if err != nil {
		return oidcClaims{}, err
	}
	var prov *OIDCProvider
	for _, p := range providers {
		if p.Issuer == iss {
			prov = &p
			break
		}
	}
	if prov == nil {
		return bad("the token's issuer is not one of the platform's OIDC providers (embeddedWalletConfig.oidcProviders)")
	}
	p, err := s.oidc.provider(ctx, prov.Issuer, principalFrom(ctx).Sandbox)
	if err != nil {
		s.Logger.WarnContext(ctx, "OIDC discovery failed", "issuer", prov.Issuer, "error", err)
		return bad("the issuer's discovery document (/.well-known/openid-configuration) could not be loaded")
	}
	idt, err := p.Verifier(&oidc.Config{ClientID: prov.Audience, SupportedSigningAlgs: []string{oidc.RS256, oidc.ES256}}).Verify(ctx, token)
	if err != nil {
		msg := oidcProblem(token, claims, prov.Audience, err)
		s.Logger.InfoContext(ctx, "OIDC token refused", "issuer", prov.Issuer, "refusal", msg, "error", err)
		return bad(msg)
	}
	if iat, ok := claims["iat"].(float64); !ok || time.Since(time.Unix(int64(iat), 0)) > oidcMaxAge || time.Until(time.Unix(int64(iat), 0)) > oidcMaxAge {
		return bad("the token's iat must be at most 60 seconds before the request; fetch a fresh token")
	}
	if clientPublicKey != "" && !nonceMatches(idt.Nonce, clientPublicKey) {
		return bad("the token's nonce must be the hex SHA-256 of clientPublicKey")
	}
	email, _ := claims["email"].(string)
	return oidcClaims{Issuer: idt.Issuer, Subject: idt.Subject, Email: email}, nil
}

// oidcProblem says in plain words which check a token refused by go-oidc fails; the
// library's wording (which names its internals) is only logged.
func oidcProblem(token string, claims map[string]any, audience string, err error) string {
	var expired *oidc.TokenExpiredError
	if errors.As(err, &expired) {
		if _, ok := claims["exp"].(float64); !ok {
			return "the token has no exp (expiry) claim"
		}
		return "the token expired at " + expired.Expiry.UTC().Format(time.RFC3339)
	}
	if alg := jwtAlg(token); alg != oidc.RS256 && alg != oidc.ES256 {
		return fmt.Sprintf("the token is signed with %q; RS256 or ES256 are accepted", alg)
	}
	if !audienceHas(claims["aud"], audience) {
		return fmt.Sprintf("the token's aud does not include %q, the audience configured for its issuer", audience)
	}
	if nbf, ok := claims["nbf"].(float64); ok && time.Unix(int64(nbf), 0).After(time.Now().Add(5*time.Minute)) {
		return "the token is not valid yet: its nbf (not before) is in the future"
	}
	return "the token's signature could not be verified with the issuer's published keys (jwks_uri)"
}

// jwtAlg reads the alg of a JWT header; "" when unreadable.
func jwtAlg(token string) string {
	head, _, _ := strings.Cut(token, ".")
	raw, err := base64.RawURLEncoding.DecodeString(head)
	if err != nil {
		return ""
	}
	var h struct {
		Alg string `json:"alg"`
	}
	_ = json.Unmarshal(raw, &h)
	return h.Alg
}

// audienceHas reports whether an aud claim (a string or an array of strings) names want.
func audienceHas(aud any, want string) bool {
	switch v := aud.(type) {
	case string:
		return v == want
	case []any:
		for _, a := range v {
			if a == want {
				return true
			}
		}
	}
	return false
}

// validateProviders checks embeddedWalletConfig.oidcProviders. Every issuer is an outbound
// URL (discovery document, then its key set) and obeys the same rules as webhook endpoints:
// https and a public host for production platforms; sandbox platforms may use http, and
// private hosts only when the operator allows them (PAYCORE_SANDBOX_WEBHOOKS_ALLOW_PRIVATE).
// An issuer has no query (OpenID Connect Discovery 1.0, section 3).
func (s *Server) validateProviders(ctx context.Context, list []OIDCProvider, sandbox bool) error {
	if len(list) > maxOIDCClients {
		return invalidField("embeddedWalletConfig.oidcProviders", "at most %d OIDC providers", maxOIDCClients)
	}
	for i, p := range list {
		f := fmt.Sprintf("embeddedWalletConfig.oidcProviders[%d]", i)
		u, err := url.Parse(p.Issuer)
		if err != nil || u.Host == "" || (u.Scheme != "https" && !(sandbox && u.Scheme == "http")) {
			return invalidField(f+".issuer", "%s.issuer must be the issuer's https URL", f)
		}
		if u.RawQuery != "" || u.ForceQuery {
			return invalidField(f+".issuer", "%s.issuer must not have a query", f)
		}
		if err := netguard.ValidateURL(ctx, s.Resolver, p.Issuer, !sandbox, sandbox && s.Config.SandboxPrivateOK); err != nil {
			return invalidField(f+".issuer", "%s.issuer refused: %v", f, err)
		}
		if strings.TrimSpace(p.Audience) == "" || len(p.Audience) > 255 {
			return invalidField(f+".audience", "%s.audience (the client id tokens are issued for) is required", f)
		}
	}
	return nil
}
