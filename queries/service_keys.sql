-- name: ServiceKeyInsert :exec
INSERT INTO service_keys (name, private_sealed, public_key_pem)
VALUES ($1, $2, $3)
ON CONFLICT (name) DO NOTHING;

-- name: ServiceKeyGet :one
SELECT * FROM service_keys WHERE name = $1;
