package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/jsonl"
	"github.com/urfave/cli/v2"
)

// rootsHelp is the default-roots rule (SPEC §8 `index` row), said the same
// way in the help of index, watch and rebuild.
const rootsHelp = "Roots default to $GROVE_ROOT (colon-separated), else every agent's default root that exists:\n" +
	"pi ($PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions), Claude Code ($CLAUDE_CONFIG_DIR/projects,\n" +
	"else ~/.claude/projects and ~/.config/claude/projects) and Codex ($CODEX_HOME/sessions and\n" +
	"$CODEX_HOME/archived_sessions, else the same under ~/.codex); a missing one is no error."

// rootsHint names every default root, for the error of a run that found
// none of them.
const rootsHint = "pass --root DIR (repeatable) or set GROVE_ROOT to the directories holding your session files; " +
	"without them grove reads $PI_CODING_AGENT_DIR/sessions (else ~/.pi/agent/sessions), " +
	"$CLAUDE_CONFIG_DIR/projects (else ~/.claude/projects and ~/.config/claude/projects) and " +
	"$CODEX_HOME/sessions and $CODEX_HOME/archived_sessions (else under ~/.codex)"

// agentRoots are the default roots of SPEC §8, in the order grove reads
// them (pi, claude, codex), whether they exist or not. Each environment
// variable, when set and not empty, replaces its agent's home as a whole:
// $CLAUDE_CONFIG_DIR stands for ~/.claude (FORMATS.md §1.1; Claude Code
// does not read XDG_CONFIG_HOME, so ~/.config/claude/projects is only
// looked at without it), $CODEX_HOME for ~/.codex (FORMATS.md §2.1).
func agentRoots() []archive.DefaultRoot {
	home, _ := os.UserHomeDir()
	var out []archive.DefaultRoot
	add := func(dialect jsonl.Dialect, path ...string) {
		out = append(out, archive.DefaultRoot{Dialect: dialect, Path: filepath.Join(path...)})
	}
	if d := os.Getenv("PI_CODING_AGENT_DIR"); d != "" {
		add(jsonl.Pi, d, "sessions")
	} else {
		add(jsonl.Pi, home, ".pi", "agent", "sessions")
	}
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		add(jsonl.Claude, d, "projects")
	} else {
		add(jsonl.Claude, home, ".claude", "projects")
		add(jsonl.Claude, home, ".config", "claude", "projects")
	}
	codex := os.Getenv("CODEX_HOME")
	if codex == "" {
		codex = filepath.Join(home, ".codex")
	}
	add(jsonl.Codex, codex, "sessions")
	add(jsonl.Codex, codex, "archived_sessions")
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
