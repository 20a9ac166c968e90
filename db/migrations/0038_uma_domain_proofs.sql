-- +goose Up

-- The token each platform is given for each UMA domain it holds, and when it proved the
-- domain by publishing the token there (platformconfig.ProofPath). Only a proven domain is
-- served.
CREATE TABLE uma_domain_proofs (
    platform_id uuid        NOT NULL REFERENCES platforms (id),
    domain      text        NOT NULL,
    token       text        NOT NULL,
    created_at  timestamptz NOT NULL,
    verified_at timestamptz,
    PRIMARY KEY (platform_id, domain)
);

-- +goose Down
DROP TABLE uma_domain_proofs;
