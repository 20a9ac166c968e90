-- +goose Up

-- Credentials that authenticate an embedded wallet (internal account) owner.
CREATE TABLE auth_credentials (
    id           uuid PRIMARY KEY,
    platform_id  uuid        NOT NULL REFERENCES platforms (id),
    account_id   uuid        NOT NULL REFERENCES internal_accounts (id),
    type         text        NOT NULL CHECK (type IN ('EMAIL_OTP', 'OAUTH', 'PASSKEY')),
    nickname     text        NOT NULL,
    details      jsonb       NOT NULL DEFAULT '{}',
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    deleted_at   timestamptz
);
CREATE INDEX auth_credentials_account_idx ON auth_credentials (account_id) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX auth_credentials_one_per_type_idx ON auth_credentials (account_id, type)
    WHERE deleted_at IS NULL AND type IN ('EMAIL_OTP', 'PASSKEY');

-- One-time passwords of EMAIL_OTP credentials, stored hashed.
CREATE TABLE auth_otps (
    credential_id uuid PRIMARY KEY REFERENCES auth_credentials (id),
    code_hash     bytea       NOT NULL,
    expires_at    timestamptz NOT NULL,
    attempts      integer     NOT NULL DEFAULT 0,
    sent_at       timestamptz NOT NULL DEFAULT now()
);

-- Sessions: the service keeps only the public half of each session signing key.
CREATE TABLE auth_sessions (
    id            uuid PRIMARY KEY,
    platform_id   uuid        NOT NULL REFERENCES platforms (id),
    account_id    uuid        NOT NULL REFERENCES internal_accounts (id),
    credential_id uuid        NOT NULL REFERENCES auth_credentials (id),
    public_key    bytea       NOT NULL,
    expires_at    timestamptz NOT NULL,
    revoked_at    timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX auth_sessions_account_idx ON auth_sessions (account_id, expires_at);

-- Signed-retry challenges: the exact payloadToSign issued, bound to one request.
CREATE TABLE signed_requests (
    id           uuid PRIMARY KEY,
    platform_id  uuid        NOT NULL REFERENCES platforms (id),
    account_id   uuid        NOT NULL REFERENCES internal_accounts (id),
    kind         text        NOT NULL,
    payload      text        NOT NULL,
    request_hash bytea       NOT NULL,
    expires_at   timestamptz NOT NULL,
    used_at      timestamptz,
    created_at   timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE signed_requests;
DROP TABLE auth_sessions;
DROP TABLE auth_otps;
DROP TABLE auth_credentials;
