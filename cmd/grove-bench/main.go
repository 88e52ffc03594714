// Command grove-bench builds a generated corpus of pi and plain sessions
// and measures grove on it beside the tools a user would otherwise use:
// ripgrep (rg, rg -i) over the same files and a Python script that indexes
// the same text with C SQLite's FTS5; its dialects step measures a corpus
// of each dialect (pi, plain, messages, claude, codex) of the same size.
// It prints one table (or --json).
//
//	go run ./cmd/grove-bench --size 1GB
//
// How to run it and what each step measures: docs/benchmarks.md; today's
// figures: BENCHMARKS.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/grove-sessions/grove/internal/cliutil"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newApp(os.Stdout, os.Stderr).RunContext(ctx, os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "grove-bench:", err)
		var u usageError
		if errors.As(err, &u) || cliutil.IsFlagError(err) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}
