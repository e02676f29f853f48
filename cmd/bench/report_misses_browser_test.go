package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/ragbench/ragbench/history"
	"github.com/ragbench/ragbench/htmlreport"
)

// openReport opens file path in a fresh headless Chromium (the label
// workbench's browser: newBrowser, with the console's errors recorded).
func openReport(t *testing.T, path string) *browser {
	t.Helper()
	b := newBrowser(t, chromium(t))
	b.do(t, "open "+path, chromedp.Navigate("file://"+path))
	return b
}

// consoleLog is what the page logged as errors, warnings or exceptions.
func (b *browser) consoleLog() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.console...)
}

// showMiss selects cell in the misses browser and clicks its miss of query
// qid, then returns the detail: the gold entries' texts, and per returned
// item its id, its snippet's text and its marked parts.
const showMiss = `(function (cell, qid) {
  var sel = document.getElementById("miss-cell");
  var opt = Array.from(sel.options).find(function (o) { return o.textContent.startsWith(cell + " ("); });
  if (!opt) return {error: "no cell " + cell};
  sel.value = opt.value; sel.dispatchEvent(new Event("change"));
  var a = Array.from(document.querySelectorAll("#miss-list a")).find(function (x) { return x.textContent.startsWith(qid + ": "); });
  if (!a) return {error: "no miss of " + qid + " in " + cell};
  a.click();
  var d = document.getElementById("miss-detail");
  return {
    gold: Array.from(d.querySelectorAll("ul.gold-list > li")).map(function (li) { return li.textContent; }),
    goldMarks: Array.from(d.querySelectorAll("ul.gold-list mark")).map(function (m) { return m.className + ":" + m.textContent; }),
    returned: Array.from(d.querySelectorAll("ol.returned > li")).map(function (li) {
      return {id: li.querySelector("strong").textContent, text: li.querySelector(".snip").textContent,
        marks: Array.from(li.querySelectorAll("mark")).map(function (m) { return m.className + ":" + m.textContent; })};
    }),
    elements: Array.from(d.querySelectorAll("*")).map(function (e) { return e.tagName.toLowerCase(); })
  };
})`

// missesReport runs sweep/testdata/misses.yaml through bench run into
// folder dir and returns its report.html.
func missesReport(t *testing.T, dir string) string {
	t.Helper()
	args := []string{"run", "--progress", "none", "--no-history", "--data-dir", "../../sweep/testdata/misses", "--output", filepath.Join(dir, "out"),
		"--cache-dir", filepath.Join(dir, "cache"), "../../sweep/testdata/misses.yaml"}
	var o, e bytes.Buffer
	if code := run(&o, &e, args); code != 0 {
		t.Fatalf("bench run: exit %d\n%s", code, e.String())
	}
	return filepath.Join(dir, "out", "report.html")
}

type missDetail struct {
	Error     string
	Gold      []string
	GoldMarks []string
	Returned  []struct {
		ID    string
		Text  string
		Marks []string
	}
	Elements []string
}

