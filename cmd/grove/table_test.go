package main

import (
	"strings"
	"testing"
	"text/tabwriter"

	"pgregory.net/rapid"
)

// On ASCII text, where a character is one column, grove's table lays rows
// out exactly as text/tabwriter did (minwidth 0, padding 2, spaces), runs
// of rows with fewer cells included: only wide text is laid out differently.
func TestTable_ASCIIAsTabwriter(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var in strings.Builder
		rows := rapid.IntRange(0, 6).Draw(rt, "rows")
		for i := 0; i < rows; i++ {
			cells := rapid.SliceOfN(rapid.StringMatching(`[a-z ]{0,6}`), 0, 5).Draw(rt, "cells")
			in.WriteString(strings.Join(cells, "\t") + "\n") // grove ends every row
		}
		var want, got strings.Builder
		tw := tabwriter.NewWriter(&want, 0, 0, 2, ' ', 0)
		tw.Write([]byte(in.String()))
		tw.Flush()
		gt := table(&got)
		gt.Write([]byte(in.String()))
		if err := gt.Flush(); err != nil {
			rt.Fatal(err)
		}
		if got.String() != want.String() {
			rt.Fatalf("input %q:\ngot\n%s\nwant\n%s", in.String(), got.String(), want.String())
		}
	})
}

// Wide cells pad by terminal columns: a CJK character and an emoji take
// two, a combining mark none.
func TestTable_WideCells(t *testing.T) {
	var b strings.Builder
	tw := table(&b)
	tw.Write([]byte("A\tB\n中文\tx\n😀\tx\ne\u0301\tx\nabcd\tx\n"))
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "A     B\n中文  x\n😀    x\ne\u0301     x\nabcd  x\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	if got := clipWidth("中文中文中文", 7); got != "中文中…" {
		t.Errorf("clipWidth = %q, want 中文中…", got)
	}
	if got := clipWidth("ab👍🏽cd", 4); got != "ab…" {
		t.Errorf("clipWidth = %q, want ab… (the emoji and its modifier kept whole)", got)
	}
}
