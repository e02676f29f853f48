package report

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/kinds"
	"github.com/ragbench/ragbench/results"
)

// TestReportSuperscripts: a cell that beats others significantly carries
// their letters on that metric's column only.
func TestReportSuperscripts(t *testing.T) {
	res := &results.Results{
		Config:  config.Config{Name: "x", Dataset: config.DatasetConfig{Title: ptr(true)}, Metrics: []string{"recall", "ndcg"}, K: []int{10}, PromptK: 10, HeldOut: config.HeldOutConfig{Seed: ptr(int64(1)), Fraction: ptr(0.2)}},
		Dataset: results.DatasetSummary{Name: "d", Answerable: 3},
		Cells: []results.CellResult{
			{Name: "doc/bm25", Means: map[string]map[string]float64{results.GroupAll: {"recall@10": 0.5, "ndcg@10": 0.4}}},
			{Name: "doc/rerank", Means: map[string]map[string]float64{results.GroupAll: {"recall@10": 0.5, "ndcg@10": 0.6}}},
		},
		Significance: results.Significance{Beats: map[string]map[string][]int{"ndcg@10": {"doc/rerank": {0}}}},
	}
	md := Markdown(res)
	if !strings.Contains(md, "| b | doc/rerank | 0.5000    | 0.6000<sup>a</sup> |") {
		t.Errorf("report table:\n%s", md)
	}
	if !strings.Contains(md, "The dataset has no slices") {
		t.Error("report does not say the dataset has no slices")
	}
}

// TestReportLabelsPast26: with more than 26 cells the labels are numbers
// (compare.Labels) and a cell beating several names them separated by
// commas — "1,8" — where letters read "ah", as a and h or as the one cell
// "ah" (issue 23); the sentence under the table says numbers.
func TestReportLabelsPast26(t *testing.T) {
	res := &results.Results{
		Config:  config.Config{Name: "x", Dataset: config.DatasetConfig{Title: ptr(true)}, Metrics: []string{"ndcg"}, K: []int{10}, PromptK: 10, HeldOut: config.HeldOutConfig{Seed: ptr(int64(1)), Fraction: ptr(0.2)}},
		Dataset: results.DatasetSummary{Name: "d", Answerable: 35},
		Significance: results.Significance{Metrics: []string{"ndcg@10"}, Queries: 35,
			Beats: map[string]map[string][]int{"ndcg@10": {"c28": {0, 7}, "c27": {33}}}},
	}
	for i := range 36 {
		res.Cells = append(res.Cells, results.CellResult{Name: fmt.Sprintf("c%02d", i+1), Means: map[string]map[string]float64{results.GroupAll: {"ndcg@10": 0.5}}})
	}
	md := Markdown(res)
	for _, want := range []string{"| 28 | c28  | 0.5000<sup>1,8</sup> |", "| 27 | c27  | 0.5000<sup>34</sup>  |", "| 1  | c01  | 0.5000               |",
		"Superscript numbers (separated by commas) name the cells a cell beats significantly"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md[:min(len(md), 3000)])
		}
	}
	if strings.Contains(md, "<sup>ah</sup>") || strings.Contains(md, "| aa |") {
		t.Error("report.md labels cells with letters past z")
	}
}

