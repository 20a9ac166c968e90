-- +goose Up

-- Bulk customer imports (POST /customers/bulk/csv). A job's rows are staged at upload, then
-- imported in batches by its BulkImport workflow. Row numbers count the file's records as a
-- spreadsheet shows them: the header is row 1, the first customer row 2. last_row is the
-- cursor, the last row done (1 before the first batch); each batch advances it, with the
-- counts, in the transaction that creates the batch's customers, guarded by its expected
-- previous value.
CREATE TABLE bulk_import_jobs (
    id           uuid PRIMARY KEY,
    platform_id  uuid        NOT NULL REFERENCES platforms (id),
    status       text        NOT NULL DEFAULT 'PENDING'
        CHECK (status IN ('PENDING', 'PROCESSING', 'COMPLETED', 'FAILED')),
    -- The header of the file, its column names in file order.
    columns      text[]      NOT NULL,
    total        integer     NOT NULL DEFAULT 0 CHECK (total >= 0),
    processed    integer     NOT NULL DEFAULT 0,
    successful   integer     NOT NULL DEFAULT 0,
    failed       integer     NOT NULL DEFAULT 0,
    last_row     integer     NOT NULL DEFAULT 1,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    completed_at timestamptz,
    CONSTRAINT bulk_import_jobs_counts CHECK (processed = successful + failed AND processed <= total
        AND last_row = processed + 1),
    CONSTRAINT bulk_import_jobs_completed CHECK ((status IN ('COMPLETED', 'FAILED')) = (completed_at IS NOT NULL)
        AND (status NOT IN ('COMPLETED', 'FAILED') OR processed = total))
);
CREATE INDEX bulk_import_jobs_platform_idx ON bulk_import_jobs (platform_id, id);
-- Jobs whose workflow may never have started (the start failed after the upload committed).
CREATE INDEX bulk_import_jobs_pending_idx ON bulk_import_jobs (created_at) WHERE status = 'PENDING';
-- Jobs under way, by their last progress (a stalled one is resumed by the worker).
CREATE INDEX bulk_import_jobs_processing_idx ON bulk_import_jobs (updated_at) WHERE status = 'PROCESSING';

-- The staged rows of a job, the file's fields as given; a batch deletes the rows it
-- imported. No foreign key: the rows are written by COPY at upload and only ever read by
-- their job's batches.
CREATE TABLE bulk_import_rows (
    job_id     uuid    NOT NULL,
    row_number integer NOT NULL,
    fields     text[]  NOT NULL,
    PRIMARY KEY (job_id, row_number)
);

-- The rows a job could not import (the first ones, up to a cap; the job's failed count has
-- them all).
CREATE TABLE bulk_import_errors (
    job_id         uuid    NOT NULL REFERENCES bulk_import_jobs (id),
    row_number     integer NOT NULL,
    code           text    NOT NULL,
    message        text    NOT NULL,
    field          text,
    correlation_id text    NOT NULL,
    PRIMARY KEY (job_id, row_number)
);

-- +goose Down
DROP TABLE bulk_import_errors;
DROP TABLE bulk_import_rows;
DROP TABLE bulk_import_jobs;
