// Package diskfree tells how many bytes may still be written on the file
// system holding a directory: what grove checks before a commit it could
// not fold back into the index (SPEC §6, docs/indexing.md "A full disk"), and
// grove-bench before a run.
//
// # Caveats
//
// The answer is a moment's: other writers may take the room right after.
// Some network and FUSE file systems report no sizes at all; Available
// then says it cannot tell, and callers go ahead.
package diskfree
