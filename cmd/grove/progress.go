package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/plural"
)

// stderrIsTerminal reports whether progress may be drawn on g's stderr.
func stderrIsTerminal(g *env) bool {
	f, ok := g.stderr.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

// progressReporter draws a progress bar for long index runs on w (docs/commands.md
// "grove index"): files read of those that changed, megabytes,
// and time left. It is made only when stderr is a terminal; otherwise
// nothing is drawn and only the one-line summary is printed at the end. Its
// percentage only grows, also when a second pass starts or the total is
// estimated again: the bar counts in steps of a fixed scale, and a smaller
// fraction than one drawn before keeps it where it was.
type progressReporter struct {
	w        io.Writer
	bar      *progressbar.ProgressBar
	throttle time.Duration // least time between two redraws
	shown    float64       // the largest fraction drawn so far
	cols     int           // the terminal's width in columns; 0 when unknown (a pty with no size)
}

// fullWidthColumns is the least terminal width the bar is drawn across in
// full; on a narrower terminal, or one whose size is unknown or 0 (a pty
// nobody sized, where a full-width bar would be an empty "||"), the bar
// is barColumns wide (and shrunk to fit a narrow terminal it can measure).
const (
	fullWidthColumns = 100
	barColumns       = 30
)

// terminalColumns is w's width when w is a terminal that knows its size,
// else 0.
func terminalColumns(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok {
		return 0
	}
	cols, _, err := term.GetSize(int(f.Fd()))
	if err != nil || cols < 0 {
		return 0
	}
	return cols
}

// minProgressBytes is the least a run must read for a bar to be worth
// drawing: a refresh that reads a few appended lines says nothing until
// its summary.
const minProgressBytes = 8 << 20

// progressSteps is the bar's fixed scale: a hundredth of a percent.
const progressSteps = 10000

func newProgressReporter(w io.Writer) *progressReporter {
	return &progressReporter{w: w, throttle: 200 * time.Millisecond, cols: terminalColumns(w)}
}

// update is an archive.IndexOptions.Progress.
func (r *progressReporter) update(p archive.Progress) {
	if r.bar == nil {
		if p.BytesTotal < minProgressBytes {
			return
		}
		width := progressbar.OptionSetWidth(barColumns)
		if r.cols >= fullWidthColumns {
			width = progressbar.OptionFullWidth()
		}
		r.bar = progressbar.NewOptions64(progressSteps,
			progressbar.OptionSetWriter(r.w),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionThrottle(r.throttle),
			progressbar.OptionClearOnFinish(),
			width,
		)
	}
	f := 0.0
	if p.BytesTotal > 0 {
		f = min(float64(p.Bytes)/float64(p.BytesTotal), 1)
	}
	r.shown = max(r.shown, f)
	r.bar.Describe(fmt.Sprintf("indexing %d/%s, %s of %s", p.Files, plural.Count(p.FilesTotal, "file", "files"), megabytes(p.Bytes), megabytes(p.BytesTotal)))
	r.bar.Set64(int64(r.shown * progressSteps))
}

// megabytes renders n bytes for the bar: "12.3 MB".
func megabytes(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

// finish clears the bar, if one was drawn.
func (r *progressReporter) finish() {
	if r.bar != nil {
		r.bar.Finish()
	}
}

// showProgress sets *progress to a bar on g's stderr when it is a
// terminal, and returns what clears the bar at the end (defer it).
func showProgress(g *env, progress *func(archive.Progress)) (finish func()) {
	if !stderrIsTerminal(g) {
		return func() {}
	}
	p := newProgressReporter(g.stderr)
	*progress = p.update
	return p.finish
}
