package apitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
)

// The peer check: with PAYCORE_PEER_OPENAPI naming another provider's OpenAPI document of
// the same API (a client generated from it should work against this service) and
// PAYCORE_PEER_REPORT a file, every 2xx answer the tests receive is also validated against
// that document, and each mismatch is appended to the report as one JSON line (method,
// path, status, what does not match). Nothing fails: the report is read by a person (see
// docs/peer-conformance.md). Off when the variables are unset.

type peerCheck struct {
	v      validator.Validator
	server string
	report *os.File
}

var (
	peerMu   sync.Mutex
	loadPeer = sync.OnceValues(func() (*peerCheck, error) {
		path, report := os.Getenv("PAYCORE_PEER_OPENAPI"), os.Getenv("PAYCORE_PEER_REPORT")
		if path == "" || report == "" {
			return nil, nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		doc, err := libopenapi.NewDocument(raw)
		if err != nil {
			return nil, err
		}
		m, err := doc.BuildV3Model()
		if err != nil {
			return nil, err
		}
		if len(m.Model.Servers) == 0 {
			return nil, fmt.Errorf("%s names no server", path)
		}
		v, errs := validator.NewValidator(doc)
		if len(errs) > 0 {
			return nil, errs[0]
		}
		f, err := os.OpenFile(report, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, err
		}
		return &peerCheck{v: v, server: strings.TrimSuffix(m.Model.Servers[0].URL, "/"), report: f}, nil
	})
)

// peerValidate checks a 2xx answer against the peer document, when the check is on.
func (c *Client) peerValidate(method, path string, reqBody []byte, resp *http.Response, body []byte) {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return
	}
	p, err := loadPeer()
	if err != nil {
		c.T.Fatalf("peer OpenAPI document: %v", err)
	}
	if p == nil {
		return
	}
	req, _ := http.NewRequest(method, p.server+path, bytes.NewReader(reqBody))
	if len(reqBody) > 0 {
		req.Header.Set("Content-Type", "application/json")
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	peerMu.Lock()
	defer peerMu.Unlock()
	ok, errs := p.v.ValidateHttpResponse(req, resp)
	if ok {
		return
	}
	for _, e := range errs {
		msg := e.Message + ": " + e.Reason
		for _, se := range e.SchemaValidationErrors {
			msg += "; " + se.FieldPath + " " + se.Reason
		}
		line, _ := json.Marshal(map[string]any{"test": c.T.Name(), "method": method, "path": path, "status": resp.StatusCode, "error": msg})
		_, _ = p.report.Write(append(line, '\n'))
	}
}
