-- +goose Up

-- Platforms are the API clients. Their configuration (PlatformConfig) lives on the same row.
CREATE TABLE platforms (
    id                                 uuid PRIMARY KEY,
    name                               text        NOT NULL,
    environment                        text        NOT NULL CHECK (environment IN ('SANDBOX', 'PRODUCTION')),
    is_regulated_financial_institution boolean     NOT NULL DEFAULT false,
    config_id                          uuid        NOT NULL UNIQUE,
    uma_domain                         text        NOT NULL DEFAULT '',
    proxy_uma_subdomain                text        NOT NULL DEFAULT '',
    webhook_endpoint                   text        NOT NULL DEFAULT '',
    webhook_disabled_at                timestamptz,
    supported_currencies               jsonb       NOT NULL DEFAULT '[]',
    embedded_wallet_config             jsonb,
    created_at                         timestamptz NOT NULL DEFAULT now(),
    updated_at                         timestamptz NOT NULL DEFAULT now()
);

-- API tokens authenticate platforms with HTTP Basic. Only a SHA-256 hash of the
-- (high-entropy, random) secret is kept.
CREATE TABLE api_tokens (
    id          uuid PRIMARY KEY,
    platform_id uuid        NOT NULL REFERENCES platforms (id),
    name        text        NOT NULL,
    permissions text[]      NOT NULL,
    secret_hash bytea       NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    deleted_at  timestamptz
);
CREATE INDEX api_tokens_platform_idx ON api_tokens (platform_id, id) WHERE deleted_at IS NULL;

-- Stored first responses of POST requests that carried an Idempotency-Key.
CREATE TABLE idempotency_keys (
    platform_id      uuid        NOT NULL REFERENCES platforms (id),
    key              text        NOT NULL,
    request_hash     bytea       NOT NULL,
    state            text        NOT NULL CHECK (state IN ('RUNNING', 'DONE')),
    locked_at        timestamptz NOT NULL DEFAULT now(),
    response_status  integer,
    response_headers jsonb,
    response_body    bytea,
    created_at       timestamptz NOT NULL DEFAULT now(),
    expires_at       timestamptz NOT NULL,
    PRIMARY KEY (platform_id, key)
);
CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at);

-- Service-wide key material (the webhook ECDSA signing key), sealed under the master key.
CREATE TABLE service_keys (
    name            text PRIMARY KEY,
    private_sealed  bytea       NOT NULL,
    public_key_pem  text        NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now()
);

-- Per-platform Standard Webhooks HMAC secrets. The newest row signs; a rotated-out
-- secret keeps signing beside it until expires_at so receivers can switch over.
CREATE TABLE webhook_secrets (
    id            uuid PRIMARY KEY,
    platform_id   uuid        NOT NULL REFERENCES platforms (id),
    secret_sealed bytea       NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    expires_at    timestamptz
);
CREATE INDEX webhook_secrets_platform_idx ON webhook_secrets (platform_id, created_at DESC);

