// Package problem holds the typed errors of the domain packages: a FieldError names the
// request field that is wrong, a Refusal carries a stable code from the catalogue. Domain
// rules return them; the API maps them to an HTTP status and the error envelope in one
// place, and activities turn them into non-retryable application errors whose type is the
// code, so a refusal means the same thing wherever it is decided.
package problem

import (
	"errors"
	"fmt"
	"time"

	"paycore/internal/catalog"
)

// FieldError is invalid input: Field names the offending member by its JSON path
// ("accountInfo.accountType"), Message says what is wrong. Code is INVALID_INPUT unless a
// more precise code applies (INVALID_CURRENCY, AMOUNT_OUT_OF_RANGE, …).
type FieldError struct {
	Field   string
	Message string
	Code    catalog.Code
	// Details are extra members of the envelope's details beside "field".
	Details map[string]any
}

func (e *FieldError) Error() string { return e.Message }

// Field is a FieldError with code INVALID_INPUT.
func Field(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Message: fmt.Sprintf(format, args...), Code: catalog.InvalidInput}
}

// FieldCode is a FieldError with a precise code.
func FieldCode(code catalog.Code, field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Message: fmt.Sprintf(format, args...), Code: code}
}

// With adds details beside "field" and returns e.
func (e *FieldError) With(details map[string]any) *FieldError {
	e.Details = details
	return e
}

// Refusal is a request the domain refuses for a reason that is not one field's shape: a
// resource that does not exist, a conflict with the current state, a deleted customer.
type Refusal struct {
	Code    catalog.Code
	Message string
	Details map[string]any
	// Reason names the failed check where the spec asks for one: the 401s of wallet
	// authentication ("Invalid OTP code", "Invalid Service-Wallet-Signature" …).
	Reason string
	// RetryAfter, when positive, is how many seconds the caller should wait before trying
	// again (a rate limit or a lock).
	RetryAfter int
}

func (e *Refusal) Error() string { return string(e.Code) + ": " + e.Message }

// Refuse is a Refusal with code and message.
func Refuse(code catalog.Code, format string, args ...any) *Refusal {
	return &Refusal{Code: code, Message: fmt.Sprintf(format, args...)}
}

// NotFound is the refusal of an unknown (or another platform's) resource.
func NotFound(code catalog.Code, what string) *Refusal {
	return &Refusal{Code: code, Message: what + " not found"}
}

// With adds details and returns e.
func (e *Refusal) With(details map[string]any) *Refusal {
	e.Details = details
	return e
}

// CodeOf is the catalogue code of a domain error, "" when err is neither a FieldError nor
// a Refusal.
func CodeOf(err error) catalog.Code {
	var fe *FieldError
	if errors.As(err, &fe) {
		return fe.Code
	}
	var r *Refusal
	if errors.As(err, &r) {
		return r.Code
	}
	return ""
}

// Wire is a domain error in a form that survives serialisation, e.g. as the details of a
// Temporal application error, so the API can answer a refusal decided inside a workflow
// exactly as if it had been decided in the handler.
type Wire struct {
	Code    catalog.Code   `json:"code"`
	Message string         `json:"message"`
	Field   string         `json:"field,omitempty"`
	Details map[string]any `json:"details,omitempty"`
	// Reason and RetryAfter are a Refusal's (see Refusal).
	Reason     string `json:"reason,omitempty"`
	RetryAfter int    `json:"retryAfter,omitempty"`
}

// ToWire converts a FieldError or Refusal; ok is false for any other error.
func ToWire(err error) (w Wire, ok bool) {
	var fe *FieldError
	if errors.As(err, &fe) {
		return Wire{Code: fe.Code, Message: fe.Message, Field: fe.Field, Details: fe.Details}, true
	}
	var r *Refusal
	if errors.As(err, &r) {
		return Wire{Code: r.Code, Message: r.Message, Details: r.Details, Reason: r.Reason, RetryAfter: r.RetryAfter}, true
	}
	return Wire{}, false
}

// Err is the domain error w carries: a FieldError when it names a field, else a Refusal.
func (w Wire) Err() error {
	if w.Field != "" {
		return &FieldError{Field: w.Field, Message: w.Message, Code: w.Code, Details: w.Details}
	}
	return &Refusal{Code: w.Code, Message: w.Message, Details: w.Details, Reason: w.Reason, RetryAfter: w.RetryAfter}
}

// RetryAfterSeconds rounds a wait up to whole seconds, at least 1 (the Retry-After value).
func RetryAfterSeconds(d time.Duration) int {
	return max(int((d+time.Second-1)/time.Second), 1)
}

// RateLimited is a RATE_LIMITED refusal that asks the caller to wait (Retry-After).
func RateLimited(wait time.Duration, format string, args ...any) *Refusal {
	return &Refusal{Code: catalog.RateLimited, RetryAfter: RetryAfterSeconds(wait), Message: fmt.Sprintf(format, args...)}
}
