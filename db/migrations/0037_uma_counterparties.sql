-- +goose Up

-- Nonces of signed UMA messages received, per sending provider's domain: each is taken once
-- while its message's timestamp is in the window (uma.MaxMessageAge), then forgotten.
CREATE TABLE uma_nonces (
    domain    text        NOT NULL,
    nonce     text        NOT NULL,
    signed_at timestamptz NOT NULL,
    PRIMARY KEY (domain, nonce)
);
CREATE INDEX uma_nonces_signed_at_idx ON uma_nonces (signed_at);

-- Other providers' published keys (/.well-known/lnurlpubkey), kept until they say to fetch
-- them again (and never longer than uma.PublishedKeysTTL when they say nothing).
CREATE TABLE uma_provider_keys (
    domain     text        PRIMARY KEY,
    response   jsonb       NOT NULL,
    fetched_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
);

-- +goose Down
DROP TABLE uma_provider_keys;
DROP TABLE uma_nonces;
