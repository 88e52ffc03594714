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

// SplitList is the values of a repeatable list flag (or an argument that
// stands for one): each value may also be comma-separated; blanks around
// an item are dropped, and empty items with them.
func SplitList(vs []string) []string {
	var out []string
	for _, v := range vs {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}
