-- name: DocumentInsert :one
INSERT INTO documents (id, platform_id, holder_kind, holder_id, customer_id, document_type, side, country,
                       document_number, issuing_authority, file_name, content_type, size_bytes, blob_key)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
RETURNING *;

-- name: DocumentGet :one
SELECT * FROM documents WHERE platform_id = $1 AND id = $2;

-- name: DocumentGetForUpdate :one
SELECT * FROM documents WHERE platform_id = $1 AND id = $2 FOR UPDATE;

-- name: DocumentReplace :one
-- Replaces the file and the metadata of a document not yet submitted for verification.
UPDATE documents
SET document_type = $3, side = $4, country = $5, document_number = $6, issuing_authority = $7,
    file_name = $8, content_type = $9, size_bytes = $10, blob_key = $11, updated_at = now()
WHERE platform_id = $1 AND id = $2 AND submitted_at IS NULL
RETURNING *;

-- name: DocumentDelete :exec
DELETE FROM documents WHERE platform_id = $1 AND id = $2;

-- name: DocumentMarkSubmittedByCustomer :execrows
-- Marks every document of a customer and of its beneficial owners that is not yet
-- submitted as taken in by a verification.
UPDATE documents SET submitted_at = sqlc.arg(now)::timestamptz
WHERE platform_id = $1 AND customer_id = $2 AND submitted_at IS NULL;

-- name: DocumentsOfCustomer :many
-- Every document of a customer and of its beneficial owners, as a verification checks them.
SELECT id, holder_id, document_type FROM documents WHERE platform_id = $1 AND customer_id = $2 ORDER BY id;

-- name: DocumentsOfSlot :many
-- The documents in one slot of the hosted KYC page: a holder's documents of one type
-- without a side, locked for their replacement.
SELECT id, blob_key FROM documents
WHERE platform_id = @platform_id AND holder_id = @holder_id AND document_type = @document_type AND side IS NULL
ORDER BY id FOR UPDATE;

-- name: DocumentCountOfCustomer :one
-- How many documents a customer and its beneficial owners hold.
SELECT count(*) FROM documents WHERE platform_id = @platform_id AND customer_id = @customer_id;

-- name: DocumentsLockOfCustomer :exec
-- Serializes the writes that add documents to one customer (and its owners) until the
-- transaction ends, so a count taken under it stays true.
SELECT pg_advisory_xact_lock(hashtextextended(@customer_id::text, 21));
