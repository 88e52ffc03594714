// Package migrations holds the index schema as numbered SQL files, applied in
// order by the index package: *.sql for SQLite, recorded in PRAGMA
// user_version (SPEC §6), and postgres/*.sql for PostgreSQL, recorded in
// the table grove_schema (SPEC §10).
package migrations

import "embed"

// FS holds the files NNNN_name.sql (SQLite) and postgres/NNNN_name.sql
// (PostgreSQL); NNNN is the schema version they make.
//
//go:embed *.sql postgres/*.sql
var FS embed.FS
