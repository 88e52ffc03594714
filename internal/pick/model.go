package pick

import (
	"context"
	"strings"
	"time"
	"unicode"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/grove-sessions/grove/archive"
)

// Options are what the picker starts with.
type Options struct {
	Query string // the filter typed in at the start (grove pick QUERY)
	// Resume places what Enter writes (pi's fork) and is passed to
	// archive.Resume; Prompt and Plan are the picker's own.
	Resume archive.ResumeOptions
	// SearchLimit is how many full-text hits one search reads (each
	// names a session); 0 means 200.
	SearchLimit int
}

// Model is the picker (a bubbletea model): the sessions of the archive,
// newest first, filtered by the query; the leaves of the selected
// session beside them; a resume command chosen with Enter.
type Model struct {
	ctx  context.Context
	a    *archive.Archive
	opts Options

	input  textinput.Model // the query
	prompt textinput.Model // the first message of a branch (Claude Code), while prompting

	all   []row // every session, newest first
	shown []int // indices into all that the query keeps, in order
	// metaOK marks the sessions whose name, first message, workspace or id
	// hold every word of metaWords; a query that only types on narrows it.
	metaOK    []bool
	metaWords []string
	cursor    int // index into shown
	top       int // first row of shown on screen

	// Full text: hits of the query in flight or last answered, by session
	// file; at most one search runs, the latest query waits for it.
	text      map[string]string // session file → a snippet of its first hit
	textQuery string            // the query text answers
	textErr   string
	textTook  time.Duration
	searching bool
	pending   string // a query typed while a search ran; "" none
	seq       int    // counts queries typed, so a late answer is recognised

	leaves     map[string][]archive.Leaf // by session file
	leavesErr  map[string]string
	leafCursor int
	focusLeaf  bool // the leaves pane has the keys

	prompting bool
	planned   *archive.Resume // the leaf asked for a prompt
	status    string          // a message at the bottom (an error, a refusal)
	loaded    bool
	loadErr   error

	width, height int

	// Chosen is the resume command Enter chose; nil when the picker was
	// left with Esc or Ctrl-C.
	Chosen *archive.Resume
	// Err is an error that ended the picker (the sessions could not be
	// read).
	Err error
}

// row is one session with the text the query matches against.
type row struct {
	s    archive.Session
	meta string // name, first message, workspace and id, lower-cased
}

// New is a picker over the sessions of a.
func New(ctx context.Context, a *archive.Archive, opts Options) *Model {
	in := textinput.New()
	in.Prompt = "> "
	in.Placeholder = "type to filter: name, first message, workspace, any text"
	in.SetValue(opts.Query)
	in.CursorEnd()
	in.Focus()
	pr := textinput.New()
	pr.Prompt = "first message of the branch> "
	if opts.SearchLimit == 0 {
		opts.SearchLimit = 200
	}
	return &Model{ctx: ctx, a: a, opts: opts, input: in, prompt: pr, leaves: map[string][]archive.Leaf{},
		leavesErr: map[string]string{}, text: map[string]string{}}
}

// The picker's messages.
type (
	sessionsMsg struct {
		rows []row
		err  error
	}
	searchMsg struct {
		query string
		hits  map[string]string
		err   error
		took  time.Duration
	}
	leavesMsg struct {
		path   string
		leaves []archive.Leaf
		err    error
	}
	resumeMsg struct {
		r    *archive.Resume
		err  error
		plan bool
	}
)

// Init loads the sessions.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(textinput.Blink, m.loadSessions)
}

func (m *Model) loadSessions() tea.Msg {
	ss, err := m.a.Pick(m.ctx, archive.Filter{})
	rows := make([]row, len(ss))
	for i, s := range ss {
		first := ""
		if s.FirstMessage != nil {
			first = *s.FirstMessage
		}
		rows[i] = row{s: s, meta: strings.ToLower(strings.Join([]string{s.Name, first, s.Workspace, s.SessionID}, "\n"))}
	}
	return sessionsMsg{rows, err}
}

// Update handles a message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.input.SetWidth(max(10, msg.Width-4))
		return m, nil
	case sessionsMsg:
		if msg.err != nil {
			m.Err = msg.err
			return m, tea.Quit
		}
		m.all, m.loaded = msg.rows, true
		return m, m.queryChanged()
	case searchMsg:
		return m, m.searched(msg)
	case leavesMsg:
		if msg.err != nil {
			m.leavesErr[msg.path] = msg.err.Error()
		} else {
			m.leaves[msg.path] = msg.leaves
		}
		if s := m.selected(); s != nil && s.Path == msg.path {
			m.leafCursor = activeIndex(msg.leaves)
		}
		return m, nil
	case resumeMsg:
		return m.resumed(msg)
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	var cmd tea.Cmd
	if m.prompting {
		m.prompt, cmd = m.prompt.Update(msg)
	} else {
		m.input, cmd = m.input.Update(msg)
	}
	return m, cmd
}