// TestReportHTMLMisses runs sweep/testdata/misses.yaml through bench run
// (BM25, chunkings fixed-8 and fixed-4, k = 2) and opens report.html in
// headless Chromium. Chunk id d#1 names other text in the two chunkings:
// words 8–15 of d ("india juliet kilos …") under fixed-8, words 4–7 ("echo
// foxtrot golfer hotel") under fixed-4. Query split's gold passage
// "golfer hotel\nindia juliet" is missed in both cells (no chunk holds half
// of it) and both return d#1. The page must show, in each cell, the gold
// passage with its cause, and d#1 with that cell's text, the part of the
// passage it holds marked; d#0's "<b>bravo</b>" stays text; no console
// message.
func TestReportHTMLMisses(t *testing.T) {
	p := openReport(t, missesReport(t, t.TempDir()))
	want := map[string]struct{ d1, d1Gold string }{
		"fixed-8/bm25": {"india juliet kilos limas mikes novembers oscars papas", "gold:india juliet"},
		"fixed-4/bm25": {"echo foxtrot golfer hotel", "gold:golfer hotel"},
	}
	for _, cell := range []string{"fixed-8/bm25", "fixed-4/bm25"} {
		d := jsEval[missDetail](t, p, showMiss+fmt.Sprintf("(%q, %q)", cell, "split"))
		if d.Error != "" {
			t.Fatalf("%s: %s", cell, d.Error)
		}
		if len(d.Gold) != 1 || !strings.Contains(d.Gold[0], "d [46, 71)") || !strings.Contains(d.Gold[0], "boundary split") ||
			!strings.Contains(d.Gold[0], "golfer hotel\nindia juliet") {
			t.Errorf("%s: the gold passage shown is %q, want d [46, 71) with its cause and text", cell, d.Gold)
		}
		if strings.Join(d.GoldMarks, ",") != "term:golfer,term:juliet" {
			t.Errorf("%s: the passage's marks %q, want its query terms golfer and juliet", cell, d.GoldMarks)
		}
		found := false
		for _, r := range d.Returned {
			if r.ID != "d#1" {
				continue
			}
			found = true
			gold := "gold:"
			for _, m := range r.Marks {
				if kind, text, _ := strings.Cut(m, ":"); strings.Contains(kind, "gold") {
					gold += text
				}
			}
			if r.Text != want[cell].d1 || gold != want[cell].d1Gold {
				t.Errorf("%s: d#1 shows %q marked %q (%s), want this cell's text %q with %q marked", cell, r.Text, r.Marks, gold, want[cell].d1, want[cell].d1Gold)
			}
		}
		if !found {
			t.Errorf("%s: d#1 not among what came back: %+v", cell, d.Returned)
		}
		if cell == "fixed-8/bm25" {
			for _, r := range d.Returned {
				if r.ID == "d#0" && !strings.Contains(r.Text, "<b>bravo</b>") {
					t.Errorf("d#0's markup is not shown as text: %q", r.Text)
				}
			}
			for _, el := range d.Elements {
				if el == "b" || el == "script" || el == "img" {
					t.Errorf("the corpus' markup became a <%s> element", el)
				}
			}
		}
	}
	if c := p.consoleLog(); len(c) > 0 {
		t.Errorf("report.html logged to the console:\n%s", strings.Join(c, "\n"))
	}
}

