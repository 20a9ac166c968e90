-- name: InvitationInviter :one
-- What creating an invitation reads: the platform's UMA domain and its customer (not
-- deleted) with the inviter's UMA address, if any.
SELECT p.uma_domain, c.id AS customer_id, coalesce(c.currencies, '{}'::text[])::text[] AS currencies
FROM platforms p
LEFT JOIN customers c ON c.platform_id = p.id AND c.uma_address = @inviter_uma::text AND NOT c.is_deleted
WHERE p.id = @platform_id;

-- name: InvitationInsert :exec
INSERT INTO invitations (code, platform_id, inviter_customer_id, inviter_uma, first_name, amount_to_send, currency, url, expires_at)
VALUES (@code, @platform_id, @inviter_customer_id, @inviter_uma, @first_name, @amount_to_send, @currency, @url, @expires_at);

-- name: InvitationGet :one
-- An invitation as a platform of environment sees it: invitations are shared between the
-- platforms of one environment, another environment's are not found.
SELECT i.* FROM invitations i JOIN platforms p ON p.id = i.platform_id
WHERE i.code = @code AND p.environment = @environment;

-- name: InvitationLock :one
-- InvitationGet, locked for a claim or cancellation.
SELECT i.* FROM invitations i JOIN platforms p ON p.id = i.platform_id
WHERE i.code = @code AND p.environment = @environment
FOR UPDATE OF i;

-- name: InvitationGetByCode :one
SELECT * FROM invitations WHERE code = @code;

-- name: InvitationMarkClaimed :one
UPDATE invitations SET status = 'CLAIMED', invitee_uma = @invitee_uma, claimed_by_platform_id = @claimed_by_platform_id,
                       claimed_at = @now::timestamptz, end_key = @end_key, updated_at = now()
WHERE code = @code AND status = 'PENDING'
RETURNING *;

-- name: InvitationMarkCancelled :one
UPDATE invitations SET status = 'CANCELLED', cancelled_at = @now::timestamptz, end_key = @end_key, updated_at = now()
WHERE code = @code AND status = 'PENDING'
RETURNING *;

-- name: InvitationMarkExpired :one
UPDATE invitations SET status = 'EXPIRED', updated_at = now()
WHERE code = @code AND status = 'PENDING'
RETURNING *;

-- name: InvitationInvitee :one
-- Whether the invitee's address is one of the claiming platform's (not deleted) customers.
SELECT EXISTS (SELECT 1 FROM customers WHERE platform_id = @platform_id AND uma_address = @invitee_uma::text AND NOT is_deleted);
