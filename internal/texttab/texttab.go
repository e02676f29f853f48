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
// Both Markdown forms pass every cell, header included, through Escape,
// the one Markdown escape rule of ragbench (less its guard of a line's
// first characters: a cell holds inline content only), so a cell is plain
// text and renders as itself. Body cells of a column marked in Table.Markup are
// Markdown already (compare's **bold** and <sup> letters, report.md's
// labels) and are written as they are, save their line breaks; any text a
// user wrote inside them has gone through Escape. Prose (report.md's
// sentences, the gate's summary) escapes user text with the same Escape.
package texttab

import (
	"bufio"
	"io"
	"strings"
	"unicode"
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
// WriteText and WritePaddedMarkdown. Markup marks the columns whose body
// cells are Markdown already (see the package comment); the others, and
// every header cell, are plain text passed through Escape.
type Table struct {
	Header   []string
	Rows     [][]string
	Align    []Align
	MinWidth []int
	Markup   []bool
}

// AddRow appends one row of cells.
func (t *Table) AddRow(cells ...string) { t.Rows = append(t.Rows, cells) }

// Escape returns s, plain text (a name, an id, a query, a snippet, a
// label), as GitHub-flavoured Markdown that renders as s — in a table cell
// or in a sentence: the one Markdown escape rule of every ragbench output.
// A backslash, a pipe (GitHub splits table cells on unescaped pipes,
// before inline parsing), a backtick (code span), * (emphasis) and [ ]
// (links and images) get a backslash (GFM 0.29 §6.1, backslash escapes of
// ASCII punctuation); & < > become the entities &amp; &lt; &gt; (no HTML
// tag or entity of the user's is read as one); each line break (CRLF, LF
// or CR) becomes a space (a table row, a list item, is one line). An _
// gets a backslash unless it stands between two letters or digits, where
// it can neither open nor close emphasis (§6.4's flanking rules), so that
// names such as hit_rate@10 stay as they are; ~ gets one (GitHub's
// strikethrough). A string starting as a block would at a line's start
// (a heading "# ", a list item "- " "+ " "1. " "1) ", a thematic break
// "---") gets a backslash there, so that it stays text at the start of a
// list item or a line.
func Escape(s string) string { return escape(s, true) }

// escapeCell is Escape for a table cell's text, which GFM parses as inline
// content only: no block can start there, so a lone "-" (a placeholder)
// stays as it is.
func escapeCell(s string) string { return escape(s, false) }

// escape is Escape; lineStart guards the block markers a line can start
// with.
func escape(s string, lineStart bool) string {
	var b strings.Builder
	b.Grow(len(s))
	rs := []rune(lineBreaks.Replace(s))
	marker := -1
	if lineStart {
		marker = orderedMarker(rs)
	}
	alnum := func(i int) bool { return i >= 0 && i < len(rs) && (unicode.IsLetter(rs[i]) || unicode.IsDigit(rs[i])) }
	for i, r := range rs {
		if i == 0 && lineStart && blockStart(rs) {
			b.WriteByte('\\')
		}
		switch r {
		case '\\', '|', '`', '*', '[', ']', '~':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '_':
			if !alnum(i-1) || !alnum(i+1) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		default:
			if i == marker {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// cellPipes escapes the pipes of a Markup cell that are not escaped yet
// (a code span's, say): GitHub splits a row on every unescaped pipe, in
// code spans too, and reads \| as a pipe of the cell's text there.
func cellPipes(s string) string {
	if !strings.Contains(s, "|") {
		return s
	}
	var b strings.Builder
	prev := rune(0)
	for _, r := range s {
		if r == '|' && prev != '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

// blockStart reports whether rs starts as a line could start a block
// (CommonMark §4–5): an ATX heading (1 to 6 # then a space or the end), a
// bullet list item (- or + then a space or the end) or a thematic break
// (--- alone). A backslash before its first character keeps it text at
// the start of a line or a list item. (> is written &gt;, which opens no
// block quote; "-0.5" and "#3" open nothing and stay as they are.)
func blockStart(rs []rune) bool {
	spaceOrEnd := func(i int) bool { return i >= len(rs) || rs[i] == ' ' || rs[i] == '\t' }
	switch rs[0] {
	case '#':
		i := 0
		for i < len(rs) && rs[i] == '#' {
			i++
		}
		return i <= 6 && spaceOrEnd(i)
	case '-', '+':
		return spaceOrEnd(1) || strings.Trim(string(rs), "- \t") == ""
	}
	return false
}

// orderedMarker is the index of the . or ) of a leading ordered-list
// marker ("12. x", "3)" — digits, then . or ), then a space or the end),
// else -1: "0.5000" is no marker.
func orderedMarker(rs []rune) int {
	i := 0
	for i < len(rs) && i < 10 && rs[i] >= '0' && rs[i] <= '9' {
		i++
	}
	if i > 0 && i < len(rs) && (rs[i] == '.' || rs[i] == ')') && (i+1 == len(rs) || rs[i+1] == ' ' || rs[i+1] == '\t') {
		return i
	}
	return -1
}

// lineBreaks turns line breaks (CRLF, LF, CR) into spaces: a Markup
// cell's, and Escape's before anything else.
var lineBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")

func (t *Table) align(i int) Align {
	if i < len(t.Align) {
		return t.Align[i]
	}
	return Left
}

// cells returns the header and the rows, each exactly len(Header) cells
// long, passed through f (a Markup column's body cells through
// lineBreaks instead, for markdown).
func (t *Table) cells(f func(string) string, markdown bool) [][]string {
	n := len(t.Header)
	out := make([][]string, 0, 1+len(t.Rows))
	for k, r := range append([][]string{t.Header}, t.Rows...) {
		row := make([]string, n)
		for i := range row {
			if i >= len(r) {
				continue
			}
			if markdown && k > 0 && i < len(t.Markup) && t.Markup[i] {
				row[i] = cellPipes(lineBreaks.Replace(r[i]))
			} else {
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
	rows := t.cells(identity, false)
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
// through Escape (Markup columns' body cells are written as they are).
// Errors come from w.
func (t *Table) WriteMarkdown(w io.Writer) error {
	rows := t.cells(escapeCell, true)
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
	rows := t.cells(escapeCell, true)
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
