package ingest

// OnKeep sets what the keeper calls before it appends each block of a
// session file's committed bytes to the kept store (path, offset); an
// error it returns is taken as that write failing (nil: nothing).
func OnKeep(f func(path string, at int64) error) { keepFault = f }
