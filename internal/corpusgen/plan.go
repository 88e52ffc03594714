package corpusgen

import (
	"math"
	"path"
	"strconv"
	"strings"
	"time"
)

// BaseTime is when the first session of every corpus starts; later times
// advance from it by drawn gaps, never from the clock.
var BaseTime = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

// Damage kinds of Manifest files.
const (
	DamageNone          = ""
	DamageTornTail      = "torn_tail"      // the last line has no LF (and is cut short)
	DamageBadLine       = "bad_line"       // one extra line in the middle is not JSON
	DamageMissingParent = "missing_parent" // one entry's parentId names no entry
)

var damageKinds = []string{DamageTornTail, DamageBadLine, DamageMissingParent}

// Session sizes in bytes: log-normal with a heavy tail, clipped to
// [minSession, the corpus cap].
const (
	minSession = 4 << 10
	maxSession = 40 << 20
)

var sessionSize = dist{p50: 120 << 10, p90: 900 << 10, min: minSession, max: maxSession}

// workspace is a directory sessions work in (SPEC §3.3), with the files
// they read and edit.
type workspace struct {
	cwd   string
	lang  string // "go", "ts" or "py": the language of code in tool output
	files []string
}

// piDir is pi's session directory name for cwd: the leading slash or
// backslash dropped, then '/', '\' and ':' replaced by '-', wrapped in "--"
// (pi's getDefaultSessionDir).
func piDir(cwd string) string { return "--" + encodeCwd(cwd) + "--" }

