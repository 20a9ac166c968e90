package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"paycore/db"
	"paycore/internal/ids"
)

// Error is an API error: it renders as {status, code, message, details} with a stable
// UPPER_SNAKE code. Handlers return it; writeError is the one place errors become
// responses, and anything that is not an *Error becomes an opaque 500.
type Error struct {
	Status  int            `json:"status"`
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
	// Reason names the failed check where the spec asks for one (wallet-auth 401s).
	Reason string `json:"reason,omitempty"`
	// RetryAfter, when set, is sent as the Retry-After header (seconds).
	RetryAfter int `json:"-"`
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

// Error codes used by the API.
const (
	CodeInvalidInput        = "INVALID_INPUT"
	CodeUnauthorized        = "UNAUTHORIZED"
	CodeForbidden           = "FORBIDDEN"
	CodeNotFound            = "NOT_FOUND"
	CodeTokenNotFound       = "TOKEN_NOT_FOUND"
	CodeWebhookNotFound     = "WEBHOOK_EVENT_NOT_FOUND"
	CodeMethodNotAllowed    = "METHOD_NOT_ALLOWED"
	CodePayloadTooLarge     = "PAYLOAD_TOO_LARGE"
	CodeConflict            = "CONFLICT"
	CodeAccountNotEmpty     = "ACCOUNT_NOT_EMPTY"
	CodeIdempotencyMismatch = "IDEMPOTENCY_KEY_REUSED"
	CodeIdempotencyBusy     = "IDEMPOTENCY_REQUEST_IN_PROGRESS"
	CodeWebhookNotSet       = "WEBHOOK_ENDPOINT_NOT_SET"
	CodeWebhookDelivery     = "WEBHOOK_DELIVERY_ERROR"
	CodeDeliveryInProgress  = "WEBHOOK_DELIVERY_IN_PROGRESS"
	CodeRateLimited         = "RATE_LIMITED"
	CodeInternal            = "INTERNAL_ERROR"
	CodeUnavailable         = "SERVICE_UNAVAILABLE"
)

func invalid(format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeInvalidInput, Message: fmt.Sprintf(format, args...)}
}

// invalidField is a 400 naming the offending field in details.field.
func invalidField(field, format string, args ...any) *Error {
	e := invalid(format, args...)
	e.Details = map[string]any{"field": field}
	return e
}

func notFound(code, what string) *Error {
	return &Error{Status: http.StatusNotFound, Code: code, Message: what + " not found"}
}

// writeJSON writes v with status. Encoding errors cannot reach the client any more and
// are only logged.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		slog.Error("encode response", "error", err)
		b = []byte(`{"status":500,"code":"INTERNAL_ERROR","message":"internal error"}`)
		status = http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// writeError renders err. Internal errors are logged with the request id and never leak.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	e := domainError(err)
	if e == nil && !errors.As(err, &e) {
		slog.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path,
			"request_id", w.Header().Get("X-Request-Id"), "error", err)
		e = &Error{Status: http.StatusInternalServerError, Code: CodeInternal, Message: "internal error; quote the X-Request-Id header when reporting it"}
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(e.RetryAfter))
	}
	writeJSON(w, e.Status, e)
}

// domainError maps the typed refusals of the db operations to their responses; nil when
// err is none of them.
func domainError(err error) *Error {
	var notEmpty *db.AccountNotEmptyError
	switch {
	case errors.As(err, &notEmpty):
		return &Error{Status: http.StatusConflict, Code: CodeAccountNotEmpty,
			Message: fmt.Sprintf("the %s account %s cannot be closed: %s; move the money out and let pending transfers finish first",
				notEmpty.Currency, ids.Format(ids.InternalAccount, notEmpty.AccountID), notEmpty.Reason()),
			Details: map[string]any{"accountId": ids.Format(ids.InternalAccount, notEmpty.AccountID), "currency": notEmpty.Currency,
				"balance": notEmpty.Balance, "held": notEmpty.Held, "pendingIncomingTransactions": notEmpty.Incoming}}
	case errors.Is(err, db.ErrAccountClosed):
		return invalid("the internal account is CLOSED and can neither receive nor send money")
	}
	return nil
}

// handler adapts a handler returning an error.
func handler(fn func(w http.ResponseWriter, r *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			writeError(w, r, err)
		}
	}
}

// List is the envelope of every paginated list.
type List[T any] struct {
	Data       []T    `json:"data"`
	HasMore    bool   `json:"hasMore"`
	NextCursor string `json:"nextCursor,omitempty"`
	TotalCount int64  `json:"totalCount"`
}

// Data is the envelope of the short unpaginated lists: {"data": [...]}.
type Data[T any] struct {
	Data []T `json:"data"`
}

// dataOf converts rows into the unpaginated envelope.
func dataOf[R, T any](rows []R, conv func(R) T) Data[T] {
	out := Data[T]{Data: make([]T, 0, len(rows))}
	for _, r := range rows {
		out.Data = append(out.Data, conv(r))
	}
	return out
}