// findingsResults is a hand-made sweep: two chunkings × bm25, dense, rrf
// (hybrid of bm25 + dense) and ce (rerank of rrf), ndcg@10 means:
//
//	        bm25  dense  rrf   ce
//	doc     0.60  0.20   0.50  0.55
//	fixed-4 0.52  0.30   0.51  0.40
//
// so rrf is below its best input (bm25) in both chunkings, ce below its
// input only in fixed-4, and the best cell overall is doc/bm25, with doc/ce
// the best cell of another type.
func findingsResults() *results.Results {
	rcs := []config.RetrieverConfig{
		{Name: "bm25", Type: "bm25", Settings: &kinds.BM25{K1: ptr(0.9), B: ptr(0.4)}}, {Name: "dense", Type: "dense", Settings: &kinds.Dense{}},
		{Name: "rrf", Type: "hybrid", Settings: &kinds.Hybrid{Inputs: []string{"bm25", "dense"}, Fusion: "rrf", RRFK: ptr(60.0), Depth: 100}},
		{Name: "ce", Type: "rerank", Settings: &kinds.Rerank{Input: "rrf"}},
	}
	means := map[string][]float64{"doc": {0.60, 0.20, 0.50, 0.55}, "fixed-4": {0.52, 0.30, 0.51, 0.40}}
	res := &results.Results{
		Config: config.Config{Name: "x", Dataset: config.DatasetConfig{Title: ptr(true)}, Metrics: []string{"ndcg"}, K: []int{10}, PromptK: 10,
			PrimaryMetric: "ndcg", Retrievers: rcs, HeldOut: config.HeldOutConfig{Seed: ptr(int64(1)), Fraction: ptr(0.2)}},
		Dataset: results.DatasetSummary{Name: "d", Answerable: 40},
	}
	for _, ch := range []string{"doc", "fixed-4"} {
		for i, rc := range rcs {
			res.Cells = append(res.Cells, results.CellResult{Name: ch + "/" + rc.Name, Chunking: config.Chunking{Name: ch}, Retriever: rc,
				Means: map[string]map[string]float64{results.GroupAll: {"ndcg@10": means[ch][i]}}})
		}
	}
	res.Significance = results.Significance{Correction: "holm", Alpha: 0.05, Metrics: []string{"ndcg@10"}, Pairs: []results.PairTest{
		// A/B in either order: the report must read the direction from the means.
		{A: "doc/bm25", B: "doc/rrf", Metric: "ndcg@10", MeanA: 0.60, MeanB: 0.50, PAdjusted: 0.012, Significant: true},
		{A: "fixed-4/rrf", B: "fixed-4/bm25", Metric: "ndcg@10", MeanA: 0.51, MeanB: 0.52, PAdjusted: 0.64},
		{A: "fixed-4/rrf", B: "fixed-4/ce", Metric: "ndcg@10", MeanA: 0.51, MeanB: 0.40, PAdjusted: 0.2},
		{A: "doc/bm25", B: "doc/ce", Metric: "ndcg@10", MeanA: 0.60, MeanB: 0.55, PAdjusted: 0.3},
		// A different metric must be ignored.
		{A: "doc/bm25", B: "doc/ce", Metric: "recall@10", MeanA: 0.9, MeanB: 0.5, PAdjusted: 0.001, Significant: true},
	}}
	return res
}

// TestFindings: hybrid below its best input, significant (doc) and not
// (fixed-4); a rerank below its input in one chunking of two; the best cell
// a plain BM25 cell. Differences by hand: 0.50 − 0.60 = −0.1000,
// 0.51 − 0.52 = −0.0100, 0.40 − 0.51 = −0.1100, 0.60 − 0.55 = 0.0500.
func TestFindings(t *testing.T) {
	got := Findings(findingsResults())
	want := []string{
		"`rrf` (hybrid) does not beat its best input on ndcg@10 in 2 of 2 chunkings (significance after Holm–Bonferroni correction):\n" +
			"  - doc: 0.5000 vs `doc/bm25` 0.6000 (−0.1000), significantly worse (adjusted p = 0.012); its weaker input `doc/dense` scores 0.2000\n" +
			"  - fixed-4: 0.5100 vs `fixed-4/bm25` 0.5200 (−0.0100), not significant (adjusted p = 0.64); its weaker input `fixed-4/dense` scores 0.3000",
		"`ce` (rerank) does not beat its input `rrf` on ndcg@10 in 1 of 2 chunkings (significance after Holm–Bonferroni correction):\n" +
			"  - fixed-4: 0.4000 vs `fixed-4/rrf` 0.5100 (−0.1100), not significant (adjusted p = 0.2)",
		"The best cell overall on ndcg@10 is a plain BM25 cell: `doc/bm25` (0.6000, all 40 answerable queries). " +
			"The best cell of another type, `doc/ce` (0.5500), is 0.0500 below it, not significant after Holm–Bonferroni correction (adjusted p = 0.3).",
	}
	if len(got) != len(want) {
		t.Fatalf("%d findings, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("finding %d\n got %q\nwant %q", i, got[i], want[i])
		}
	}
	md := Markdown(findingsResults())
	if !strings.Contains(md, "## Notes\n\n- `rrf` (hybrid) does not beat") || strings.Index(md, "## Notes") > strings.Index(md, "## Comparison") {
		t.Errorf("report has no Notes section before the comparison:\n%s", md)
	}
}

