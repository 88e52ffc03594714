package jsonl

import (
	"hash/crc32"
	"strings"
)

// Branch kinds (SPEC §4.2): what each child of a branch point is, so that
// listings show the branches a person made and not what an agent records
// beside them. FORMATS.md §1.7 says where each kind comes from in Claude
// Code's files; pi, plain, Codex and messages files only have KindBranch.

// Kind is the kind of a child of a branch point (SPEC §4.2). An entry that
// is no such child (a root, an only child) is KindBranch.
type Kind uint8

const (
	// KindBranch is a continuation a person or the agent chose: a /rewind
	// or edit, a retry, a resume at an earlier message, pi's /tree, two
	// writers on one file. Anything not below.
	KindBranch Kind = iota
	// KindParallel is a line of the same API message as a sibling or the
	// parent (same Claude message.id), or the tool_result of a tool_use of
	// that message, beside a child that carries the conversation on.
	KindParallel
	// KindProgress is a hook, progress or attachment line (any line that is
	// no user or assistant line) beside the real continuation.
	KindProgress
	// KindReplay is a compaction replay: the same type, timestamp and
	// message as a sibling.
	KindReplay
	// KindCommand is one of several /command children of a command caveat
	// (a slash command, or `!` shell input, that the caveat stands before).
	KindCommand
)

var kindNamesByKind = [...]string{"branch", "parallel", "progress", "replay", "command"}

// String is the kind's name as `--json` shows it: "branch", "parallel",
// "progress", "replay" or "command".
func (k Kind) String() string {
	if int(k) < len(kindNamesByKind) {
		return kindNamesByKind[k]
	}
	return "branch"
}

// ParseKind is the Kind named s (String's names); false for any other s.
func ParseKind(s string) (Kind, bool) {
	for i, n := range kindNamesByKind {
		if n == s {
			return Kind(i), true
		}
	}
	return KindBranch, false
}

// lineClass is what the kind rules tell apart among a file's lines.
type lineClass uint8

const (
	classOther     lineClass = iota // a line that is no user or assistant line
	classAssistant                  // an assistant line
	classPrompt                     // a user line a person wrote (or any user line of a dialect without kinds)
	classMeta                       // isMeta / isCompactSummary: text Claude Code wrote on the user's behalf
	classLocal                      // local-command output, `!` shell lines, hook and reminder text, the interrupt note
	classCommand                    // a /command line (<command-name>…)
	classCaveat                     // the caveat before local commands
	classResults                    // a user line of tool_result blocks only
)

// KindFacts is what the kind rules read of one entry: its tree fields and,
// for a Claude Code line, its API message id, what sort of user line it
// is, its tool_use or tool_result ids and its message's CRC-32.
// FactsOf makes one; it holds no reference to the entry's line.
type KindFacts struct {
	ID, Parent string
	Root       bool
	Class      lineClass
	Msg        string   // an assistant line's message.id; "" when it has none
	Tools      []string // an assistant line's tool_use ids, a results line's tool_use_ids
	Time       int64    // Unix milliseconds; meaningful when HasTime
	HasTime    bool
	Body       uint32 // CRC-32 of the line's message object; 0 when it has none
	Side       bool   // a Claude Code sidechain line (isSidechain: true)
}

