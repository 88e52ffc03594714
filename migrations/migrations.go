// Package migrations holds the index schema as numbered SQL files, applied in
// order by the index package and recorded in PRAGMA user_version (SPEC §6).
package migrations

import "embed"

// FS holds the files NNNN_name.sql; NNNN is the schema version they make.
//
//go:embed *.sql
var FS embed.FS
