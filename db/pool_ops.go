package db

// The operations the API runs on the pool: each is the operation of the same name without the
// Pool suffix, which takes the queries of a caller's transaction, run on pool.

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/internal/agent"
	"paycore/internal/customer"
	"paycore/internal/platformconfig"
	"paycore/internal/quote"
)

// AgentsWithUsagePool is AgentsWithUsage on pool.
func AgentsWithUsagePool(ctx context.Context, pool *pgxpool.Pool, now time.Time, agents ...Agent) ([]AgentWithUsage, error) {
	return AgentsWithUsage(ctx, New(pool), now, agents...)
}

// AgentUpdatePool is AgentUpdate on pool.
func AgentUpdatePool(ctx context.Context, pool *pgxpool.Pool, platformID, id uuid.UUID, c AgentChange) (Agent, error) {
	return AgentUpdate(ctx, New(pool), platformID, id, c)
}

// AgentDeletePool is AgentDelete on pool.
func AgentDeletePool(ctx context.Context, pool *pgxpool.Pool, platformID, id uuid.UUID) error {
	return AgentDelete(ctx, New(pool), platformID, id)
}

// RateLimitHitPool is RateLimitHit on pool.
func RateLimitHitPool(ctx context.Context, pool *pgxpool.Pool, key string, window time.Duration) (agent.Counted, error) {
	return RateLimitHit(ctx, New(pool), key, window)
}

// AgentGetLivePool is AgentGetLive on pool.
func AgentGetLivePool(ctx context.Context, pool *pgxpool.Pool, platformID, id uuid.UUID) (Agent, error) {
	return AgentGetLive(ctx, New(pool), platformID, id)
}

// PlatformSettingsGetPool is PlatformSettingsGet on pool.
func PlatformSettingsGetPool(ctx context.Context, pool *pgxpool.Pool, id uuid.UUID) (platformconfig.Settings, error) {
	return PlatformSettingsGet(ctx, New(pool), id)
}

// BulkImportReportGetPool is BulkImportReportGet on pool.
func BulkImportReportGetPool(ctx context.Context, pool *pgxpool.Pool, platformID, id uuid.UUID) (BulkImportReport, error) {
	return BulkImportReportGet(ctx, New(pool), platformID, id)
}

// CustomerRecordGetPool is CustomerRecordGet on pool.
func CustomerRecordGetPool(ctx context.Context, pool *pgxpool.Pool, platformID, id uuid.UUID) (customer.Record, error) {
	return CustomerRecordGet(ctx, New(pool), platformID, id)
}

// CustomerDeletePool is CustomerDelete on pool.
func CustomerDeletePool(ctx context.Context, pool *pgxpool.Pool, platformID, id uuid.UUID) (Customer, error) {
	return CustomerDelete(ctx, New(pool), platformID, id)
}

// OwnerGetRecordPool is OwnerGetRecord on pool.
func OwnerGetRecordPool(ctx context.Context, pool *pgxpool.Pool, platformID, id uuid.UUID) (BeneficialOwner, error) {
	return OwnerGetRecord(ctx, New(pool), platformID, id)
}

// KycLinkSubjectGetPool is KycLinkSubjectGet on pool.
func KycLinkSubjectGetPool(ctx context.Context, pool *pgxpool.Pool, token string) (KycLinkSubject, error) {
	return KycLinkSubjectGet(ctx, New(pool), token)
}

// TransferOwnerGetPool is TransferOwnerGet on pool.
func TransferOwnerGetPool(ctx context.Context, pool *pgxpool.Pool, platformID, internalID uuid.UUID) (TransferOwner, error) {
	return TransferOwnerGet(ctx, New(pool), platformID, internalID)
}

// EventRecordPool is EventRecord on pool.
func EventRecordPool(ctx context.Context, pool *pgxpool.Pool, platformID uuid.UUID, eventType string, data any, dispatched bool) (WebhookEvent, error) {
	return EventRecord(ctx, New(pool), platformID, eventType, data, dispatched)
}

// WebhookEventAttemptsGetPool is WebhookEventAttemptsGet on pool.
func WebhookEventAttemptsGetPool(ctx context.Context, pool *pgxpool.Pool, platformID, id uuid.UUID) (WebhookEventAttempts, error) {
	return WebhookEventAttemptsGet(ctx, New(pool), platformID, id)
}

// WebhookEventForRedeliveryPool is WebhookEventForRedelivery on pool.
func WebhookEventForRedeliveryPool(ctx context.Context, pool *pgxpool.Pool, platformID, id uuid.UUID) (WebhookEvent, error) {
	return WebhookEventForRedelivery(ctx, New(pool), platformID, id)
}

// TokenIssuePool is TokenIssue on pool.
func TokenIssuePool(ctx context.Context, pool *pgxpool.Pool, platformID uuid.UUID, name string, perms []string) (IssuedToken, error) {
	return TokenIssue(ctx, New(pool), platformID, name, perms)
}

// QuoteAccountsGetPool is QuoteAccountsGet on pool.
func QuoteAccountsGetPool(ctx context.Context, pool *pgxpool.Pool, r quote.Request) (quote.Accounts, error) {
	return QuoteAccountsGet(ctx, New(pool), r)
}

// AgentActionReadPool is AgentActionRead on pool.
func AgentActionReadPool(ctx context.Context, pool *pgxpool.Pool, id uuid.UUID) (AgentActionFull, error) {
	return AgentActionRead(ctx, New(pool), id)
}

// AgentActionGetFullPool is AgentActionGetFull on pool.
func AgentActionGetFullPool(ctx context.Context, pool *pgxpool.Pool, platformID, agentID, id uuid.UUID) (AgentActionFull, error) {
	return AgentActionGetFull(ctx, New(pool), platformID, agentID, id)
}
