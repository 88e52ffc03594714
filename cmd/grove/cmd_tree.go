package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/jsondoc"
	"github.com/grove-sessions/grove/internal/plural"
)

const treeHelp = `Draws the entry tree of one session. A linear chain stays at one
indentation; the children of a branch point hang under it with ├── and └──,
in file order. Each line shows an entry's id, its role (messages) or type,
a one-line preview, its [label], "(leaf ...)" on a leaf and "← active" on the
active leaf (the last entry of the file), with the leaf's time (UTC).
Without --all, what an agent recorded beside the branches a person made
(SPEC §4.2: a Claude Code tool call's result beside the rest of its API
message, hook progress, compaction replays, extra /commands) is left out,
so the leaves and branch points drawn are the real ones; --all draws it,
each such child marked "(parallel)", "(progress)", "(replay)" or
"(command)".
Lines are clipped to about 120 columns (a long label to 40, a preview to
no less than 24, so marks may push a line past it); control characters in
ids, labels and previews are shown as escapes (\x1b), in a pipe too; a preview drops
terminal escape sequences (ESC [2J) whole; deeper than 12 levels of branching, a
line starts with "+N" for the N levels its indentation leaves out.

Folding (unless --full): always shown are roots, branch points, the first
entry of each branch, leaves, labelled entries, the active leaf, user
messages, compactions, damaged entries and Claude Code's Task calls that
started a sub-agent run; of the entries between two of
those on a chain, the last two are shown and the rest fold into one
"… N entries …" line (only when that hides 2 or more).

Damage is drawn, not dropped: an entry whose parent is missing is a root of
its own ("‼ parent X missing"); entries whose parent links form a cycle are
drawn after the roots, under "unreachable from any root"; a duplicated id is
marked on each of its entries, and children hang under the first.

Sub-agent runs (Claude Code): a Task call is marked with the run it started
("⇢ sub-agent run ROOT" in the same file, "⇢ sub-agent agent-ID" in a file
of its own), a run's first entry with its call ("⇠ sub-agent run of Task
call ID"), and a sub-agent session's header with the session and call that
started it. In --json, "run" on those nodes and "spawned_by" on the
document, only where there are runs (docs/commands.md).

--json writes {"session","roots":[node...]}, each node
{"id","type","role","label","active","kind","preview","children":[node...]},
with role and label null when absent and kind the entry's kind as a child
of a branch point ("branch", "parallel", "progress", "replay", "command"). A node whose id is null is no entry:
type "fold" stands for "folded" entries of a run, between its parent and
its one child; type "cut" for what --depth cut below a branch point, with
"folded" entries, "leaves" and "branches", and no children. Damaged entries
carry "problems" (["missing_parent"], ["cycle"], ["duplicate_id"]) and the
"parent" their parentId names; cycle roots come after the other roots.
A chain nests one level per shown node, so a long session's JSON is deep
(--full on a 100,000-entry chain: 100,000 levels), which decoders with a
depth limit (Python's json, jq) refuse. --flat writes the same nodes as
{"session","nodes":[...]} without "children": each node has "node", its
position in the list, and "parent_node", the position of the node it hangs
under (null for a root), in the order the text draws them.`

func treeCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:        "tree",
		Usage:       "draw a session's entry tree: branch points, leaves, labels, the active leaf; long linear runs folded",
		ArgsUsage:   "SESSION",
		Description: treeHelp,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "full", Usage: "show every entry: fold no linear run"},
			&cli.BoolFlag{Name: "flat", Usage: "with --json: one flat list of nodes, each naming its parent node, instead of nested children (for decoders with a depth limit)"},
			&cli.BoolFlag{Name: "all", Usage: "also draw what the agent recorded beside the branches a person made (parallel tool calls, progress lines, replays, commands), each marked with its kind"},
			&cli.IntFlag{Name: "depth", Usage: "show `N` levels of branching (a linear chain is one level, a branch point's children one deeper); deeper branches are summarized on one line; 0 = no limit"},
		},
		Action: func(c *cli.Context) error {
			if err := needArgs(c, 1, 1); err != nil {
				return err
			}
			if c.Int("depth") < 0 {
				return usagef("tree: --depth must be 0 (no limit) or more, got %d", c.Int("depth"))
			}
			if c.Bool("flat") && !g.json {
				return usagef("tree: --flat shapes the JSON; give --json too")
			}
			return runTree(c.Context, g, c.Args().First(), archive.TreeOptions{Full: c.Bool("full"), Depth: c.Int("depth"), All: c.Bool("all")}, c.Bool("flat"))
		},
	}
}

