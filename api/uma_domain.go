package api

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"

	"paycore/db"
	"paycore/internal/infra/netguard"
	"paycore/internal/platformconfig"
	"paycore/internal/uma"
)

// umaDomainProofURL is where a platform publishes the token of its domain.
func umaDomainProofURL(domain string) string {
	return uma.Scheme(domain) + "://" + domain + platformconfig.ProofPath
}

// verifyUmaDomain is POST /config/uma-domain/verify: the service fetches the platform's
// token from its umaDomain (platformconfig.ProofPath, through the outbound-address guard
// for the platform's environment, no redirect followed) and, when the domain publishes it,
// records the domain proven: from then on the deployment serves it. Otherwise 400
// UMA_DOMAIN_NOT_PROVEN saying what the domain answered.
func (s *Server) verifyUmaDomain(w http.ResponseWriter, r *http.Request) error {
	pr := principalFrom(r.Context())
	p, err := db.PlatformGet(r.Context(), s.Pool, pr.PlatformID)
	if err != nil {
		return fmt.Errorf("load platform: %w", err)
	}
	now := s.now()
	proof, err := s.store.UmaDomainProof(r.Context(), p.ID, p.UmaDomain, platformconfig.NewProofToken, now)
	if err != nil {
		return err
	}
	if proof.VerifiedAt == nil {
		body, err := netguard.Fetch(r.Context(), s.UMA.HTTP(p.Environment), umaDomainProofURL(p.UmaDomain), 1<<10)
		if err == nil {
			err = platformconfig.CheckProof(body, proof.Token)
		}
		if err != nil {
			return platformconfig.DomainNotProven(umaDomainProofURL(p.UmaDomain), err)
		}
		if err := s.store.UmaDomainProofVerified(r.Context(), p.ID, p.UmaDomain, now); err != nil {
			return err
		}
	}
	return s.writeConfig(r.Context(), w, p)
}

// domainServed reports whether the request's host is a UMA domain the deployment serves,
// and which: one a platform proved (the host without its port), or the proxy subdomain of
// such a platform under PAYCORE_UMA_PROXY_DOMAIN (its umaDomain then).
func (s *Server) domainServed(ctx context.Context, host string) (domain string, served bool, err error) {
	domain = strings.ToLower(host)
	if h, _, err := net.SplitHostPort(domain); err == nil {
		domain = h
	}
	if sub, ok := uma.ProxySubdomain(domain, s.Config.UmaProxyDomain); ok {
		// A platform's proxy subdomain: its umaDomain proxies UMA requests here.
		proxied, err := s.store.UmaProxySubdomainDomain(ctx, sub)
		return proxied, err == nil && proxied != "", err
	}
	served, err = s.store.UmaDomainProven(ctx, domain)
	return domain, served, err
}
