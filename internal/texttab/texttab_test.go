package texttab

import (
	"io"
	"strings"
	"testing"
)

func sample() *Table {
	t := &Table{Header: []string{"slice", "n", "ndcg@10"}, Align: []Align{Left, Right, Right}}
	t.AddRow("fact", "12", "0.5000")
	t.AddRow("multi-hop", "3", "n/a")
	t.AddRow("") // short row: padded with empty cells
	return t
}

type writer func(*Table, io.Writer) error

var (
	text     writer = (*Table).WriteText
	markdown writer = (*Table).WriteMarkdown
	padded   writer = (*Table).WritePaddedMarkdown
)

func render(t *testing.T, tab *Table, w writer) string {
	t.Helper()
	var b strings.Builder
	if err := w(tab, &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestWrite: the three forms of one table, written out by hand.
//   - text: columns two spaces apart, numbers right-aligned, trailing
//     spaces trimmed (the empty last row is an empty line); widths count
//     runes, not bytes (ᵃ is 3 bytes);
//   - Markdown: "| a | b |" rows, ":" marking right columns;
//   - padded Markdown: cells padded to the column width (MinWidth
//     included), delimiter dashes as wide as the padded cell.
func TestWrite(t *testing.T) {
	runes := &Table{Header: []string{"x", "y"}}
	runes.AddRow("0.5ᵃᵇ", "a")
	runes.AddRow("0.25", "b")
	wide := sample()
	wide.MinWidth = []int{0, 0, 10}
	wide.Rows = wide.Rows[:2]
	for _, c := range []struct {
		name string
		tab  *Table
		w    writer
		want string
	}{
		{"text", sample(), text, "" +
			"slice       n  ndcg@10\n" +
			"fact       12   0.5000\n" +
			"multi-hop   3      n/a\n" +
			"\n"},
		{"text runes", runes, text, "x      y\n0.5ᵃᵇ  a\n0.25   b\n"},
		{"markdown", sample(), markdown, "" +
			"| slice | n | ndcg@10 |\n" +
			"|---|---:|---:|\n" +
			"| fact | 12 | 0.5000 |\n" +
			"| multi-hop | 3 | n/a |\n" +
			"|  |  |  |\n"},
		{"padded markdown", wide, padded, "" +
			"| slice     |  n |    ndcg@10 |\n" +
			"|-----------|---:|-----------:|\n" +
			"| fact      | 12 |     0.5000 |\n" +
			"| multi-hop |  3 |        n/a |\n"},
	} {
		if got := render(t, c.tab, c.w); got != c.want {
			t.Errorf("%s: got\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}

// TestEscape: the GitHub Flavored Markdown spec (0.29-gfm, section 4.10,
// example 200) renders the cell `b \| az` as "b | az": a pipe is escaped
// with a backslash; a backslash before punctuation (section 6.1) must
// itself be escaped to stay visible. A row is one line.
func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"b | az":               `b \| az`,
		`a\|b`:                 `a\\\|b`,
		`C:\x`:                 `C:\\x`,
		"two\nlines":           "two lines",
		"crlf\r\nx":            "crlf x",
		"**0.5**<sup>ab</sup>": "**0.5**<sup>ab</sup>",
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
	tab := &Table{Header: []string{"a|b"}}
	tab.AddRow("x\ny")
	got := render(t, tab, markdown)
	if want := "| a\\|b |\n|---|\n| x y |\n"; got != want {
		t.Errorf("markdown escaping: got %q, want %q", got, want)
	}
	tab.AddRow("1", "dropped")
	got = render(t, tab, text)
	if want := "a|b\nx\ny\n1\n"; got != want {
		t.Errorf("text (no escaping, extra cells dropped): got %q, want %q", got, want)
	}
}