// FactsOf reads the kind facts of e, an entry of a file of dialect d
// (e.Raw must still be there for a Claude Code line). Only Claude Code
// lines have kinds other than branch; for the other dialects only the tree
// fields are kept.
func FactsOf(d Dialect, e *Entry) KindFacts {
	f := KindFacts{ID: e.ID, Parent: e.ParentID, Root: e.Root, Time: e.Timestamp, HasTime: e.HasTime, Class: classPrompt, Side: e.Sidechain}
	if d != Claude {
		return f
	}
	switch e.Type {
	case "assistant":
		f.Class = classAssistant
	case "user":
	default:
		f.Class = classOther
		return f
	}
	var message []byte
	meta := false
	walkObject(e.Raw, func(key, v []byte) bool {
		switch string(key) {
		case `"isMeta"`, `"isCompactSummary"`:
			meta = meta || string(v) == "true"
		case `"message"`:
			message = v
		}
		return true
	})
	if message != nil {
		f.Body = crc32.ChecksumIEEE(message)
	}
	var content []byte
	walkObject(message, func(key, v []byte) bool {
		switch string(key) {
		case `"id"`:
			if f.Class == classAssistant {
				f.Msg = decodeString(v)
			}
		case `"content"`:
			content = v
		}
		return true
	})
	if f.Class == classAssistant {
		f.Tools = blockIDs(content, `"tool_use"`, `"id"`)
		return f
	}
	if !meta && len(content) > 0 && content[0] == '[' {
		if ids, only := resultIDs(content); only && len(ids) > 0 {
			f.Class, f.Tools = classResults, ids
			return f
		}
	}
	text := strings.TrimLeft(strings.Join(anthropicTexts(content, nil), " "), " \t\r\n")
	switch {
	case strings.HasPrefix(text, "Caveat: The messages below were generated by the user while running local commands"):
		f.Class = classCaveat
	case meta:
		f.Class = classMeta
	case hasAnyPrefix(text, claudeCommandPrefixes):
		f.Class = classCommand
	case hasAnyPrefix(text, claudeWrapperPrefixes):
		f.Class = classLocal
	}
	return f
}

// blockIDs is the string member key of every block of type typ in an
// Anthropic content array.
func blockIDs(content []byte, typ, key string) []string {
	var ids []string
	walkArray(content, func(block []byte) {
		var t, id []byte
		walkObject(block, func(k, v []byte) bool {
			switch string(k) {
			case `"type"`:
				t = v
			case key:
				id = v
			}
			return true
		})
		if string(t) == typ {
			ids = append(ids, decodeString(id))
		}
	})
	return ids
}

// resultIDs is the tool_use_id of every tool_result block of content, and
// whether content holds tool_result blocks only.
func resultIDs(content []byte) (ids []string, only bool) {
	only = true
	walkArray(content, func(block []byte) {
		var t, id []byte
		walkObject(block, func(k, v []byte) bool {
			switch string(k) {
			case `"type"`:
				t = v
			case `"tool_use_id"`:
				id = v
			}
			return true
		})
		if string(t) != `"tool_result"` {
			only = false
			return
		}
		ids = append(ids, decodeString(id))
	})
	return ids, only
}

// Kinds is the pure reference of SPEC §4.2 over the entries of a file of
// dialect d, in file order, whose active leaf is active (the agent's rule,
// SPEC §1; "" when there is none): the kinds of the entries, index for
// index. It reads e.Raw.
func Kinds(d Dialect, entries []Entry, active string) KindsResult {
	facts := make([]KindFacts, len(entries))
	for i := range entries {
		facts[i] = FactsOf(d, &entries[i])
	}
	return DecideKinds(facts, active)
}

// KindsResult is what DecideKinds decides, index for index with its facts.
//
// Kind[i] is the kind of entry i as a child of a branch point. OnPath[i]
// is the first kind other than KindBranch on the path from a root down to
// entry i (entry i's own kind included), KindBranch when there is none:
// an entry with OnPath KindBranch is on a real branch. A leaf is real when
// its OnPath is KindBranch; a branch point (the first entry with its id)
// is real when RealChildren counts two or more: two of its children are
// on real branches (a branch point below a child of another kind has
// none).
//
// The parent of an entry is the first entry with its parent id; an entry
// whose parent is missing starts its path, and the members of a cycle that
// no root reaches take their own kinds as OnPath.
type KindsResult struct {
	Kind         []Kind
	OnPath       []Kind
	RealChildren []int // per entry: how many of the entries naming its id as parent have OnPath KindBranch (0 for a later entry with a repeated id)
}

