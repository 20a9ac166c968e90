package walletauth

import (
	"fmt"
	"strconv"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// Reasons of the wallet-authentication 401s: the spec's name of the check that failed,
// sent as the error envelope's reason.
const (
	ReasonBadOTP       = "Invalid OTP code"
	ReasonBadSignature = "Invalid Service-Wallet-Signature"
	ReasonRequestUsed  = "Request-Id already used"
	ReasonRetryExpired = "Signed retry expired"
	ReasonBadPasskey   = "Invalid passkey signature"
	ReasonBadOIDC      = "Invalid OIDC token"
)

// Unauthorized is the refusal of a wallet-authentication proof: code UNAUTHORIZED with the
// spec's reason.
func Unauthorized(reason, format string, args ...any) *problem.Refusal {
	return &problem.Refusal{Code: catalog.Unauthorized, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// SignatureRefused is the refusal of a signed retry's signature: code, one of the
// WALLET_SIGNATURE_* codes or REQUEST_ID_MISSING, with the spec's reason "Invalid
// Service-Wallet-Signature".
func SignatureRefused(code catalog.Code, format string, args ...any) *problem.Refusal {
	return &problem.Refusal{Code: code, Reason: ReasonBadSignature, Message: fmt.Sprintf(format, args...)}
}

// RateLimited is a RATE_LIMITED refusal that asks the caller to wait (Retry-After).
func RateLimited(wait time.Duration, format string, args ...any) *problem.Refusal {
	return problem.RateLimited(wait, format, args...)
}

// WaitText words a wait of secs seconds: "45 seconds", "5 minutes", "2 hours 10 minutes".
func WaitText(secs int) string {
	plural := func(n int, unit string) string {
		if n == 1 {
			return "1 " + unit
		}
		return strconv.Itoa(n) + " " + unit + "s"
	}
	switch {
	case secs < 60:
		return plural(secs, "second")
	case secs < 3600:
		return plural((secs+59)/60, "minute")
	}
	mins := (secs + 59) / 60
	if mins%60 == 0 {
		return plural(mins/60, "hour")
	}
	return plural(mins/60, "hour") + " " + plural(mins%60, "minute")
}

// ceilSecond rounds t up to a whole second, in UTC.
func ceilSecond(t time.Time) time.Time {
	t = t.UTC()
	if t.Nanosecond() > 0 {
		t = t.Truncate(time.Second).Add(time.Second)
	}
	return t
}
