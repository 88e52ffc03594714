// Command grove-corpus writes a deterministic synthetic archive of agent
// sessions (pi and plain JSONL files, see internal/corpusgen) for grove's
// benchmarks: same flags and --seed, same bytes.
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
		stop() // the first Ctrl-C stops cleanly; a second one kills
	}()
	code := run(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
