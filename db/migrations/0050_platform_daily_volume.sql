-- +goose Up

-- What each platform sent in each currency on each UTC day, counted when a payment is held
-- (a transfer out created, a quote executed), against the deployment's daily volume limit
-- (PAYCORE_PAYMENT_LIMITS). Only currencies with such a limit are counted.
CREATE TABLE platform_daily_volumes (
    platform_id uuid   NOT NULL REFERENCES platforms (id),
    currency    text   NOT NULL,
    day         date   NOT NULL,
    amount      bigint NOT NULL CHECK (amount >= 0),
    PRIMARY KEY (platform_id, currency, day)
);

-- +goose Down
DROP TABLE platform_daily_volumes;
