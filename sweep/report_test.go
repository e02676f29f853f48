package sweep

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/kinds"
)

// TestBestUsesTuningOnly: the best cell per chunking is the one with the
// highest tuning mean, even when another cell is better on held-out queries.
func TestBestUsesTuningOnly(t *testing.T) {
	cfg := &Config{PrimaryMetric: "ndcg", PromptK: 10}
	mk := func(name, ch string, tuning, held float64) CellResult {
		return CellResult{Name: ch + "/" + name, Chunking: Chunking{Name: ch}, Means: map[string]map[string]float64{
			GroupTuning: {"ndcg@10": tuning}, GroupHeldOut: {"ndcg@10": held}}}
	}
	cells := []CellResult{
		mk("a", "doc", 0.60, 0.70), // best held-out, not best tuning
		mk("b", "doc", 0.65, 0.50), // best tuning
		mk("a", "fixed-128", 0.40, 0.45),
	}
	best := bestPerChunking(cfg, cells)
	if len(best) != 2 || best[0].Cell != "doc/b" || best[0].HeldOut != 0.50 || best[1].Cell != "fixed-128/a" {
		t.Errorf("best = %+v, want doc/b (tuning 0.65, held-out 0.50) and fixed-128/a", best)
	}
}

// TestReportSuperscripts: a cell that beats others significantly carries
// their letters on that metric's column only.
func TestReportSuperscripts(t *testing.T) {
	res := &Results{
		Config:  Config{Name: "x", Dataset: config.DatasetConfig{Title: ptr(true)}, Metrics: []string{"recall", "ndcg"}, K: []int{10}, PromptK: 10, HeldOut: config.HeldOutConfig{Seed: ptr(int64(1)), Fraction: ptr(0.2)}},
		Dataset: DatasetSummary{Name: "d", Answerable: 3},
		Cells: []CellResult{
			{Name: "doc/bm25", Means: map[string]map[string]float64{GroupAll: {"recall@10": 0.5, "ndcg@10": 0.4}}},
			{Name: "doc/rerank", Means: map[string]map[string]float64{GroupAll: {"recall@10": 0.5, "ndcg@10": 0.6}}},
		},
		Significance: Significance{Beats: map[string]map[string][]int{"ndcg@10": {"doc/rerank": {0}}}},
	}
	md := Report(res)
	if !strings.Contains(md, "| b | doc/rerank | 0.5000    | 0.6000<sup>a</sup> |") {
		t.Errorf("report table:\n%s", md)
	}
	if !strings.Contains(md, "The dataset has no slices") {
		t.Error("report does not say the dataset has no slices")
	}
}

