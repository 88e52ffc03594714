package pick

import (
	"context"
	"errors"
	"fmt"
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"github.com/grove-sessions/grove/archive"
)

// ErrNoTerminal is returned by Run when standard input or standard error
// is not a terminal: the picker reads keys from one and draws on the
// other (standard output is left for the command it prints).
var ErrNoTerminal = errors.New("grove pick needs a terminal: its standard input and standard error must be one (in a script, use grove sessions, grove search and grove resume)")

// TooSmallError is returned by Run when the terminal is smaller than
// MinWidth × MinHeight.
type TooSmallError struct{ Width, Height int }

func (e TooSmallError) Error() string {
	return fmt.Sprintf("the terminal is %d×%d; grove pick needs at least %d columns and %d rows", e.Width, e.Height, MinWidth, MinHeight)
}

// Run runs the picker over a in the terminal of standard input and
// standard error, in the terminal's alternate screen (left as it was on
// exit). It answers the resume command chosen with Enter, or nil when the
// picker was left with Esc or Ctrl-C. Errors: ErrNoTerminal,
// TooSmallError, those of reading the sessions, and bubbletea's (ctx
// ending stops the picker with ctx's error).
func Run(ctx context.Context, a *archive.Archive, opts Options) (*archive.Resume, error) {
	if !term.IsTerminal(os.Stdin.Fd()) || !term.IsTerminal(os.Stderr.Fd()) {
		return nil, ErrNoTerminal
	}
	if w, h, err := term.GetSize(os.Stderr.Fd()); err == nil && (w < MinWidth || h < MinHeight) {
		return nil, TooSmallError{w, h}
	}
	m := New(ctx, a, opts)
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(os.Stdin), tea.WithOutput(os.Stderr))
	if _, err := p.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return m.Chosen, m.Err
}
