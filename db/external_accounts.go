package db

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/internal/catalog"
	"paycore/internal/events"
	"paycore/internal/extaccount"
	"paycore/internal/ids"
	"paycore/internal/ownership"
	"paycore/internal/rail"
)

// ExternalAccountAdd registers a checked external account of a platform in one
// transaction: a customer's new default UMA deposit account first clears the previous
// default. An account already registered for the same owner is refused
// (EXTERNAL_ACCOUNT_EXISTS) and nothing is written.
func ExternalAccountAdd(ctx context.Context, pool *pgxpool.Pool, platformID uuid.UUID, n extaccount.New) (ExternalAccount, error) {
	var out ExternalAccount
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		if n.Default {
			if err := q.ExternalAccountClearDefault(ctx, n.CustomerID); err != nil {
				return fmt.Errorf("clear default account: %w", err)
			}
		}
		var err error
		out, err = q.ExternalAccountCreate(ctx, ExternalAccountCreateParams{ID: ids.New(), PlatformID: platformID, CustomerID: n.CustomerID,
			Currency: n.Currency, AccountType: n.Info.AccountType, AccountInfo: n.Info.Normalized, Identifier: n.Info.Identifier,
			PlatformAccountID: n.PlatformAccountID, DefaultUmaDepositAccount: n.Default,
			BeneficiaryVerificationStatus: n.VerificationStatus, BeneficiaryVerifiedName: n.VerifiedName,
			OwnershipType: optional(n.Ownership), Status: optional(string(n.Status))})
		if err != nil {
			return MapConstraint(fmt.Errorf("create external account: %w", err))
		}
		return nil
	})
	return out, err
}

// ExternalAccountOwner names the external account a request may reach: the platform's, a
// platform's own one (PlatformOwned) or a customer's, and, when Customer is valid, that
// customer's only (an agent's).
type ExternalAccountOwner struct {
	PlatformID    uuid.UUID
	ID            uuid.UUID
	PlatformOwned bool
	Customer      uuid.NullUUID
}

// lock locks the account o names; one it does not reach is EXTERNAL_ACCOUNT_NOT_FOUND.
func (o ExternalAccountOwner) lock(ctx context.Context, q *queries) (ExternalAccount, error) {
	cur, err := q.ExternalAccountLockForOwnership(ctx, ExternalAccountLockForOwnershipParams{
		PlatformID: o.PlatformID, ID: o.ID, PlatformOwned: o.PlatformOwned, CustomerID: o.Customer})
	if IsNotFound(err) {
		return cur, extaccount.NotFound()
	}
	if err != nil {
		return cur, fmt.Errorf("lock external account: %w", err)
	}
	return cur, nil
}

// OwnershipOf is what the ownership rules read of an external account row.
func OwnershipOf(e ExternalAccount) ownership.Account {
	a := ownership.Account{Status: e.Status, AccountType: e.AccountType, Address: e.Identifier}
	if e.OwnershipType != nil {
		a.Ownership = ownership.Type(*e.OwnershipType)
	}
	var info struct {
		VaspName *string `json:"vaspName"`
	}
	_ = json.Unmarshal(e.AccountInfo, &info) // stored by Parse: an object
	a.Custodial = info.VaspName != nil
	if e.OwnershipMethod != nil && e.OwnershipExpiresAt != nil {
		a.Challenge = &ownership.Challenge{Method: ownership.Method(*e.OwnershipMethod), ExpiresAt: *e.OwnershipExpiresAt}
		if e.OwnershipMessage != nil {
			a.Challenge.Message = *e.OwnershipMessage
		}
	}
	return a
}

// OwnershipChallengeStart records the challenge decide issues for the external account o
// names (under its lock): it is the one outstanding, replacing any other, and the account
// is PENDING_OWNERSHIP_VERIFICATION (an EXTERNAL_ACCOUNT_STATUS_UPDATED event when it was
// UNVERIFIED). Nothing is written when decide refuses. An account o does not reach is
// EXTERNAL_ACCOUNT_NOT_FOUND.
func (s Store) OwnershipChallengeStart(ctx context.Context, o ExternalAccountOwner,
	decide func(ownership.Account) (ownership.Challenge, error)) (ExternalAccount, ownership.Challenge, error) {
	var out ExternalAccount
	var ch ownership.Challenge
	err := withTx(ctx, s.pool, func(q *queries, _ pgx.Tx) error {
		cur, err := o.lock(ctx, q)
		if err != nil {
			return err
		}
		if ch, err = decide(OwnershipOf(cur)); err != nil {
			return err
		}
		if out, err = s.ownershipWrite(ctx, q, cur, catalog.ExternalPendingOwnership, &ch); err != nil {
			return err
		}
		ch = *OwnershipOf(out).Challenge // as stored (the database keeps microseconds)
		return nil
	})
	return out, ch, err
}

