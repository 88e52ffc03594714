package main

import (
	"context"
	"slices"
)

// step is one measurement of the run, in step_NAME.go.
type step struct {
	// Name is what --only takes and the section of the step's figures
	// (search's are "search in-process" and "search whole-process"). Two
	// steps may share a name: --only runs both, in the table's order.
	Name string
	// Title is the line the run logs when the step starts.
	Title string
	// Needs is what the step reads besides what it makes itself:
	// "corpus" the main corpus (--size), "index" its index too (made by
	// the index step, or left in --work by an earlier run), "" neither.
	Needs string
	Run   func(*suite, context.Context) error
}

// steps are the measurements of a run, in the order they run: each leaves
// the files as the next needs them. The refresh step's append comes after
// search and verify have read the main index, since the appended entries
// stay in the index after the file is cut back.
var steps = []step{
	{"index", "cold index", "corpus", (*suite).coldIndex},
	{"refresh", "no-op refresh", "index", (*suite).noopRefresh},
	{"search", "search in-process", "index", (*suite).searchInProcess},
	{"search", "search whole-process", "index", (*suite).searchProcess},
	{"path", "path", "", (*suite).paths},
	{"verify", "verify", "index", (*suite).verify},
	{"refresh", "refresh after append", "index", (*suite).appendRefresh},
	{"keep", "kept store: cold index and refresh, keeping and --no-keep", "corpus", (*suite).keepStep},
	{"baseline", "C SQLite baseline", "corpus", (*suite).baseline},
	{"many-files", "many files: cold index and no-op refresh", "", (*suite).manyFiles},
	{"watch", "grove watch idle", "", (*suite).watchIdle},
	{"append", "refresh after an append to one session", "", (*suite).appendSessions},
	{"big-mem", "big-session memory", "", (*suite).bigSession},
	{"long-line", "long-line memory", "", (*suite).longLine},
	{"dialects", "dialects: cold index and refresh per dialect", "", (*suite).dialects},
	{"sizes", "sizes: cold index and baseline at each size", "", (*suite).indexSizes},
	{"ready", "structure ready during a cold index", "corpus", (*suite).structureReady},
	{"shapes", "shapes: verify on a comb, a star and a chain", "", (*suite).shapesStep},
	{"export", "export of one large session", "", (*suite).exportStep},
	{"dump", "dump: indexes built two ways compared", "corpus", (*suite).dumpStep},
	{"serve", "serve: pages in Chromium, memory and search of grove serve", "", (*suite).serveStep},
	{"mcp", "mcp: call latency of grove mcp from the official TypeScript client and the Go SDK's", "", (*suite).mcpStep},
	{"team", "team: SQLite and PostgreSQL side by side", "", (*suite).teamStep},
}

// stepNames are the names --only accepts, in the order the steps run.
func stepNames() []string {
	var names []string
	for _, st := range steps {
		if !slices.Contains(names, st.Name) {
			names = append(names, st.Name)
		}
	}
	return names
}
