package paycore

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"time"
)

// Call sends one request: a generated ...WithResponse method with edit among its editors,
// e.g.
//
//	func(ctx context.Context, edit paycore.RequestEditorFn) (*paycore.CreateQuoteResult, error) {
//		return c.CreateQuoteWithResponse(ctx, body, edit)
//	}
//
// It must send the same request every time it is called.
type Call[R any] func(ctx context.Context, edit RequestEditorFn) (R, error)

// IdempotencyOptions tune Idempotent.
type IdempotencyOptions struct {
	// Key is the Idempotency-Key (at most 255 characters); a random UUID when empty.
	Key string
	// Attempts is how many times the request is sent at most, the first included (5 when 0).
	Attempts int
	// BaseDelay is the first wait when an answer has no Retry-After (250 ms when 0); it
	// doubles with each attempt. MaxDelay caps every wait, Retry-After included (30 s when 0).
	BaseDelay, MaxDelay time.Duration
	// OnRetry, when set, is told each retry before its wait: the attempt just made (from 1),
	// the wait, and the answer's error (an *APIError) or the network error.
	OnRetry func(attempt int, wait time.Duration, cause error)
	// Sleep waits (a timer that ctx cancels when nil); tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Idempotent sends a POST with an Idempotency-Key and sends it again, with the same key, when
// that is safe: after a network error (no answer), a 5xx but 501 (never stored by the
// service), a 429, and a 409 IDEMPOTENCY_REQUEST_IN_PROGRESS (the first request still runs).
// The wait is the answer's Retry-After when it has one, else an exponential backoff. Other
// 4xx answers (422 IDEMPOTENCY_KEY_REUSED among them) are never resent. It returns the
// successful result (a replay of the stored answer carries Idempotent-Replayed: true); for
// an error answer, the result and an *APIError; when no attempt got an answer, the last
// network error.
func Idempotent[R any](ctx context.Context, call Call[R], opts IdempotencyOptions) (R, error) {
	key := opts.Key
	if key == "" {
		key = rand.Text()
	}
	attempts := max(opts.Attempts, 1)
	if opts.Attempts == 0 {
		attempts = 5
	}
	base, maxDelay := cmpOr(opts.BaseDelay, 250*time.Millisecond), cmpOr(opts.MaxDelay, 30*time.Second)
	sleep := opts.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	edit := WithHeaders(http.Header{"Idempotency-Key": {key}})
	for attempt := 1; ; attempt++ {
		r, err := Check(call(ctx, edit))
		if err == nil {
			return r, nil
		}
		wait := min(maxDelay, base<<(attempt-1))
		var apiErr *APIError
		switch {
		case errors.As(err, &apiErr): // an answer
			if !retryable(apiErr) {
				return r, err
			}
			if apiErr.RetryAfter > 0 {
				wait = min(maxDelay, apiErr.RetryAfter)
			}
		case ctx.Err() != nil: // no answer, and no more time
			return r, err
		}
		if attempt >= attempts {
			return r, err
		}
		if opts.OnRetry != nil {
			opts.OnRetry(attempt, wait, err)
		}
		if serr := sleep(ctx, wait); serr != nil {
			return r, serr
		}
	}
}

// retryable says whether an error answer may be sent again with the same Idempotency-Key.
func retryable(e *APIError) bool {
	switch {
	case e.Status >= 500:
		return e.Status != http.StatusNotImplemented
	case e.Status == http.StatusTooManyRequests:
		return true
	}
	return e.Status == http.StatusConflict && e.Code == "IDEMPOTENCY_REQUEST_IN_PROGRESS"
}

// answerOf is the HTTP answer and body of a generated result (its HTTPResponse and Body
// fields, which every ...WithResponse result has).
func answerOf(r any) (*http.Response, []byte) {
	v := reflect.Indirect(reflect.ValueOf(r))
	if v.Kind() != reflect.Struct {
		panic(fmt.Sprintf("paycore: %T is not a generated result", r))
	}
	resp, _ := v.FieldByName("HTTPResponse").Interface().(*http.Response)
	body, _ := v.FieldByName("Body").Interface().([]byte)
	if resp == nil {
		panic(fmt.Sprintf("paycore: %T has no HTTPResponse", r))
	}
	return resp, body
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func cmpOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