func runTree(ctx context.Context, g *env, session string, opt archive.TreeOptions, flat bool) error {
	a, err := g.openExisting(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	r, err := jsondoc.Tree(ctx, a, session, opt)
	if err != nil {
		return err
	}
	if g.json && flat {
		return jsondoc.WriteTreeFlat(g.stdout, r.Session.SessionID, r)
	}
	if g.json {
		return jsondoc.WriteTree(g.stdout, r.Session.SessionID, r)
	}
	return writeTreeText(g.stdout, r.Session, r)
}

// moreLeaves names the leaves t draws besides the session's real leaves
// (the count every listing shows): those of inline sub-agent runs, and
// under --all those of the entries the agent recorded beside them; "" when
// it draws no others.
func moreLeaves(s *archive.Session, t *archive.Tree) string {
	runs := 0
	if t.Runs != nil {
		for _, r := range t.Runs.Runs {
			if r.Root != "" {
				runs += len(r.Leaves)
			}
		}
	}
	drawn := s.Leaves + runs
	if len(t.Entries) == s.Entries {
		drawn = max(drawn, s.AllLeaves)
	}
	var more []string
	if runs > 0 {
		more = append(more, plural.Count(runs, "leaf", "leaves")+" of sub-agent runs")
	}
	if other := drawn - s.Leaves - runs; other > 0 {
		more = append(more, plural.Count(other, "leaf", "leaves")+" of entries recorded beside them")
	}
	return strings.Join(more, ", ")
}

// treeWidth is the width, in columns, a tree line is clipped to fit.
const treeWidth = 120

// writeTreeText draws t for people: a header line, the roots' trees, the
// cycles, and a note on what was folded.
func writeTreeText(w io.Writer, s *archive.Session, t *archive.Tree) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	head := "session " + cell(s.SessionID)
	if s.Name != "" {
		head += ` "` + cell(s.Name) + `"` // escaped as every one-line view escapes, not Go-quoted
	}
	if s.Workspace != "" {
		head += "  " + cell(s.Workspace)
	}
	head += fmt.Sprintf("  %s, %s", plural.Count(len(t.Entries), "entry", "entries"), plural.Count(s.Leaves, "leaf", "leaves"))
	if more := moreLeaves(s, t); more != "" {
		head += " (and " + more + ")"
	}
	if beside := s.Entries - len(t.Entries); beside > 0 {
		head += fmt.Sprintf(" (and %s the agent recorded beside them: --all)", plural.Count(beside, "entry", "entries"))
	}
	if s.State != "" && s.State != "ok" {
		head += "  (" + string(s.State) + ")"
	}
	bw.WriteString(head + "\n")
	if l := spawnedByLine(t); l != "" {
		bw.WriteString(l + "\n")
	}
	for _, d := range t.Duplicates {
		lines := make([]string, len(d.Lines))
		for i, l := range d.Lines {
			lines[i] = fmt.Sprint(l)
		}
		fmt.Fprintf(bw, "‼ duplicate id %s on lines %s: children hang under line %d\n", d.ID, strings.Join(lines, ", "), d.Lines[0])
	}
	tw := &treeWriter{w: bw, t: t, links: jsondoc.RunLinks(t)}
	for i := range t.Nodes {
		if n := &t.Nodes[i]; n.Kind == archive.NodeEntry {
			tw.idWidth = max(tw.idWidth, min(12, utf8.RuneCountInString(t.Entries[n.Entry].EntryID)))
			tw.kindWidth = max(tw.kindWidth, min(14, utf8.RuneCountInString(kindOf(&t.Entries[n.Entry]))))
		}
	}
	if len(t.Entries) == 0 {
		bw.WriteString("\n(no entries)\n")
	}
	for _, r := range t.Roots {
		bw.WriteString("\n")
		tw.draw(r)
	}
	if len(t.Cycles) > 0 {
		fmt.Fprintf(bw, "\nunreachable from any root: their parent links form a cycle\n")
		for _, r := range t.Cycles {
			bw.WriteString("\n")
			tw.draw(r)
		}
	}
	if hidden := t.Folded + t.Cut; hidden > 0 {
		fmt.Fprintf(bw, "\n(%d of %s shown", t.Shown, plural.Count(len(t.Entries), "entry", "entries"))
		if t.Folded > 0 {
			bw.WriteString("; --full unfolds the runs")
		}
		if t.Cut > 0 {
			bw.WriteString("; a larger --depth, or 0, shows the cut branches")
		}
		bw.WriteString(")\n")
	}
	return bw.Flush()
}

