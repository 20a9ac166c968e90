// Package ids creates and parses the API's resource identifiers, strings of the form
// "<ResourceType>:<uuid>". UUIDv7 values sort by creation time, which keyset pagination uses.
package ids

import (
	"crypto/sha256"
	"fmt"
	"strings"

	"github.com/google/uuid"
)

// Resource type prefixes used by the API.
const (
	Token           = "Token"
	PlatformConfig  = "PlatformConfig"
	Platform        = "Platform"
	Webhook         = "Webhook"
	Customer        = "Customer"
	Transaction     = "Transaction"
	InternalAccount = "InternalAccount"
	ExternalAccount = "ExternalAccount"
	AuthMethod      = "AuthMethod"
	Session         = "Session"
	Quote           = "Quote"
	Lookup          = "Lookup"
	Verification    = "Verification"
	// Request names a challenge (a signed retry's or a passkey session's requestId).
	Request = "Request"
	// Document is a KYC/KYB document; BeneficialOwner one of a business customer's owners.
	Document        = "Document"
	BeneficialOwner = "BeneficialOwner"
	// Job names a bulk customer import job.
	Job = "Job"
	// Agent is an agent acting for a customer; AgentAction one of its money movements.
	Agent       = "Agent"
	AgentAction = "AgentAction"
)

// New returns a fresh time-ordered UUIDv7.
func New() uuid.UUID {
	return uuid.Must(uuid.NewV7())
}

// Derive is the id determined by parts (SHA-256 of them, NUL-separated, as a version 8
// UUID): the same parts always give the same id, so a repeated request (its
// Idempotency-Key) or a retried step finds what the first one made.
func Derive(parts ...string) uuid.UUID {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	var id uuid.UUID
	copy(id[:], sum[:16])
	id[6] = (id[6] & 0x0f) | 0x80 // version 8: custom
	id[8] = (id[8] & 0x3f) | 0x80 // RFC 4122 variant
	return id
}

// Format renders id with its resource prefix.
func Format(prefix string, id uuid.UUID) string {
	return prefix + ":" + id.String()
}

// Parse reads "<prefix>:<uuid>". It rejects other prefixes and malformed uuids.
func Parse(prefix, s string) (uuid.UUID, error) {
	rest, ok := strings.CutPrefix(s, prefix+":")
	if !ok {
		return uuid.Nil, fmt.Errorf("%q is not a %s id (expected %s:<uuid>)", s, prefix, prefix)
	}
	if len(rest) != 36 {
		return uuid.Nil, fmt.Errorf("%q is not a %s id (expected %s:<uuid>)", s, prefix, prefix)
	}
	id, err := uuid.Parse(rest)
	if err != nil || id.String() != rest {
		// Ids are issued in one canonical (lower-case) form and only that form names them.
		return uuid.Nil, fmt.Errorf("%q is not a %s id (expected %s:<uuid>, lower case)", s, prefix, prefix)
	}
	return id, nil
}
