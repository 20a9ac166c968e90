package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/ownership"
)

func ownerOf(t ownership.Target) db.ExternalAccountOwner {
	return db.ExternalAccountOwner{PlatformID: t.PlatformID, ID: t.AccountID, PlatformOwned: t.PlatformOwned, Customer: t.Customer}
}

// StartOwnershipChallenge issues a challenge of method m for the wallet t names
// (ownership.Start), replacing any outstanding one; the challenge is the result.
func (a *Activities) StartOwnershipChallenge(ctx context.Context, t ownership.Target, m ownership.Method) (ownership.Challenge, error) {
	nonce := ids.New().String()
	_, ch, err := a.store.OwnershipChallengeStart(ctx, ownerOf(t), func(acc ownership.Account) (ownership.Challenge, error) {
		return ownership.Start(acc, m, nonce, a.now())
	})
	return ch, refusal(err)
}

// VerifyOwnership decides the answer r to the WALLET_SIGNATURE challenge of the wallet t
// names (ownership.Verify): the result is the ExternalAccount resource, ACTIVE. A failed
// proof leaves the account UNVERIFIED and is refused.
func (a *Activities) VerifyOwnership(ctx context.Context, t ownership.Target, r ownership.Answer) (json.RawMessage, error) {
	out, err := a.store.OwnershipAnswer(ctx, ownerOf(t), func(acc ownership.Account) (catalog.ExternalAccountStatus, error) {
		return ownership.Verify(acc, r, t.Sandbox, a.now())
	})
	if err != nil {
		return nil, refusal(err)
	}
	res, err := json.Marshal(view.ExternalAccountOf(out))
	if err != nil {
		return nil, fmt.Errorf("render external account: %w", err)
	}
	return res, nil
}

// DecideLiveness applies the verdict of the liveness check issued with the challenge
// expiring at expiresAt, as the provider of the rail that serves the account gives it
// (rail.LivenessChecker: the sandbox's is a magic ending), unless that challenge was
// replaced or answered meanwhile. With no such provider any more (the configuration
// changed), nothing is decided: the challenge expires. It reports whether the account
// changed.
func (a *Activities) DecideLiveness(ctx context.Context, accountID uuid.UUID, expiresAt time.Time) (bool, error) {
	target, address, err := db.ExternalAccountRoute(ctx, a.pool, accountID)
	if err != nil {
		return false, err
	}
	checker, ok := a.rails.LivenessChecker(target)
	if !ok {
		return false, nil
	}
	passed, err := checker.LivenessPasses(ctx, address)
	if err != nil {
		return false, fmt.Errorf("ask the liveness verdict: %w", err)
	}
	_, changed, err := a.store.OwnershipLivenessDecide(ctx, accountID, func(acc ownership.Account) (catalog.ExternalAccountStatus, bool) {
		return ownership.LivenessDecision(acc, expiresAt, passed)
	})
	return changed, err
}