// DecideKinds decides the kinds of SPEC §4.2 from the facts of a file's
// entries, in file order, and the id of its active leaf. Time is the
// number of entries times the size of the subtrees searched for a
// continuation, which stops at the first one met (breadth first).
func DecideKinds(facts []KindFacts, active string) KindsResult {
	n := len(facts)
	res := KindsResult{Kind: make([]Kind, n), OnPath: make([]Kind, n), RealChildren: make([]int, n)}
	first := make(map[string]int, n)
	for i := range facts {
		if _, ok := first[facts[i].ID]; !ok {
			first[facts[i].ID] = i
		}
	}
	parent := make([]int, n)
	children := make([][]int, n)
	for i := range facts {
		parent[i] = -1
		if facts[i].Root {
			continue
		}
		if p, ok := first[facts[i].Parent]; ok {
			parent[i] = p
			children[p] = append(children[p], i)
		}
	}
	onActive := make([]bool, n)
	if a, ok := first[active]; ok {
		for i := a; i >= 0 && !onActive[i]; i = parent[i] {
			onActive[i] = true
		}
	}
	k := kinder{facts: facts, children: children, mark: make([]int, n), msgTools: map[string][]string{}}
	for i := range facts {
		if f := &facts[i]; f.Class == classAssistant && f.Msg != "" && len(f.Tools) > 0 {
			k.msgTools[f.Msg] = append(k.msgTools[f.Msg], f.Tools...)
		}
	}
	for p := range facts {
		if len(children[p]) >= 2 {
			k.decide(p, res.Kind, onActive)
		}
	}
	// OnPath: from each entry up to one already known, then down again.
	state := make([]uint8, n) // 0 unknown, 1 on the current walk, 2 known
	var walk []int
	for i := range facts {
		walk = walk[:0]
		j := i
		for j >= 0 && state[j] == 0 {
			state[j] = 1
			walk = append(walk, j)
			j = parent[j]
		}
		above := KindBranch
		if j >= 0 && state[j] == 2 {
			above = res.OnPath[j]
		}
		for w := len(walk) - 1; w >= 0; w-- {
			e := walk[w]
			if above == KindBranch {
				above = res.Kind[e]
			}
			res.OnPath[e] = above
			state[e] = 2
		}
	}
	for i := range facts {
		if p := parent[i]; p >= 0 && res.OnPath[i] == KindBranch {
			res.RealChildren[p]++
		}
	}
	return res
}

// kinder decides the kinds of the children of branch points.
type kinder struct {
	facts    []KindFacts
	children [][]int
	mark     []int               // search stamps: mark[i] == stamp when i was met by the current search
	msgTools map[string][]string // the tool_use ids of every line of each API message
	stamp    int
	queue    []int
}

// decide sets the kinds of the children of branch point p (SPEC §4.2).
func (k *kinder) decide(p int, kinds []Kind, onActive []bool) {
	f, kids := k.facts, k.children[p]
	// The batch: the API messages of p and its assistant children, and
	// the tool calls of all their lines.
	msgs := map[string]bool{}
	tools := map[string]bool{}
	if f[p].Class == classAssistant && f[p].Msg != "" {
		msgs[f[p].Msg] = true
	}
	for _, id := range f[p].Tools {
		if f[p].Class == classAssistant {
			tools[id] = true
		}
	}
	for _, c := range kids {
		if f[c].Class == classAssistant && f[c].Msg != "" {
			msgs[f[c].Msg] = true
		}
	}
	for m := range msgs {
		for _, id := range k.msgTools[m] {
			tools[id] = true
		}
	}
	commands := 0
	for _, c := range kids {
		if f[c].Class == classCommand || f[c].Class == classLocal {
			commands++
		}
	}
	// carryOn[i]: whether kids[i] carries the conversation on, itself or
	// below it; asked only beside a parallel or progress candidate.
	carryOn := make([]int8, len(kids)) // 0 not asked, 1 yes, 2 no
	another := func(c int) bool {
		for i, s := range kids {
			if s == c {
				continue
			}
			if carryOn[i] == 0 {
				carryOn[i] = 2
				if k.carrier(s, msgs, tools) || k.carries(s, msgs, tools) {
					carryOn[i] = 1
				}
			}
			if carryOn[i] == 1 {
				return true
			}
		}
		return false
	}
	anyBranch := false
	for _, c := range kids {
		kind := k.candidate(p, c, kids, tools, commands)
		if (kind == KindParallel || kind == KindProgress) && !another(c) {
			kind = KindBranch // beside nothing that carries on: no artifact
		}
		if kind != KindBranch && (onActive[c] || k.carries(c, msgs, tools)) {
			kind = KindBranch
		}
		kinds[c] = kind
		anyBranch = anyBranch || kind == KindBranch
	}
	if !anyBranch {
		kinds[kids[len(kids)-1]] = KindBranch // the child written last
	}
}

