package platformconfig

import (
	"crypto/rand"
	"encoding/hex"
	"strings"

	"paycore/internal/catalog"
	"paycore/internal/problem"
	"paycore/internal/sandbox"
)

// A UMA domain belongs to one platform of the deployment: the receiver of an address is
// found by its domain, so two platforms on one domain would each answer for the other's
// customers. Domains compare case-insensitively (DNS names do); CheckDomain accepts
// lower-case ones only, and the database's unique index compares lower(uma_domain).

// NormalDomain is d as domains are compared: lower-case.
func NormalDomain(d string) string { return strings.ToLower(d) }

// CheckUmaDomain checks a umaDomain a platform is given: a domain name (CheckDomain, the
// refusal naming the field) that the service does not reserve (the sandbox's
// counterparties' domain: UMA_DOMAIN_TAKEN).
func CheckUmaDomain(d string) error {
	if err := CheckDomain(d); err != nil {
		return problem.Field("umaDomain", "umaDomain %v", err)
	}
	if NormalDomain(d) == sandbox.UmaDomain {
		return problem.Refuse(catalog.UmaDomainTaken, "umaDomain %s is reserved for the sandbox's UMA counterparties", sandbox.UmaDomain)
	}
	return nil
}

// DomainHolders is who other than the claiming platform holds a UMA domain: another
// platform whose umaDomain it is, or customers of another platform with addresses on it (a
// platform that moved to another domain leaves its customers' addresses where they were,
// so the domain stays theirs).
type DomainHolders struct {
	Platform  bool
	Customers bool
}

// CheckDomainClaim decides whether a platform may take umaDomain d that holders hold: only
// when nobody else does (else UMA_DOMAIN_TAKEN). The unique index on the platforms'
// domains decides between two claims at once; its violation is DomainTaken too.
func CheckDomainClaim(d string, h DomainHolders) error {
	switch {
	case h.Platform:
		return DomainTaken()
	case h.Customers:
		return problem.Refuse(catalog.UmaDomainTaken, "umaDomain %s holds UMA addresses of another platform's customers; choose another domain", d)
	}
	return nil
}

// DomainTaken is the refusal of a umaDomain another platform holds.
func DomainTaken() error {
	return problem.Refuse(catalog.UmaDomainTaken, "umaDomain is held by another platform of this deployment; a domain belongs to one platform")
}

// ProxySubdomainTaken is the refusal of a proxyUmaSubdomain another platform holds.
func ProxySubdomainTaken() error {
	return problem.Refuse(catalog.UmaDomainTaken, "proxyUmaSubdomain is held by another platform of this deployment; a subdomain routes to one platform")
}

// placeholderDomain is the UMA domain of a platform created without one: its name as a
// DNS label, a random tail so that platforms of one name do not claim the same domain, and
// the reserved .example suffix (it stands in until the platform sets its own).
func placeholderDomain(name string) string {
	label := strings.ToLower(strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, name))
	tail := make([]byte, 3)
	_, _ = rand.Read(tail) // crypto/rand.Read never fails
	return label + "-" + hex.EncodeToString(tail) + ".uma.example"
}
