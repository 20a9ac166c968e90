package api

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/db"
	"paycore/internal/ids"
	"paycore/internal/sealbox"
	"paycore/internal/secrets"
	"paycore/internal/webhooksig"
)

// PlatformParams describe a platform created by the operator.
type PlatformParams struct {
	Name        string
	Sandbox     bool
	IsRegulated bool // isRegulatedFinancialInstitution: only the operator can set it
	UmaDomain   string
}

// NewToken is a freshly issued API token; Secret is shown once and never stored.
type NewToken struct {
	Token  db.ApiToken
	Secret string
}

// CreatePlatform creates a platform with its webhook secret and a first MANAGE token
// (every platform always has at least one token).
func CreatePlatform(ctx context.Context, pool *pgxpool.Pool, box *sealbox.Box, p PlatformParams) (db.Platform, NewToken, error) {
	p.Name = strings.TrimSpace(p.Name)
	if p.Name == "" || len(p.Name) > 255 {
		return db.Platform{}, NewToken{}, fmt.Errorf("platform name must be 1 to 255 characters")
	}
	env := envProduction
	if p.Sandbox {
		env = envSandbox
	}
	if p.UmaDomain == "" {
		p.UmaDomain = strings.ToLower(strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
				return r
			}
			return '-'
		}, p.Name)) + ".uma.example"
	}
	if err := checkDomain(p.UmaDomain); err != nil {
		return db.Platform{}, NewToken{}, fmt.Errorf("umaDomain: %w", err)
	}
	currencies, _ := json.Marshal([]CurrencyConfig{{
		CurrencyCode: "USD", MinAmount: 1, MaxAmount: 100_000_000, EnabledTransactionTypes: []string{"INCOMING", "OUTGOING"},
		RequiredCounterpartyFields: []CounterpartyField{},
	}})
	var plat db.Platform
	var tok NewToken
	err := db.WithTx(ctx, pool, func(q *db.Queries, _ pgx.Tx) error {
		var err error
		plat, err = q.PlatformCreate(ctx, db.PlatformCreateParams{
			ID: ids.New(), Name: p.Name, Environment: env, IsRegulatedFinancialInstitution: p.IsRegulated,
			ConfigID: ids.New(), UmaDomain: p.UmaDomain, SupportedCurrencies: currencies,
		})
		if err != nil {
			return fmt.Errorf("create platform: %w", err)
		}
		raw, _ := webhooksig.NewSecret()
		if _, err := q.WebhookSecretCreate(ctx, db.WebhookSecretCreateParams{
			ID: ids.New(), PlatformID: plat.ID, SecretSealed: box.Seal(webhooksig.SealLabel, raw),
		}); err != nil {
			return fmt.Errorf("create webhook secret: %w", err)
		}
		if err := ensurePlatformAccounts(ctx, q, box, plat); err != nil {
			return err
		}
		tok, err = issueToken(ctx, q, plat.ID, "default", []string{PermView, PermTransact, PermManage})
		return err
	})
	return plat, tok, err
}

// IssueToken creates an API token for a platform (operator command).
func IssueToken(ctx context.Context, pool *pgxpool.Pool, platformID uuid.UUID, name string, perms []string) (NewToken, error) {
	if err := checkTokenRequest(name, perms); err != nil {
		return NewToken{}, err
	}
	var tok NewToken
	err := db.WithTx(ctx, pool, func(q *db.Queries, _ pgx.Tx) error {
		if _, err := q.PlatformGet(ctx, platformID); err != nil {
			return fmt.Errorf("platform %s: %w", platformID, err)
		}
		var err error
		tok, err = issueToken(ctx, q, platformID, name, perms)
		return err
	})
	return tok, err
}

func issueToken(ctx context.Context, q *db.Queries, platformID uuid.UUID, name string, perms []string) (NewToken, error) {
	secret, digest := secrets.New()
	row, err := q.TokenCreate(ctx, db.TokenCreateParams{
		ID: ids.New(), PlatformID: platformID, Name: name, Permissions: perms, SecretHash: digest,
	})
	if err != nil {
		return NewToken{}, fmt.Errorf("create token: %w", err)
	}
	return NewToken{Token: row, Secret: secret}, nil
}

func checkTokenRequest(name string, perms []string) *Error {
	if strings.TrimSpace(name) == "" || len(name) > 255 {
		return invalidField("name", "name must be 1 to 255 characters")
	}
	if len(perms) == 0 {
		return invalidField("permissions", "permissions must list at least one of VIEW, TRANSACT, MANAGE")
	}
	seen := map[string]bool{}
	for _, p := range perms {
		if !slices.Contains(permissions, p) {
			return invalidField("permissions", "unknown permission %q (allowed: VIEW, TRANSACT, MANAGE)", p)
		}
		if seen[p] {
			return invalidField("permissions", "permission %s is listed twice", p)
		}
		seen[p] = true
	}
	return nil
}
