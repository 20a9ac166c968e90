package platformconfig

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"strings"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// A platform's umaDomain is served by the deployment (its customers' Lightning addresses and
// UMA LNURLP requests, chosen by Host) only once the platform proved it controls the domain:
// it publishes the token the service gave it at ProofPath on that domain, and asks the
// service to check (POST /config/uma-domain/verify). A domain no platform proved answers
// nothing, so no platform can answer for another's customers by claiming its domain first.

// ProofPath is where on its domain a platform publishes its token, as plain text.
const ProofPath = "/.well-known/uma-domain-proof"

// NewProofToken is a fresh token for a platform's domain.
func NewProofToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return "uma-domain-proof=" + hex.EncodeToString(b)
}

// ErrProofMismatch is a domain that answered something other than its token.
var ErrProofMismatch = errors.New("the domain does not publish its token")

// CheckProof checks what the domain published (body) against its token: the token, with or
// without surrounding white space.
func CheckProof(body []byte, token string) error {
	if subtle.ConstantTimeCompare([]byte(strings.TrimSpace(string(body))), []byte(token)) != 1 {
		return ErrProofMismatch
	}
	return nil
}

// DomainNotProven is the refusal of a verification whose domain did not prove itself: what
// was fetched from url (the domain's ProofPath) failed with cause, an answer without the
// token (ErrProofMismatch) or none at all. 400 UMA_DOMAIN_NOT_PROVEN on umaDomain.
func DomainNotProven(url string, cause error) error {
	return problem.Refuse(catalog.UmaDomainNotProven, "%s does not prove the domain: %v", url, cause).
		With(map[string]any{"field": "umaDomain"})
}