func (m *Model) key(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	name := k.String()
	switch name {
	case "ctrl+c":
		return m, tea.Quit
	case "esc":
		if m.prompting {
			m.prompting, m.planned, m.status = false, nil, ""
			return m, nil
		}
		return m, tea.Quit
	case "enter":
		return m, m.enter()
	}
	if m.prompting {
		var cmd tea.Cmd
		m.prompt, cmd = m.prompt.Update(k)
		return m, cmd
	}
	switch name {
	case "up", "ctrl+p":
		m.move(-1)
		return m, m.loadLeaves()
	case "down", "ctrl+n":
		m.move(1)
		return m, m.loadLeaves()
	case "pgup":
		m.move(-m.bodyRows())
		return m, m.loadLeaves()
	case "pgdown":
		m.move(m.bodyRows())
		return m, m.loadLeaves()
	case "tab", "right":
		if name == "right" && m.input.Position() < len([]rune(m.input.Value())) {
			break // → moves in the query until its end
		}
		m.focusLeaf = true
		return m, nil
	case "shift+tab", "left":
		if m.focusLeaf {
			m.focusLeaf = false
			return m, nil
		}
	}
	before := m.input.Value()
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	if m.input.Value() != before {
		m.focusLeaf = false
		return m, tea.Batch(cmd, m.queryChanged())
	}
	return m, cmd
}

// move moves the cursor of the focused pane by d rows.
func (m *Model) move(d int) {
	if m.focusLeaf {
		if s := m.selected(); s != nil {
			m.leafCursor = clamp(m.leafCursor+d, 0, len(m.leaves[s.Path])-1)
		}
		return
	}
	m.cursor = clamp(m.cursor+d, 0, len(m.shown)-1)
	if s := m.selected(); s != nil {
		m.leafCursor = activeIndex(m.leaves[s.Path])
	}
}

// queryChanged filters the sessions by what the query says of them
// (name, first message, workspace: at once) and starts a full-text search
// for it (its sessions are added when it answers).
func (m *Model) queryChanged() tea.Cmd {
	m.seq++
	q := strings.TrimSpace(m.input.Value())
	if q != m.textQuery {
		m.text, m.textErr = map[string]string{}, ""
	}
	m.refilter()
	if q == "" {
		m.textQuery, m.pending = "", ""
		return m.loadLeaves()
	}
	if m.searching {
		m.pending = q
		return m.loadLeaves()
	}
	return tea.Batch(m.search(q), m.loadLeaves())
}

// refilter recomputes shown, keeping the selected session when it stays.
// The name filter narrows the last one when the query only typed on (its
// words the same but the last one longer), else starts over.
func (m *Model) refilter() {
	var keep string
	if s := m.selected(); s != nil {
		keep = s.Path
	}
	words := strings.Fields(strings.ToLower(m.input.Value()))
	narrow := len(m.metaOK) == len(m.all) && typedOn(m.metaWords, words)
	if !narrow {
		m.metaOK = make([]bool, len(m.all))
	}
	for i := range m.all {
		if !narrow || m.metaOK[i] {
			m.metaOK[i] = metaMatch(m.all[i].meta, words)
		}
	}
	m.metaWords = words
	m.shown = m.shown[:0]
	for i := range m.all {
		if _, ok := m.text[m.all[i].s.Path]; ok || m.metaOK[i] {
			m.shown = append(m.shown, i)
		}
	}
	m.cursor = 0
	for i, j := range m.shown {
		if m.all[j].s.Path == keep {
			m.cursor = i
		}
	}
}

// typedOn reports whether the words now are the words before with more
// typed: the same words, the last one longer, or one word more. What
// matches now then matched before.
func typedOn(before, now []string) bool {
	if len(before) == 0 || len(now) < len(before) || len(now) > len(before)+1 {
		return false
	}
	if last := now[len(now)-1]; strings.ContainsAny(last, `"*`) || strings.HasPrefix(last, "-") {
		return false // search syntax counts as found (metaMatch): more may match now
	}
	n := len(before)
	for i := 0; i < n-1; i++ {
		if before[i] != now[i] {
			return false
		}
	}
	return strings.HasPrefix(now[n-1], before[n-1])
}

// metaMatch reports whether every word is in meta (words lower-cased;
// a word with search syntax — quotes, a * prefix, a -exclusion, OR —
// counts as found, the full text deciding).
func metaMatch(meta string, words []string) bool {
	for _, w := range words {
		if strings.ContainsAny(w, `"*`) || strings.HasPrefix(w, "-") || w == "or" || w == "and" || w == "not" {
			continue
		}
		if !strings.Contains(meta, w) {
			return false
		}
	}
	return true
}

