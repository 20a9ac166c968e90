-- name: BulkImportJobCreate :one
INSERT INTO bulk_import_jobs (id, platform_id, columns) VALUES ($1, $2, $3)
RETURNING *;

-- name: BulkImportJobSetTotal :one
UPDATE bulk_import_jobs SET total = $2, updated_at = now() WHERE id = $1
RETURNING *;

-- name: BulkImportJobGet :one
SELECT * FROM bulk_import_jobs WHERE platform_id = $1 AND id = $2;

-- name: BulkImportJobRead :one
SELECT * FROM bulk_import_jobs WHERE id = $1;

-- name: BulkImportJobLock :one
SELECT * FROM bulk_import_jobs WHERE id = $1 FOR UPDATE;

-- name: BulkImportJobAdvance :one
-- A batch's progress, guarded by the cursor the batch started from.
UPDATE bulk_import_jobs
SET status       = sqlc.arg(status),
    processed    = processed + sqlc.arg(successful)::integer + sqlc.arg(failed)::integer,
    successful   = successful + sqlc.arg(successful)::integer,
    failed       = failed + sqlc.arg(failed)::integer,
    last_row     = sqlc.arg(last_row),
    completed_at = sqlc.narg(completed_at),
    updated_at   = now()
WHERE id = sqlc.arg(id) AND last_row = sqlc.arg(expected_last_row)
RETURNING *;

-- name: BulkImportJobsPending :many
-- Jobs still waiting for their first batch that were created before a moment: their
-- workflow may never have started.
SELECT id, platform_id FROM bulk_import_jobs
WHERE status = 'PENDING' AND created_at < $1
ORDER BY created_at
LIMIT $2;

-- name: BulkImportJobsStalled :many
-- Jobs under way that have not moved since a moment: their workflow may have been
-- terminated (an operator) or have failed.
SELECT id, platform_id, last_row FROM bulk_import_jobs
WHERE status = 'PROCESSING' AND updated_at < $1
ORDER BY updated_at
LIMIT $2;

-- name: BulkImportRowsNext :many
SELECT row_number, fields FROM bulk_import_rows
WHERE job_id = $1 AND row_number > $2
ORDER BY row_number
LIMIT $3;

-- name: BulkImportRowsDelete :exec
DELETE FROM bulk_import_rows WHERE job_id = $1 AND row_number <= $2;

-- name: BulkImportErrorsCreate :exec
-- The refused rows of a batch, in one statement: element i of each array is row i's
-- (an empty field: the row as a whole is at fault).
INSERT INTO bulk_import_errors (job_id, row_number, code, message, field, correlation_id)
SELECT sqlc.arg(job_id), unnest(sqlc.arg(row_numbers)::integer[]), unnest(sqlc.arg(codes)::text[]),
       unnest(sqlc.arg(messages)::text[]), nullif(unnest(sqlc.arg(fields)::text[]), ''), unnest(sqlc.arg(correlation_ids)::text[]);

-- name: BulkImportErrorList :many
SELECT * FROM bulk_import_errors WHERE job_id = $1 ORDER BY row_number;
