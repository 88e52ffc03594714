package corpusgen

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

var (
	// ErrNotEmpty is returned by Generate when the output directory already
	// holds something and Options.Force is false.
	ErrNotEmpty = errors.New("output directory is not empty")
	// ErrBadOptions is returned by Generate when an option is out of range:
	// a negative size, a share outside [0, 1], or nothing to generate.
	ErrBadOptions = errors.New("bad options")
	// ErrBadSize is returned by ParseSize for text that is not a size.
	ErrBadSize = errors.New("bad size")
)

// Options say what Generate writes. Shares and rates are probabilities in
// [0, 1]; sizes are bytes. The zero value of a share means none: use
// DefaultOptions for the command's defaults.
type Options struct {
	Seed         int64   `json:"seed"`          // same Seed and options, same bytes
	Size         int64   `json:"size"`          // total target of the ordinary sessions, bytes
	BigSession   int64   `json:"big_session"`   // one extra pi session of this many bytes; 0 for none
	Workspaces   int     `json:"workspaces"`    // distinct cwds; 0 picks defaultWorkspaces(Size)
	ChineseShare float64 `json:"chinese_share"` // share of conversation turns written in Chinese
	ImageRate    float64 `json:"image_rate"`    // per session: probability of one 1–4 MB base64 image
	DamageRate   float64 `json:"damage_rate"`   // per session: probability of one damage (not forks)
	PlainShare   float64 `json:"plain_share"`   // share of sessions in the plain dialect (SPEC §3.1)
	ForkRate     float64 `json:"fork_rate"`     // share of pi sessions that fork an earlier one
	// The dialect mix: shares of the ordinary sessions written as Claude
	// Code transcripts (SPEC §3.4), Codex rollouts (SPEC §3.5) and
	// messages logs (SPEC §3.6). Their sum is at most 1; the rest is pi,
	// with PlainShare of it plain. All 0 (the default) writes the corpus
	// of generator version 2 byte for byte, pi and plain only.
	ClaudeShare   float64 `json:"claude_share,omitempty"`
	CodexShare    float64 `json:"codex_share,omitempty"`
	MessagesShare float64 `json:"messages_share,omitempty"`
	// SubagentRate is, per Claude session, the probability that it starts
	// sub-agents (one to three files of their own, FORMATS.md §1.6).
	SubagentRate float64 `json:"subagent_rate,omitempty"`
	Workers      int     `json:"-"` // files written at once; 0 means GOMAXPROCS. Never changes the bytes.
	Force        bool    `json:"-"` // write into a directory that is not empty
	// Files, when above 0, stops the ordinary sessions at this many files
	// even if Size is not reached (the big session is extra). 0: Size alone
	// decides.
	Files int `json:"files,omitempty"`
	// MaxSession, when above 0, caps the target size of every ordinary
	// session, bytes (at least 4 KB; a session ends at the first entry
	// that reaches its target, so a file can be one entry larger); an
	// image is drawn only when it fits. 0: the default cap (Size/8, at
	// least 256 KB, at most 40 MB). With Files it makes corpora of many
	// small files: Files 10000 and MaxSession 8 KB give 10,000 files of
	// 4–9 KB.
	MaxSession int64 `json:"max_session,omitempty"`
}

// DefaultOptions are the command's defaults: 100 MB, 10 % Chinese, 2 % of
// sessions with an image, 2 % damaged, 10 % plain, 5 % forks.
func DefaultOptions() Options {
	return Options{Seed: 1, Size: 100_000_000, ChineseShare: 0.1, ImageRate: 0.02,
		DamageRate: 0.02, PlainShare: 0.1, ForkRate: 0.05}
}

