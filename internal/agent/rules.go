package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"net/netip"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/kit/clientip"
	"paycore/internal/problem"
)

// MaxNameChars is the longest agent name accepted, in characters.
const MaxNameChars = 255

// CheckName checks an agent's name (field names it in the error); blank names are refused
// by the request decoder already.
func CheckName(field, name string) error {
	if n := utf8.RuneCountInString(name); n == 0 || n > MaxNameChars {
		return problem.Field(field, "%s must be 1 to %d characters", field, MaxNameChars)
	}
	return nil
}

// CheckRegenerate decides whether a new device code may be issued for an agent: not once
// it is connected (its code was redeemed and it holds an access token).
func CheckRegenerate(connected bool) error {
	if connected {
		return problem.Refuse(catalog.AgentConnected,
			"the agent is already connected (its device code was redeemed); to connect another device, delete the agent and create a new one")
	}
	return nil
}

// CheckCustomer decides whether an agent may be created for a customer of the platform
// (found: the platform has it): a deleted customer takes no agents (410 CUSTOMER_DELETED),
// an unknown one is 404 USER_NOT_FOUND naming customerId.
func CheckCustomer(found, deleted bool, customerID uuid.UUID) error {
	switch {
	case !found:
		return problem.NotFound(catalog.UserNotFound, "customer").With(map[string]any{"field": "customerId"})
	case deleted:
		return problem.Refuse(catalog.CustomerDeleted, "the customer %s is deleted; agents can only act for live customers", ids.Format(ids.Customer, customerID))
	}
	return nil
}

// CodeState is what redeeming a device code reads of it and its agent.
type CodeState struct {
	// Found is false when no live agent has a code with that digest (a deleted agent's
	// codes are not found).
	Found bool
	// Redeemed: the code was redeemed; Replaced: a newer code of the agent replaced it
	// before it was redeemed.
	Redeemed, Replaced bool
	ExpiresAt          time.Time
	// AgentConnected: the agent holds an access token already.
	AgentConnected bool
}

// CheckRedeem decides whether a device code may be redeemed at now: an unknown code is 404
// DEVICE_CODE_NOT_FOUND; a code that was redeemed (or whose agent is connected) is 400
// DEVICE_CODE_ALREADY_REDEEMED; an expired or replaced one 400 DEVICE_CODE_EXPIRED.
func CheckRedeem(s CodeState, now time.Time) error {
	switch {
	case !s.Found:
		return ErrDeviceCodeNotFound()
	case s.Redeemed || s.AgentConnected:
		return problem.Refuse(catalog.DeviceCodeRedeemed, "this device code was already redeemed; a code works once (ask the platform for a new agent to connect another device)")
	case s.Replaced:
		return problem.Refuse(catalog.DeviceCodeExpired, "this device code was replaced by a newer one; use the latest code the platform issued")
	case !now.Before(s.ExpiresAt):
		return problem.Refuse(catalog.DeviceCodeExpired, "this device code expired at %s; ask the platform for a new one", s.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return nil
}

// Limit is a fixed-window rate limit: at most Attempts in each Window, the window starting
// with the first attempt after the previous one ended.
type Limit struct {
	Attempts int
	Window   time.Duration
}

// RedeemLimits bound redeem attempts (POST /agents/device-codes/{code}/redeem), counted in
// Postgres so that every API instance shares them: PerAddress per source address (an IPv6
// address by its /64), only where that address names a client (clientip.Attributable);
// PerCode per first group of the code typed (CodeID, known or not), from any address. Every
// attempt counts, the successful ones too; a live code over PerCode dies (see CodeID).
type RedeemLimits struct {
	PerAddress Limit
	PerCode    Limit
}

// DefaultRedeemLimits are 10 attempts per source address and 5 per code in 15 minutes
// (PAYCORE_AGENT_REDEEM_LIMIT_PER_ADDRESS, PAYCORE_AGENT_REDEEM_LIMIT_PER_CODE,
// PAYCORE_AGENT_REDEEM_WINDOW).
func DefaultRedeemLimits() RedeemLimits {
	return RedeemLimits{PerAddress: Limit{Attempts: 10, Window: 15 * time.Minute}, PerCode: Limit{Attempts: 5, Window: 15 * time.Minute}}
}

// Counted is a limit's counter after an attempt was counted: the attempts of the current
// window, this one included, and when the window ends.
type Counted struct {
	Attempts   int
	WindowEnds time.Time
}

// Check refuses an attempt that went over the limit with 429 RATE_LIMITED, asking the
// caller to wait until the window ends (Retry-After, whole seconds, at least 1); what says
// what is limited ("from this address").
func (l Limit) Check(c Counted, now time.Time, what string) error {
	if c.Attempts <= l.Attempts {
		return nil
	}
	wait := c.WindowEnds.Sub(now)
	return problem.RateLimited(wait, "too many device-code redeem attempts %s (at most %d in %s); retry after %d seconds",
		what, l.Attempts, l.Window, problem.RetryAfterSeconds(wait))
}

// AddressKey is the rate-limit key of redeem attempts from addr (an IPv6 address counts
// by its /64 network, which one host usually holds whole).
func AddressKey(addr netip.Addr) string { return "agent-redeem/address/" + clientip.Key(addr) }

// CodeKey is the rate-limit key of redeem attempts of codes with the first group of code
// (in its shown form): a digest of it, so the limits table holds no part of a code in clear.
func CodeKey(code string) string {
	sum := sha256.Sum256([]byte("agent-redeem/code-id/" + CodeID(code)))
	return "agent-redeem/code-id/" + hex.EncodeToString(sum[:])
}

// ErrNotFound is the refusal of an agent the platform does not have (or deleted).
func ErrNotFound() error { return problem.NotFound(catalog.AgentNotFound, "agent") }

// ErrDeviceCodeNotFound is the refusal of a device code no live agent of the caller's
// platform has (a malformed, replaced or deleted agent's code included): 404
// DEVICE_CODE_NOT_FOUND.
func ErrDeviceCodeNotFound() error {
	return problem.NotFound(catalog.DeviceCodeNotFound, "device code")
}

// ErrActionNotFound is the refusal of an agent action the agent (or the platform) does not
// have.
func ErrActionNotFound() error { return problem.NotFound(catalog.AgentActionNotFound, "agent action") }

// GoneBeforeExecution is the refusal an approved action fails with when its agent was
// paused or deleted before it was executed: 403 FORBIDDEN.
func GoneBeforeExecution() error {
	return problem.Refuse(catalog.Forbidden, "the agent was paused or deleted before the action was executed")
}

// TransferRefused is the refusal of an approved transfer action whose transfer's workflow
// ended without creating it (the transfer's own refusal could no longer be read):
// INVALID_INPUT.
func TransferRefused() error {
	return problem.Refuse(catalog.InvalidInput, "the transfer was refused")
}
