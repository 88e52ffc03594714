// Package cliutil holds what grove's commands (grove, grove-corpus,
// grove-bench) share about urfave/cli: telling a wrong command line from a
// failed operation, for exit status 2 against 1 (SPEC §8).
package cliutil

import "strings"

// IsFlagError recognises the errors urfave/cli v2 returns for a bad flag
// without calling OnUsageError: an unknown flag, a value that does not
// parse, a flag without its value, a missing required flag.
func IsFlagError(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.HasPrefix(msg, "flag provided but not defined") ||
		strings.HasPrefix(msg, "invalid value") ||
		strings.Contains(msg, "flag needs an argument") ||
		strings.HasPrefix(msg, "Required flag")
}