// TestFindingsBestNotBM25: when a fusion beats every input and is the best
// cell, the note names it and the best BM25 cell below it; without
// correction the p-value is not called adjusted; pairs never tested say so.
func TestFindingsBestNotBM25(t *testing.T) {
	res := findingsResults()
	res.Cells = res.Cells[:4] // doc only
	res.Cells[2].Means[results.GroupAll]["ndcg@10"] = 0.70
	res.Cells[3].Means[results.GroupAll]["ndcg@10"] = 0.75
	res.Significance = results.Significance{Correction: "none", Pairs: []results.PairTest{
		{A: "doc/bm25", B: "doc/ce", Metric: "ndcg@10", MeanA: 0.60, MeanB: 0.75, P: 0.004, PAdjusted: 0.004, Significant: true},
	}}
	got := Findings(res)
	want := "The best cell overall on ndcg@10 is `doc/ce` (rerank, 0.7500, all 40 answerable queries). " +
		"The best plain BM25 cell, `doc/bm25` (0.6000), is 0.1500 below it, significantly worse without correction (p = 0.004)."
	if len(got) != 1 || got[0] != want {
		t.Errorf("findings %q\nwant [%q]", got, want)
	}
	// rrf 0.70 < ce 0.75 but no test covers doc/rrf vs doc/ce.
	res.Cells[3].Means[results.GroupAll]["ndcg@10"] = 0.65
	got = Findings(res)
	if len(got) != 2 || !strings.Contains(got[0], "0.6500 vs `doc/rrf` 0.7000 (−0.0500), not tested for significance") {
		t.Errorf("findings %q", got)
	}
}

// TestReportSuperscriptSentenceOnce: the sentence explaining superscripts
// appears once, though compare's notes carry their own version.
func TestReportSuperscriptSentenceOnce(t *testing.T) {
	res := findingsResults()
	res.Significance.Beats = map[string]map[string][]int{"ndcg@10": {"doc/bm25": {2}}} // a superscript to explain
	res.Significance.Notes = []string{"Test: paired t-test.", "A superscript letter marks a system that is significantly better than the system with that letter."}
	md := Markdown(res)
	if n := strings.Count(strings.ToLower(md), "superscript letter"); n != 1 {
		t.Errorf("%d explanations of superscript letters, want 1:\n%s", n, md)
	}
	if !strings.Contains(md, "- Test: paired t-test.") {
		t.Error("other significance notes dropped")
	}
}

