package kyc

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net"
	"net/url"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// Provider is the KycProvider a hosted KYC link reports: the catalogue's one value. The
// page behind the link is the service's own sandbox provider.
const Provider = "SUMSUB"

// LinkRequest is the optional body of POST /customers/{customerId}/kyc-link.
type LinkRequest struct {
	RedirectURI *string `json:"redirectUri"`
}

// CheckRedirect accepts where the end user is sent after the hosted page: an absolute
// https URL, or http to a loopback host (local development).
func CheckRedirect(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || len(raw) > 2048 {
		return problem.Field("redirectUri", "redirectUri must be an absolute https:// URL of at most 2048 characters")
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		host := u.Hostname()
		if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
			return nil
		}
	}
	return problem.Field("redirectUri", "redirectUri must use https:// (http:// only to localhost for local development)")
}

// NewToken returns a fresh link token (256 random bits, URL-safe) and the hash stored for
// it.
func NewToken() (token string, hash []byte) {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	token = base64.RawURLEncoding.EncodeToString(b)
	return token, TokenHash(token)
}

// TokenHash is the stored form of a link token.
func TokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// LinkState is whether a link can still take a submission.
type LinkState int

// Link states.
const (
	LinkUsable LinkState = iota
	LinkExpired
	LinkUsed
	// LinkSubmitted: the customer's verification is under review or approved; the page
	// changes nothing any more.
	LinkSubmitted
)

// StateOf is the state at now of a link that expires at expiresAt and was used at usedAt
// (nil: never), for a customer whose status is current and whose latest verification has
// status latest ("" when it has none). An approved verification counts as submitted only
// while the customer is APPROVED: once an identity change sent the customer back through
// verification, it verified the old identity, and the page takes the new one.
func StateOf(expiresAt time.Time, usedAt *time.Time, latest catalog.VerificationStatus, current catalog.KycStatus, now time.Time) LinkState {
	switch {
	case usedAt != nil:
		return LinkUsed
	case !now.Before(expiresAt):
		return LinkExpired
	case latest == catalog.VerificationInProgress, latest == catalog.VerificationManualReview,
		latest == catalog.VerificationApproved && current == catalog.KycApproved:
		return LinkSubmitted
	}
	return LinkUsable
}

// LinkClosed is the refusal of a submission through a link that cannot take one.
func LinkClosed(st LinkState) error {
	msg := map[LinkState]string{
		LinkExpired:   "this verification link has expired",
		LinkUsed:      "this verification link was already used",
		LinkSubmitted: "the verification was already submitted",
	}[st]
	return problem.Refuse(catalog.Conflict, "%s", msg)
}

// CheckSubmissions refuses a submission of a hosted page's link that went over its limit
// (PAYCORE_KYC_LINK_SUBMISSIONS in each PAYCORE_KYC_LINK_SUBMISSION_WINDOW): attempts is
// the window's count, this one included, and the window ends at windowEnds. 429
// RATE_LIMITED with Retry-After.
func CheckSubmissions(attempts, max int, windowEnds, now time.Time) error {
	if attempts <= max {
		return nil
	}
	wait := windowEnds.Sub(now)
	return problem.RateLimited(wait, "this verification link was submitted too often (at most %d times in a while); try again in %d seconds",
		max, problem.RetryAfterSeconds(wait))
}

// SubmissionKey is the rate-limit key of a link's submissions.
func SubmissionKey(linkID string) string { return "kyc-page/link/" + linkID }