// candidate is the kind child c of p has by its own line and its
// siblings', before asking whether it carries the conversation on.
func (k *kinder) candidate(p, c int, kids []int, tools map[string]bool, commands int) Kind {
	f := k.facts
	switch f[c].Class {
	case classOther:
		return KindProgress
	case classAssistant:
		if f[c].Msg != "" {
			if f[p].Class == classAssistant && f[p].Msg == f[c].Msg {
				return KindParallel
			}
			for _, s := range kids {
				if s != c && f[s].Class == classAssistant && f[s].Msg == f[c].Msg {
					return KindParallel
				}
			}
		}
	case classResults:
		if ownResults(f[c].Tools, tools) {
			return KindParallel
		}
	case classCommand, classLocal:
		if f[p].Class == classCaveat && commands >= 2 {
			return KindCommand
		}
	}
	if f[c].HasTime && f[c].Body != 0 {
		for _, s := range kids {
			if s != c && f[s].Class == f[c].Class && f[s].HasTime && f[s].Time == f[c].Time && f[s].Body == f[c].Body {
				return KindReplay
			}
		}
	}
	return KindBranch
}

// carrier reports whether entry i itself carries the conversation on
// beyond the batch of msgs and tools: an assistant line of another API
// message, or a user line other than meta, local-command or the results
// of the batch's own tool calls.
func (k *kinder) carrier(i int, msgs, tools map[string]bool) bool {
	f := &k.facts[i]
	switch f.Class {
	case classAssistant:
		return f.Msg == "" || !msgs[f.Msg]
	case classPrompt:
		return true
	case classResults:
		return !ownResults(f.Tools, tools)
	}
	return false
}

// ownResults reports whether every id of a results line is one of the
// batch's tool calls.
func ownResults(ids []string, tools map[string]bool) bool {
	for _, id := range ids {
		if !tools[id] {
			return false
		}
	}
	return len(ids) > 0
}

// carries reports whether anything below c carries the conversation on: an assistant line of an API message other than the batch's msgs, or
// a user line other than meta, local-command or the results of the
// batch's own tool calls.
func (k *kinder) carries(c int, msgs, tools map[string]bool) bool {
	k.stamp++
	q := append(k.queue[:0], c)
	k.mark[c] = k.stamp
	defer func() { k.queue = q[:0] }()
	for len(q) > 0 {
		i := q[0]
		q = q[1:]
		if i != c && k.carrier(i, msgs, tools) {
			return true
		}
		for _, x := range k.children[i] {
			if k.mark[x] != k.stamp {
				k.mark[x] = k.stamp
				q = append(q, x)
			}
		}
	}
	return false
}

// HasKinds reports whether files of dialect d can have kinds other than
// branch (SPEC §4.2: Claude Code's only).
func HasKinds(d Dialect) bool { return d == Claude }
