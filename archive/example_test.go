package archive_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/grove-sessions/grove/archive"
)

// demoRoot makes a session root holding a copy of the demo pi session
// testdata/pi/v3-tree.jsonl (workspace /workspace/demo-app, three leaves),
// and an index path beside it. A real caller points Index at
// ~/.pi/agent/sessions, ~/.claude/projects or ~/.codex/sessions.
func demoRoot() (root, dbPath string, cleanup func()) {
	dir, err := os.MkdirTemp("", "grove-example-")
	if err != nil {
		log.Fatal(err)
	}
	root = filepath.Join(dir, "sessions")
	if err := os.Mkdir(root, 0o755); err != nil {
		log.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join("..", "testdata", "pi", "v3-tree.jsonl"))
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "demo.jsonl"), b, 0o644); err != nil {
		log.Fatal(err)
	}
	return root, filepath.Join(dir, "index.db"), func() { os.RemoveAll(dir) }
}

// Open an index (made on first use), index a root of session files, and
// list the leaves of one workspace: one per branch of every session, the
// active leaf marked.
func Example() {
	root, dbPath, cleanup := demoRoot()
	defer cleanup()
	ctx := context.Background()

	a, err := archive.OpenForWrite(ctx, dbPath, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	sum, err := a.Index(ctx, archive.IndexOptions{Roots: []string{root}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d file, %d entries\n", sum.Indexed, sum.Entries)

	leaves, err := a.Leaves(ctx, archive.Filter{Workspace: "/workspace/demo-app"})
	if err != nil {
		log.Fatal(err)
	}
	for _, l := range leaves {
		fmt.Printf("%s depth %d active %v\n", l.EntryID, *l.Depth, l.Active)
	}
	// Output:
	// 1 file, 35 entries
	// b7395fc2 depth 17 active true
	// 35c7e0da depth 22 active false
	// 1b3f5d9a depth 24 active false
}

// Walk the path from the root to a leaf: the index answers it with one
// recursive CTE, the same entries PathTo gives on the file read whole.
func ExampleArchive_Path() {
	root, dbPath, cleanup := demoRoot()
	defer cleanup()
	ctx := context.Background()
	a, err := archive.OpenForWrite(ctx, dbPath, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{root}}); err != nil {
		log.Fatal(err)
	}

	p, err := a.Path(ctx, "5b7e2c14", "") // a unique session id prefix; "" is the active leaf
	if err != nil {
		log.Fatal(err)
	}
	var ids []string
	for _, e := range p.Entries {
		ids = append(ids, e.EntryID)
	}
	fmt.Println(p.Leaf, len(p.Entries), "entries")
	fmt.Println(strings.Join(ids[:4], " "), "...")

	// The same path from the file itself, without the index.
	f, err := archive.Load(filepath.Join(root, "demo.jsonl"))
	if err != nil {
		log.Fatal(err)
	}
	pure, err := archive.PathTo(f.Entries, p.Leaf)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(pure) == len(p.Entries))
	// Output:
	// b7395fc2 17 entries
	// a3f0c912 5e81b7d4 0d2c6fa8 7c49e1b3 ...
	// true
}

// Search every indexed session: hits are entries, newest first, with a
// snippet whose matched terms sit between archive.MarkOpen and MarkClose.
func ExampleArchive_Search() {
	root, dbPath, cleanup := demoRoot()
	defer cleanup()
	ctx := context.Background()
	a, err := archive.OpenForWrite(ctx, dbPath, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{root}}); err != nil {
		log.Fatal(err)
	}

	res, err := a.Search(ctx, archive.SearchOptions{Query: "jsonwebtoken", Roles: []string{"user"}})
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range res.Hits {
		snippet := strings.NewReplacer(archive.MarkOpen, "[", archive.MarkClose, "]").Replace(h.Snippet)
		fmt.Printf("%s line %d: %s\n", h.EntryID, h.Line, snippet)
	}
	// Output:
	// 13e5f8a2 line 12: Go with [jsonwebtoken].
}