func encodeCwd(cwd string) string {
	if strings.HasPrefix(cwd, "/") || strings.HasPrefix(cwd, `\`) {
		cwd = cwd[1:]
	}
	return strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(cwd)
}

var (
	wsUsers    = []string{"ana", "ben", "chen", "dmitri", "eva", "farid", "grace", "hiro"}
	wsRoots    = []string{"src", "code", "work", "projects", "dev"}
	wsProjects = []string{"shop", "grove", "pi-mono", "billing-api", "infra", "notes", "webapp",
		"ml-pipeline", "dotfiles", "search", "mobile", "docs-site", "cli-tools", "game"}
	wsLangs = []string{"ts", "go", "py"}
)

// makeWorkspaces returns n distinct workspaces: mostly Linux home
// directories, some macOS ones and, now and then, a Windows path (which
// exercises the '\' and ':' of pi's directory encoding).
func makeWorkspaces(r *rng, n int) []workspace {
	seen := map[string]bool{}
	ws := make([]workspace, 0, n)
	for len(ws) < n {
		user, root := wsUsers[r.Intn(len(wsUsers))], wsRoots[r.Intn(len(wsRoots))]
		proj := wsProjects[r.Intn(len(wsProjects))]
		if len(ws) >= len(wsProjects) {
			proj += "-" + strconv.Itoa(len(ws))
		}
		var cwd string
		switch k := r.Intn(10); {
		case k == 0 && len(ws) > 0:
			cwd = `C:\Users\` + user + `\` + root + `\` + proj
		case k < 3:
			cwd = "/Users/" + user + "/" + root + "/" + proj
		default:
			cwd = "/home/" + user + "/" + root + "/" + proj
		}
		if seen[cwd] {
			continue
		}
		seen[cwd] = true
		w := workspace{cwd: cwd, lang: wsLangs[r.Intn(len(wsLangs))]}
		t := text{r: r, ws: &w}
		for range r.Range(20, 60) {
			f := pathDirs[r.Intn(len(pathDirs))] + "/" + string(t.ident(nil, false))
			f = strings.ToLower(f[:1]) + f[1:]
			w.files = append(w.files, f+pathExts[r.Intn(len(pathExts))])
		}
		ws = append(ws, w)
	}
	return ws
}

// defaultWorkspaces is Options.Workspaces when it is 0: 4 plus twice the
// binary logarithm of the size in MB (10 for 10 MB, 24 for 1 GB).
func defaultWorkspaces(size int64) int {
	mb := float64(size) / (1 << 20)
	if mb < 1 {
		return 4
	}
	return 4 + int(2*math.Log2(mb))
}

// plan is one session file to write, decided before any is written so that
// the output does not depend on the order workers finish in.
type plan struct {
	index   int    // position in the manifest
	stream  uint64 // names the session's random stream
	dialect string // "pi" or "plain"
	ws      int    // index into the workspaces
	size    int64  // target bytes
	start   int64  // Unix ms of the header (pi) or first entry (plain)
	id      string // session id (a UUID)
	path    string // relative to the corpus directory, slash-separated
	damage  string
	image   int   // base64 bytes of one image, 0 for none
	forkOf  int   // index of the parent plan, -1 when not a fork
	big     bool  // the --big-session file
	jobHead int   // index of the root plan of the job this plan runs in
	kids    []int // forks and sub-agents of this plan, in plan order
	// subagent marks a Claude sub-agent file (FORMATS.md §1.6): forkOf is
	// then the main session that starts it, agent its agent id.
	subagent bool
	agent    string
}

// planCorpus decides every file of the corpus from o. Plans come in
// manifest order: the big session (if any) first, then the others.
func planCorpus(o Options, ws []workspace) []*plan {
	r := newRNG(o.Seed, 0)
	var plans []*plan
	clock := BaseTime.UnixMilli()
	if o.BigSession > 0 {
		br := newRNG(o.Seed, 2)
		id := br.uuid()
		plans = append(plans, &plan{stream: 1 << 62, dialect: "pi", ws: 0, size: o.BigSession,
			start: clock, id: id, path: piPath(ws[0].cwd, clock, id), forkOf: -1, big: true})
	}
	wsPick := newZipf(len(ws), 1.0, 0)
	limit := min(max(o.Size/8, 256<<10), maxSession)
	imageCap := int64(math.MaxInt64)
	if o.MaxSession > 0 {
		limit, imageCap = min(limit, o.MaxSession), o.MaxSession
	}
	var total int64
	var recent []int // undamaged pi sessions a fork may start from
	// undamaged Claude and Codex main sessions a fork may start from
	// (--fork-session, codex fork); never pi's list, so that a corpus
	// without them draws as version 2 did
	recentOf := map[string][]int{}
	for k := uint64(0); total < o.Size && (o.Files == 0 || int(k) < o.Files); k++ {
		p := &plan{stream: k, forkOf: -1, dialect: "pi"}
		p.size = int64(sessionSize.Draw(r))
		if r.Intn(33) == 0 && limit > 5<<20 { // the heavy tail: 5 MB up to the cap
			p.size = int64(5<<20) + int64(r.Float64()*float64(limit-5<<20))
		}
		p.size = min(p.size, limit)
		rest := o.Size - total
		if rest < minSession/2 && total > 0 {
			break
		}
		if p.size > rest || rest-p.size < minSession/2 {
			p.size = rest
		}
		if r.Chance(o.ImageRate) {
			img := int64(r.Range(1<<20, 4<<20)) &^ 3
			if need := img*10/7 + 64<<10; need <= rest && need <= imageCap {
				p.image, p.size = int(img), max(p.size, need)
			}
		}
		if o.ClaudeShare+o.CodexShare+o.MessagesShare > 0 { // no draw otherwise: version 2's bytes
			switch u := r.Float64(); {
			case u < o.ClaudeShare:
				p.dialect = "claude"
			case u < o.ClaudeShare+o.CodexShare:
				p.dialect = "codex"
			case u < o.ClaudeShare+o.CodexShare+o.MessagesShare:
				p.dialect = "messages"
			}
		}
		if p.dialect == "pi" && r.Chance(o.PlainShare) {
			p.dialect = "plain"
		}
		p.ws = wsPick.pick(r)
		clock += int64(r.Range(2, 180)) * 60_000
		p.start = clock
		p.id = r.uuid()
		if other := recentOf[p.dialect]; p.dialect == "pi" && len(recent) > 0 && r.Chance(o.ForkRate) ||
			p.dialect != "pi" && len(other) > 0 && r.Chance(o.ForkRate) {
			if p.dialect == "pi" {
				p.forkOf = recent[r.Intn(len(recent))]
			} else {
				p.forkOf = other[r.Intn(len(other))]
			}
			parent := plans[p.forkOf]
			p.ws = parent.ws
			// The fork is made some time into its parent's life.
			est := float64(parent.size) / 950 * 12_000
			p.start = max(p.start, parent.start+int64(est*(0.3+0.7*r.Float64())))
		} else if r.Chance(o.DamageRate) {
			p.damage = damageKinds[r.Intn(len(damageKinds))]
			if p.damage == DamageMissingParent && (p.dialect == "codex" || p.dialect == "messages") {
				p.damage = DamageBadLine // no parents to break: ids are L<line>
			}
		}
		switch p.dialect {
		case "pi":
			p.path = piPath(ws[p.ws].cwd, p.start, p.id)
		case "plain":
			p.path = path.Join("plain", encodeCwd(ws[p.ws].cwd), p.id+".jsonl")
		case "claude":
			p.path = path.Join("claude", "projects", claudeDir(ws[p.ws].cwd), p.id+".jsonl")
		case "codex":
			p.path = codexPath(p.start, p.id)
		case "messages":
			p.path = path.Join("messages", encodeCwd(ws[p.ws].cwd), p.id+".jsonl")
		}
		p.index = len(plans)
		plans = append(plans, p)
		if p.dialect == "claude" && r.Chance(o.SubagentRate) {
			for range r.Range(1, 3) {
				a := &plan{stream: k | 1<<40 | uint64(len(plans))<<44, forkOf: p.index, dialect: "claude", ws: p.ws,
					subagent: true, index: len(plans)}
				a.size = min(max(minSession, p.size/6), 200<<10)
				a.start = p.start + int64(r.Range(60, 900))*1000
				var hex []byte
				for range 17 {
					hex = append(hex, hexDigits[r.Intn(16)])
				}
				a.agent, a.id = string(hex), "agent-"+string(hex)
				a.path = path.Join("claude", "projects", claudeDir(ws[p.ws].cwd), p.id, "subagents", a.id+".jsonl")
				plans = append(plans, a)
				total += a.size
			}
		}
		if p.dialect == "pi" && p.damage == "" {
			if recent = append(recent, p.index); len(recent) > 8 {
				recent = recent[1:]
			}
		}
		if (p.dialect == "claude" || p.dialect == "codex") && p.damage == "" {
			if recentOf[p.dialect] = append(recentOf[p.dialect], p.index); len(recentOf[p.dialect]) > 8 {
				recentOf[p.dialect] = recentOf[p.dialect][1:]
			}
		}
		total += p.size
	}
	for _, p := range plans {
		p.jobHead = p.index
		if p.forkOf >= 0 {
			p.jobHead = plans[p.forkOf].jobHead
			plans[p.forkOf].kids = append(plans[p.forkOf].kids, p.index)
		}
	}
	return plans
}

// claudeDir is Claude Code's project folder name for cwd: every character
// outside [A-Za-z0-9] becomes '-' (/home/ana/src/shop → -home-ana-src-shop,
// C:\Users\ana\x → C--Users-ana-x; FORMATS.md §1.1). The workspaces here
// are short, so the 200-character cut never applies.
func claudeDir(cwd string) string {
	b := []byte(cwd)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

// codexPath is where Codex keeps a rollout started at ms (FORMATS.md §2.1):
// codex/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl, in UTC
// (Codex uses local time; the corpus must not depend on the machine).
func codexPath(ms int64, id string) string {
	t := time.UnixMilli(ms).UTC()
	return path.Join("codex", "sessions", t.Format("2006"), t.Format("01"), t.Format("02"),
		"rollout-"+t.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
}

// piPath is where pi keeps a session: pi/--<cwd>--/<time>_<id>.jsonl.
func piPath(cwd string, ms int64, id string) string {
	return path.Join("pi", piDir(cwd), fileTime(ms)+"_"+id+".jsonl")
}
