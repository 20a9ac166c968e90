-- +goose Up

-- The deployment's UMA keys (UMAD-02): a signing key and an encryption key, sealed under the
-- master key, each with the self-signed certificate /.well-known/lnurlpubkey publishes. One
-- set is current (retired_at NULL); rotating retires it, and a retired set still decrypts
-- for a while what was encrypted to it from a provider's cache.
CREATE TABLE uma_keys (
    id                uuid        PRIMARY KEY,
    signing_sealed    bytea       NOT NULL,
    signing_cert      bytea       NOT NULL,
    encryption_sealed bytea       NOT NULL,
    encryption_cert   bytea       NOT NULL,
    not_after         timestamptz NOT NULL,
    created_at        timestamptz NOT NULL,
    retired_at        timestamptz
);
CREATE UNIQUE INDEX uma_keys_current_idx ON uma_keys ((true)) WHERE retired_at IS NULL;

-- +goose Down
DROP TABLE uma_keys;
