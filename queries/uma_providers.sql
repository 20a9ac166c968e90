-- name: UmaProviderList :many
SELECT * FROM uma_providers
WHERE (sqlc.narg(country)::text IS NULL OR sqlc.narg(country) = ANY(supported_regions))
  AND (sqlc.narg(currency)::text IS NULL OR sqlc.narg(currency) = ANY(supported_currencies))
  AND (@include_blocked::boolean OR allow_list_status)
  AND (sqlc.narg(after_name)::text IS NULL
       OR (@ascending::boolean AND (name, id) > (sqlc.narg(after_name), sqlc.narg(after_id)::uuid))
       OR (NOT @ascending::boolean AND (name, id) < (sqlc.narg(after_name), sqlc.narg(after_id)::uuid)))
ORDER BY
  CASE WHEN @ascending::boolean THEN name END ASC,
  CASE WHEN @ascending::boolean THEN id END ASC,
  CASE WHEN NOT @ascending::boolean THEN name END DESC,
  CASE WHEN NOT @ascending::boolean THEN id END DESC
LIMIT @row_limit;

-- name: UmaProviderCount :one
SELECT count(*) FROM uma_providers
WHERE (sqlc.narg(country)::text IS NULL OR sqlc.narg(country) = ANY(supported_regions))
  AND (sqlc.narg(currency)::text IS NULL OR sqlc.narg(currency) = ANY(supported_currencies))
  AND (@include_blocked::boolean OR allow_list_status);
