// Package agent holds the rules of agents apart from their policy (internal/agentpolicy):
// their names, the device codes a platform hands to an agent to connect it, the bearer
// access token an agent gets for a redeemed code, and the limits on redeem attempts that
// keep codes from being guessed. It is pure: no HTTP, database or Temporal.
package agent

import (
	"crypto/rand"
	"crypto/sha256"
	"strings"
	"time"
)

// Device codes.
//
// A code is CodeChars characters of Crockford's base 32 (digits and upper-case letters
// without I, L, O and U), shown as AGENT-XXXX-XXXX-XXXX: 60 random bits. It is typed by a
// person into the agent's setup, so it is read back leniently (ParseDeviceCode): either
// case, with or without the AGENT- prefix, dashes and spaces anywhere, and the letters
// Crockford reads as digits (O as 0, I and L as 1).
//
// A code's first group (CodeID, 20 bits) names it for the limits, the other eight symbols
// (40 bits) are its secret. Every redeem attempt counts against the first group of the code
// typed (RedeemLimits.PerCode: 5 per 15 minutes by default), whoever sends it, so a live
// code takes at most 5 tries in a window before it dies (the right code then answers 429 and
// is retired for good). Against a code id nobody can try more than that, so however many
// addresses an attacker holds, a live code's 40-bit secret is tried at most twice 5 times
// in its 15-minute life (two windows can overlap it): a chance of 10 / 2^40 (9 × 10⁻¹²) per
// code. Killing a code takes its first group: a caller who knows none of it must spread
// 6 × 2^20 attempts over every group in a window to kill the codes live then. The limit per
// source address (RedeemLimits.PerAddress) slows that further, but only for addresses that
// name a client (clientip.Attributable): behind a proxy the peer is the proxy.
//
// Only the SHA-256 digest of a code is stored (CodeHash). A fast hash suffices: a code
// is single use and dies within its lifetime, far sooner than 2^60 digests can be tried.
const (
	// CodeChars is the number of random characters of a device code.
	CodeChars = 12
	// CodeBits is the entropy of a device code.
	CodeBits = CodeChars * 5
	// CodePrefix starts every device code as shown.
	CodePrefix = "AGENT"
	// CodeGroup is the number of characters between dashes.
	CodeGroup = 4
	// DefaultCodeLifetime is how long a device code can be redeemed
	// (PAYCORE_AGENT_DEVICE_CODE_LIFETIME).
	DefaultCodeLifetime = 15 * time.Minute
)

// codeAlphabet is Crockford's base 32: 32 symbols, so a random byte masked to 5 bits
// picks one without bias.
const codeAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// NewDeviceCode returns a fresh random device code in its shown form
// (AGENT-XXXX-XXXX-XXXX).
func NewDeviceCode() string {
	b := make([]byte, CodeChars)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	for i := range b {
		b[i] = codeAlphabet[b[i]&31]
	}
	return format(string(b))
}

// format shows the CodeChars symbols of a code with its prefix, in groups.
func format(symbols string) string {
	var sb strings.Builder
	sb.WriteString(CodePrefix)
	for i := 0; i < len(symbols); i += CodeGroup {
		sb.WriteByte('-')
		sb.WriteString(symbols[i:min(i+CodeGroup, len(symbols))])
	}
	return sb.String()
}

// ParseDeviceCode reads a code as a person may type it and returns its shown form; ok is
// false when s cannot be a code. Case, dashes and spaces do not matter, the AGENT prefix is
// optional, and O, I and L are read as 0, 1 and 1.
func ParseDeviceCode(s string) (code string, ok bool) {
	if len(s) > 64 {
		return "", false
	}
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		switch {
		case r == '-' || r == ' ':
			continue
		case r > 0x7f:
			return "", false
		}
		b.WriteRune(r)
	}
	symbols := b.String()
	if len(symbols) == len(CodePrefix)+CodeChars {
		rest, found := strings.CutPrefix(symbols, CodePrefix)
		if !found {
			return "", false
		}
		symbols = rest
	}
	if len(symbols) != CodeChars {
		return "", false
	}
	out := []byte(symbols)
	for i, c := range out {
		switch c {
		case 'O':
			c = '0'
		case 'I', 'L':
			c = '1'
		}
		if strings.IndexByte(codeAlphabet, c) < 0 {
			return "", false
		}
		out[i] = c
	}
	return format(string(out)), true
}

// CodeID is the first group of a code in its shown form (AGENT-XXXX-…: "XXXX"), what the
// limit per code counts attempts under.
func CodeID(code string) string {
	rest, _ := strings.CutPrefix(code, CodePrefix+"-")
	return rest[:min(CodeGroup, len(rest))]
}

// CodeHash is what is stored of a code: the SHA-256 digest of its shown form (as
// ParseDeviceCode returns it).
func CodeHash(code string) []byte {
	sum := sha256.Sum256([]byte(code))
	return sum[:]
}
