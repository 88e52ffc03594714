package main

import (
	"go/build"
	"path/filepath"
	"slices"
	"testing"
)

// The front ends reach the session files and the index through archive
// only (STYLE.md, "The house"): neither the command line, grove serve,
// grove mcp, grove pick nor the documents they share (internal/jsondoc) imports the
// index or the committed-log reader. Their tests may, for fixtures.
func TestFrontEnds_ImportArchiveOnly(t *testing.T) {
	const module = "github.com/grove-sessions/grove/"
	for _, dir := range []string{".", filepath.Join("..", "..", "internal", "serve"), filepath.Join("..", "..", "internal", "jsondoc"), filepath.Join("..", "..", "internal", "mcp"), filepath.Join("..", "..", "internal", "pick")} {
		pkg, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("build.ImportDir(%q): %v", dir, err)
		}
		if !slices.Contains(pkg.Imports, module+"archive") {
			t.Errorf("%s (%s) does not import archive: is it still a front end? It imports %v", pkg.Name, dir, pkg.Imports)
		}
		for _, inner := range []string{"index", "jsonl"} {
			if slices.Contains(pkg.Imports, module+inner) {
				t.Errorf("%s (%s) imports %s%s: reach it through archive", pkg.Name, dir, module, inner)
			}
		}
	}
}
