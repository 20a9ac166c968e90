package walletauth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"math/big"
	"strconv"
	"time"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/platformconfig"
	"paycore/internal/problem"
)

// One-time code rules of EMAIL_OTP credentials beside the lockout (OTPFailures).
const (
	// CodeAttempts wrong guesses end one code; the credential-wide lockout limits guesses
	// across codes.
	CodeAttempts = 5
	// ReissueInterval is the least time between two codes of one credential.
	ReissueInterval = 30 * time.Second
	// DefaultOTPLifetime is how long a code stays valid when the platform does not say.
	DefaultOTPLifetime = 5 * time.Minute
	// DefaultAppName names the wallet in the e-mail when the platform does not.
	DefaultAppName = "your wallet"
)

// Code alphabets: digits, or upper-case letters and digits without the look-alikes
// (0/O, 1/I).
const (
	digits       = "0123456789"
	alphanumeric = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
)

// OTPPolicy is how one-time codes are made and sent for a platform.
type OTPPolicy struct {
	Length       int
	Alphanumeric bool
	TTL          time.Duration
	AppName      string
	From         string
}

// OTPPolicyOf applies a platform's embedded-wallet configuration over the defaults; from
// is the service's sender address, used unless the platform names its own.
func OTPPolicyOf(c platformconfig.Wallet, from string) OTPPolicy {
	p := OTPPolicy{Length: MinOTPLength, TTL: DefaultOTPLifetime, AppName: DefaultAppName, From: from}
	if c.OtpLength != nil {
		// Never shorter than the minimum, whatever a configuration saved before the
		// minimum was raised says.
		p.Length = min(max(*c.OtpLength, MinOTPLength), MaxOTPLength)
	}
	if c.Alphanumeric != nil {
		p.Alphanumeric = *c.Alphanumeric
	}
	if c.ExpirationSeconds != nil {
		p.TTL = time.Duration(*c.ExpirationSeconds) * time.Second
	}
	if c.AppName != nil {
		p.AppName = *c.AppName
	}
	if c.SendFromEmailAddress != nil {
		p.From = *c.SendFromEmailAddress
	}
	return p
}

// NewCode draws a fresh code of the policy's length and alphabet.
func (p OTPPolicy) NewCode() (string, error) {
	alphabet := digits
	if p.Alphanumeric {
		alphabet = alphanumeric
	}
	code := make([]byte, p.Length)
	for i := range code {
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		if err != nil {
			return "", fmt.Errorf("draw one-time code: %w", err)
		}
		code[i] = alphabet[n.Int64()]
	}
	return string(code), nil
}

// Mail is the subject and body of the e-mail carrying code.
func (p OTPPolicy) Mail(code string) (subject, body string) {
	return "Your " + p.AppName + " code",
		fmt.Sprintf("Your one-time code is %s. It expires in %s.", code, lifetimeText(p.TTL))
}

// Text is the text message carrying code (SMS_OTP): short, the app's name first.
func (p OTPPolicy) Text(code string) string {
	return fmt.Sprintf("%s: your one-time code is %s. It expires in %s.", p.AppName, code, lifetimeText(p.TTL))
}

// The refusals of a code that did not leave (502): a production platform's code is only
// ever sent, never kept in the development outbox, so a deployment without a transport for
// it refuses the challenge, as does a transport that failed; the caller asks again.

// NoSMSGateway is the refusal of an SMS_OTP challenge of a production platform on a
// deployment without an SMS gateway: SMS_DELIVERY_FAILED.
func NoSMSGateway() error {
	return problem.Refuse(catalog.SMSDeliveryFailed, "this deployment has no SMS gateway for production platforms (PAYCORE_SMS_URL is not set): the one-time code was not sent")
}

// SMSNotSent is the refusal of an SMS_OTP challenge whose text message the gateway did not
// send: SMS_DELIVERY_FAILED.
func SMSNotSent() error {
	return problem.Refuse(catalog.SMSDeliveryFailed, "the one-time code could not be sent by text message; try the challenge again")
}

// NoMailTransport is the refusal of an EMAIL_OTP challenge of a production platform on a
// deployment without a mail transport: EMAIL_DELIVERY_FAILED.
func NoMailTransport() error {
	return problem.Refuse(catalog.EmailDeliveryFailed, "this deployment has no mail transport for production platforms (PAYCORE_SMTP_HOST is not set): the one-time code was not sent")
}

