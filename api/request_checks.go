package api

import (
	"context"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"

	"paycore/internal/kit/strictjson"

	"paycore/internal/catalog"
)

// checkedHeaders are the request headers the service reads as text.
var checkedHeaders = []string{headerIdempotencyKey, headerRequestID, headerWalletSignature, headerPeerWalletSignature}

// checkRequest is the one middleware of the input rules. It refuses, for every route,
// before routing and authentication, input that no handler may see: a path or query
// string that is not valid UTF-8 or holds a NUL, a malformed query string, header values
// the service reads that are not printable text, and a wallet signature sent under
// another header name than Service-Wallet-Signature (or the peer API's
// Grid-Wallet-Signature); then what the operation the request
// is routed to does not take (operationInput.check: undeclared or repeated query
// parameters, a body where none is declared, a charset other than UTF-8).
func (s *Server) checkRequest(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		values, err := requestProblem(r)
		if err != nil {
			writeError(w, r, err)
			return
		}
		if err := s.operationOf(r).check(r, values); err != nil {
			writeError(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), queryKey{}, values)))
	})
}

// queryKey carries the query string checkRequest parsed to newQuery.
type queryKey struct{}

func requestProblem(r *http.Request) (url.Values, *Error) {
	if !strictjson.ValidText(r.URL.Path) {
		return nil, invalidField("path", "the request path must be valid UTF-8 without NUL characters")
	}
	values, err := parseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, err
	}
	for _, h := range checkedHeaders {
		for _, v := range r.Header.Values(h) {
			if !printableASCII(v) {
				return nil, invalidField(h, "header %s must be printable ASCII text", h)
			}
		}
	}
	for name := range r.Header {
		canon := textproto.CanonicalMIMEHeaderKey(name)
		if strings.HasSuffix(canon, "-Wallet-Signature") && canon != headerWalletSignature && canon != headerPeerWalletSignature {
			return nil, invalidField(canon, "this service reads the wallet signature from the %s header (or %s; with %s), not %s",
				headerWalletSignature, headerPeerWalletSignature, headerRequestID, canon)
		}
	}
	if a, b := r.Header.Get(headerWalletSignature), r.Header.Get(headerPeerWalletSignature); a != "" && b != "" && a != b {
		return nil, invalidField(headerPeerWalletSignature, "%s and %s carry different signatures: send one", headerWalletSignature, headerPeerWalletSignature)
	}
	return values, nil
}

// walletSignature is the request's wallet signature: the Service-Wallet-Signature header,
// or the same under the peer API's name Grid-Wallet-Signature.
func walletSignature(r *http.Request) string {
	if v := r.Header.Get(headerWalletSignature); v != "" {
		return v
	}
	return r.Header.Get(headerPeerWalletSignature)
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// methods a route may answer; OPTIONS and 405 list those a path has.
var routeMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// allowedMethods lists the methods the router serves at path (HEAD wherever GET is).
func (s *Server) allowedMethods(path string) []string {
	var out []string
	for _, m := range routeMethods {
		probe := m
		if m == http.MethodHead {
			probe = http.MethodGet
		}
		if s.router.Match(chi.NewRouteContext(), probe, path) {
			out = append(out, m)
		}
	}
	if len(out) > 0 {
		out = append(out, http.MethodOptions)
	}
	return out
}

// options answers OPTIONS for any route with 204 and the Allow header (404 for a path
// no route serves); it needs no credentials, as it reveals nothing but the API's shape.
func (s *Server) options(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodOptions {
			next.ServeHTTP(w, r)
			return
		}
		allowed := s.allowedMethods(r.URL.Path)
		if len(allowed) == 0 {
			writeError(w, r, refusal(catalog.NotFound, "no such route", nil))
			return
		}
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		w.WriteHeader(http.StatusNoContent)
	})
}
