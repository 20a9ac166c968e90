package db

// The operations that callers outside this package run on the pool or in a transaction of
// theirs, and this package runs inside its own transactions too: each is the unexported
// operation of the same name, which takes the generated queries, run on d.

import (
	"context"
	"time"

	"github.com/google/uuid"

	"paycore/internal/customer"
	"paycore/internal/platformconfig"
	"paycore/internal/quote"
)

// PlatformSettingsGet runs platformSettingsGet on d: the pool, or a caller's transaction.
func PlatformSettingsGet(ctx context.Context, d DBTX, id uuid.UUID) (platformconfig.Settings, error) {
	return platformSettingsGet(ctx, newQueries(d), id)
}

// CustomerRecordGet runs customerRecordGet on d: the pool, or a caller's transaction.
func CustomerRecordGet(ctx context.Context, d DBTX, platformID, id uuid.UUID) (customer.Record, error) {
	return customerRecordGet(ctx, newQueries(d), platformID, id)
}

// OwnerGetRecord runs ownerGetRecord on d: the pool, or a caller's transaction.
func OwnerGetRecord(ctx context.Context, d DBTX, platformID, id uuid.UUID) (BeneficialOwner, error) {
	return ownerGetRecord(ctx, newQueries(d), platformID, id)
}

// EventRecord runs eventRecord on d: the pool, or a caller's transaction.
func EventRecord(ctx context.Context, d DBTX, platformID uuid.UUID, eventType string, data any, dispatchedAt *time.Time) (WebhookEvent, error) {
	return eventRecord(ctx, newQueries(d), platformID, eventType, data, dispatchedAt)
}

// TokenIssue runs tokenIssue on d: the pool, or a caller's transaction.
func TokenIssue(ctx context.Context, d DBTX, platformID uuid.UUID, name string, perms []string) (IssuedToken, error) {
	return tokenIssue(ctx, newQueries(d), platformID, name, perms)
}

// QuoteAccountsGet runs quoteAccountsGet on d: the pool, or a caller's transaction.
func QuoteAccountsGet(ctx context.Context, d DBTX, r quote.Request) (quote.Accounts, error) {
	return quoteAccountsGet(ctx, newQueries(d), r)
}

// AuthorizeWalletDebit runs authorizeWalletDebit on d: the pool, or a caller's transaction.
func AuthorizeWalletDebit(ctx context.Context, d DBTX, signedRequestID, accountID, txID uuid.UUID, kind string) error {
	return authorizeWalletDebit(ctx, newQueries(d), signedRequestID, accountID, txID, kind)
}

// DocumentsMarkSubmitted runs documentsMarkSubmitted on d: the pool, or a caller's transaction.
func DocumentsMarkSubmitted(ctx context.Context, d DBTX, platformID, customerID uuid.UUID, now time.Time) (int64, error) {
	return documentsMarkSubmitted(ctx, newQueries(d), platformID, customerID, now)
}

// InternalAccountClose runs internalAccountClose on d: the pool, or a caller's transaction.
func InternalAccountClose(ctx context.Context, d DBTX, platformID, id uuid.UUID) error {
	return internalAccountClose(ctx, newQueries(d), platformID, id)
}

// LedgerSystemAccount runs ledgerSystemAccount on d: the pool, or a caller's transaction.
func LedgerSystemAccount(ctx context.Context, d DBTX, platformID uuid.UUID, currency, kind string) (LedgerAccount, error) {
	return ledgerSystemAccount(ctx, newQueries(d), platformID, currency, kind)
}
