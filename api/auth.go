package api

import (
	"context"
	"encoding/base64"
	"net/http"
	"slices"
	"strings"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/kit/secrets"
)

// Token permissions.
const (
	PermView     = "VIEW"
	PermTransact = "TRANSACT"
	PermManage   = "MANAGE"
)

var permissions = []string{PermView, PermTransact, PermManage}

// Principal is the authenticated caller of a platform route.
type Principal struct {
	PlatformID  uuid.UUID
	TokenID     uuid.UUID
	Permissions []string
	Sandbox     bool
}

// Has reports whether the caller's token holds perm.
func (p Principal) Has(perm string) bool { return slices.Contains(p.Permissions, perm) }

// canTransact reports whether the caller's token holds TRANSACT: the permission of every
// act that can lead to money moving (docs/permissions.md).
func canTransact(r *http.Request) bool { return principalFrom(r.Context()).Has(PermTransact) }

type principalKey struct{}

func principalFrom(ctx context.Context) Principal {
	p, _ := ctx.Value(principalKey{}).(Principal)
	return p
}

// dummyDigest keeps the work of a lookup miss equal to a hit's.
var dummyDigest = secrets.Digest("paycore-no-such-token")

// authenticate checks HTTP Basic credentials: the username is the token's clientId (its
// uuid) or its full id "Token:<uuid>", the password its secret.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, secret, ok := basicCredentials(r.Header.Get("Authorization"))
		if !ok {
			w.Header().Set("WWW-Authenticate", `Basic realm="paycore"`)
			writeError(w, r, refusal(catalog.Unauthorized, "missing or malformed HTTP Basic credentials (token id and secret)", nil))
			return
		}
		row, err := db.TokenAuthenticate(r.Context(), s.Pool, id)
		if err != nil {
			secrets.Matches(secret, dummyDigest)
			if isNoRows(err) {
				writeError(w, r, refusal(catalog.Unauthorized, "invalid API credentials", nil))
				return
			}
			writeError(w, r, err)
			return
		}
		if !secrets.Matches(secret, row.SecretHash) {
			writeError(w, r, refusal(catalog.Unauthorized, "invalid API credentials", nil))
			return
		}
		p := Principal{PlatformID: row.PlatformID, TokenID: row.ID, Permissions: row.Permissions, Sandbox: row.Environment == catalog.Sandbox}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
	})
}

// authorization reads the credentials of an Authorization header of the given scheme
// ("<scheme> <credentials>"): the scheme name is case-insensitive (RFC 9110 §11.1) and
// spaces around the credentials are ignored.
func authorization(header, scheme string) (string, bool) {
	name, creds, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(name, scheme) {
		return "", false
	}
	creds = strings.TrimSpace(creds)
	return creds, creds != ""
}

func basicCredentials(header string) (uuid.UUID, string, bool) {
	raw, ok := authorization(header, "Basic")
	if !ok {
		return uuid.Nil, "", false
	}
	b, err := base64.StdEncoding.DecodeString(raw)
	if err != nil {
		return uuid.Nil, "", false
	}
	creds := strings.TrimPrefix(string(b), ids.Token+":")
	user, secret, ok := strings.Cut(creds, ":")
	if !ok || secret == "" {
		return uuid.Nil, "", false
	}
	id, err := uuid.Parse(user)
	if err != nil || len(user) != 36 {
		return uuid.Nil, "", false
	}
	return id, secret, true
}

// require allows the request only when the token holds perm.
func require(perm string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !principalFrom(r.Context()).Has(perm) {
				writeError(w, r, refusal(catalog.Forbidden, "this API token lacks the "+perm+" permission", map[string]any{"permission": perm}))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// sandboxOnly refuses sandbox routes to production platforms.
func sandboxOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !principalFrom(r.Context()).Sandbox {
			writeError(w, r, refusal(catalog.Forbidden, "sandbox endpoints are not available to production platforms", nil))
			return
		}
		next.ServeHTTP(w, r)
	})
}
