package uma

import (
	"errors"
	"fmt"
	"time"
)

// More errors of received messages.
var (
	// ErrNonceUsed: the nonce was seen before from that provider (INVALID_NONCE).
	ErrNonceUsed = errors.New("uma: the nonce was used before")
	// ErrKeysUnavailable: the provider's keys cannot be fetched (COUNTERPARTY_PUBKEY_FETCH_ERROR).
	ErrKeysUnavailable = errors.New("uma: the provider's keys cannot be fetched")
	// ErrInvalidPubKeyResponse: the provider's key response cannot be read (INVALID_PUBKEY_FORMAT).
	ErrInvalidPubKeyResponse = errors.New("uma: the provider's key response is invalid")
	// ErrUserNotFound: no receiver has the address (USER_NOT_FOUND).
	ErrUserNotFound = errors.New("uma: no such user")
	// ErrCounterpartyNotAllowed: the deployment does not transact with that provider
	// (COUNTERPARTY_NOT_ALLOWED).
	ErrCounterpartyNotAllowed = errors.New("uma: payments with this provider are not allowed")
)

// CheckCounterparty is the rule of whom the deployment transacts with: a provider the
// operator blocked (listed, not allowed) never; one not listed only unless the deployment
// transacts with listed providers only (allowlistOnly).
func CheckCounterparty(domain string, listed, allowed, allowlistOnly bool) error {
	switch {
	case listed && !allowed:
		return fmt.Errorf("%w: %s is blocked", ErrCounterpartyNotAllowed, domain)
	case !listed && allowlistOnly:
		return fmt.Errorf("%w: %s is not on the deployment's list of UMA providers", ErrCounterpartyNotAllowed, domain)
	}
	return nil
}

// Timestamp window: a signed message is taken from MaxMessageAge before now to MaxClockSkew
// after, and its nonce is remembered for as long.
const (
	MaxMessageAge = time.Hour
	MaxClockSkew  = 5 * time.Minute
)

// CheckTimestamp refuses a message signed at ts (seconds since the epoch) outside the
// window around now (INVALID_TIMESTAMP).
func CheckTimestamp(ts int64, now time.Time) error {
	at := time.Unix(ts, 0)
	if at.Before(now.Add(-MaxMessageAge)) || at.After(now.Add(MaxClockSkew)) {
		return fmt.Errorf("%w: signed at %s, now %s", ErrInvalidTimestamp, at.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	return nil
}

// Error is a refusal as the protocol answers it: {"status":"ERROR","reason":…,"code":…}
// with the code's HTTP status (the numbers of the protocol's error catalogue), and for an unsupported
// version the major versions spoken.
type Error struct {
	Code                   string
	Status                 int
	Reason                 string
	SupportedMajorVersions []int
}

func (e *Error) Error() string { return e.Code + ": " + e.Reason }

// Body is the refusal's JSON body.
func (e *Error) Body() map[string]any {
	b := map[string]any{"status": "ERROR", "reason": e.Reason, "code": e.Code}
	if e.SupportedMajorVersions != nil {
		b["supportedMajorVersions"] = e.SupportedMajorVersions
	}
	return b
}

// Refusal is err as the protocol's refusal: its code and status, INTERNAL_ERROR (500) for
// an error the protocol has no code for.
func Refusal(err error) *Error {
	var uv *UnsupportedVersionError
	var pe *Error
	switch {
	case errors.As(err, &pe):
		return pe
	case errors.As(err, &uv):
		return &Error{Code: "UNSUPPORTED_UMA_VERSION", Status: 412, Reason: err.Error(), SupportedMajorVersions: SupportedMajorVersions()}
	}
	for _, c := range []struct {
		err    error
		code   string
		status int
	}{
		{ErrBadSignature, "INVALID_SIGNATURE", 401},
		{ErrCertChainExpired, "CERT_CHAIN_EXPIRED", 400},
		{ErrCertChainInvalid, "CERT_CHAIN_INVALID", 400},
		{ErrMissingParameters, "MISSING_REQUIRED_UMA_PARAMETERS", 400},
		{ErrNotUma, "MISSING_REQUIRED_UMA_PARAMETERS", 400},
		{ErrInvalidAddress, "PARSE_LNURLP_REQUEST_ERROR", 400},
		{ErrInvalidTimestamp, "INVALID_TIMESTAMP", 400},
		{ErrNonceUsed, "INVALID_NONCE", 400},
		{ErrKeysUnavailable, "COUNTERPARTY_PUBKEY_FETCH_ERROR", 424},
		{ErrInvalidPubKeyResponse, "INVALID_PUBKEY_FORMAT", 400},
		{ErrUserNotFound, "USER_NOT_FOUND", 404},
		{ErrCounterpartyNotAllowed, "COUNTERPARTY_NOT_ALLOWED", 403},
		{ErrInvalidAmount, "AMOUNT_OUT_OF_RANGE", 400},
		{ErrDecrypt, "INVALID_INPUT", 400},
		{ErrInvoiceMismatch, "INVALID_INVOICE", 400},
		{ErrInvalidCurrency, "INVALID_CURRENCY", 400},
		{ErrSenderNotAccepted, "SENDER_NOT_ACCEPTED", 400},
		{ErrMissingPayerData, "MISSING_MANDATORY_PAYER_DATA", 400},
		{ErrParsePayRequest, "PARSE_PAYREQ_REQUEST_ERROR", 400},
		{ErrUserNotReady, "USER_NOT_READY", 403},
		{ErrParseUtxoCallback, "PARSE_UTXO_CALLBACK_ERROR", 400},
		{ErrRequestNotFound, "REQUEST_NOT_FOUND", 404},
		{ErrUnrecognizedPayeeKey, "UNRECOGNIZED_MANDATORY_PAYEE_DATA_KEY", 501},
	} {
		if errors.Is(err, c.err) {
			return &Error{Code: c.code, Status: c.status, Reason: err.Error()}
		}
	}
	return &Error{Code: "INTERNAL_ERROR", Status: 500, Reason: "an unexpected error occurred"}
}