func (o Options) check() error {
	if o.Size < 0 || o.BigSession < 0 || o.Workspaces < 0 || o.Workers < 0 || o.Files < 0 || o.MaxSession < 0 {
		return fmt.Errorf("%w: sizes and counts must not be negative", ErrBadOptions)
	}
	if o.Size == 0 && o.BigSession == 0 {
		return fmt.Errorf("%w: nothing to generate (size and big session are 0)", ErrBadOptions)
	}
	if o.BigSession > 0 && o.BigSession < minSession {
		return fmt.Errorf("%w: a big session needs at least %d bytes", ErrBadOptions, minSession)
	}
	if o.MaxSession > 0 && o.MaxSession < minSession {
		return fmt.Errorf("%w: a session cap needs at least %d bytes", ErrBadOptions, minSession)
	}
	for _, s := range []struct {
		name string
		v    float64
	}{{"chinese share", o.ChineseShare}, {"image rate", o.ImageRate}, {"damage rate", o.DamageRate},
		{"plain share", o.PlainShare}, {"fork rate", o.ForkRate},
		{"claude share", o.ClaudeShare}, {"codex share", o.CodexShare}, {"messages share", o.MessagesShare},
		{"subagent rate", o.SubagentRate}} {
		if !(s.v >= 0 && s.v <= 1) {
			return fmt.Errorf("%w: %s %v is outside [0, 1]", ErrBadOptions, s.name, s.v)
		}
	}
	if sum := o.ClaudeShare + o.CodexShare + o.MessagesShare; sum > 1+1e-9 {
		return fmt.Errorf("%w: the claude, codex and messages shares add up to %v, more than 1", ErrBadOptions, sum)
	}
	return nil
}

// SetDialects sets the dialect mix from text such as "pi=0.5,claude=0.3,
// codex=0.2" or "claude" (one name: every session of that dialect): names
// pi, plain, claude, codex, messages with shares that add up to 1 (a name
// without a share takes what the others leave). PlainShare becomes
// plain's share of pi and plain together. Errors: ErrBadOptions.
func (o *Options) SetDialects(spec string) error {
	shares := map[string]float64{}
	var bare []string
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, val, has := strings.Cut(part, "=")
		name = strings.TrimSpace(name)
		switch name {
		case "pi", "plain", "claude", "codex", "messages":
		default:
			return fmt.Errorf("%w: dialect %q (want pi, plain, claude, codex or messages)", ErrBadOptions, name)
		}
		if _, dup := shares[name]; dup {
			return fmt.Errorf("%w: dialect %q given twice", ErrBadOptions, name)
		}
		if !has {
			shares[name] = -1
			bare = append(bare, name)
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil || !(v >= 0 && v <= 1) {
			return fmt.Errorf("%w: share %q of %s is not a number in [0, 1]", ErrBadOptions, val, name)
		}
		shares[name] = v
	}
	if len(shares) == 0 {
		return fmt.Errorf("%w: no dialect in %q", ErrBadOptions, spec)
	}
	var given float64
	for _, v := range shares {
		if v > 0 {
			given += v
		}
	}
	if given > 1+1e-9 {
		return fmt.Errorf("%w: dialect shares add up to %v, more than 1", ErrBadOptions, given)
	}
	for _, n := range bare {
		shares[n] = (1 - given) / float64(len(bare))
	}
	if len(bare) == 0 && given < 1-1e-9 {
		return fmt.Errorf("%w: dialect shares add up to %v, not 1 (leave one share out to give it the rest)", ErrBadOptions, given)
	}
	o.ClaudeShare, o.CodexShare, o.MessagesShare = shares["claude"], shares["codex"], shares["messages"]
	o.PlainShare = 0
	if pp := shares["pi"] + shares["plain"]; pp > 0 {
		o.PlainShare = shares["plain"] / pp
	}
	return nil
}

// sizeUnits are the suffixes ParseSize reads: SI (powers of 1000) and IEC
// (powers of 1024).
var sizeUnits = []struct {
	suffix string
	mult   float64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
	{"k", 1e3}, {"m", 1e6}, {"g", 1e9}, {"t", 1e12}, {"b", 1},
}

// ParseSize reads a human size: "10MB" is 10,000,000 bytes, "1GiB" is
// 2^30, "1.5GB" and "500 kb" work, a bare number is bytes. It returns
// ErrBadSize for anything else or a negative size.
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := 1.0
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v >= 0) || v*mult > 1<<62 { // !(v >= 0) is also NaN
		return 0, fmt.Errorf("%w: %q (want a number of bytes, or one with KB, MB, GB, KiB, MiB or GiB)", ErrBadSize, s)
	}
	return int64(v * mult), nil
}

// FormatSize writes n bytes for people: 1.00 GB, 12.3 MB, 512 B (SI units,
// as ParseSize reads them).
func FormatSize(n int64) string {
	switch {
	case n >= 1e9:
		return strconv.FormatFloat(float64(n)/1e9, 'f', 2, 64) + " GB"
	case n >= 1e6:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB"
	case n >= 1e3:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + " KB"
	}
	return strconv.FormatInt(n, 10) + " B"
}