// MailNotSent is the refusal of an EMAIL_OTP challenge whose e-mail the transport did not
// send: EMAIL_DELIVERY_FAILED.
func MailNotSent() error {
	return problem.Refuse(catalog.EmailDeliveryFailed, "the one-time code could not be e-mailed; try the challenge again")
}

// lifetimeText words a code's lifetime exactly, never longer than it is (WaitText rounds
// up to whole minutes, right for a wait, not for an expiry): "30 seconds", "1 minute",
// "1 minute 30 seconds", "5 minutes".
func lifetimeText(ttl time.Duration) string {
	secs := int(ttl / time.Second)
	if rest := secs % 60; secs > 60 && rest != 0 {
		return WaitText(secs-rest) + " " + WaitText(rest)
	}
	return WaitText(secs)
}

// OTPHash is what is stored of a credential's code: codes are never stored in clear.
func OTPHash(credentialID uuid.UUID, code string) []byte {
	sum := sha256.Sum256([]byte(credentialID.String() + ":" + code))
	return sum[:]
}

// PendingOTP is the code waiting for a credential's verification.
type PendingOTP struct {
	Hash      []byte
	ExpiresAt time.Time
	SentAt    time.Time
	// Attempts counts the wrong guesses of this code.
	Attempts int
}

// Locked is the refusal of a locked EMAIL_OTP credential, on verify and on challenge.
func Locked(f OTPFailures, wait time.Duration) *problem.Refusal {
	secs := problem.RetryAfterSeconds(wait)
	return &problem.Refusal{Code: catalog.RateLimited, RetryAfter: secs,
		Message: "too many wrong codes: the credential is locked for " + WaitText(secs) + "; retry after Retry-After seconds",
		Details: map[string]any{"lockedUntil": ceilSecond(f.LockedUntil).Format(time.RFC3339)}}
}

// CheckReissue decides whether a new code may be sent at now: a locked credential gets
// none (new codes would be new guesses), and codes are at least ReissueInterval apart.
// pending is nil when no code is waiting.
func CheckReissue(pending *PendingOTP, fails OTPFailures, now time.Time) error {
	if wait := fails.LockedFor(now); wait > 0 {
		return Locked(fails, wait)
	}
	if pending != nil {
		if wait := ReissueInterval - now.Sub(pending.SentAt); wait > 0 {
			return RateLimited(wait, "a code was sent moments ago; retry after %d seconds", problem.RetryAfterSeconds(wait))
		}
	}
	return nil
}

// OTPVerdict is the outcome of checking a one-time code.
type OTPVerdict struct {
	// Err refuses the verification; nil when the code is right.
	Err error
	// Wrong means a wrong guess that must be recorded although the request fails: one
	// more attempt on the code, and Failures as the credential's new wrong-code record.
	Wrong    bool
	Failures OTPFailures
}

// CheckOTP checks code against the pending code of credentialID (nil when none) at now.
// While the credential is locked no code is compared, the right one neither.
func CheckOTP(credentialID uuid.UUID, pending *PendingOTP, fails OTPFailures, code string, now time.Time) OTPVerdict {
	if wait := fails.LockedFor(now); wait > 0 {
		return OTPVerdict{Err: Locked(fails, wait)}
	}
	switch {
	case pending == nil:
		return OTPVerdict{Err: Unauthorized(ReasonBadOTP, "no code is pending for this credential; request one with the challenge endpoint")}
	case pending.Attempts >= CodeAttempts:
		return OTPVerdict{Err: Unauthorized(ReasonBadOTP, "this code had %d wrong attempts; request a new one", CodeAttempts)}
	case now.After(pending.ExpiresAt):
		return OTPVerdict{Err: Unauthorized(ReasonBadOTP, "the code has expired; request a new one")}
	case subtle.ConstantTimeCompare(pending.Hash, OTPHash(credentialID, code)) != 1:
		fails = fails.Fail(now)
		wrong := Unauthorized(ReasonBadOTP, "the code is wrong")
		if wait := fails.LockedFor(now); wait > 0 {
			wrong.RetryAfter = problem.RetryAfterSeconds(wait)
			wrong.Message = "the code is wrong; after " + strconv.Itoa(fails.Failures) + " wrong codes the credential is locked for " +
				WaitText(wrong.RetryAfter) + " (Retry-After)"
		}
		return OTPVerdict{Err: wrong, Wrong: true, Failures: fails}
	}
	return OTPVerdict{}
}
