package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

	"paycore/internal/infra/netguard"
	"paycore/internal/platformconfig"
	"paycore/internal/walletauth"
)

// maxOIDCClients is the most OIDC providers a platform may configure.
const maxOIDCClients = 10

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

// verifyOIDC checks a token against the issuer's key set (go-oidc): an issuer the
// platform allows, its audience and expiry; then the service's own checks
// (walletauth.CheckFresh): an iat at most 60 seconds old and, when clientPublicKey is
// given, a nonce bound to it.
func (s *Server) verifyOIDC(ctx context.Context, c platformconfig.Wallet, token, clientPublicKey string) (walletauth.Identity, error) {
	claims, err := walletauth.UnverifiedClaims(token)
	if err != nil {
		return walletauth.Identity{}, err
	}
	prov, err := walletauth.FindProvider(c, claims.Issuer())
	if err != nil {
		return walletauth.Identity{}, err
	}
	p, err := s.oidc.provider(ctx, prov.Issuer, principalFrom(ctx).Sandbox)
	if err != nil {
		s.Logger.WarnContext(ctx, "OIDC discovery failed", "issuer", prov.Issuer, "error", err)
		return walletauth.Identity{}, walletauth.DiscoveryFailed()
	}
	idt, err := p.Verifier(&oidc.Config{ClientID: prov.Audience, SupportedSigningAlgs: walletauth.OIDCAlgorithms()}).Verify(ctx, token)
	if err != nil {
		var expiredAt *time.Time
		if expired := (*oidc.TokenExpiredError)(nil); errors.As(err, &expired) {
			expiredAt = &expired.Expiry
		}
		msg := walletauth.TokenProblem(token, claims, prov.Audience, expiredAt, s.now())
		s.Logger.InfoContext(ctx, "OIDC token refused", "issuer", prov.Issuer, "refusal", msg, "error", err)
		return walletauth.Identity{}, walletauth.Unauthorized(walletauth.ReasonBadOIDC, "%s", msg)
	}
	if err := walletauth.CheckFresh(claims, idt.Nonce, clientPublicKey, s.now()); err != nil {
		return walletauth.Identity{}, err
	}
	return walletauth.Identity{Issuer: idt.Issuer, Subject: idt.Subject, Email: claims.Email()}, nil
}

// oauthIdentity resolves the identity of an OAUTH credential being created: the token's
// issuer must be one of the platform's providers and, outside sandbox, the token must
// verify (walletauth.SandboxIdentity: sandbox platforms accept any structurally valid JWT
// from such an issuer; the magic verify token is not a JWT and is refused here).
func (s *Server) oauthIdentity(ctx context.Context, token string) (walletauth.Identity, error) {
	claims, err := walletauth.UnverifiedClaims(token)
	if err != nil {
		return walletauth.Identity{}, err
	}
	c, err := s.walletConfig(ctx)
	if err != nil {
		return walletauth.Identity{}, err
	}
	id, err := s.verifyOIDC(ctx, c, token, "")
	if err == nil || !principalFrom(ctx).Sandbox {
		return id, err
	}
	return walletauth.SandboxIdentity(c, claims)
}

// validateProviders checks embeddedWalletConfig.oidcProviders. Every issuer is an outbound
// URL (discovery document, then its key set) and obeys the same rules as webhook endpoints:
// https and a public host for production platforms; sandbox platforms may use http, and
// private hosts only when the operator allows them (PAYCORE_SANDBOX_WEBHOOKS_ALLOW_PRIVATE).
// An issuer has no query (OpenID Connect Discovery 1.0, section 3).
func (s *Server) validateProviders(ctx context.Context, list []platformconfig.OIDCProvider, sandbox bool) error {
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
