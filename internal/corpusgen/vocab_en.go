package corpusgen

import "strings"

// enFunction are the function words of English prose, most frequent
// first; sentences alternate them with enWords (text.sentence).
var enFunction = strings.Fields(`
the to a of and in is it that this for we i you be with on not as are can at
from by or have but if so an was there when which all then also just now here
only each into our its it's we'll let me should will need what one other more no
new
`)

// enWords are the content words of English prose, most frequent first: the
// rank is what the Zipf draw uses (see zipf in text.go), so "file" is
// common and the words at the end are rare. CommonWord is near the top.
// The word "refused" is deliberately absent, so that Phrase occurs only
// where a marker puts it.
var enWords = strings.Fields(`
file function error test use code value type return string index see check run
add data fix make go path session line read write out look first get like change
call case name way update field time struct query entry tests build package
module config method class interface object list map key result output input
version server client request response handler state event message user branch
tree leaf node parent child root commit log store cache table column row schema
migration sql database connection pool timeout retry context cancel deadline
loop channel goroutine mutex lock sync wait group worker queue job task batch
stream buffer reader writer bytes size offset length count limit page cursor
token parser lexer scanner json yaml toml csv parse format encode decode marshal
unmarshal serialize validate verify assert expect equal nil null undefined empty
missing invalid wrong broken failed failing passes passing works working fine
import export default const var func async await promise callback closure scope
component render props hook effect view model controller route endpoint api http
https url header body status port host address socket tcp udp dns tls cert
secret env variable flag option argument parameter command shell script bash
terminal process signal exit stdout stderr stdin pipe directory folder repo
repository git diff patch merge rebase stash checkout remote origin main master
release tag compile compiler linker binary target platform linux darwin windows
arch docker container image volume mount network service deployment settings
theme color style layout width height border padding margin font text editor
selection keyboard scroll frame screen window tui widget selector item picker
dialog modal popup menu button label icon spinner progress bar because since
though although however actually probably maybe likely already still again
instead rather quite very really simply exactly correctly properly explicitly
implicitly directly manually automatically currently previously finally
initially eventually immediately slowly quickly safely small large big tiny huge
short long old newer latest stable unstable simple complex hard easy clear clean
dirty raw final temporary permanent internal external public private local
global shared unique duplicate single multiple second third last next previous
current original copy same different above below before after between inside
outside around through across within without against during until while remove
delete insert create drop alter rename move replace append prepend split join
sort filter reduce collect sum average min max clamp round truncate pad trim
strip lower upper escape unescape quote open close start stop begin end init
setup teardown reset flush load save fetch send receive emit listen subscribe
publish dispatch handle compute calculate measure benchmark profile trace debug
inspect allocate free acquire hold grab capture wrap unwrap throw catch panic
recover raise rescue ignore skip abort fail succeed resolve reject refactor
rewrite simplify extract inline document comment describe explain summarize
review approve suggest propose decide choose prefer avoid keep support cover
miss break migrate upgrade downgrade bump pin vendor install uninstall configure
enable disable toggle switch turn show hide display print warn info problem
issue bug regression crash leak race deadlock overflow underflow mismatch
conflict collision corruption truncation performance latency throughput memory
cpu disk allocation garbage collector heap stack pointer reference slice array
vector matrix tensor integer float double boolean char rune byte word bit mask
flagset enum generic template trait impl derive macro attribute annotation
decorator fixture mock stub fake spy snapshot golden coverage fuzz property ci
pipeline workflow action runner artifact lint vet fmt prettier eslint biome tsc
esbuild vite webpack rollup bundler transpile npm pnpm yarn deno bun cargo rustc
gopls pip poetry uv venv pytest unittest jest vitest mocha gotest testify rapid
quickcheck hypothesis sqlite postgres mysql redis kafka nats grpc protobuf
graphql rest websocket oauth jwt cookie csrf cors auth login logout signup
password hash salt bcrypt argon rsa ecdsa ed25519 aes gcm chacha sha256 md5
crc32 base64 hex utf8 unicode ascii emoji whitespace newline tab indent dedent
keybinding shortcut hotkey enter backspace arrow thinking reasoning prompt
completion tokens compaction summary provider anthropic openai claude gpt gemini
temperature fuzzy accurate approximate precise exact strict lenient loose tight
idempotent atomic durable consistent isolated concurrent parallel sequential
deterministic random seeded reproducible flaky intermittent upstream downstream
fork sibling ancestor descendant subtree ancestry lineage genealogy topology
traversal preorder postorder breadth depth hashmap btree trie bloom skiplist
ringbuffer freelist arena slab epoch watermark checkpoint journal wal fsync mmap
pread pwrite inode symlink hardlink permission umask chmod chown ownership kebab
camel snake pascal casing plural singular locale timezone utc iso rfc semver
changelog readme license contributing codeowners obscure arcane esoteric
peculiar idiosyncratic quirky baroque byzantine labyrinthine serendipitous
ephemeral ubiquitous ineffable
`)

// identVerbs and identNouns make identifiers: parseConfig, loadSessionIndex.
var identVerbs = strings.Fields(`get set parse load save read write build make new handle render
	update create delete find resolve validate check apply compute format encode decode open
	close start stop init reset register emit fetch list collect merge split walk visit scan`)

var identNouns = strings.Fields(`config session entry index path leaf branch tree node parent
	child message user theme color editor selector item list option state event handler
	request response client server token cursor buffer reader writer store cache query
	result error value key field schema table row column file dir line offset header body
	model provider context tool call output input width height border style layout`)

