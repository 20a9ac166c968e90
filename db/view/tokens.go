package view

import (
	"time"

	"paycore/db"
	"paycore/internal/ids"
)

// Token is an API token. ClientSecret appears only when the token is created.
type Token struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	Permissions  []string  `json:"permissions"`
	ClientID     string    `json:"clientId"`
	ClientSecret string    `json:"clientSecret,omitempty"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
}

// TokenOf renders a token without its secret.
func TokenOf(t db.ApiToken) Token {
	return Token{ID: ids.Format(ids.Token, t.ID), Name: t.Name, Permissions: t.Permissions, ClientID: t.ID.String(),
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt}
}
