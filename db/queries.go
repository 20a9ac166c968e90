package db

import "paycore/db/internal/gen"

// queries is the generated query layer (db/internal/gen). It stays inside this package:
// callers elsewhere run db's named operations.
type queries = gen.Queries

// DBTX is what a db operation runs on: the pool, or a caller's transaction (pgx.Tx).
type DBTX = gen.DBTX

// newQueries returns the generated queries on d.
func newQueries(d DBTX) *queries { return gen.New(d) }
