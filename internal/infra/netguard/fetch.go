package netguard

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
)

// Fetch GETs u as JSON with c (a guarded client, NewClient) and answers the body of a 200
// answer of at most limit bytes, or why not: no answer (its Cause), another status (a
// *StatusError; a redirect is not followed when c follows none), an answer too large.
func Fetch(ctx context.Context, c *http.Client, u string, limit int64) ([]byte, error) {
	return exchange(ctx, c, http.MethodGet, u, nil, limit)
}

// Post POSTs body as JSON to u with c and answers as Fetch does.
func Post(ctx context.Context, c *http.Client, u string, body []byte, limit int64) ([]byte, error) {
	return exchange(ctx, c, http.MethodPost, u, body, limit)
}

// StatusError is an answer of another status than 200, with the start of its body (at most
// the limit asked).
type StatusError struct {
	Host   string
	Status int
	Body   []byte
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s answered %d, not 200 (redirects are not followed)", e.Host, e.Status)
}

func exchange(ctx context.Context, c *http.Client, method, u string, body []byte, limit int64) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("no answer from %s (%v)", req.URL.Host, Cause(err))
	}
	defer func() { _ = resp.Body.Close() }()
	got, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if resp.StatusCode != http.StatusOK {
		return nil, &StatusError{Host: req.URL.Host, Status: resp.StatusCode, Body: got[:min(int64(len(got)), limit)]}
	}
	if err != nil {
		return nil, fmt.Errorf("reading the answer of %s: %v", req.URL.Host, Cause(err))
	}
	if int64(len(got)) > limit {
		return nil, fmt.Errorf("%s answered more than %d bytes", req.URL.Host, limit)
	}
	return got, nil
}
