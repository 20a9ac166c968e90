package netguard

import (
	"context"
	"fmt"
	"io"
	"net/http"
)

// Fetch GETs u as JSON with c (a guarded client, NewClient) and answers the body of a 200
// answer of at most limit bytes, or why not: no answer (its Cause), another status (a
// redirect is not followed when c follows none), an answer too large.
func Fetch(ctx context.Context, c *http.Client, u string, limit int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("no answer from %s (%v)", req.URL.Host, Cause(err))
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %d, not 200 (redirects are not followed)", req.URL.Host, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading the answer of %s: %v", req.URL.Host, Cause(err))
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("%s answered more than %d bytes", req.URL.Host, limit)
	}
	return body, nil
}