// OwnershipAnswer decides an answer to the outstanding challenge of the external account o
// names (under its lock): decide returns the account's new status and the refusal to
// answer with. A status is written with the challenge used up (and an
// EXTERNAL_ACCOUNT_STATUS_UPDATED event) even when decide refuses; a refusal without a
// status writes nothing.
func (s Store) OwnershipAnswer(ctx context.Context, o ExternalAccountOwner,
	decide func(ownership.Account) (catalog.ExternalAccountStatus, error)) (ExternalAccount, error) {
	var out ExternalAccount
	var refusal error
	err := withTx(ctx, s.pool, func(q *queries, _ pgx.Tx) error {
		cur, err := o.lock(ctx, q)
		if err != nil {
			return err
		}
		status, why := decide(OwnershipOf(cur))
		if status == "" {
			return why
		}
		refusal = why
		out, err = s.ownershipWrite(ctx, q, cur, status, nil)
		return err
	})
	if err != nil {
		return out, err
	}
	return out, refusal
}

// OwnershipLivenessDecide applies the outcome of a liveness check of the external account
// id (ownership.LivenessDecision through decide, under its lock); ok is false when nothing
// changed (the check was replaced, the account verified or deleted meanwhile).
func (s Store) OwnershipLivenessDecide(ctx context.Context, id uuid.UUID,
	decide func(ownership.Account) (catalog.ExternalAccountStatus, bool)) (ExternalAccount, bool, error) {
	var out ExternalAccount
	var changed bool
	err := withTx(ctx, s.pool, func(q *queries, _ pgx.Tx) error {
		cur, err := q.ExternalAccountLockByID(ctx, id)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("lock external account: %w", err)
		}
		status, ok := decide(OwnershipOf(cur))
		if !ok {
			return nil
		}
		changed = true
		out, err = s.ownershipWrite(ctx, q, cur, status, nil)
		return err
	})
	return out, changed, err
}

// ownershipWrite sets cur's status and outstanding challenge (nil: none), with an
// EXTERNAL_ACCOUNT_STATUS_UPDATED event when the status changes.
func (s Store) ownershipWrite(ctx context.Context, q *queries, cur ExternalAccount, status catalog.ExternalAccountStatus, ch *ownership.Challenge) (ExternalAccount, error) {
	p := ExternalAccountSetOwnershipParams{ID: cur.ID, Status: string(status)}
	if ch != nil {
		m := string(ch.Method)
		p.OwnershipMethod, p.OwnershipMessage, p.OwnershipExpiresAt = &m, optional(ch.Message), &ch.ExpiresAt
	}
	out, err := q.ExternalAccountSetOwnership(ctx, p)
	if err != nil {
		return out, fmt.Errorf("record ownership of external account: %w", err)
	}
	if out.Status != cur.Status {
		if _, err := eventRecord(ctx, q, out.PlatformID, events.ExternalAccountStatusUpdated, s.views.ExternalAccount(out), nil); err != nil {
			return out, err
		}
	}
	return out, nil
}

// ExternalAccountRoute is what routes payments to the external account id to a rail
// (ExternalAccountTarget), and its primary identifier (a wallet's address).
func ExternalAccountRoute(ctx context.Context, d DBTX, id uuid.UUID) (rail.Target, string, error) {
	q := newQueries(d)
	e, err := q.ExternalAccountGetByID(ctx, id)
	if err != nil {
		return rail.Target{}, "", fmt.Errorf("load external account: %w", err)
	}
	p, err := q.PlatformGet(ctx, e.PlatformID)
	if err != nil {
		return rail.Target{}, "", fmt.Errorf("load platform: %w", err)
	}
	return ExternalAccountTarget(e, p.Environment), e.Identifier, nil
}

// ExternalAccountTarget is what routes payments to external account e of a platform of
// environment env to a rail: the environment, its platform, its currency and its type.
func ExternalAccountTarget(e ExternalAccount, env catalog.Environment) rail.Target {
	return rail.Target{Environment: env, Platform: e.PlatformID, Currency: e.Currency, Kind: rail.ExternalAccount, AccountType: e.AccountType}
}
