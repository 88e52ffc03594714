// Command grove keeps and searches coding-agent sessions: the JSONL files
// stay the source of truth, a SQLite index answers paths, leaves and
// branches across all of them. See README.md and SPEC §8.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // the first Ctrl-C stops grove cleanly; a second one kills it
	}()
	code := run(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
