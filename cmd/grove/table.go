package main

import (
	"bytes"
	"io"
	"strings"
)

// tableWriter is grove's one table layout (sessions, workspaces, leaves,
// branches, path): borderless, each column padded to its widest cell plus
// two spaces, the text after a line's last tab left unpadded. Cells end
// with '\t', rows with '\n', as for text/tabwriter, and columns line up
// the same way (a column spans a run of consecutive rows that have it),
// but widths are terminal columns, not runes: a CJK character or an emoji
// takes two, a combining mark none (uniseg's grapheme widths). Rows are
// kept until Flush.
type tableWriter struct {
	w   io.Writer
	buf bytes.Buffer
}

// table starts a table written to w by Flush.
func table(w io.Writer) *tableWriter { return &tableWriter{w: w} }

func (t *tableWriter) Write(p []byte) (int, error) { return t.buf.Write(p) }

// tablePadding is the space between two columns, in terminal columns.
const tablePadding = 2

// Flush writes the rows given so far, aligned, and empties the table.
func (t *tableWriter) Flush() error {
	text := t.buf.String()
	t.buf.Reset()
	if text == "" {
		return nil
	}
	ended := strings.HasSuffix(text, "\n")
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	rows := make([][]string, len(lines))
	widths := make([][]int, len(lines))
	most := 0
	for i, l := range lines {
		rows[i] = strings.Split(l, "\t")
		widths[i] = make([]int, len(rows[i])-1)
		most = max(most, len(rows[i])-1)
	}
	// Column k of a run of consecutive rows that all have a k-th
	// tab-ended cell is as wide as the run's widest such cell.
	for k := 0; k < most; k++ {
		for i := 0; i < len(rows); {
			if len(rows[i])-1 <= k {
				i++
				continue
			}
			j, w := i, 0
			for ; j < len(rows) && len(rows[j])-1 > k; j++ {
				w = max(w, displayWidth(rows[j][k]))
			}
			for ; i < j; i++ {
				widths[i][k] = w + tablePadding
			}
		}
	}
	var out strings.Builder
	for i, r := range rows {
		for k, c := range r[:len(r)-1] {
			out.WriteString(padRight(c, widths[i][k]))
		}
		out.WriteString(r[len(r)-1])
		if i < len(rows)-1 || ended {
			out.WriteByte('\n')
		}
	}
	_, err := io.WriteString(t.w, out.String())
	return err
}
