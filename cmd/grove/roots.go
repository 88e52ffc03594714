package main

import (
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
	"github.com/urfave/cli/v2"
)

// rootsHelp is the default-roots rule (SPEC §8 `index` row), said the same
// way in the help of index, watch, rebuild and serve: each agent's roots
// as its RootsDoc names them, wrapped at rootsWidth columns.
var rootsHelp = "Roots default to $GROVE_ROOT (colon-separated), else every agent's default root that exists:\n" +
	wrapWords(joinList(rootsDocs(func(d archive.RootsDoc) string { return d.Help }))+"; a missing one is no error.", rootsWidth)

// rootsWidth is the width, in bytes, that rootsHelp's list of roots is
// wrapped at: the commands' help lines run about this long.
const rootsWidth = 104

// rootsHint names every default root, for the error of a run that found
// none of them.
var rootsHint = "pass --root DIR (repeatable) or set GROVE_ROOT to the directories holding your session files; " +
	"without them grove reads " + joinList(rootsDocs(func(d archive.RootsDoc) string { return d.Hint }))

// rootsDocs is what pick takes of the RootsDoc of every agent that has
// default roots, in the order grove reads them.
func rootsDocs(pick func(archive.RootsDoc) string) []string {
	var out []string
	for _, a := range archive.Agents() {
		if s := pick(a.RootsDoc()); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// joinList joins items as a sentence does: "a", "a and b", "a, b and c".
func joinList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// wrapWords breaks s at spaces into lines of at most width bytes (a word
// longer than width stands alone on its line).
func wrapWords(s string, width int) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Split(s, " ") {
		switch {
		case i == 0:
		case n+1+len(w) > width:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

// agentRoots are the default roots of SPEC §8, in the order grove reads
// them (each agent's Roots, in the agents' order: pi, claude, codex),
// whether they exist or not. Each environment variable, when set and not
// empty, replaces its agent's home as a whole ($CLAUDE_CONFIG_DIR stands
// for ~/.claude, $CODEX_HOME for ~/.codex: FORMATS.md §1.1, §2.1).
func agentRoots() []archive.DefaultRoot {
	home, _ := os.UserHomeDir()
	var out []archive.DefaultRoot
	for _, a := range archive.Agents() {
		for _, p := range a.Roots(home, os.Getenv) {
			out = append(out, archive.DefaultRoot{Dialect: a.Dialect(), Path: p})
		}
	}
	return out
}

// defaultRoots is SPEC §8's default: $GROVE_ROOT (colon-separated), else
// every agent root (agentRoots) that exists, the second result naming
// those with their dialect (nil for $GROVE_ROOT). A GROVE_ROOT that names
// no directory at all (":", "::") is a usage error, not "index nothing";
// no agent root existing is an io_error whose hint names every one of
// them, with doing what was not done ("nothing was indexed"). A root that
// exists but cannot be read (not a directory, no permission) is kept, so
// that the run says why.
func defaultRoots(doing string) ([]string, []archive.DefaultRoot, error) {
	if r := os.Getenv("GROVE_ROOT"); r != "" {
		var out []string
		for _, p := range strings.Split(r, ":") {
			if p != "" {
				out = append(out, p)
			}
		}
		if len(out) == 0 {
			return nil, nil, usagef("GROVE_ROOT=%q names no directory; set it to session directories separated by ':', or unset it", r)
		}
		return out, nil, nil
	}
	all := agentRoots()
	var roots []string
	var found []archive.DefaultRoot
	for _, r := range all {
		if _, err := os.Stat(r.Path); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		roots = append(roots, r.Path)
		found = append(found, r)
	}
	if len(roots) == 0 {
		var names []string
		for _, r := range all {
			names = append(names, r.Path)
		}
		return nil, nil, errs.New(errs.CodeIO, "no session root: none of the default roots exists; "+doing).In(strings.Join(names, ":")).WithHint(rootsHint)
	}
	return roots, found, nil
}

// noteRoots says on stderr which default roots a run reads: "reading the
// default roots: /h/.claude/projects (claude), /h/.codex/sessions (codex)".
func noteRoots(g *env, found []archive.DefaultRoot) {
	if len(found) == 0 {
		return
	}
	var parts []string
	for _, r := range found {
		parts = append(parts, cell(r.Path)+" ("+string(r.Dialect)+")")
	}
	g.warn("reading the default roots: " + strings.Join(parts, ", "))
}

// rootFlag is --root, for the commands that read session directories.
func rootFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "root", Usage: "a directory of session files (repeatable)"}
}