-- The webhook outbox: an event is inserted in the same transaction as the change that
-- causes it; the worker's relay starts a delivery workflow for every undispatched row.
CREATE TABLE webhook_events (
    id               uuid PRIMARY KEY,
    platform_id      uuid        NOT NULL REFERENCES platforms (id),
    type             text        NOT NULL,
    data             jsonb       NOT NULL,
    status           text        NOT NULL DEFAULT 'PENDING'
        CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED', 'UNDELIVERABLE')),
    dispatched_at    timestamptz,
    attempt_count    integer     NOT NULL DEFAULT 0,
    last_attempt_at  timestamptz,
    last_status_code integer,
    last_error       text,
    delivered_at     timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_events_undispatched_idx ON webhook_events (created_at) WHERE dispatched_at IS NULL;
CREATE INDEX webhook_events_platform_idx ON webhook_events (platform_id, id);

-- Every delivery attempt, successful or not.
CREATE TABLE webhook_attempts (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id      uuid        NOT NULL REFERENCES webhook_events (id),
    url           text        NOT NULL,
    started_at    timestamptz NOT NULL,
    latency_ms    integer     NOT NULL,
    status_code   integer,
    error         text,
    response_body text        NOT NULL DEFAULT ''
);
CREATE INDEX webhook_attempts_event_idx ON webhook_attempts (event_id, id);

-- NOTIFY fires at commit, so the relay wakes only for committed events.
-- +goose StatementBegin
CREATE FUNCTION webhook_events_notify() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('webhook_events', '');
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
-- +goose StatementEnd
CREATE TRIGGER webhook_events_notify AFTER INSERT ON webhook_events
    FOR EACH STATEMENT EXECUTE FUNCTION webhook_events_notify();

-- The UMA providers a platform can discover (seeded below).
CREATE TABLE uma_providers (
    id                   uuid PRIMARY KEY,
    name                 text    NOT NULL,
    domain               text    NOT NULL UNIQUE,
    logo_url             text    NOT NULL,
    supported_regions    text[]  NOT NULL,
    supported_currencies text[]  NOT NULL,
    lei                  text    NOT NULL,
    allow_list_status    boolean NOT NULL
);

INSERT INTO uma_providers (id, name, domain, logo_url, supported_regions, supported_currencies, lei, allow_list_status) VALUES
 ('0190a000-0000-7000-8000-000000000001', 'Aurora Pay',      'aurorapay.example',    'https://aurorapay.example/logo.png',    '{US,CA}',       '{USD,CAD}',          '5493001KJTIIGC8Y1R12', true),
 ('0190a000-0000-7000-8000-000000000002', 'Banco Puente',    'bancopuente.example',  'https://bancopuente.example/logo.png',  '{MX}',          '{MXN,USD}',          '549300MXPUENTE000001', true),
 ('0190a000-0000-7000-8000-000000000003', 'Cambio Rapido',   'cambiorapido.example', 'https://cambiorapido.example/logo.png', '{MX,GT}',       '{MXN,GTQ}',          '549300CAMBIO00000002', false),
 ('0190a000-0000-7000-8000-000000000004', 'Danube Wallet',   'danube.example',       'https://danube.example/logo.png',       '{DE,AT,FR}',    '{EUR}',              '529900DANUBE00000003', true),
 ('0190a000-0000-7000-8000-000000000005', 'Equator Money',   'equator.example',      'https://equator.example/logo.png',      '{KE,UG,TZ}',    '{KES,UGX,TZS}',      '549300EQUATOR0000004', true),
 ('0190a000-0000-7000-8000-000000000006', 'Fjord Bank',      'fjordbank.example',    'https://fjordbank.example/logo.png',    '{DK}',          '{DKK,EUR}',          '549300FJORD000000005', false),
 ('0190a000-0000-7000-8000-000000000007', 'Ganges Remit',    'gangesremit.example',  'https://gangesremit.example/logo.png',  '{IN}',          '{INR}',              '335800GANGES00000006', true),
 ('0190a000-0000-7000-8000-000000000008', 'Harbour Finance', 'harbour.example',      'https://harbour.example/logo.png',      '{GB}',          '{GBP,EUR}',          '213800HARBOUR000007', true),
 ('0190a000-0000-7000-8000-000000000009', 'Ipanema Pagos',   'ipanema.example',      'https://ipanema.example/logo.png',      '{BR}',          '{BRL}',              '549300IPANEMA000008', true),
 ('0190a000-0000-7000-8000-00000000000a', 'Jade Transfer',   'jadetransfer.example', 'https://jadetransfer.example/logo.png', '{PH,SG}',       '{PHP,SGD}',          '549300JADE0000000009', false),
 ('0190a000-0000-7000-8000-00000000000b', 'Kilimanjaro Pay', 'kilipay.example',      'https://kilipay.example/logo.png',      '{TZ}',          '{TZS}',              '549300KILI000000010', true),
 ('0190a000-0000-7000-8000-00000000000c', 'Lagos Link',      'lagoslink.example',    'https://lagoslink.example/logo.png',    '{NG}',          '{NGN,USD}',          '549300LAGOS00000011', true),
 ('0190a000-0000-7000-8000-00000000000d', 'Maple Credit',    'maplecredit.example',  'https://maplecredit.example/logo.png',  '{CA}',          '{CAD}',              '549300MAPLE00000012', true),
 ('0190a000-0000-7000-8000-00000000000e', 'Nordlys Wallet',  'nordlys.example',      'https://nordlys.example/logo.png',      '{DK,DE}',       '{DKK,EUR,USDC}',     '549300NORDLYS000013', false),
 ('0190a000-0000-7000-8000-00000000000f', 'Orinoco Cash',    'orinoco.example',      'https://orinoco.example/logo.png',      '{CO}',          '{COP,USD}',          '549300ORINOCO000014', true),
 ('0190a000-0000-7000-8000-000000000010', 'Pacific Rails',   'pacificrails.example', 'https://pacificrails.example/logo.png', '{US,MX,PH}',    '{USD,MXN,PHP,USDC}', '549300PACIFIC000015', true),
 ('0190a000-0000-7000-8000-000000000011', 'Quetzal Money',   'quetzal.example',      'https://quetzal.example/logo.png',      '{GT}',          '{GTQ,USD}',          '549300QUETZAL000016', true),
 ('0190a000-0000-7000-8000-000000000012', 'Rand Direct',     'randdirect.example',   'https://randdirect.example/logo.png',   '{ZA}',          '{ZAR}',              '378900RAND000000017', false),
 ('0190a000-0000-7000-8000-000000000013', 'Saigon Send',     'saigonsend.example',   'https://saigonsend.example/logo.png',   '{VN}',          '{VND}',              '549300SAIGON0000018', true),
 ('0190a000-0000-7000-8000-000000000014', 'Thames Pay',      'thamespay.example',    'https://thamespay.example/logo.png',    '{GB,IE}',       '{GBP,EUR}',          '213800THAMES0000019', true),
 ('0190a000-0000-7000-8000-000000000015', 'Uhuru Mobile',    'uhuru.example',        'https://uhuru.example/logo.png',        '{KE}',          '{KES}',              '549300UHURU00000020', true),
 ('0190a000-0000-7000-8000-000000000016', 'Vltava Banka',    'vltava.example',       'https://vltava.example/logo.png',       '{CZ}',          '{CZK,EUR}',          '315700VLTAVA0000021', false),
 ('0190a000-0000-7000-8000-000000000017', 'Wahoo Wallet',    'wahoo.example',        'https://wahoo.example/logo.png',        '{US}',          '{USD,USDC,BTC}',     '549300WAHOO00000022', true),
 ('0190a000-0000-7000-8000-000000000018', 'Zambezi Pay',     'zambezi.example',      'https://zambezi.example/logo.png',      '{ZM,MW,BW}',    '{ZMW,MWK,BWP}',      '549300ZAMBEZI000023', true);

-- +goose Down
DROP TABLE uma_providers;
DROP TRIGGER webhook_events_notify ON webhook_events;
DROP FUNCTION webhook_events_notify();
DROP TABLE webhook_attempts;
DROP TABLE webhook_events;
DROP TABLE webhook_secrets;
DROP TABLE service_keys;
DROP TABLE idempotency_keys;
DROP TABLE api_tokens;
DROP TABLE platforms;
