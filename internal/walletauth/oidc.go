package walletauth

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"paycore/internal/platformconfig"
)

// OIDCMaxAge is how far a token's iat may lie from the request (before it, or after it by
// clock skew): OAUTH verification takes a fresh token.
const OIDCMaxAge = 60 * time.Second

// Accepted OIDC token signing algorithms.
const (
	AlgRS256 = "RS256"
	AlgES256 = "ES256"
)

// OIDCAlgorithms are the accepted token signing algorithms.
func OIDCAlgorithms() []string { return []string{AlgRS256, AlgES256} }

// Claims are the claims of a JWT's payload as decoded JSON.
type Claims map[string]any

func (c Claims) str(name string) string {
	s, _ := c[name].(string)
	return s
}

// Issuer is the iss claim, "" when absent.
func (c Claims) Issuer() string { return c.str("iss") }

// Email is the email claim, "" when absent.
func (c Claims) Email() string { return c.str("email") }

// UnverifiedClaims reads a structurally valid JWT's payload without checking anything.
func UnverifiedClaims(token string) (Claims, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 || parts[2] == "" {
		return nil, Unauthorized(ReasonBadOIDC, "oidcToken is not a JWT (header.payload.signature)")
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return nil, Unauthorized(ReasonBadOIDC, "oidcToken payload is not base64url")
	}
	var claims Claims
	if err := json.Unmarshal(raw, &claims); err != nil {
		return nil, Unauthorized(ReasonBadOIDC, "oidcToken payload is not JSON")
	}
	return claims, nil
}

// providers are the OIDC providers of a platform's configuration.
func providers(c platformconfig.Wallet) []platformconfig.OIDCProvider {
	if c.OidcProviders == nil {
		return nil
	}
	return *c.OidcProviders
}

// FindProvider is the platform's provider of issuer iss: tokens from other issuers are
// refused.
func FindProvider(c platformconfig.Wallet, iss string) (platformconfig.OIDCProvider, error) {
	for _, p := range providers(c) {
		if p.Issuer == iss {
			return p, nil
		}
	}
	return platformconfig.OIDCProvider{}, Unauthorized(ReasonBadOIDC, "the token's issuer is not one of the platform's OIDC providers (embeddedWalletConfig.oidcProviders)")
}

// DiscoveryFailed is the refusal of a token whose issuer's discovery document could not
// be loaded.
func DiscoveryFailed() error {
	return Unauthorized(ReasonBadOIDC, "the issuer's discovery document (/.well-known/openid-configuration) could not be loaded")
}

// NonceMatches checks that a token's nonce binds it to the client key: the hex SHA-256 of
// the clientPublicKey text (or of its raw bytes).
func NonceMatches(nonce, clientPublicKey string) bool {
	text := sha256.Sum256([]byte(strings.ToLower(clientPublicKey)))
	raw, _ := hex.DecodeString(clientPublicKey)
	bin := sha256.Sum256(raw)
	return strings.EqualFold(nonce, hex.EncodeToString(text[:])) || strings.EqualFold(nonce, hex.EncodeToString(bin[:]))
}

// CheckFresh applies the checks the OIDC library leaves to the service to a token whose
// signature, issuer, audience and expiry verified: an iat within OIDCMaxAge of now and,
// when clientPublicKey is given, a nonce bound to it.
func CheckFresh(claims Claims, nonce, clientPublicKey string, now time.Time) error {
	iat, ok := claims["iat"].(float64)
	if at := time.Unix(int64(iat), 0); !ok || now.Sub(at) > OIDCMaxAge || at.Sub(now) > OIDCMaxAge {
		return Unauthorized(ReasonBadOIDC, "the token's iat must be at most 60 seconds before the request; fetch a fresh token")
	}
	if clientPublicKey != "" && !NonceMatches(nonce, clientPublicKey) {
		return Unauthorized(ReasonBadOIDC, "the token's nonce must be the hex SHA-256 of clientPublicKey")
	}
	return nil
}

// TokenProblem says in plain words which check a token the OIDC library refused fails;
// the library's wording (which names its internals) is only logged. expiredAt is the
// expiry the library reported when it refused an expired token, nil otherwise.
func TokenProblem(token string, claims Claims, audience string, expiredAt *time.Time, now time.Time) string {
	if expiredAt != nil {
		if _, ok := claims["exp"].(float64); !ok {
			return "the token has no exp (expiry) claim"
		}
		return "the token expired at " + expiredAt.UTC().Format(time.RFC3339)
	}
	if alg := jwtAlg(token); alg != AlgRS256 && alg != AlgES256 {
		return fmt.Sprintf("the token is signed with %q; RS256 or ES256 are accepted", alg)
	}
	if !audienceHas(claims["aud"], audience) {
		return fmt.Sprintf("the token's aud does not include %q, the audience configured for its issuer", audience)
	}
	if nbf, ok := claims["nbf"].(float64); ok && time.Unix(int64(nbf), 0).After(now.Add(5*time.Minute)) {
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

// Identity is who an OIDC token names.
type Identity struct {
	Issuer  string `json:"issuer"`
	Subject string `json:"subject"`
	Email   string `json:"-"`
}

// Nickname is how an OAUTH credential of this identity is called: its e-mail, or else its
// subject.
func (id Identity) Nickname() string {
	if id.Email != "" {
		return id.Email
	}
	return id.Subject
}

// Details is what an OAUTH credential stores of its identity: issuer and subject.
func (id Identity) Details() []byte {
	b, _ := json.Marshal(id)
	return b
}

// StoredIdentity reads the identity an OAUTH credential stored (Details).
func StoredIdentity(details []byte) Identity {
	var id Identity
	_ = json.Unmarshal(details, &id)
	return id
}

// CheckSameIdentity refuses a token of another identity than the credential's.
func CheckSameIdentity(stored, got Identity) error {
	if got.Issuer != stored.Issuer || got.Subject != stored.Subject {
		return Unauthorized(ReasonBadOIDC, "the token identifies someone else than this credential")
	}
	return nil
}

// SandboxIdentity is the identity a sandbox platform may register from a token that did
// not verify: any structurally valid JWT whose issuer is one of the platform's providers
// and that names a subject.
func SandboxIdentity(c platformconfig.Wallet, claims Claims) (Identity, error) {
	iss, sub := claims.Issuer(), claims.str("sub")
	if _, err := FindProvider(c, iss); err != nil || sub == "" {
		return Identity{}, Unauthorized(ReasonBadOIDC, "the token's issuer is not one of the platform's OIDC providers, or it has no subject")
	}
	return Identity{Issuer: iss, Subject: sub, Email: claims.Email()}, nil
}
