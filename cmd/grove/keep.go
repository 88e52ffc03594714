package main

import (
	"fmt"
	"os"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/plural"

	"github.com/urfave/cli/v2"
)

// keepFlag is --no-keep of the commands that write the index: no copy of
// the session files' committed bytes in the kept store (SPEC §11).
func keepFlag() cli.Flag {
	return &cli.BoolFlag{Name: "no-keep",
		Usage: "keep no copy of the session files' committed bytes beside the index (also GROVE_KEEP=0); a session whose file is gone then leaves the index"}
}

// keepOn is whether the kept store is written: not with --no-keep, nor
// with GROVE_KEEP=0 (or false, no, off).
func keepOn(noKeep bool) bool {
	if noKeep {
		return false
	}
	switch os.Getenv("GROVE_KEEP") {
	case "0", "false", "no", "off":
		return false
	}
	return true
}

// checkKeepEnv refuses a GROVE_KEEP that says neither yes nor no: a typo
// must not keep (or not keep) against the user's intent silently.
func checkKeepEnv() error {
	switch os.Getenv("GROVE_KEEP") {
	case "", "0", "false", "no", "off", "1", "true", "yes", "on":
		return nil
	}
	return usagef("GROVE_KEEP=%q: want 0 (or false, no, off) to keep no copy, 1 (or true, yes, on) or unset to keep one", os.Getenv("GROVE_KEEP"))
}

// keptLine is what the kept store costs, as `grove sessions` says it under
// its table when a session is gone or an earlier version kept (SPEC §11).
func keptLine(c archive.KeptCost) string {
	if c.Files == 0 { // PostgreSQL: the bytes are in the index
		return fmt.Sprintf("kept: %s gone, answered from the committed bytes the index holds", plural.Count(c.Gone, "session", "sessions"))
	}
	return fmt.Sprintf("kept: %s for %s; %s gone", megabytes(c.Bytes), plural.Count(c.Files, "session file", "session files"), plural.Count(c.Gone, "session", "sessions")) + earlierNote(c)
}

// earlierNote is "; N earlier versions" when the kept store answers
// earlier versions of rewritten files (archive.StateEarlier), else "".
func earlierNote(c archive.KeptCost) string {
	if c.Earlier == 0 {
		return ""
	}
	return "; " + plural.Count(c.Earlier, "earlier version", "earlier versions")
}