// pathDirs and pathExts make a workspace's files.
var pathDirs = strings.Fields(`src src/core src/tui src/theme src/utils src/api internal/store
	internal/index cmd/server pkg/config packages/coding-agent/src packages/tui/src
	packages/ai/src lib lib/parser test tests docs scripts app/models app/views
	packages/coding-agent/src/tui packages/coding-agent/src/core packages/coding-agent/docs
	packages/tui/test packages/agent/src/providers services/billing/internal/invoice
	web/src/components/settings backend/app/api/v2/handlers`)

// enShort are what users type when a prompt is a few characters.
var enShort = []string{"continue", "yes", "go on", "/mode", "commit this", "ok do it",
	"try again", "run the tests", "looks good", "undo that"}

var pathExts = []string{".ts", ".ts", ".go", ".go", ".py", ".tsx", ".md", ".json", ".sql", ".rs"}

// bashCommands are templates of commands the agent runs ($f a file of the
// workspace, $d a directory, $i an identifier, $n a number, $w a word).
var bashCommands = []string{
	`grep -rn "$i" $d`, `rg -n '$i' $d`, `go test ./... 2>&1 | tail -$n`, `npm run check`,
	`ls -la $d`, `cat $f | head -$n`, `git diff --stat`, `git status --short`,
	`find $d -name "*.ts" -type f`, `wc -l $f`, `sed -n '$n,$np' $f`, `npm test -- $w`,
	`go vet ./...`, `git log --oneline -$n`, `make build`, `pytest -x -q tests/`,
	`curl -s http://localhost:$n/api/$w | jq .`, `cargo build --release 2>&1 | tail -$n`,
	`npx tsc --noEmit`, `git diff $f`, `go build ./... && echo ok`,
	`cd $d && npx vitest --run $w 2>&1 | tail -$n`, `grep -rn "$i\|$i" $d --include="*.ts" | head -$n`,
	`find $d -name "*$w*.ts" -type f | xargs grep -l "$i"`,
}

// codeGo, codeTS and codePy are source-line templates: $I an exported
// identifier, $i a lower-case one, $w a word, $n a number, $s a short phrase.
var codeGo = []string{
	"func $I(ctx context.Context, $i string) error {",
	"\tif err := $i.$I(ctx); err != nil {",
	"\t\treturn fmt.Errorf(\"$w $w: %w\", err)",
	"\t}",
	"\treturn nil",
	"}",
	"// $I returns the $w of $i; it never $w the $w.",
	"type $I struct {",
	"\t$I  string `json:\"$i\"`",
	"\t$I int64",
	"for _, $i := range $i.$I {",
	"\t$i = append($i, $i)",
	"$i, err := $I($i, $n)",
	"if len($i) > $n {",
	"\tbreak",
	"defer $i.Close()",
	"var $i = map[string]int{\"$w\": $n}",
	"\t\tt.Errorf(\"$I(%q) = %v, want %v\", $i, got, want)",
}

var codeTS = []string{
	"import { $I, $I } from \"../$w/$i.js\";",
	"export class $I extends Container {",
	"\tprivate $i: $I[] = [];",
	"\tconstructor($i: $I) {",
	"\t\tsuper();",
	"\t\tthis.$i = $i;",
	"\t}",
	"\trender(width: number): string[] {",
	"\t\tconst lines: string[] = [];",
	"\t\tfor (const $i of this.$i) {",
	"\t\t\tlines.push(theme.fg(\"$w\", $i.$i));",
	"\t\treturn lines;",
	"}",
	"export function $i($i: string, $i?: number): $I | undefined {",
	"\tif (!$i) return undefined;",
	"\tconst $i = await this.$i.$i($i);",
	"// $s",
	"\t\t$i: (text: string) => chalk.$w(text),",
}

var codePy = []string{
	"def $i($i, $i=None):",
	"    \"\"\"$s.\"\"\"",
	"    if $i is None:",
	"        return []",
	"    for $i in $i.$i:",
	"        $i.append($i)",
	"    return $i",
	"class $I($I):",
	"    def __init__(self, $i):",
	"        self.$i = $i",
	"import $w",
	"from $w import $I",
}

// errorLines are error messages of compilers, tests and runtimes.
var errorLines = []string{
	"panic: runtime error: index out of range [$n] with length $n",
	"TypeError: Cannot read properties of undefined (reading '$i')",
	"error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.",
	"$f:$n:$n: undefined: $i",
	"--- FAIL: Test$I ($n.00s)",
	"open $f: no such file or directory",
	"Error: ENOENT: no such file or directory, open '$f'",
	"SyntaxError: Unexpected token '}' in JSON at position $n",
	"fatal: not a git repository (or any of the parent directories): .git",
	"error[E0382]: borrow of moved value: `$i`",
	"AssertionError: expected $n to equal $n",
	"sqlite: database is locked (SQLITE_BUSY)",
	"context deadline exceeded after $nms",
	"permission denied: $f",
}

// docHeadings start markdown documents (read results of .md files,
// compaction summaries).
var docHeadings = []string{"# $I", "## Overview", "## Usage", "## Options", "## Examples",
	"### $I", "## Caveats", "## How it works", "| Token | Purpose | Examples |", "|-------|---------|----------|"}

// labelNames are what users call a bookmark (pi label entries).
var labelNames = []string{"checkpoint", "before-refactor", "works", "bug-repro", "good state",
	"try-again", "baseline", "review", "wip", "keep"}

// customTypes are extension identifiers of custom_message and custom entries.
var customTypes = []string{"plan-mode", "todo", "git-status", "reminder", "review-notes"}
