package main

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
)

// BenchmarkViews runs the views (context, tree, export: SPEC §4.1, §8) on
// the real corpus session (a pi version 1 chain of 1,018 entries, 952 KB),
// each as a whole in-process grove command against one index, with `grove
// path` as the baseline measured in the same run.
func BenchmarkViews(b *testing.B) {
	src := testutil.MustShared(b, "corpus/pi/large-session.jsonl")
	db := mustIndexed(b, src)
	file := filepath.Join(filepath.Dir(db), "sessions", filepath.Base(src))
	for _, bc := range []struct {
		name string
		args []string
	}{
		{"baseline-path", []string{"path", file}},
		{"messages", []string{"messages", file}},
		{"context", []string{"--json", "context", file}},
		{"context-llm", []string{"--json", "context", "--llm", file}},
		{"tree", []string{"tree", file}},
		{"tree-full", []string{"tree", "--full", file}},
		{"leaves", []string{"leaves", "--session", file}},
		{"export-md", []string{"export", file}},
		{"export-html", []string{"export", "--format", "html", file}},
		{"export-jsonl", []string{"export", "--format", "jsonl", file}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if code := run(context.Background(), append([]string{"grove", "--db", db}, bc.args...), io.Discard, io.Discard); code != 0 {
					b.Fatalf("grove %v = %d", bc.args, code)
				}
			}
		})
	}
}
