package db

import "paycore/db/internal/gen"

// Queries is the generated query layer (db/internal/gen).
type Queries = gen.Queries

// DBTX is what the queries run on: the pool or a transaction.
type DBTX = gen.DBTX

// New returns the generated queries on d.
func New(d DBTX) *Queries { return gen.New(d) }
