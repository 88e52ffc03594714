// Package errs holds grove's structured errors: the stable codes of SPEC §8
// (and the warning codes of SPEC §2 and §3), and *Error, the value every
// layer returns and the CLI prints as SPEC §8's error object
// {"code","message","path","line","offset",...}.
//
// It imports nothing of grove, so jsonl, index, archive and every front end
// share one vocabulary. Errors are made only by New and Wrap with the
// setters In, At, WithHint and the like; errors.Is matches any *Error of the
// same Code (see the Err* sentinels), and CodeOf reads the code of a chain.
package errs
