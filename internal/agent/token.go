package agent

import (
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/kit/secrets"
	"paycore/internal/problem"
)

// Access tokens.
//
// A redeemed device code gives the agent one access token, sent as
// "Authorization: Bearer <token>" on /agents/me. It is "pcagent_", the agent's uuid in 32
// hex digits, "_", and a secret of 256 random bits (base64url, 43 characters), like the
// secrets of API tokens (internal/kit/secrets): only the secret's SHA-256 digest is stored, on
// the agent, and it is compared in constant time. The agent's uuid lets a request find its
// agent by primary key; the prefix lets secret scanners recognise a leaked token. A token
// lives as long as its agent: deleting the agent revokes it at once, pausing it refuses it
// (403) until the agent is resumed.
const (
	// TokenPrefix starts every access token.
	TokenPrefix = "pcagent_"
	// tokenSecretChars is the length of the secret part: 32 bytes in unpadded base64url.
	tokenSecretChars = 43
	tokenLen         = len(TokenPrefix) + 32 + 1 + tokenSecretChars
)

// NewAccessToken returns a fresh access token of the agent and the digest to store.
func NewAccessToken(agentID uuid.UUID) (token string, digest []byte) {
	secret, digest := secrets.New()
	return TokenPrefix + hex.EncodeToString(agentID[:]) + "_" + secret, digest
}

// ParseAccessToken splits a bearer token into its agent and its secret; ok is false when
// it does not have the form of an access token.
func ParseAccessToken(token string) (agentID uuid.UUID, secret string, ok bool) {
	if len(token) != tokenLen || !utf8.ValidString(token) {
		return uuid.Nil, "", false
	}
	rest, found := strings.CutPrefix(token, TokenPrefix)
	if !found || rest[32] != '_' {
		return uuid.Nil, "", false
	}
	raw, err := hex.DecodeString(rest[:32])
	if err != nil || strings.ToLower(rest[:32]) != rest[:32] {
		return uuid.Nil, "", false
	}
	id, err := uuid.FromBytes(raw)
	if err != nil {
		return uuid.Nil, "", false
	}
	return id, rest[33:], true
}

// TokenMatches reports, in constant time, whether secret is the one whose digest the agent
// stores.
func TokenMatches(secret string, digest []byte) bool { return secrets.Matches(secret, digest) }

// BearerState is what authenticating an agent's request reads of it.
type BearerState struct {
	// Found is false when no agent has the token's id, or it was deleted (its access
	// revoked), or it has not redeemed a code.
	Found bool
	// Digest is the stored digest of its access token.
	Digest       []byte
	Paused       bool
	CustomerGone bool // its customer was deleted
}

// noDigest stands in for the digest of an agent that was not found, so that a miss costs
// the same comparison as a hit.
var noDigest = secrets.Digest("paycore-no-such-agent")

// CheckBearer decides whether the agent may act on a request with secret: a token of no
// (live, connected) agent or a wrong secret is 401 UNAUTHORIZED; a paused agent, or one
// whose customer was deleted, is 403 FORBIDDEN with a message that says why.
func CheckBearer(s BearerState, secret string) error {
	digest := s.Digest
	if !s.Found {
		digest = noDigest
	}
	if matches := TokenMatches(secret, digest); !s.Found || !matches {
		return problem.Refuse(catalog.Unauthorized, "invalid agent access token: unknown, or its agent was deleted")
	}
	if s.Paused {
		return problem.Refuse(catalog.Forbidden, "the agent is paused: its platform must resume it (PATCH /agents/{agentId} with isPaused false) before it can act")
	}
	if s.CustomerGone {
		return problem.Refuse(catalog.Forbidden, "the customer this agent acts for was deleted; the agent can no longer act")
	}
	return nil
}
