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

func main() { os.Exit(mainStatus()) }

// mainStatus runs grove on os.Args and returns its exit status. The first
// Ctrl-C (or SIGTERM) cancels the context, so grove stops cleanly; a second
// one kills it. The tests run the test binary as grove through it too.
func mainStatus() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop()
	}()
	return run(ctx, os.Args, os.Stdout, os.Stderr)
}
