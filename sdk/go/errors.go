package paycore

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// APIError is an answer of 4xx or 5xx: the service's error envelope, with the request id
// the service gave it and how long it asks to wait before retrying (Retry-After).
type APIError struct {
	Status     int
	Code       string
	Message    string
	Reason     string         // why a wallet request was refused (401s), when the service says
	Details    map[string]any // details of the refusal, e.g. the invalid field
	RequestID  string         // X-Request-Id
	RetryAfter time.Duration  // zero when the answer has no Retry-After
}

func (e *APIError) Error() string {
	return fmt.Sprintf("paycore: %d %s: %s", e.Status, e.Code, e.Message)
}

// CheckResponse is nil for a 2xx answer and an *APIError for any other; body is the answer's
// body (a ...WithResponse result's Body).
func CheckResponse(resp *http.Response, body []byte) error {
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	e := &APIError{Status: resp.StatusCode, RequestID: resp.Header.Get("X-Request-Id")}
	var env struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Reason  string         `json:"reason"`
		Details map[string]any `json:"details"`
	}
	if json.Unmarshal(body, &env) == nil && env.Code != "" {
		e.Code, e.Message, e.Reason, e.Details = env.Code, env.Message, env.Reason, env.Details
	} else {
		e.Code, e.Message = http.StatusText(resp.StatusCode), string(body)
	}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
		e.RetryAfter = time.Duration(s) * time.Second
	}
	return e
}

// Check passes a generated ...WithResponse call's result on when it is a 2xx answer, and
// otherwise returns its error: the network error, or an *APIError for the answer. It reads
// the call's two results directly:
//
//	cfg, err := paycore.Check(c.GetPlatformConfigWithResponse(ctx))
func Check[R any](r R, err error) (R, error) {
	if err != nil {
		return r, err
	}
	resp, body := answerOf(r)
	return r, CheckResponse(resp, body)
}
