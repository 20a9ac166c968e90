-- +goose Up

-- UMA invitations. The code is the key: invitations are shared between the platforms of
-- one environment (the invitee's platform reads and claims them), so they are found by
-- code, never by a platform's id. Only the creating platform (platform_id) may cancel one.
-- amount_to_send is shown, never moved, in currency (the inviter customer's first).
CREATE TABLE invitations (
    code                   text PRIMARY KEY,
    platform_id            uuid        NOT NULL REFERENCES platforms (id),
    inviter_customer_id    uuid        NOT NULL REFERENCES customers (id),
    inviter_uma            text        NOT NULL,
    first_name             text,
    amount_to_send         bigint,
    currency               text,
    url                    text        NOT NULL,
    status                 text        NOT NULL DEFAULT 'PENDING'
        CHECK (status IN ('PENDING', 'CLAIMED', 'EXPIRED', 'CANCELLED')),
    invitee_uma            text,
    claimed_by_platform_id uuid REFERENCES platforms (id),
    claimed_at             timestamptz,
    cancelled_at           timestamptz,
    -- The request that claimed or cancelled it: a repeat of that request (its answer lost)
    -- is answered with the invitation, any other is refused.
    end_key                text,
    expires_at             timestamptz,
    created_at             timestamptz NOT NULL DEFAULT now(),
    updated_at             timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT invitations_amount CHECK ((amount_to_send IS NULL) = (currency IS NULL) AND (amount_to_send IS NULL OR amount_to_send > 0)),
    CONSTRAINT invitations_claimed CHECK ((status = 'CLAIMED') = (claimed_at IS NOT NULL)
        AND (status = 'CLAIMED') = (invitee_uma IS NOT NULL) AND (status = 'CLAIMED') = (claimed_by_platform_id IS NOT NULL)),
    CONSTRAINT invitations_cancelled CHECK ((status = 'CANCELLED') = (cancelled_at IS NOT NULL)),
    CONSTRAINT invitations_end_key CHECK ((status IN ('CLAIMED', 'CANCELLED')) = (end_key IS NOT NULL))
);
CREATE INDEX invitations_platform_idx ON invitations (platform_id, created_at);

-- +goose Down
DROP TABLE invitations;