func TestCellLetters(t *testing.T) {
	l := cellLetters(28)
	if l[0] != "a" || l[25] != "z" || l[26] != "aa" || l[27] != "ab" {
		t.Errorf("letters %v", l)
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
func findingsResults() *Results {
	rcs := []config.RetrieverConfig{
		{Name: "bm25", Type: "bm25", Settings: &kinds.BM25{K1: ptr(0.9), B: ptr(0.4)}}, {Name: "dense", Type: "dense", Settings: &kinds.Dense{}},
		{Name: "rrf", Type: "hybrid", Settings: &kinds.Hybrid{Inputs: []string{"bm25", "dense"}, Fusion: "rrf", RRFK: ptr(60.0), Depth: 100}},
		{Name: "ce", Type: "rerank", Settings: &kinds.Rerank{Input: "rrf"}},
	}
	means := map[string][]float64{"doc": {0.60, 0.20, 0.50, 0.55}, "fixed-4": {0.52, 0.30, 0.51, 0.40}}
	res := &Results{
		Config: Config{Name: "x", Dataset: config.DatasetConfig{Title: ptr(true)}, Metrics: []string{"ndcg"}, K: []int{10}, PromptK: 10,
			PrimaryMetric: "ndcg", Retrievers: rcs, HeldOut: config.HeldOutConfig{Seed: ptr(int64(1)), Fraction: ptr(0.2)}},
		Dataset: DatasetSummary{Name: "d", Answerable: 40},
	}
	for _, ch := range []string{"doc", "fixed-4"} {
		for i, rc := range rcs {
			res.Cells = append(res.Cells, CellResult{Name: ch + "/" + rc.Name, Chunking: Chunking{Name: ch}, Retriever: rc,
				Means: map[string]map[string]float64{GroupAll: {"ndcg@10": means[ch][i]}}})
		}
	}
	res.Significance = Significance{Correction: "holm", Alpha: 0.05, Metrics: []string{"ndcg@10"}, Pairs: []PairTest{
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
	md := Report(findingsResults())
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
	res.Cells[2].Means[GroupAll]["ndcg@10"] = 0.70
	res.Cells[3].Means[GroupAll]["ndcg@10"] = 0.75
	res.Significance = Significance{Correction: "none", Pairs: []PairTest{
		{A: "doc/bm25", B: "doc/ce", Metric: "ndcg@10", MeanA: 0.60, MeanB: 0.75, P: 0.004, PAdjusted: 0.004, Significant: true},
	}}
	got := Findings(res)
	want := "The best cell overall on ndcg@10 is `doc/ce` (rerank, 0.7500, all 40 answerable queries). " +
		"The best plain BM25 cell, `doc/bm25` (0.6000), is 0.1500 below it, significantly worse without correction (p = 0.004)."
	if len(got) != 1 || got[0] != want {
		t.Errorf("findings %q\nwant [%q]", got, want)
	}
	// rrf 0.70 < ce 0.75 but no test covers doc/rrf vs doc/ce.
	res.Cells[3].Means[GroupAll]["ndcg@10"] = 0.65
	got = Findings(res)
	if len(got) != 2 || !strings.Contains(got[0], "0.6500 vs `doc/rrf` 0.7000 (−0.0500), not tested for significance") {
		t.Errorf("findings %q", got)
	}
}

// TestReportSuperscriptSentenceOnce: the sentence explaining superscripts
// appears once, though compare's notes carry their own version.
func TestReportSuperscriptSentenceOnce(t *testing.T) {
	res := findingsResults()
	res.Significance.Notes = []string{"Test: paired t-test.", "A superscript letter marks a system that is significantly better than the system with that letter."}
	md := Report(res)
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
	res := &Results{
		Config: Config{Name: "x", Dataset: config.DatasetConfig{Title: ptr(true)}, Metrics: fams, K: []int{10}, PromptK: 10,
			HeldOut: config.HeldOutConfig{Seed: ptr(int64(1)), Fraction: ptr(0.2)}},
		Significance: Significance{Metrics: []string{"ndcg@10"}, Beats: map[string]map[string][]int{"ndcg@10": {"doc/bm25": {0, 1}}}},
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
		res.Cells = append(res.Cells, CellResult{Name: n, Means: map[string]map[string]float64{GroupAll: m, "slice:s": sl}, Counts: map[string]int{"slice:s": 1}})
	}
	res.Dataset.Slices = []string{"s"}
	md := Report(res)
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
	res.Cells[2].Means[GroupAll]["ndcg@10"] = 0.60 // rrf = bm25
	res.Cells[3].Means[GroupAll]["ndcg@10"] = 0.70 // ce above rrf, best overall
	res.Significance.Pairs = nil
	got := Findings(res)
	if len(got) != 2 || !strings.Contains(got[0], "doc: 0.6000 vs `doc/bm25` 0.6000 (±0), not tested for significance") {
		t.Errorf("findings %q", got)
	}
	res.Cells[3].Means[GroupAll]["ndcg@10"] = 0.60 // three-way tie: the earliest cell, bm25, is best
	got = Findings(res)
	if last := got[len(got)-1]; !strings.Contains(last, "plain BM25 cell: `doc/bm25`") || !strings.Contains(last, "`doc/rrf` (0.6000), ties with it") {
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

// TestNoSliceGroup: queries without a slice label, beside labelled ones,
// form the slice "(none)" (bench eval's label) in results.json's groups,
// the dataset's slice list and report.md. The fixture is testdata/small
// with the kind of q3 and q4 removed; per query at k = 3 (see
// TestSmallSweep, every cell returns the same passages):
//
//	q3: hit 1, recall 1/2, P 1/3, RR 1, AP 1/2, nDCG 1/(1 + 1/log2 3)
//	q4: all 0
//
// so "(none)" = {q3, q4} has hit 1/2, recall 1/4, P 1/6, RR 1/2, AP 1/4,
// nDCG 0.613147/2 = 0.306574; "multi" keeps only q2 (all 1, P 2/3).
func TestNoSliceGroup(t *testing.T) {
	cfg, res := runSmallEdited(t, t.TempDir(), func(queries string) string {
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(queries), "\n") {
			if strings.Contains(l, `"q3"`) || strings.Contains(l, `"q4"`) {
				l = regexp.MustCompile(`, "kind": "[a-z]+"`).ReplaceAllString(l, "")
			}
			lines = append(lines, l)
		}
		return strings.Join(lines, "\n") + "\n"
	})
	if got := strings.Join(res.Dataset.Slices, ","); got != "(none),multi,single,unanswerable" {
		t.Errorf("slices %q, want (none),multi,single,unanswerable", got)
	}
	ndcgQ3 := 1 / (1 + 1/math.Log2(3))
	want := map[string]map[string]float64{
		"slice:(none)": {"hit_rate@3": 0.5, "recall@3": 0.25, "precision@3": 1.0 / 6, "mrr@3": 0.5, "map@3": 0.25, "ndcg@3": ndcgQ3 / 2},
		"slice:multi":  {"hit_rate@3": 1, "recall@3": 1, "precision@3": 2.0 / 3, "mrr@3": 1, "map@3": 1, "ndcg@3": 1},
	}
	for _, c := range res.Cells {
		for g, metrics := range want {
			for m, v := range metrics {
				if got := c.Means[g][m]; math.Abs(got-v) > 1e-12 {
					t.Errorf("%s %s %s = %.6f, want %.6f", c.Name, g, m, got, v)
				}
			}
		}
		if c.Counts["slice:(none)"] != 2 || c.Counts["slice:multi"] != 1 || c.Counts["slice:single"] != 1 {
			t.Errorf("%s counts %v, want (none) 2, multi 1, single 1", c.Name, c.Counts)
		}
	}
	b, err := os.ReadFile(filepath.Join(cfg.Output, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"slice:(none)": {`) {
		t.Error(`results.json: no "slice:(none)" group`)
	}
	rep := Report(res)
	if !strings.Contains(rep, "### (none) (2 answerable queries)\n\nQueries with no `kind` label.") {
		t.Errorf("report.md: no (none) slice section:\n%s", rep)
	}
	if !strings.Contains(rep, "| ndcg@3 ") || !strings.Contains(rep, "0.3066") {
		t.Error("report.md: (none) slice table lacks ndcg@3 = 0.3066")
	}
}

// TestReportNoVarianceWording: in testdata/small every cell returns the
// same passages for every query, so every pair's per-query differences
// are all zero; the notes must call the minimum detectable difference
// undefined, not "below 0.000 are noise".
func TestReportNoVarianceWording(t *testing.T) {
	cfg := loadSmall(t, t.TempDir())
	res, err := Run(t.Context(), cfg, Options{NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	rep := Report(res)
	if strings.Contains(rep, "is 0.000") || strings.Contains(rep, "noise") {
		t.Error("report.md gives a zero minimum detectable difference or calls differences noise")
	}
	if !strings.Contains(rep, "minimum detectable difference in ndcg@3 is undefined (no per-query variance") {
		t.Errorf("report.md lacks the undefined-MDD sentence:\n%s", rep)
	}
}

// TestReportTimingAndUnanswerableWidth: with cell names as long as a real
// sweep's ("fixed-256o32/rerank-interpolated", 33 characters) the timing
// and unanswerable tables stay within maxTableWidth (a 100-column
// terminal) and every number of the cells' Timing and Threshold is still
// printed exactly once, in its own row.
func TestReportTimingAndUnanswerableWidth(t *testing.T) {
	names := []string{"fixed-256o32/rerank-interpolated", "doc/bm25"}
	res := &Results{
		Config: Config{Name: "x", Dataset: config.DatasetConfig{Title: ptr(true)}, Metrics: []string{"ndcg"}, K: []int{10}, PromptK: 10,
			HeldOut: config.HeldOutConfig{Seed: ptr(int64(1)), Fraction: ptr(0.2)}},
		Dataset: DatasetSummary{Unanswerable: 2},
	}
	f := func(v float64) *float64 { return &v }
	for i, n := range names {
		d := float64(i)
		res.Cells = append(res.Cells, CellResult{Name: n, Means: map[string]map[string]float64{GroupAll: {"ndcg@10": 0.5}},
			Threshold: &Threshold{
				Unanswerable: ScoreQuantiles{Median: f(0.1111 + d)}, Answerable: ScoreQuantiles{Median: f(0.2222 + d)},
				Suggested: &ThresholdChoice{Threshold: 0.3333 + d, UnanswerableAbstained: 0.44 + d/10, AnswerableLostGold: 0.05 + d/10}}})
		res.Timings = append(res.Timings, Timing{Cell: n, Cached: i == 1, Chunk: 1.01 + d, Build: 2.02 + d, Embed: 3.03 + d, Search: 4.04 + d,
			Fuse: 5.05 + d, Rerank: 6.06 + d, Score: 7.07 + d, LatencyP50: 8.1 + d, LatencyP95: 9.2 + d, IndexBytes: int64(12.3e6 + d*1e6)})
	}
	md := Report(res)
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

// TestReportNoHeldOut: with heldout.fraction 0 there is no held-out query,
// so the held-out columns have no mean ("—") and the text says so; before
// the fix they printed 0.0000, a number for a group of no queries.
func TestReportNoHeldOut(t *testing.T) {
	cfg := loadSmall(t, t.TempDir())
	cfg.HeldOut.Fraction = ptr(0.0)
	res, err := Run(t.Context(), cfg, Options{NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Dataset.HeldOut != 0 {
		t.Fatalf("%d held-out queries with fraction 0", res.Dataset.HeldOut)
	}
	rep := Report(res)
	sec := rep[strings.Index(rep, "## Best cell per chunking"):strings.Index(rep, "## Slices")]
	if !strings.Contains(sec, "there is no held-out query") {
		t.Errorf("no sentence about the missing held-out queries:\n%s", sec)
	}
	// Held-out is column 4 of the best-cell table, column 3 of the
	// tuning vs held-out table; data rows start "| doc" or "| fixed".
	best, vs, _ := strings.Cut(sec, "## Tuning vs held-out")
	for _, tc := range []struct {
		table string
		col   int
	}{{best, 4}, {vs, 3}} {
		rows := 0
		for _, l := range strings.Split(tc.table, "\n") {
			if !strings.HasPrefix(l, "| doc") && !strings.HasPrefix(l, "| fixed") {
				continue
			}
			rows++
			if cells := strings.Split(l, "|"); strings.TrimSpace(cells[tc.col]) != "—" {
				t.Errorf("held-out cell %q, want —: %s", strings.TrimSpace(cells[tc.col]), l)
			}
		}
		if rows == 0 {
			t.Errorf("no data rows in:\n%s", tc.table)
		}
	}
}

func ptr[T any](v T) *T { return &v }