// treeWriter draws the rows of a tree (archive.Tree.Rows).
type treeWriter struct {
	w         *bufio.Writer
	t         *archive.Tree
	idWidth   int                        // the widest shown id, at most 12 columns
	kindWidth int                        // the widest shown role or type, at most 14 columns
	links     map[string]jsondoc.RunLink // sub-agent runs, by entry id
}

func (tw *treeWriter) draw(root int) {
	tw.t.Rows(root, func(r archive.TreeRow) { tw.line(r.Prefix(), &tw.t.Nodes[r.Node]) })
}

// line writes one node: id, role or type, preview, label and marks.
func (tw *treeWriter) line(prefix string, n *archive.TreeNode) {
	w := tw.w
	switch n.Kind {
	case archive.NodeFold:
		fmt.Fprintf(w, "%s… %s …\n", prefix, plural.Count(n.Folded, "entry", "entries"))
		return
	case archive.NodeCut:
		fmt.Fprintf(w, "%s%s\n", prefix, jsondoc.CutText(n))
		return
	}
	e := &tw.t.Entries[n.Entry]
	head := prefix + padRight(idCell(e.EntryID), tw.idWidth) + "  " + padRight(kindOf(e), tw.kindWidth) + "  "
	var marks []string
	if n.Label != "" {
		marks = append(marks, "["+clipWidth(cell(n.Label), 40)+"]")
	}
	if k := jsondoc.BranchKind(e.Kind); k != "branch" {
		marks = append(marks, "("+k+")")
	}
	if n.Missing {
		marks = append(marks, "‼ parent "+idCell(deref(e.ParentID))+" missing")
	}
	switch {
	case n.Cycle && deref(e.ParentID) == e.EntryID:
		marks = append(marks, "↺ cycle: it is its own parent")
	case n.Cycle:
		marks = append(marks, "↺ cycle: its parent "+idCell(deref(e.ParentID))+" is below it")
	}
	if n.Duplicate {
		marks = append(marks, fmt.Sprintf("‼ duplicate id (line %d)", e.Line))
	}
	if l, ok := tw.links[e.EntryID]; ok {
		marks = append(marks, runMark(l))
	}
	when := ""
	if e.TsMs != nil {
		when = ", " + short(e.TsMs)
	}
	switch {
	case n.Active:
		marks = append(marks, "← active"+when)
	case n.Leaf:
		marks = append(marks, "(leaf"+when+")")
	}
	tail := strings.Join(marks, "  ")
	room := treeWidth - displayWidth(head) - displayWidth(tail) - 2
	preview := clipWidth(cell(n.Preview), max(room, 24))
	text := head + preview
	if tail != "" {
		text = strings.TrimRight(text, " ") + "  " + tail
	}
	w.WriteString(strings.TrimRight(text, " "))
	w.WriteString("\n")
}

// kindOf is what a line says an entry is: a message's role, else its type.
func kindOf(e *archive.Entry) string {
	if e.Role != nil && e.Type == "message" {
		return *e.Role
	}
	return e.Type
}

func padRight(s string, cols int) string {
	if w := displayWidth(s); w < cols {
		return s + strings.Repeat(" ", cols-w)
	}
	return s
}
