package paycore

import (
	"context"
	"net/http"
	"strings"
)

// New is a client of the paycore API at baseURL (up to and including the version segment,
// e.g. https://pay.example.com/api/2025-10-13) that authenticates every request with one of
// the platform's API tokens (HTTP Basic: the token id and its secret). Every operation of
// the API document is a method; the ...WithResponse ones decode the answer by status.
func New(baseURL, tokenID, tokenSecret string, opts ...ClientOption) (*ClientWithResponses, error) {
	auth := WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
		req.SetBasicAuth(tokenID, tokenSecret)
		return nil
	})
	return NewClientWithResponses(strings.TrimSuffix(baseURL, "/"), append([]ClientOption{auth}, opts...)...)
}

// WithHeaders adds headers to one request: pass it as a RequestEditorFn to any operation,
// e.g. the Idempotency-Key or the signed retry's headers.
func WithHeaders(h http.Header) RequestEditorFn {
	return func(_ context.Context, req *http.Request) error {
		for k, vs := range h {
			for _, v := range vs {
				req.Header.Add(k, v)
			}
		}
		return nil
	}
}
