package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ragbench/ragbench/internal/texttab"
	"github.com/ragbench/ragbench/results"
)

// GroupDigits writes n with commas between groups of three digits
// (12345 → "12,345"): the one thousands format of bench run's outputs
// (report.md's chunk counts, the progress lines).
func GroupDigits(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// maxTableWidth is the widest comparison table, in characters, that
// Report writes as one table: about a terminal's width. A wider one is
// split (see splitColumns).
const maxTableWidth = 100

// splitColumns returns a table's metric columns in groups, one table each:
// all of cols in one group when the table fits maxTableWidth; else the
// metrics in first (the significance-tested ones) before the others, each
// part packed greedily, in cols order, into tables no wider than
// maxTableWidth (a column that alone is too wide gets a table of its own).
// keys are the columns every table repeats (letter, cell name), each a
// header followed by its values; column(m) is metric m's header and values.
// Every column is in exactly one group, so no number is lost.
func splitColumns(keys [][]string, cols, first []string, column func(string) []string) [][]string {
	const sepW = 3 // "| " before a cell and " " after it; the closing "|" is ignored
	colW := func(vals []string) int {
		wd := 0
		for _, v := range vals {
			wd = max(wd, runeLen(v))
		}
		return sepW + wd
	}
	base := 1
	for _, k := range keys {
		base += colW(k)
	}
	width := map[string]int{}
	total := base
	for _, m := range cols {
		width[m] = colW(column(m))
		total += width[m]
	}
	if total <= maxTableWidth || len(cols) <= 1 {
		return [][]string{cols}
	}
	var head, rest []string
	for _, m := range cols {
		if slices.Contains(first, m) {
			head = append(head, m)
		} else {
			rest = append(rest, m)
		}
	}
	var out [][]string
	for _, part := range [][]string{head, rest} {
		var g []string
		w := base
		for _, m := range part {
			if len(g) > 0 && w+width[m] > maxTableWidth {
				out = append(out, g)
				g, w = nil, base
			}
			g = append(g, m)
			w += width[m]
		}
		if len(g) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// splitTable writes a table of the key columns (each a header then one
// value per row) and the metric columns cols, split by splitColumns; between
// tables it writes a blank line, and between the first-metric tables and
// the others, the line between (when not empty). The key columns are plain
// text (escaped by the writer); the metric columns' values are written as
// Markdown (numbers, and the comparison table's <sup> labels): never a
// user's text.
func splitTable(b *strings.Builder, keys [][]string, cols, first []string, column func(string) []string, between string) {
	groups := splitColumns(keys, cols, first, column)
	for gi, g := range groups {
		if gi > 0 {
			b.WriteString("\n")
			if between != "" && len(first) > 0 && !slices.Contains(first, g[0]) && slices.Contains(first, groups[gi-1][0]) {
				b.WriteString(between + "\n\n")
			}
		}
		head := []string{}
		for _, k := range keys {
			head = append(head, k[0])
		}
		head = append(head, g...)
		vals := make([][]string, len(g))
		for j, m := range g {
			vals[j] = column(m)[1:]
		}
		var rows [][]string
		for i := range len(keys[0]) - 1 {
			var row []string
			for _, k := range keys {
				row = append(row, k[i+1])
			}
			for j := range g {
				row = append(row, vals[j][i])
			}
			rows = append(rows, row)
		}
		markupTable(b, head, rows, len(keys))
	}
}

func latency(t results.Timing) string {
	if t.LatencyP50 == 0 && t.LatencyP95 == 0 {
		return ""
	}
	return fmt.Sprintf("%.1f / %.1f", t.LatencyP50, t.LatencyP95)
}

func mb(b int64) string {
	if b == 0 {
		return ""
	}
	return fmt.Sprintf("%.1f", float64(b)/1e6)
}

func f4(v float64) string { return fmt.Sprintf("%.4f", v) }

// meanOf is f4(v) for a mean over n queries, and "—" when n is 0 (the
// group is empty and has no mean).
func meanOf(v float64, n int) string {
	if n == 0 {
		return "—"
	}
	return f4(v)
}

func fq(p *float64) string {
	if p == nil {
		return "–"
	}
	return fmt.Sprintf("%.4g", *p)
}

func pct(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) }

// mdCode writes s, a user's id, as a Markdown code span: fenced by one
// backtick more than its longest run of backticks (padded with spaces when
// it holds one), so that an id such as "q`<img>`" cannot end the span early
// and leave raw HTML; a line break becomes a space.
func mdCode(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	longest, run := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	if longest == 0 {
		return "`" + s + "`"
	}
	fence := strings.Repeat("`", longest+1)
	return fence + " " + s + " " + fence
}

// mdEscape escapes a user's text (a query, a snippet, a label, a name) for
// report.md's prose: texttab.Escape, the one Markdown escape rule (table
// cells get it from the table writer: never escape a cell twice).
func mdEscape(s string) string { return texttab.Escape(s) }

// mdText writes s, a name the user chose (the config's, the dataset's),
// as Markdown text that renders as s: texttab.Escape, the one rule
// (mdEscape's).
func mdText(s string) string { return texttab.Escape(s) }

// table writes a padded Markdown table (texttab's, the renderer of every
// ragbench report), every column left-aligned, every cell plain text
// (escaped by the writer).
func table(b *strings.Builder, head []string, rows [][]string) {
	t := texttab.Table{Header: head, Rows: rows}
	t.WritePaddedMarkdown(b) // a strings.Builder does not fail
}

// markupTable is table with the columns from markupFrom on written as
// Markdown (texttab.Table.Markup): the means with their <sup> labels.
func markupTable(b *strings.Builder, head []string, rows [][]string, markupFrom int) {
	t := texttab.Table{Header: head, Rows: rows, Markup: make([]bool, len(head))}
	for i := markupFrom; i < len(head); i++ {
		t.Markup[i] = true
	}
	t.WritePaddedMarkdown(b)
}

func runeLen(s string) int { return len([]rune(s)) }
