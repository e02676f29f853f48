package texttab

import (
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

func render(t *testing.T, f func(*strings.Builder) error) string {
	t.Helper()
	var b strings.Builder
	if err := f(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestWriteText: columns two spaces apart, numbers right-aligned, trailing
// spaces trimmed (the empty last row is an empty line).
func TestWriteText(t *testing.T) {
	tab := sample()
	got := render(t, func(b *strings.Builder) error { return tab.WriteText(b) })
	want := "" +
		"slice       n  ndcg@10\n" +
		"fact       12   0.5000\n" +
		"multi-hop   3      n/a\n" +
		"\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestWriteTextRunes: widths count runes, not bytes (ᵃ is 3 bytes).
func TestWriteTextRunes(t *testing.T) {
	tab := &Table{Header: []string{"x", "y"}}
	tab.AddRow("0.5ᵃᵇ", "a")
	tab.AddRow("0.25", "b")
	got := render(t, func(b *strings.Builder) error { return tab.WriteText(b) })
	want := "x      y\n0.5ᵃᵇ  a\n0.25   b\n"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

func TestWriteMarkdown(t *testing.T) {
	tab := sample()
	got := render(t, func(b *strings.Builder) error { return tab.WriteMarkdown(b) })
	want := "" +
		"| slice | n | ndcg@10 |\n" +
		"|---|---:|---:|\n" +
		"| fact | 12 | 0.5000 |\n" +
		"| multi-hop | 3 | n/a |\n" +
		"|  |  |  |\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestWritePaddedMarkdown: cells padded to the column width (MinWidth
// included), delimiter dashes as wide as the padded cell.
func TestWritePaddedMarkdown(t *testing.T) {
	tab := sample()
	tab.MinWidth = []int{0, 0, 10}
	tab.Rows = tab.Rows[:2]
	got := render(t, func(b *strings.Builder) error { return tab.WritePaddedMarkdown(b) })
	want := "" +
		"| slice     |  n |    ndcg@10 |\n" +
		"|-----------|---:|-----------:|\n" +
		"| fact      | 12 |     0.5000 |\n" +
		"| multi-hop |  3 |        n/a |\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
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
	got := render(t, func(b *strings.Builder) error { return tab.WriteMarkdown(b) })
	if want := "| a\\|b |\n|---|\n| x y |\n"; got != want {
		t.Errorf("markdown escaping: got %q, want %q", got, want)
	}
	tab.AddRow("1", "dropped")
	got = render(t, func(b *strings.Builder) error { return tab.WriteText(b) })
	if want := "a|b\nx\ny\n1\n"; got != want {
		t.Errorf("text (no escaping, extra cells dropped): got %q, want %q", got, want)
	}
}
