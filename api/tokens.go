package api

import (
	"context"
	"net/http"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/apitoken"
	"paycore/internal/ids"
)

type tokenCreate struct {
	Name        string   `json:"name"`
	Permissions []string `json:"permissions"`
}

func (s *Server) createToken(w http.ResponseWriter, r *http.Request) error {
	body, err := ReadJSON[tokenCreate](r)
	if err != nil {
		return err
	}
	if e := checkTokenRequest(body.Name, body.Permissions); e != nil {
		return e
	}
	if err := apitoken.CheckMint(principalFrom(r.Context()).Permissions, body.Permissions); err != nil {
		return err
	}
	tok, err := issueToken(r.Context(), s.Pool, principalFrom(r.Context()).PlatformID, body.Name, body.Permissions)
	if err != nil {
		return err
	}
	out := view.TokenOf(tok.Token)
	out.ClientSecret = tok.Secret
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// listTokens is GET /tokens, newest first.
func (s *Server) listTokens(w http.ResponseWriter, r *http.Request) error {
	return serveList(s, w, r, listSpec[db.TokenFilter, db.IDPos, db.ApiToken, view.Token]{
		name: "tokens", params: []string{"name", "createdAfter", "createdBefore", "updatedAfter", "updatedBefore", "limit", "cursor"},
		filter: func(q *query, pid uuid.UUID) db.TokenFilter {
			return db.TokenFilter{PlatformID: pid, Name: q.str("name"),
				CreatedAfter: q.time("createdAfter"), CreatedBefore: q.time("createdBefore"),
				UpdatedAfter: q.time("updatedAfter"), UpdatedBefore: q.time("updatedBefore")}
		},
		read: db.TokenPage, pos: idPos(func(t db.ApiToken) uuid.UUID { return t.ID }), view: view.TokenOf,
	})
}

var errTokenNotFound = errorOf(apitoken.ErrNotFound())

func (s *Server) getToken(w http.ResponseWriter, r *http.Request) error {
	return serveOne(w, r, "tokenId", ids.Token, errTokenNotFound, func(ctx context.Context, pid, id uuid.UUID) (db.ApiToken, error) {
		return db.TokenGet(ctx, s.Pool, db.TokenGetParams{PlatformID: pid, ID: id})
	}, view.TokenOf)
}

func (s *Server) deleteToken(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "tokenId", ids.Token, errTokenNotFound)
	if err != nil {
		return err
	}
	if err := db.TokenRevoke(r.Context(), s.Pool, principalFrom(r.Context()).PlatformID, id, s.now()); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
