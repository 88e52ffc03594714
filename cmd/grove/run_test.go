package main

import (
	"bytes"
	"context"
	"testing"
)

// groveOn returns a function that runs grove in this process against the
// index db, as `grove --db db ARGS...`, and gives its exit status, stdout
// and stderr.
func groveOn(tb testing.TB, db string) func(args ...string) (int, string, string) {
	tb.Helper()
	return func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"grove", "--db", db}, args...), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
}
