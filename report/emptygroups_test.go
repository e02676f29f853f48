package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/results"
)

// tunedResults is one chunking, one tuned cell over a grid of two
// settings, with tuning/held-out queries as given: a group of no query has
// 0 in its means (results.json's convention), which the report must not
// print as a mean.
func tunedResults(tuning, heldOut int) *results.Results {
	s1 := results.TuningSetting{Name: "rrf k=60", Tuning: 0.5, HeldOut: 0.25}
	s2 := results.TuningSetting{Name: "combsum norm=minmax", Tuning: 0.4, HeldOut: 0.75}
	if tuning == 0 {
		s1.Tuning, s2.Tuning = 0, 0
	}
	if heldOut == 0 {
		s1.HeldOut, s2.HeldOut = 0, 0
	}
	tu := &results.Tuning{Metric: "ndcg@10", TuningQueries: tuning, HeldOutQueries: heldOut, Chosen: s1, Default: s1, Settings: []results.TuningSetting{s1, s2}}
	return &results.Results{
		Config: config.Config{Name: "x", Dataset: config.DatasetConfig{Title: ptr(true)}, Metrics: []string{"ndcg"}, K: []int{10}, PromptK: 10,
			PrimaryMetric: "ndcg", HeldOut: config.HeldOutConfig{Seed: ptr(int64(1)), Fraction: ptr(0.2)}},
		Dataset: results.DatasetSummary{Name: "d", Answerable: tuning + heldOut, Tuning: tuning, HeldOut: heldOut},
		Cells: []results.CellResult{{Name: "doc/h", Chunking: config.Chunking{Name: "doc"}, Tuning: tu,
			Means: map[string]map[string]float64{results.GroupAll: {"ndcg@10": 0.5}}}},
		Best: []results.Best{{Chunking: "doc", Cell: "doc/h", Metric: "ndcg@10"}},
	}
}

// TestTuningEmptyGroups (issue 26): a tuning or held-out group of no query
// has no mean: the Tuning section prints "—" there (the report's mark for
// a mean over no query, meanOf) — in the cell table, the grid table and
// report.html's summary and main table — and a sentence says why (and the
// verdict "no tuning query"), where it printed 0.0000.
func TestTuningEmptyGroups(t *testing.T) {
	for _, tc := range []struct {
		tuning, heldOut int
		why, row        string
	}{
		{3, 0, "There is no held-out query (heldout.fraction gives none), so the held-out columns have no mean (—)",
			"| doc/h | 2        | rrf k=60 | 0.5000         | —                | rrf k=60 | —                | no held-out query           |"},
		{0, 3, "There is no tuning query (heldout.fraction holds every answerable query out), so the tuning columns have no mean (—)",
			"| doc/h | 2        | rrf k=60 | —              | 0.2500           | rrf k=60 | 0.2500           | no tuning query             |"},
	} {
		res := tunedResults(tc.tuning, tc.heldOut)
		md := Markdown(res)
		sec := md[strings.Index(md, "## Tuning\n"):]
		if !strings.Contains(sec, tc.why) || !strings.Contains(sec, tc.row) {
			t.Errorf("%d tuning, %d held out: Tuning section\n%s\nwant %q and the row\n%s", tc.tuning, tc.heldOut, sec, tc.why, tc.row)
		}
		if strings.Contains(sec, "0.0000") {
			t.Errorf("%d tuning, %d held out: 0.0000 printed for a group of no query:\n%s", tc.tuning, tc.heldOut, sec)
		}
		if tc.tuning == 0 && !strings.Contains(md, "There is no tuning query (heldout.fraction holds every answerable query out), so no cell is chosen") {
			t.Errorf("no tuning query: the best-cell section does not say so:\n%s", md)
		}
		page, err := Page(res, nil)
		if err != nil {
			t.Fatal(err)
		}
		if s := strings.Join(page.Summary, "\n"); strings.Contains(s, "0.0000") || !strings.Contains(s, "—") {
			t.Errorf("%d tuning, %d held out: report.html summary %q", tc.tuning, tc.heldOut, s)
		}
		ho := slices.IndexFunc(page.Table.Head, func(h string) bool { return strings.HasSuffix(h, " held out") })
		if ho < 0 {
			t.Fatalf("report.html main table has no held-out column: %q", page.Table.Head)
		}
		if cell := page.Table.Rows[0][ho]; tc.heldOut == 0 && cell.Text != "—" {
			t.Errorf("report.html main table: held-out %q, want —", cell.Text)
		}
	}
}

// TestHeaderNamesEscaped (issue 26): the config's and the dataset's names
// in report.md's title and dataset line are written with the one Markdown
// escape (texttab.Escape: \ doubled, | * escaped, line breaks as spaces, <
// > as entities), as the report's other user strings: a name can neither
// end the heading, nor close the bold around it, nor open an HTML tag.
// They were written as given.
func TestHeaderNamesEscaped(t *testing.T) {
	res := tunedResults(3, 3)
	res.Config.Name = "x|y <img src=x onerror=alert(1)> a\\b\n# injected"
	res.Dataset.Name = "d**|<i>"
	md := Markdown(res)
	for _, want := range []string{
		"# ragbench sweep: x\\|y &lt;img src=x onerror=alert(1)&gt; a\\\\b # injected\n",
		"Dataset **d\\*\\*\\|&lt;i&gt;**: ",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md[:min(len(md), 400)])
		}
	}
	if strings.Contains(md, "<img") || strings.Contains(md, "\n# injected") {
		t.Errorf("report.md holds a user's name unescaped:\n%s", md[:min(len(md), 400)])
	}
}
