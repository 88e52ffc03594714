package testutil

import (
	"flag"
	"os"
	"strconv"
	"testing"
)

// SlowEnv is the environment variable that lets the slow tests run:
// GROVE_TEST_SLOW=1 go test ./... is the full set, which CI runs (.ci/run).
const SlowEnv = "GROVE_TEST_SLOW"

// SkipSlow skips tb unless the full set was asked for (SlowEnv=1, and not
// -short), so that a plain `go test ./...`, the loop while developing,
// stays well under a minute. The skip message says what makes the test
// slow and how to run it: pkg is the package as the go command names it
// ("./cmd/grove"), why a few words of what the test costs.
func SkipSlow(tb testing.TB, pkg, why string) {
	tb.Helper()
	if testing.Short() || os.Getenv(SlowEnv) != "1" {
		tb.Skipf("slow (%s); run it with %s=1 go test %s -run '^%s$'", why, SlowEnv, pkg, tb.Name())
	}
}

// RapidChecks sets rapid's -rapid.checks to checks for the property test
// tb, unless the flag was given on the command line; in the full set
// (SlowEnv=1) it sets full instead. Call it first in the test.
func RapidChecks(tb testing.TB, checks, full int) {
	tb.Helper()
	f := flag.Lookup("rapid.checks")
	if f == nil || f.Value.String() != f.DefValue {
		return
	}
	n := checks
	if os.Getenv(SlowEnv) == "1" && !testing.Short() {
		n = full
	}
	f.Value.Set(strconv.Itoa(n))
	tb.Cleanup(func() { f.Value.Set(f.DefValue) })
}