// TestReportHTMLLayout checks in headless Chromium, at 1400 × 900, the
// report.html defects a reader saw, each on a page built for it:
//   - the main table, wider than the page with 12 metric columns, shows
//     the primary metric without scrolling (it came last, cut off at the
//     right edge);
//   - the misses list numbers its 10th and 11th entries "10." and "11." in
//     full (the list markers were clipped to "0." and "1.");
//   - the history chart of 36 cells draws every legend entry inside the
//     chart (the legend ran off its bottom), and its 36 lines differ in
//     colour or dash pattern (the palette's eight colours repeated).
func TestReportHTMLLayout(t *testing.T) {
	dir := t.TempDir()
	// The main table of a span-labelled run (all 12 families).
	p := openReport(t, missesReport(t, dir))
	type box struct {
		Head                          []string
		PrimaryRight, Right, Width    float64
		TableWidth, ViewW, ScrollLeft float64
	}
	b := jsEval[box](t, p, `(function () {
  var t = document.getElementById("main-table"), wrap = t.parentElement, ths = Array.from(t.querySelectorAll("th"));
  var prim = ths.find(function (th) { return th.textContent === "span_recall@2"; });
  return {Head: ths.map(function (th) { return th.textContent; }), PrimaryRight: prim ? prim.getBoundingClientRect().right : -1,
    Right: wrap.getBoundingClientRect().right, Width: wrap.clientWidth, TableWidth: t.scrollWidth, ViewW: window.innerWidth, ScrollLeft: wrap.scrollLeft};
})()`)
	if b.TableWidth <= b.Width {
		t.Fatalf("the main table (%v px) fits its %v px box: the fixture does not test the cut-off column (head %q)", b.TableWidth, b.Width, b.Head)
	}
	if b.PrimaryRight < 0 || b.PrimaryRight > b.Right || b.PrimaryRight > b.ViewW {
		t.Errorf("the primary metric's column ends at %v px, beyond its box (%v px) or the window (%v px): cut off (head %q)", b.PrimaryRight, b.Right, b.ViewW, b.Head)
	}

	// A page with 12 misses in one cell and a 36-cell history.
	r := &htmlreport.Report{Title: "layout", Table: htmlreport.Table{Head: []string{"cell"}}}
	r.Misses = htmlreport.Misses{K: 5, Cells: []string{"c"}, Queries: map[string]string{}}
	for i := range 12 {
		q := fmt.Sprintf("q%02d", i+1)
		r.Misses.Queries[q] = "a question long enough to wrap in the list of misses, number " + q
		r.Misses.List = append(r.Misses.List, htmlreport.Miss{Cell: 0, QueryID: q, Missing: []htmlreport.Gold{{ID: "g", Grade: 1}}})
	}
	var rows []history.Row
	for n := 1; n <= 3; n++ {
		row := history.Row{Run: n, Metrics: map[string]map[string]float64{}}
		for c := range 36 {
			name := fmt.Sprintf("recursive-cl100k_base-%d/retriever-%d", 100*(c/4+1), c%4)
			row.Metrics[name] = map[string]float64{"ndcg@10": 0.3 + 0.01*float64(c) + 0.02*float64(n)}
		}
		rows = append(rows, row)
	}
	l, err := history.Chart(rows, "ndcg@10", history.ChartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r.History = &l
	var page bytes.Buffer
	if err := htmlreport.Write(&page, r); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "layout.html")
	if err := os.WriteFile(path, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	p = openReport(t, path)
	type number struct {
		Text        string
		Left, Right float64
	}
	list := jsEval[struct {
		Numbers     []number
		Left, Right float64
	}](t, p, `(function () {
  var l = document.getElementById("miss-list"), r = l.getBoundingClientRect();
  return {Numbers: Array.from(l.querySelectorAll("li")).map(function (li) {
    var n = li.querySelector(".num"), b = n ? n.getBoundingClientRect() : {left: -1, right: -1};
    return {Text: n ? n.textContent : li.textContent, Left: b.left, Right: b.right}; }), Left: r.left, Right: r.right};
})()`)
	if len(list.Numbers) != 12 {
		t.Fatalf("%d entries in the misses list, want 12", len(list.Numbers))
	}
	for i, n := range list.Numbers {
		if want := fmt.Sprintf("%d.", i+1); n.Text != want || n.Left < list.Left || n.Right > list.Right {
			t.Errorf("entry %d numbered %q at [%v, %v] px, want %q inside the list's [%v, %v]", i+1, n.Text, n.Left, n.Right, want, list.Left, list.Right)
		}
	}
	legend := jsEval[struct {
		Texts                    int
		Outside                  []string
		Top, Bottom, Left, Right float64
	}](t, p, `(function () {
  var svg = document.querySelector("figure.chart-history svg"), r = svg.getBoundingClientRect(), out = [], n = 0;
  svg.querySelectorAll("text").forEach(function (x) {
    if (!x.textContent.startsWith("recursive-")) return;
    n++;
    var b = x.getBoundingClientRect();
    if (b.top < r.top - 0.5 || b.bottom > r.bottom + 0.5 || b.left < r.left - 0.5 || b.right > r.right + 0.5) out.push(x.textContent);
  });
  return {Texts: n, Outside: out, Top: r.top, Bottom: r.bottom, Left: r.left, Right: r.right};
})()`)
	if legend.Texts != 36 || len(legend.Outside) > 0 {
		t.Errorf("history legend: %d entries, %d drawn outside the chart [%v, %v]×[%v, %v]: %q", legend.Texts, len(legend.Outside), legend.Left, legend.Right, legend.Top, legend.Bottom, legend.Outside)
	}
	// Each line's style as drawn: its stroke colour and dash pattern.
	styles := jsEval[[]string](t, p, `(function () {
  var seen = {};
  document.querySelectorAll("figure.chart-history svg path").forEach(function (x) {
    var s = x.getAttribute("style") || "";
    if (!/stroke-width:1\.6/.test(s)) return;
    var c = (s.match(/stroke:([^;]+)/) || [])[1], d = (s.match(/stroke-dasharray:([^;]+)/) || ["", "none"])[1];
    seen[c + " " + d] = true;
  });
  return Object.keys(seen);
})()`)
	if len(styles) != 36 {
		t.Errorf("the 36 history lines are drawn in %d distinct styles (colour and dash pattern), want 36: %q", len(styles), styles)
	}
	if c := p.consoleLog(); len(c) > 0 {
		t.Errorf("the page logged to the console:\n%s", strings.Join(c, "\n"))
	}
}
