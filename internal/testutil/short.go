package testutil

import "testing"

// SkipShort skips tb under `go test -short`, the fast loop while
// developing, saying what makes it slow and how to run it: pkg is the
// package as the go command names it ("./cmd/grove"), why a few words of
// what the test costs. The full `go test ./...`, which CI runs, runs it.
func SkipShort(tb testing.TB, pkg, why string) {
	tb.Helper()
	if testing.Short() {
		tb.Skipf("slow (%s); run it without -short: go test %s -run '^%s$'", why, pkg, tb.Name())
	}
}