// TestReportWideTableSplit: a comparison table wider than maxTableWidth is
// split, the tested metric first, into tables no wider than that; every
// mean appears once, with its superscripts.
func TestReportWideTableSplit(t *testing.T) {
	fams := []string{"hit_rate", "recall", "precision", "mrr", "map", "ndcg"}
	// The first name makes even the 6-column slice table (no letters, no
	// superscripts) wider than maxTableWidth: 3+40 + 14+12+15+9+9+10 + 1.
	names := []string{"fixed-128o32/rerank-interpolated-alpha04", "fixed-256o32/rerank-interp", "doc/bm25"}
	res := &results.Results{
		Config: config.Config{Name: "x", Dataset: config.DatasetConfig{Title: ptr(true)}, Metrics: fams, K: []int{10}, PromptK: 10,
			HeldOut: config.HeldOutConfig{Seed: ptr(int64(1)), Fraction: ptr(0.2)}},
		Significance: results.Significance{Metrics: []string{"ndcg@10"}, Beats: map[string]map[string][]int{"ndcg@10": {"doc/bm25": {0, 1}}}},
	}
	for i, n := range names {
		m := map[string]float64{}
		for j, f := range fams {
			m[f+"@10"] = float64(100*(i+1)+j) / 1000 // distinct: 0.100 … 0.305
		}
		sl := map[string]float64{}
		for j, f := range fams {
			sl[f+"@10"] = float64(500+100*i+j) / 1000 // 0.500 … 0.705
		}
		res.Cells = append(res.Cells, results.CellResult{Name: n, Means: map[string]map[string]float64{results.GroupAll: m, "slice:s": sl}, Counts: map[string]int{"slice:s": 1}})
	}
	res.Dataset.Slices = []string{"s"}
	md := Markdown(res)
	// The per-slice table is split the same way (config order, no
	// significance), every value once.
	slice := md[strings.Index(md, "### s (1 answerable query)"):strings.Index(md, "## Unanswerable")]
	for _, l := range strings.Split(slice, "\n") {
		if strings.HasPrefix(l, "|") && runeLen(l) > maxTableWidth {
			t.Errorf("slice table line of %d characters: %s", runeLen(l), l)
		}
	}
	for i := range names {
		for j := range fams {
			if v := fmt.Sprintf("| %.4f", float64(500+100*i+j)/1000); strings.Count(slice, v) != 1 {
				t.Errorf("slice table: %s appears %d times", v, strings.Count(slice, v))
			}
		}
	}
	if strings.Count(slice, "| cell ") < 2 {
		t.Errorf("slice table not split:\n%s", slice)
	}
	sec := md[strings.Index(md, "## Comparison"):strings.Index(md, "Superscript letters")]
	for _, l := range strings.Split(sec, "\n") {
		if strings.HasPrefix(l, "|") && runeLen(l) > maxTableWidth {
			t.Errorf("table line of %d characters: %s", runeLen(l), l)
		}
	}
	for i := range names {
		for j, f := range fams {
			v := fmt.Sprintf("| %.4f", float64(100*(i+1)+j)/1000)
			if n := strings.Count(sec, v); n != 1 {
				t.Errorf("%s of %s (%s) appears %d times", f, names[i], v, n)
			}
		}
	}
	if !regexp.MustCompile(`(?m)^\| c \| doc/bm25 +\| 0\.3050<sup>ab</sup> \|`).MatchString(sec) {
		t.Errorf("tested metric not in the first table with its superscripts:\n%s", sec)
	}
	if strings.Index(sec, "ndcg@10") > strings.Index(sec, "hit_rate@10") || !strings.Contains(sec, "Other metrics at prompt_k = 10") {
		t.Errorf("ndcg@10 (tested) should come first, then the other metrics:\n%s", sec)
	}
}

// TestFindingsTie: equal means read as a tie, not as a signed difference.
func TestFindingsTie(t *testing.T) {
	res := findingsResults()
	res.Cells = res.Cells[:4]
	res.Cells[2].Means[results.GroupAll]["ndcg@10"] = 0.60 // rrf = bm25
	res.Cells[3].Means[results.GroupAll]["ndcg@10"] = 0.70 // ce above rrf, best overall
	res.Significance.Pairs = nil
	got := Findings(res)
	if len(got) != 2 || !strings.Contains(got[0], "doc: 0.6000 vs `doc/bm25` 0.6000 (±0), not tested for significance") {
		t.Errorf("findings %q", got)
	}
	res.Cells[3].Means[results.GroupAll]["ndcg@10"] = 0.60 // three-way tie: named as a tie, not one winner
	got = Findings(res)
	if last := got[len(got)-1]; last != "3 cells tie for best on ndcg@10 (0.6000, all 40 answerable queries): `doc/bm25`, `doc/rrf`, `doc/ce`." {
		t.Errorf("findings %q", got)
	}
	res.Cells[3].Means[results.GroupAll]["ndcg@10"] = 0.70
	res.Cells[2].Means[results.GroupAll]["ndcg@10"] = 0.60 // bm25 = rrf below the best: "ties with it" stays for the other type
	got = Findings(res)
	if last := got[len(got)-1]; !strings.Contains(last, "is `doc/ce` (rerank, 0.7000") {
		t.Errorf("findings %q", got)
	}
}

