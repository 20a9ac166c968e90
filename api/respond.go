package api

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"

	"paycore/internal/catalog"
)

// Error is an API error: it renders as {status, code, message, details} with a stable
// UPPER_SNAKE code. Handlers return it; writeError is the one place errors become
// responses, and anything that is not an *Error becomes an opaque 500.
type Error struct {
	Status  int            `json:"status"`
	Code    catalog.Code   `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
	// Reason names the failed check where the spec asks for one (wallet-auth 401s).
	Reason string `json:"reason,omitempty"`
	// RetryAfter, when set, is sent as the Retry-After header (seconds).
	RetryAfter int `json:"-"`
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

func invalid(format string, args ...any) *Error {
	return refusal(catalog.InvalidInput, fmt.Sprintf(format, args...), nil)
}

// invalidField is a 400 naming the offending field in details.field.
func invalidField(field, format string, args ...any) *Error {
	e := invalid(format, args...)
	e.Details = map[string]any{"field": field}
	return e
}

// writeRaw writes a resource already rendered as JSON (a workflow update's answer).
func writeRaw(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
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
	e := errorOf(err)
	if e == nil {
		slog.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path,
			"request_id", w.Header().Get("X-Request-Id"), "error", err)
		e = refusal(catalog.Internal, "internal error; quote the X-Request-Id header when reporting it", nil)
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(e.RetryAfter))
	}
	writeJSON(w, e.Status, e)
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
