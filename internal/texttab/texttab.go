// Package texttab draws the tables of every ragbench report (bench eval,
// compare, attribute, threshold, history and the sweep's report.md) in the
// three forms they use, from one description of the table, so that
// alignment and Markdown escaping follow one rule everywhere (as benchstat's
// internal texttab does for benchstat):
//
//   - WriteText: aligned plain text for terminals; columns separated by two
//     spaces, each padded to its widest cell (widths in runes), left- or
//     right-aligned (Table.Align), trailing spaces trimmed.
//   - WriteMarkdown: a compact GitHub-flavoured Markdown table, "| a | b |"
//     rows under a "|---|---:|" delimiter row (":" marks right alignment).
//   - WritePaddedMarkdown: the same Markdown table with the cells padded to
//     the column width, so that it also reads well in a terminal.
//
// Both Markdown forms pass every cell, header included, through Escape.
// Cells may hold inline Markdown and HTML (compare's **bold** and <sup>
// letters): Escape leaves them alone.
package texttab

import (
	"bufio"
	"io"
	"strings"
	"unicode/utf8"
)

// Align is the alignment of a column: Left (the zero value) or Right
// (numbers, so that their digits line up).
type Align uint8

// The alignments of Table.Align.
const (
	Left Align = iota
	Right
)

// Table is a table to draw: Header names the columns, each row of Rows has
// one cell per column (a shorter row is padded with empty cells; cells past
// the header's width are dropped). Align gives each column's alignment
// (columns past len(Align) are Left). MinWidth gives each column's least
// width in runes (0 or missing: the widest cell, header included), used by
// WriteText and WritePaddedMarkdown.
type Table struct {
	Header   []string
	Rows     [][]string
	Align    []Align
	MinWidth []int
}

// AddRow appends one row of cells.
func (t *Table) AddRow(cells ...string) { t.Rows = append(t.Rows, cells) }

// markdownEscaper is the one escape rule for Markdown cells: a backslash
// is doubled and a pipe is escaped (GitHub splits cells on unescaped
// pipes, before inline parsing), and a line break becomes a space (a table
// row is one line).
var markdownEscaper = strings.NewReplacer(`\`, `\\`, "|", `\|`, "\r\n", " ", "\n", " ", "\r", " ")

// Escape returns s as the text of a Markdown table cell that renders as s:
// `\` becomes `\\`, `|` becomes `\|`, and each line break (CRLF, LF or CR)
// a space. Other characters, Markdown emphasis and HTML included, are kept.
func Escape(s string) string { return markdownEscaper.Replace(s) }

func (t *Table) align(i int) Align {
	if i < len(t.Align) {
		return t.Align[i]
	}
	return Left
}

// cells returns the header and the rows, each exactly len(Header) cells
// long, passed through f.
func (t *Table) cells(f func(string) string) [][]string {
	n := len(t.Header)
	out := make([][]string, 0, 1+len(t.Rows))
	for _, r := range append([][]string{t.Header}, t.Rows...) {
		row := make([]string, n)
		for i := range row {
			if i < len(r) {
				row[i] = f(r[i])
			}
		}
		out = append(out, row)
	}
	return out
}

func (t *Table) widths(rows [][]string) []int {
	w := make([]int, len(t.Header))
	for i := range w {
		if i < len(t.MinWidth) {
			w[i] = t.MinWidth[i]
		}
	}
	for _, r := range rows {
		for i, c := range r {
			w[i] = max(w[i], utf8.RuneCountInString(c))
		}
	}
	return w
}

// pad returns c padded with spaces to w runes, on the side opposite a.
func pad(c string, w int, a Align) string {
	n := w - utf8.RuneCountInString(c)
	if n <= 0 {
		return c
	}
	if a == Right {
		return strings.Repeat(" ", n) + c
	}
	return c + strings.Repeat(" ", n)
}

func identity(s string) string { return s }

// WriteText writes t as aligned plain text: one line per row, header
// first, cells padded to their column's width and separated by two
// spaces, trailing spaces trimmed. Cells are written as they are (no
// escaping). Errors come from w.
func (t *Table) WriteText(w io.Writer) error {
	rows := t.cells(identity)
	width := t.widths(rows)
	bw := bufio.NewWriter(w)
	var line strings.Builder
	for _, r := range rows {
		line.Reset()
		for i, c := range r {
			if i > 0 {
				line.WriteString("  ")
			}
			line.WriteString(pad(c, width[i], t.align(i)))
		}
		bw.WriteString(strings.TrimRight(line.String(), " "))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// WriteMarkdown writes t as a compact Markdown table: "| " + cells joined
// by " | " + " |" per row (an empty cell is "|  |"), the delimiter row
// "|---|" for a left column and "|---:|" for a right one. Cells pass
// through Escape. Errors come from w.
func (t *Table) WriteMarkdown(w io.Writer) error {
	rows := t.cells(Escape)
	bw := bufio.NewWriter(w)
	for k, r := range rows {
		bw.WriteString("| " + strings.Join(r, " | ") + " |\n")
		if k == 0 {
			bw.WriteByte('|')
			for i := range r {
				if t.align(i) == Right {
					bw.WriteString("---:|")
				} else {
					bw.WriteString("---|")
				}
			}
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

// WritePaddedMarkdown writes t as a Markdown table whose cells are padded
// to their column's width (in runes, after Escape; at least MinWidth):
// "| cell |" per cell, and a delimiter row of dashes as wide as the cell
// with its surrounding spaces ("|-----|"), the last dash a ":" for a right
// column ("|----:|"). Errors come from w.
func (t *Table) WritePaddedMarkdown(w io.Writer) error {
	rows := t.cells(Escape)
	width := t.widths(rows)
	bw := bufio.NewWriter(w)
	for k, r := range rows {
		bw.WriteByte('|')
		for i, c := range r {
			bw.WriteString(" " + pad(c, width[i], t.align(i)) + " |")
		}
		bw.WriteByte('\n')
		if k == 0 {
			bw.WriteByte('|')
			for i := range r {
				if t.align(i) == Right {
					bw.WriteString(strings.Repeat("-", width[i]+1) + ":|")
				} else {
					bw.WriteString(strings.Repeat("-", width[i]+2) + "|")
				}
			}
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}
