package main

import (
	"bytes"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// The user's documentation is README.md and the Markdown files under
// docs/. These tests keep it honest: it stays inside the repository (a
// clone has every page a link names), the README stays short, and every
// command grove has is documented with its flags.

// readmeMaxLines is the most lines README.md may have: what grove is,
// install, the two commands, a quickstart and links; the rest is in docs/.
const readmeMaxLines = 300

// repoRoot is the repository's root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// docFiles are README.md and every *.md under docs/, as absolute paths.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	files := []string{filepath.Join(root, "README.md")}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return files
}

// mdDoc is one parsed Markdown file.
type mdDoc struct {
	path    string
	src     []byte
	root    ast.Node
	anchors map[string]bool // GitHub's heading ids
}

func parseMarkdown(t *testing.T, path string) *mdDoc {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	d := &mdDoc{path: path, src: src, root: md.Parser().Parse(text.NewReader(src)), anchors: map[string]bool{}}
	seen := map[string]int{}
	ast.Walk(d.root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering {
			slug := githubSlug(plainText(h, src))
			if k := seen[slug]; k > 0 {
				d.anchors[slug+"-"+strconv.Itoa(k)] = true
			} else {
				d.anchors[slug] = true
			}
			seen[slug]++
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return d
}

// plainText is the text of n's inline children, code spans included.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// githubSlug is the id GitHub gives a heading of text s: lower case,
// letters, digits, marks, '-' and '_' kept, a space made '-', anything
// else dropped ("A team's index (PostgreSQL)" → "a-teams-index-postgresql").
func githubSlug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		switch {
		case unicode.IsLetter(r), unicode.IsNumber(r), unicode.IsMark(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// htmlLink finds href and src values in raw HTML.
var htmlLink = regexp.MustCompile(`(?i)\b(?:href|src)\s*=\s*["']([^"']*)["']`)

// links are the link and image destinations of d, autolinks (GitHub's bare
// URLs too) and the href and src values of raw HTML, each with its line.
func (d *mdDoc) links() (dests []string, lines []int) {
	lineOf := func(off int) int { return bytes.Count(d.src[:off], []byte("\n")) + 1 }
	firstOffset := func(n ast.Node) int {
		for c := n; c != nil; c = c.FirstChild() {
			if t, ok := c.(*ast.Text); ok {
				return t.Segment.Start
			}
			if c.Type() == ast.TypeBlock && c.Lines().Len() > 0 {
				return c.Lines().At(0).Start
			}
		}
		for p := n.Parent(); p != nil; p = p.Parent() {
			if p.Type() == ast.TypeBlock && p.Lines().Len() > 0 {
				return p.Lines().At(0).Start
			}
		}
		return 0
	}
	add := func(dest string, n ast.Node) {
		dests = append(dests, dest)
		lines = append(lines, lineOf(firstOffset(n)))
	}
	ast.Walk(d.root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			add(string(n.Destination), n)
		case *ast.Image:
			add(string(n.Destination), n)
		case *ast.AutoLink:
			add(string(n.URL(d.src)), n)
		case *ast.RawHTML:
			for i := 0; i < n.Segments.Len(); i++ {
				s := n.Segments.At(i)
				for _, m := range htmlLink.FindAllSubmatch(s.Value(d.src), -1) {
					dests = append(dests, string(m[1]))
					lines = append(lines, lineOf(s.Start))
				}
			}
		case *ast.HTMLBlock:
			for i := 0; i < n.Lines().Len(); i++ {
				s := n.Lines().At(i)
				for _, m := range htmlLink.FindAllSubmatch(s.Value(d.src), -1) {
					dests = append(dests, string(m[1]))
					lines = append(lines, lineOf(s.Start))
				}
			}
		}
		return ast.WalkContinue, nil
	})
	return dests, lines
}

// hasScheme matches a URL scheme ("https:", "mailto:").
var hasScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// TestDocs_LinksStayInside: every link of README.md and docs/*.md names a
// file of the repository, and a heading of it when it names one: no link
// leaves the repository (no ../ above its root, no http, https or other
// scheme), so that a clone has every page the documentation points to.
func TestDocs_LinksStayInside(t *testing.T) {
	root := repoRoot(t)
	docs := map[string]*mdDoc{}
	doc := func(p string) *mdDoc {
		if docs[p] == nil {
			docs[p] = parseMarkdown(t, p)
		}
		return docs[p]
	}
	files := docFiles(t, root)
	for _, f := range files {
		d := doc(f)
		rel, _ := filepath.Rel(root, f)
		dests, lines := d.links()
		for i, dest := range dests {
			where := rel + ":" + strconv.Itoa(lines[i])
			switch {
			case dest == "":
				t.Errorf("%s: an empty link", where)
				continue
			case hasScheme.MatchString(dest) || strings.HasPrefix(dest, "//"):
				t.Errorf("%s: link %q leaves the repository (name the project in plain text instead)", where, dest)
				continue
			case strings.HasPrefix(dest, "/"):
				t.Errorf("%s: link %q is absolute; give a path relative to %s", where, dest, filepath.Dir(rel))
				continue
			}
			target, anchor, _ := strings.Cut(dest, "#")
			target, err := url.PathUnescape(target)
			if err != nil {
				t.Errorf("%s: link %q: %v", where, dest, err)
				continue
			}
			file := f
			if target != "" {
				file = filepath.Join(filepath.Dir(f), filepath.FromSlash(target))
				if r, err := filepath.Rel(root, file); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
					t.Errorf("%s: link %q leaves the repository", where, dest)
					continue
				}
				fi, err := os.Stat(file)
				if err != nil {
					t.Errorf("%s: link %q names no file of the repository", where, dest)
					continue
				}
				if fi.IsDir() && anchor != "" {
					t.Errorf("%s: link %q has an anchor on a directory", where, dest)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(file, ".md") {
				t.Errorf("%s: link %q has an anchor on a file that is not Markdown", where, dest)
				continue
			}
			if !doc(file).anchors[anchor] {
				t.Errorf("%s: link %q: %s has no heading #%s", where, dest, filepath.Base(file), anchor)
			}
		}
	}
}

// TestDocs_READMEIsShort: README.md has at most readmeMaxLines lines.
func TestDocs_READMEIsShort(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, want at most %d: move the detail into docs/", n, readmeMaxLines)
	}
}

// commandSections are the sections of docs/commands.md whose heading is
// a command line, "grove NAME ...": NAME to the section's text, heading
// included, up to the next heading of the same or a higher level.
func commandSections(t *testing.T, d *mdDoc) map[string]string {
	t.Helper()
	type head struct {
		name  string
		level int
		start int
	}
	var heads []head
	for n := d.root.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			start := 0
			if h.Lines().Len() > 0 {
				start = h.Lines().At(0).Start
			}
			start = bytes.LastIndexByte(d.src[:start], '\n') + 1
			name := ""
			if f := strings.Fields(plainText(h, d.src)); len(f) >= 2 && f[0] == "grove" {
				name = f[1]
			}
			heads = append(heads, head{name, h.Level, start})
		}
	}
	sections := map[string]string{}
	for i, h := range heads {
		if h.name == "" {
			continue
		}
		end := len(d.src)
		for _, next := range heads[i+1:] {
			if next.level <= h.level {
				end = next.start
				break
			}
		}
		if _, dup := sections[h.name]; dup {
			t.Errorf("docs/commands.md has two sections for grove %s", h.name)
		}
		sections[h.name] = string(d.src[h.start:end])
	}
	return sections
}

