package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"paycore/internal/ids"
	"paycore/internal/kit/strictjson"
)

// Page size bounds of every paginated list.
const (
	defaultLimit = 20
	maxLimit     = 100
)

// query reads and validates query parameters, collecting the first error.
type query struct {
	v   url.Values
	err error
}

// newQuery is the one reader of query strings: the values checkRequest parsed and checked
// (parseQuery), then every name must be in allowed.
func newQuery(r *http.Request, allowed ...string) *query {
	v, ok := r.Context().Value(queryKey{}).(url.Values)
	if !ok {
		var err *Error
		if v, err = parseQuery(r.URL.RawQuery); err != nil {
			q := &query{}
			q.fail(err)
			return q
		}
	}
	q := &query{v: v}
	for _, name := range sortedKeys(v) {
		if !slices.Contains(allowed, name) {
			q.fail(invalidField(name, "unknown query parameter %q (allowed: %s)", name, strings.Join(allowed, ", ")))
		}
	}
	return q
}

// parseQuery refuses a malformed query string (a bad %-escape, a ';' separator) and a
// name or value that is not valid UTF-8 or holds a NUL. A parameter given twice is
// refused by the reader of a single value (query.str); query.strs reads a list.
// Every route runs it before routing (checkRequest); list routes again through newQuery.
func parseQuery(raw string) (url.Values, *Error) {
	v, err := url.ParseQuery(raw)
	if err != nil {
		return nil, invalid("malformed query string: use name=value pairs joined by '&', with %%XX escapes (%s)", queryErrorText(err))
	}
	for _, name := range sortedKeys(v) {
		switch {
		case !strictjson.ValidText(name):
			return nil, invalid("a query parameter name is not valid UTF-8 or holds a NUL character")
		}
		for _, value := range v[name] {
			if !strictjson.ValidText(value) {
				return nil, invalidField(name, "query parameter %s must be valid UTF-8 without NUL characters", name)
			}
		}
	}
	return v, nil
}

func sortedKeys(v url.Values) []string {
	names := make([]string, 0, len(v))
	for name := range v {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// queryErrorText words a query parsing error without the library's prefix.
func queryErrorText(err error) string {
	var esc url.EscapeError
	if errors.As(err, &esc) {
		return fmt.Sprintf("invalid escape %q", string(esc))
	}
	if strings.Contains(err.Error(), "semicolon") {
		return "';' is not a separator"
	}
	return "unparseable"
}

func (q *query) fail(e *Error) {
	if q.err == nil {
		q.err = e
	}
}

func (q *query) str(name string) *string {
	if !q.v.Has(name) {
		return nil
	}
	if len(q.v[name]) > 1 {
		q.fail(invalidField(name, "query parameter %s is given more than once", name))
		return nil
	}
	s := q.v.Get(name)
	if s == "" {
		q.fail(invalidField(name, "query parameter %s must not be empty", name))
		return nil
	}
	return &s
}

// strs reads a repeatable parameter: every value, none empty.
func (q *query) strs(name string) []string {
	values := q.v[name]
	for _, s := range values {
		if s == "" {
			q.fail(invalidField(name, "query parameter %s must not be empty", name))
			return nil
		}
	}
	return values
}

// int64 reads an integer parameter of at least min; def when absent.
func (q *query) int64(name string, def, min int64) int64 {
	s := q.str(name)
	if s == nil {
		return def
	}
	n, err := strconv.ParseInt(*s, 10, 64)
	if err != nil || n < min {
		q.fail(invalidField(name, "query parameter %s must be an integer of at least %d", name, min))
		return def
	}
	return n
}

func (q *query) time(name string) *time.Time {
	s := q.str(name)
	if s == nil {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, *s)
	if err != nil {
		q.fail(invalidField(name, "query parameter %s must be an ISO 8601 date-time such as 2025-10-13T00:00:00Z", name))
		return nil
	}
	return &t
}

func (q *query) boolean(name string, def bool) bool {
	s := q.str(name)
	if s == nil {
		return def
	}
	b, err := strconv.ParseBool(*s)
	if err != nil || (*s != "true" && *s != "false") {
		q.fail(invalidField(name, "query parameter %s must be true or false", name))
		return def
	}
	return b
}

func (q *query) enum(name string, values ...string) *string {
	s := q.str(name)
	if s == nil {
		return nil
	}
	for _, v := range values {
		if *s == v {
			return s
		}
	}
	q.fail(invalidField(name, "query parameter %s must be one of %s", name, strings.Join(values, ", ")))
	return nil
}

func (q *query) limit() int32 {
	s := q.str("limit")
	if s == nil {
		return defaultLimit
	}
	n, err := strconv.Atoi(*s)
	if err != nil || n < 1 || n > maxLimit {
		q.fail(invalidField("limit", "limit must be an integer from 1 to %d", maxLimit))
		return defaultLimit
	}
	return int32(n)
}

// pathID parses a path parameter of the form <prefix>:<uuid>; a malformed id is simply
// not found.
func pathID(r *http.Request, param, prefix string, nf *Error) (uuid.UUID, error) {
	id, err := ids.Parse(prefix, pathParam(r, param))
	if err != nil {
		return uuid.Nil, nf
	}
	return id, nil
}

// pathParam is the path parameter name, percent-decoded: the router matches the escaped
// path whenever the client escaped more than it had to (`Customer%3A…`, as openapi-fetch
// and other clients write a `:`), and a parameter must mean the same either way. A
// segment that does not decode stays as it came, for the parameter's own check to refuse.
func pathParam(r *http.Request, name string) string {
	v := chi.URLParam(r, name)
	if d, err := url.PathUnescape(v); err == nil {
		return d
	}
	return v
}

// loadOne reads the resource of the caller's platform whose id is in the path: a
// malformed id, or another platform's, is the resource's 404 nf.
func loadOne[R any](r *http.Request, param, prefix string, nf *Error, read func(ctx context.Context, platformID, id uuid.UUID) (R, error)) (R, error) {
	var zero R
	id, err := pathID(r, param, prefix, nf)
	if err != nil {
		return zero, err
	}
	row, err := read(r.Context(), callerPlatformID(r.Context()), id)
	if isNoRows(err) {
		return zero, nf
	}
	if err != nil {
		return zero, fmt.Errorf("get %s %s: %w", prefix, id, err)
	}
	return row, nil
}

// serveOne answers the GET of one resource of the caller's platform: loadOne and the
// rendering.
func serveOne[R, T any](w http.ResponseWriter, r *http.Request, param, prefix string, nf *Error,
	read func(ctx context.Context, platformID, id uuid.UUID) (R, error), render func(R) T) error {
	row, err := loadOne(r, param, prefix, nf, read)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, render(row))
	return nil
}

// customerID reads an optional Customer id parameter.
func (q *query) customerID(name string) uuid.NullUUID {
	c := q.str(name)
	if c == nil {
		return uuid.NullUUID{}
	}
	id, err := ids.Parse(ids.Customer, *c)
	if err != nil {
		q.fail(invalidField(name, "%s must be a Customer id (Customer:<uuid>)", name))
		return uuid.NullUUID{}
	}
	return uuid.NullUUID{UUID: id, Valid: true}
}
