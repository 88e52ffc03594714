// Package index is grove's SQLite index (SPEC §6): schema migrations from
// package migrations, one transaction per session file (Replace), and the
// queries that answer paths, leaves and branch points with recursive CTEs.
//
// The index holds tree edges, types, roles, timestamps, line numbers, byte
// offsets and a CRC-32 per line, never message bodies: it can be deleted and
// rebuilt from the files at any time.
//
// # Caveats
//
//   - The recursive queries pin their join order (CROSS JOIN) and index
//     (INDEXED BY); see pathQuery for why. TestPath_QueryPlan guards it.
//   - A file that is not a grove index, or one made by a newer grove, is
//     refused and never modified; no pragma that writes runs before that
//     check.
//   - The driver is modernc.org/sqlite (pure Go, no cgo), opened with
//     _txlock=immediate so that writers take the lock when they begin.
package index