// TestDocs_EveryCommand: docs/commands.md has a section headed "grove
// NAME" for every command of grove's command line, and no section for a
// command grove does not have; each section names every long flag of its
// command (--json and --source, which many commands share, are described
// once, at the top); the global flags are named too.
func TestDocs_EveryCommand(t *testing.T) {
	path := filepath.Join(repoRoot(t), "docs", "commands.md")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("docs/commands.md: %v", err)
	}
	d := parseMarkdown(t, path)
	sections := commandSections(t, d)
	app := newApp(&env{stdout: io.Discard, stderr: io.Discard})
	var names []string
	for _, c := range app.Commands {
		names = append(names, c.Name)
		sec, ok := sections[c.Name]
		if !ok {
			t.Errorf("docs/commands.md has no section headed `grove %s`", c.Name)
			continue
		}
		for _, f := range c.Flags {
			for _, n := range f.Names() {
				if len(n) < 2 || n == "help" || n == "json" || n == "source" {
					continue
				}
				if !regexp.MustCompile(`--` + regexp.QuoteMeta(n) + `\b`).MatchString(sec) {
					t.Errorf("docs/commands.md: the section of grove %s does not name its flag --%s", c.Name, n)
				}
			}
		}
	}
	for name := range sections {
		if !slices.Contains(names, name) {
			t.Errorf("docs/commands.md has a section for grove %s, which is no command of grove", name)
		}
	}
	all := string(d.src)
	for _, f := range app.Flags {
		for _, n := range f.Names() {
			if len(n) >= 2 && !strings.Contains(all, "--"+n) {
				t.Errorf("docs/commands.md does not name the global flag --%s", n)
			}
		}
	}
	for _, n := range []string{"--source", "--json"} {
		if !strings.Contains(all, n) {
			t.Errorf("docs/commands.md does not name %s", n)
		}
	}
}
