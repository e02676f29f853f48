package texttab

import (
	"bytes"
	"html"
	"io"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
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
// itself be escaped to stay visible; markup characters are escaped too
// (the one rule: a cell is plain text). A row is one line. A Markup
// column's body cells are written as they are, their line breaks aside.
func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"b | az":               `b \| az`,
		`a\|b`:                 `a\\\|b`,
		`C:\x`:                 `C:\\x`,
		"two\nlines":           "two lines",
		"crlf\r\nx":            "crlf x",
		"**0.5**<sup>ab</sup>": `\*\*0.5\*\*&lt;sup&gt;ab&lt;/sup&gt;`,
		"[x](y) `c` & _z_":     "\\[x\\](y) \\`c\\` &amp; \\_z\\_",
		"hit_rate@10 a__b":     "hit_rate@10 a\\_\\_b",
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
	code := &Table{Header: []string{"id"}, Markup: []bool{true}}
	code.AddRow("`a|b` " + Escape("x|y"))
	if got := render(t, code, markdown); got != "| id |\n|---|\n| `a\\|b` x\\|y |\n" {
		t.Errorf("Markup cell's pipes: got %q", got)
	}
	var rendered bytes.Buffer
	goldmark.New(goldmark.WithExtensions(extension.Table)).Convert([]byte(render(t, code, markdown)), &rendered)
	if !strings.Contains(rendered.String(), "<td><code>a|b</code> x|y</td>") {
		t.Errorf("Markup cell with a code span holding a pipe renders %q", rendered.String())
	}
	mk := &Table{Header: []string{"name", "**mean**"}, Markup: []bool{false, true}}
	mk.AddRow("a*b", "**0.5**<sup>a</sup>\n")
	for _, w := range []writer{markdown, padded} {
		if got := render(t, mk, w); !strings.Contains(got, "\\*\\*mean\\*\\*") || !strings.Contains(got, "a\\*b") || !strings.Contains(got, "**0.5**<sup>a</sup> ") {
			t.Errorf("Markup column: got %q, want the header and the plain column escaped, the Markup cell as written", got)
		}
	}
}

// TestEscapeRenders checks the rule against a CommonMark/GFM renderer
// (goldmark with GitHub's table extension, an independent implementation of
// the spec GitHub follows): every string — each special character alone,
// in pairs and in longer strings, HTML, links, code spans, emphasis, line
// breaks — escaped and put in a table cell or in a paragraph renders as
// exactly its own text (line breaks as spaces), never as markup.
func TestEscapeRenders(t *testing.T) {
	special := []string{"&", "<", ">", "|", "\\", "`", "*", "[", "]", "_", "~", "\r\n", "\n", "\r", "a", "é", "&amp;", "\\|", "!", "#", "(", ")", "-", "+", "=", "1.", " "}
	var cases []string
	for _, a := range special {
		for _, b := range special {
			cases = append(cases, "x"+a+"y"+b+"z")
		}
	}
	cases = append(cases, "what is <script>alert(1)</script> | a pipe?", "doc/bm25|x", "[link](javascript:x) **b** `c`\r\nd",
		"![img](x.png)", "<b>bold</b> &lt; &#124;", "C:\\path\\", "a ``b`` c", "*a*b*", "[a][b]", "x<y>z", "hit_rate@10 _em_",
		"~~gone~~", "# heading", "## h", "#hashtag", "> quote", ">q", "- item", "-0.5", "+ item", "12. item", "3) item", "3)", "---", "- - -", "===", "1.5 is a number", "0.5000")
	for _, c := range cases {
		checkRenders(t, c)
	}
}

// FuzzEscape: any text, escaped, renders as itself in a table cell and in
// a list item (TestEscapeRenders' check), leading and trailing white space
// and control characters aside (Markdown trims the one; the other are not
// text a report holds).
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"a|b", "_x_", "<b>", "# h", "1. x", "[a](b)", "~~s~~", "\\`*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = strings.TrimSpace(s)
		if s == "" || !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool {
			return unicode.IsControl(r) && r != '\n' && r != '\r' || r == '\uFFFD' || unicode.IsSpace(r) && r != ' ' && r != '\n' && r != '\r'
		}) {
			return
		}
		checkRenders(t, s)
	})
}

// checkRenders renders Escape(c) in a GFM table cell and in a list item
// with goldmark and checks both read c (line breaks as spaces).
func checkRenders(t *testing.T, c string) {
	t.Helper()
	md := goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough))
	flat := strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")
	want := html.EscapeString(flat.Replace(c))
	want = strings.ReplaceAll(want, "&#39;", "'")
	for _, form := range []struct{ name, src, open, close string }{
		{"cell", "| h |\n|---|\n| " + Escape(c) + " |\n", "<td>", "</td>"},
		{"prose", "- " + Escape(c) + "\n", "<li>", "</li>"},
	} {
		var b bytes.Buffer
		if err := md.Convert([]byte(form.src), &b); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		i, j := strings.Index(out, form.open), strings.LastIndex(out, form.close)
		if i < 0 || j < i {
			t.Errorf("%s %q: rendered %q, no %s", form.name, c, out, form.open)
			continue
		}
		if got := strings.TrimSpace(strings.ReplaceAll(out[i+len(form.open):j], "&quot;", "\"")); got != strings.TrimSpace(strings.ReplaceAll(want, "&#34;", "\"")) {
			t.Errorf("%s %q: escaped %q renders %q, want %q", form.name, c, Escape(c), got, want)
		}
	}
}
