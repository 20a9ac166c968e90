package api

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"paycore/db"
	"paycore/internal/cursor"
	"paycore/internal/ids"
)

// Token is the API token resource. ClientSecret appears only in the create response.
type Token struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	Permissions  []string  `json:"permissions"`
	ClientID     string    `json:"clientId"`
	ClientSecret string    `json:"clientSecret,omitempty"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
}

func tokenOf(t db.ApiToken) Token {
	return Token{ID: ids.Format(ids.Token, t.ID), Name: t.Name, Permissions: t.Permissions, ClientID: t.ID.String(),
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt}
}

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
	// A token cannot mint more than it holds.
	held := principalFrom(r.Context()).Permissions
	for _, p := range body.Permissions {
		if !slices.Contains(held, p) {
			return &Error{Status: http.StatusForbidden, Code: CodeForbidden, Details: map[string]any{"field": "permissions", "permission": p},
				Message: "this API token lacks the " + p + " permission, so it cannot create a token that has it"}
		}
	}
	tok, err := issueToken(r.Context(), s.q, principalFrom(r.Context()).PlatformID, body.Name, body.Permissions)
	if err != nil {
		return err
	}
	out := tokenOf(tok.Token)
	out.ClientSecret = tok.Secret
	writeJSON(w, http.StatusCreated, out)
	return nil
}

type idCursor struct {
	ID uuid.UUID `json:"id"`
}

func (s *Server) listTokens(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r, "name", "createdAfter", "createdBefore", "updatedAfter", "updatedBefore", "limit", "cursor")
	p := db.TokenListParams{
		PlatformID: principalFrom(r.Context()).PlatformID, Name: q.str("name"),
		CreatedAfter: q.time("createdAfter"), CreatedBefore: q.time("createdBefore"),
		UpdatedAfter: q.time("updatedAfter"), UpdatedBefore: q.time("updatedBefore"),
	}
	limit := q.limit()
	p.AfterID = q.afterID("tokens")
	if q.err != nil {
		return q.err
	}
	p.RowLimit = limit + 1
	rows, err := s.q.TokenList(r.Context(), p)
	if err != nil {
		return fmt.Errorf("list tokens: %w", err)
	}
	total, err := s.q.TokenCount(r.Context(), db.TokenCountParams{
		PlatformID: p.PlatformID, Name: p.Name, CreatedAfter: p.CreatedAfter, CreatedBefore: p.CreatedBefore,
		UpdatedAfter: p.UpdatedAfter, UpdatedBefore: p.UpdatedBefore,
	})
	if err != nil {
		return fmt.Errorf("count tokens: %w", err)
	}
	writeJSON(w, http.StatusOK, page(rows, limit, total, tokenOf, func(t db.ApiToken) string {
		return cursor.Encode("tokens", idCursor{ID: t.ID})
	}))
	return nil
}

var errTokenNotFound = notFound(CodeTokenNotFound, "token")

func (s *Server) getToken(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "tokenId", ids.Token, errTokenNotFound)
	if err != nil {
		return err
	}
	t, err := s.q.TokenGet(r.Context(), db.TokenGetParams{PlatformID: principalFrom(r.Context()).PlatformID, ID: id})
	if isNoRows(err) {
		return errTokenNotFound
	}
	if err != nil {
		return fmt.Errorf("get token: %w", err)
	}
	writeJSON(w, http.StatusOK, tokenOf(t))
	return nil
}

func (s *Server) deleteToken(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "tokenId", ids.Token, errTokenNotFound)
	if err != nil {
		return err
	}
	pid := principalFrom(r.Context()).PlatformID
	err = db.WithTx(r.Context(), s.Pool, func(q *db.Queries, _ pgx.Tx) error {
		// Locking the platform row serialises deletions, so two concurrent deletes can
		// never remove the last two tokens.
		if _, err := q.PlatformGetForUpdate(r.Context(), pid); err != nil {
			return fmt.Errorf("lock platform: %w", err)
		}
		if _, err := q.TokenGet(r.Context(), db.TokenGetParams{PlatformID: pid, ID: id}); err != nil {
			if isNoRows(err) {
				return errTokenNotFound
			}
			return err
		}
		n, err := q.TokenCountActive(r.Context(), pid)
		if err != nil {
			return err
		}
		if n <= 1 {
			return invalid("this is the platform's last API token; create another token before deleting it")
		}
		_, err = q.TokenDelete(r.Context(), db.TokenDeleteParams{PlatformID: pid, ID: id})
		return err
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
