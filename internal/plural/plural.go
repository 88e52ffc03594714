// Package plural is grove's one rule for the number of a noun in what it
// prints for people: "1 entry", "2 entries", "0 entries". The caller
// gives both forms, so no English rule is guessed.
package plural

import "strconv"

// Noun is one when n is 1, else many.
func Noun(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count is n and the noun in its number: "1 entry", "2 entries".
func Count(n int, one, many string) string {
	return strconv.Itoa(n) + " " + Noun(n, one, many)
}
