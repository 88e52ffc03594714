package main

import "testing"

// The help of index, watch, rebuild and serve and the hint of a run that
// found no root are made from the agents' RootsDoc (SPEC §8 `index`): the
// same words, wrapped at the same places, as when they were written out
// here by hand.
func TestRootsHelp(t *testing.T) {
	const help = "Roots default to $GROVE_ROOT (colon-separated), else every agent's default root that exists:\n" +
		"pi ($PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions), Claude Code ($CLAUDE_CONFIG_DIR/projects,\n" +
		"else ~/.claude/projects and ~/.config/claude/projects) and Codex ($CODEX_HOME/sessions and\n" +
		"$CODEX_HOME/archived_sessions, else the same under ~/.codex); a missing one is no error."
	const hint = "pass --root DIR (repeatable) or set GROVE_ROOT to the directories holding your session files; " +
		"without them grove reads $PI_CODING_AGENT_DIR/sessions (else ~/.pi/agent/sessions), " +
		"$CLAUDE_CONFIG_DIR/projects (else ~/.claude/projects and ~/.config/claude/projects) and " +
		"$CODEX_HOME/sessions and $CODEX_HOME/archived_sessions (else under ~/.codex)"
	if rootsHelp != help {
		t.Errorf("rootsHelp = %q, want %q", rootsHelp, help)
	}
	if rootsHint != hint {
		t.Errorf("rootsHint = %q, want %q", rootsHint, hint)
	}
	for _, tt := range []struct {
		in   []string
		want string
	}{{nil, ""}, {[]string{"a"}, "a"}, {[]string{"a", "b"}, "a and b"}, {[]string{"a", "b", "c"}, "a, b and c"}} {
		if got := joinList(tt.in); got != tt.want {
			t.Errorf("joinList(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
