package db

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/internal/extaccount"
	"paycore/internal/ids"
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
			BeneficiaryVerificationStatus: n.VerificationStatus, BeneficiaryVerifiedName: n.VerifiedName})
		if err != nil {
			return MapConstraint(fmt.Errorf("create external account: %w", err))
		}
		return nil
	})
	return out, err
}