// TestFindingsSmallP: a p-value below 0.001 reads "p < 0.001", not "= <".
func TestFindingsSmallP(t *testing.T) {
	res := findingsResults()
	res.Significance.Pairs[0].PAdjusted = 0.0004
	got := Findings(res)
	if len(got) == 0 || !strings.Contains(got[0], "significantly worse (adjusted p < 0.001)") {
		t.Errorf("findings %q", got)
	}
}

// TestReportTimingAndUnanswerableWidth: with cell names as long as a real
// sweep's ("fixed-256o32/rerank-interpolated", 33 characters) the timing
// and unanswerable tables stay within maxTableWidth (a 100-column
// terminal) and every number of the cells' results.Timing and results.Threshold is still
// printed exactly once, in its own row.
func TestReportTimingAndUnanswerableWidth(t *testing.T) {
	names := []string{"fixed-256o32/rerank-interpolated", "doc/bm25"}
	res := &results.Results{
		Config: config.Config{Name: "x", Dataset: config.DatasetConfig{Title: ptr(true)}, Metrics: []string{"ndcg"}, K: []int{10}, PromptK: 10,
			HeldOut: config.HeldOutConfig{Seed: ptr(int64(1)), Fraction: ptr(0.2)}},
		Dataset: results.DatasetSummary{Unanswerable: 2},
	}
	f := func(v float64) *float64 { return &v }
	for i, n := range names {
		d := float64(i)
		res.Cells = append(res.Cells, results.CellResult{Name: n, Means: map[string]map[string]float64{results.GroupAll: {"ndcg@10": 0.5}},
			Threshold: &results.Threshold{
				Unanswerable: results.ScoreQuantiles{Median: f(0.1111 + d)}, Answerable: results.ScoreQuantiles{Median: f(0.2222 + d)},
				Suggested: &results.ThresholdChoice{Threshold: 0.3333 + d, UnanswerableAbstained: 0.44 + d/10, AnswerableLostGold: 0.05 + d/10}}})
		res.Timings = append(res.Timings, results.Timing{Cell: n, Cached: i == 1, Chunk: 1.01 + d, Build: 2.02 + d, Embed: 3.03 + d, Search: 4.04 + d,
			Fuse: 5.05 + d, Rerank: 6.06 + d, Score: 7.07 + d, LatencyP50: 8.1 + d, LatencyP95: 9.2 + d, IndexBytes: int64(12.3e6 + d*1e6)})
	}
	md := Markdown(res)
	for _, sec := range []string{"## Unanswerable", "## Timings"} {
		part := md[strings.Index(md, sec):]
		part = part[:strings.Index(part[3:], "\n## ")+3]
		for _, l := range strings.Split(part, "\n") {
			if strings.HasPrefix(l, "|") && runeLen(l) > maxTableWidth {
				t.Errorf("%s: table line of %d characters: %s", sec, runeLen(l), l)
			}
		}
	}
	// Every value, in the row of its cell (rows start "| <name> ").
	rowsOf := func(name string) string {
		var out []string
		for _, l := range strings.Split(md, "\n") {
			if strings.HasPrefix(l, "| "+name+" ") {
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n")
	}
	want := map[string][]string{
		names[0]: {"0.1111", "0.2222", "0.3333", "44%", "5%", "1.01", "2.02", "3.03", "4.04", "5.05", "6.06", "7.07", "8.1 / 9.2", "12.3"},
		names[1]: {"1.111", "1.222", "1.333", "54%", "15%", "yes", "2.01", "3.02", "4.03", "5.04", "6.05", "7.06", "8.07", "9.1 / 10.2", "13.3"},
	}
	for n, vals := range want {
		rows := rowsOf(n)
		for _, v := range vals {
			if c := strings.Count(rows, "| "+v+" "); c != 1 {
				t.Errorf("%s: %q appears %d times in its rows:\n%s", n, v, c, rows)
			}
		}
	}
}

func ptr[T any](v T) *T { return &v }