// search runs the full-text search of q: its last word, typed on, is a
// prefix (grove search's word*).
func (m *Model) search(q string) tea.Cmd {
	m.searching = true
	ctx, a, limit := m.ctx, m.a, m.opts.SearchLimit
	return func() tea.Msg {
		start := time.Now()
		res, err := a.Search(ctx, archive.SearchOptions{Query: asTyped(q), Limit: limit, NoSnippets: true, EntriesOnly: true})
		hits := map[string]string{}
		if err == nil {
			for _, h := range res.Hits {
				if _, ok := hits[h.Path]; !ok {
					hits[h.Path] = h.Snippet
				}
				for _, p := range h.AlsoInFiles {
					if _, ok := hits[p]; !ok {
						hits[p] = h.Snippet
					}
				}
			}
		}
		return searchMsg{query: q, hits: hits, err: err, took: time.Since(start)}
	}
}

// asTyped is the query q as grove search takes it while it is typed: its
// last word, when it is a plain word of three characters or more, a
// prefix (CJK text matches any substring already). A two-letter prefix
// would be grove search's shortest, but it expands to most of the index's
// words and costs a second on a large archive, so two letters are
// searched as a word.
func asTyped(q string) string {
	words := strings.Fields(q)
	last := words[len(words)-1]
	if strings.Count(q, `"`)%2 == 1 || strings.ContainsAny(last, `*"-`) || last == "OR" || last == "AND" || last == "NOT" {
		return q
	}
	letters := 0
	for _, r := range last {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return q
		}
		if unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) {
			return q // CJK text is matched as any substring already
		}
		letters++
	}
	if letters < 3 {
		return q
	}
	return q + "*"
}

// searched takes a search's answer: the latest query's hits join the
// filter; an older one's are dropped, and the query typed meanwhile runs.
func (m *Model) searched(msg searchMsg) tea.Cmd {
	m.searching = false
	if q := strings.TrimSpace(m.input.Value()); msg.query == q {
		m.textQuery, m.textTook, m.textErr = q, msg.took, ""
		if msg.err != nil {
			m.textErr = msg.err.Error()
		} else {
			m.text = msg.hits
		}
		m.refilter()
		m.pending = ""
		return m.loadLeaves()
	}
	if q := m.pending; q != "" {
		m.pending = ""
		return m.search(q)
	}
	return nil
}

// loadLeaves reads the leaves of the selected session, once.
func (m *Model) loadLeaves() tea.Cmd {
	s := m.selected()
	if s == nil {
		return nil
	}
	if _, ok := m.leaves[s.Path]; ok {
		return nil
	}
	if _, ok := m.leavesErr[s.Path]; ok {
		return nil
	}
	ctx, a, path := m.ctx, m.a, s.Path
	return func() tea.Msg {
		ls, err := a.Leaves(ctx, archive.Filter{Session: path})
		return leavesMsg{path: path, leaves: ls, err: err}
	}
}

// enter resumes the selected leaf: first as a plan (nothing written), so
// that a leaf whose agent needs a first message asks for it.
func (m *Model) enter() tea.Cmd {
	s := m.selected()
	if s == nil {
		return nil
	}
	leaf := ""
	if ls := m.leaves[s.Path]; m.leafCursor < len(ls) {
		leaf = ls[m.leafCursor].EntryID
	}
	ctx, a, opts := m.ctx, m.a, m.opts.Resume
	if m.prompting {
		opts.Prompt = m.prompt.Value()
		if strings.TrimSpace(opts.Prompt) == "" {
			m.status = "type the first message of the branch, or Esc"
			return nil
		}
		planned := m.planned
		return func() tea.Msg {
			r, err := a.Resume(ctx, planned.Session.Path, planned.Leaf, opts)
			return resumeMsg{r: r, err: err}
		}
	}
	return func() tea.Msg {
		plan := opts
		plan.Plan = true
		r, err := a.Resume(ctx, s.Path, leaf, plan)
		if err != nil || !r.NeedsPrompt {
			if err == nil {
				r, err = a.Resume(ctx, s.Path, leaf, opts)
			}
			return resumeMsg{r: r, err: err}
		}
		return resumeMsg{r: r, plan: true}
	}
}

func (m *Model) resumed(msg resumeMsg) (tea.Model, tea.Cmd) {
	switch {
	case msg.err != nil:
		m.status = msg.err.Error()
		return m, nil
	case msg.plan:
		m.prompting, m.planned, m.status = true, msg.r, ""
		m.prompt.SetValue("")
		return m, m.prompt.Focus()
	}
	m.Chosen = msg.r
	return m, tea.Quit
}

// selected is the session under the cursor; nil when none is shown.
func (m *Model) selected() *archive.Session {
	if m.cursor < 0 || m.cursor >= len(m.shown) {
		return nil
	}
	return &m.all[m.shown[m.cursor]].s
}

// activeIndex is the place of the active leaf among ls, 0 when none is.
func activeIndex(ls []archive.Leaf) int {
	for i, l := range ls {
		if l.Active {
			return i
		}
	}
	return 0
}

func clamp(v, lo, hi int) int {
	if v > hi {
		v = hi
	}
	if v < lo {
		v = lo
	}
	return v
}
