package report

import (
	"math"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/results"
)

// TestSliceBarsUndefinedInterval: a slice of one query has no interval (a
// spread needs two queries: stats' CIDefined is false), so its bars carry
// NaN bounds and report.html draws none — not the [v, v] the zero bounds
// gave; two queries give the Student-t interval, mean ± t(0.975, 1)·sd/√2
// = 0.5 ± 12.706205·0.707107/1.414214 (Student's t table).
func TestSliceBarsUndefinedInterval(t *testing.T) {
	res := &results.Results{
		Config:  config.Config{Name: "x", Dataset: config.DatasetConfig{Title: ptr(true)}, Metrics: []string{"ndcg"}, K: []int{10}, PromptK: 10, PrimaryMetric: "ndcg"},
		Dataset: results.DatasetSummary{Slices: []string{"one", "two"}},
		Groups:  map[string][]string{results.GroupAll: {"q1", "q2", "q3"}, "slice:one": {"q1"}, "slice:two": {"q2", "q3"}},
		Cells: []results.CellResult{{Name: "doc/bm25", Retriever: config.RetrieverConfig{Name: "bm25"},
			PerQuery: map[string]map[string]float64{"q1": {"ndcg@10": 0.7}, "q2": {"ndcg@10": 1}, "q3": {"ndcg@10": 0}}}},
	}
	p, err := Page(res, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][3]float64{}
	for _, sc := range p.Slices {
		b := sc.Bars[0]
		got[sc.Group] = [3]float64{b.Value, b.Low, b.High}
	}
	if b := got["slice one"]; b[0] != 0.7 || !math.IsNaN(b[1]) || !math.IsNaN(b[2]) {
		t.Errorf("one query: bar %v, want 0.7 with NaN bounds", b)
	}
	if w := strings.Join(p.Summary, "\n"); !strings.Contains(w, "Warning: ndcg@10, slice one: only 1 query (fewer than 20): indicative only.") || !strings.Contains(w, "slice two: only 2 queries") {
		t.Errorf("report.html's summary lacks the small-group warnings:\n%s", w)
	}
	h := 12.706205 * math.Sqrt(0.5) / math.Sqrt(2)
	if b := got["slice two"]; b[0] != 0.5 || math.Abs(b[1]-(0.5-h)) > 1e-5 || math.Abs(b[2]-(0.5+h)) > 1e-5 {
		t.Errorf("two queries: bar %v, want 0.5 ± %v", b, h)
	}
}

// TestPlanVerdictBothWays: the Notes read a plan's comparison in either
// order — a pair (b, a) read as a − b turns "better" into "worse" and the
// interval round — and a pair outside the plan says so.
func TestPlanVerdictBothWays(t *testing.T) {
	lo, hi := 0.01, 0.09
	s := &results.Significance{Plan: "baseline", Correction: "holm", Pairs: []results.PairTest{
		{A: "doc/rrf", B: "doc/bm25", Metric: "ndcg@10", MeanA: 0.65, MeanB: 0.6, PAdjusted: 0.012, Significant: true, Verdict: "better", CILow: &lo, CIHigh: &hi},
	}}
	if got := verdict(s, "ndcg@10", "doc/rrf", "doc/bm25", true); got != "better (95% CI [+0.0100, +0.0900], adjusted p = 0.012)" {
		t.Errorf("a − b: %q", got)
	}
	if got := verdict(s, "ndcg@10", "doc/bm25", "doc/rrf", true); got != "worse (95% CI [−0.0900, −0.0100], adjusted p = 0.012)" {
		t.Errorf("b − a: %q", got)
	}
	if got := verdict(s, "ndcg@10", "doc/bm25", "doc/dense", true); got != "not compared (outside the comparison plan)" {
		t.Errorf("outside the plan: %q", got)
	}
}

// TestSmallSampleWarnings: estimates on fewer than 20 queries say so — the
// tuning and held-out columns of the best cell per chunking, a slice, the
// tuning section's held-out test — and 20 queries do not.
func TestSmallSampleWarnings(t *testing.T) {
	res := findingsResults()
	res.Dataset.Tuning, res.Dataset.HeldOut = 34, 6
	res.Dataset.Slices = []string{"lawyer"}
	for i := range res.Cells {
		res.Cells[i].Counts = map[string]int{"slice:lawyer": 7}
	}
	res.Best = []results.Best{{Chunking: "doc", Cell: "doc/bm25", Metric: "ndcg@10", Tuning: 0.6, HeldOut: 0.9167, Tied: []string{"doc/ce"}}}
	md := Markdown(res)
	for _, want := range []string{
		"the held-out column (6 queries) is the honest estimate. **Warning**: held-out means: only 6 queries (fewer than 20): indicative only.",
		"| doc      | doc/bm25 (tied: doc/ce) |",
		"**Warning**: this slice's means: only 7 queries (fewer than 20): indicative only.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "tuning means: only") {
		t.Error("a warning on the 34 tuning queries")
	}
}

// TestNothingCompared: a sweep with one cell (or no answerable query) has
// a plan but no comparison: report.md says so, with no empty table nor a
// baseline of no name.
func TestNothingCompared(t *testing.T) {
	res := findingsResults()
	res.Cells = res.Cells[:1]
	res.Significance = results.Significance{Plan: "baseline", Baseline: "doc/bm25", Metrics: []string{"ndcg@10"}, Pairs: []results.PairTest{},
		Notes: []string{"Plan: each cell against baseline doc/bm25: 0 comparisons × 1 metric = 0."}, Warnings: []string{"only one system: nothing to compare"}}
	md := Markdown(res)
	if !strings.Contains(md, "- Plan: each cell against baseline doc/bm25: 0 comparisons × 1 metric = 0.") || !strings.Contains(md, "- only one system: nothing to compare") || strings.Contains(md, "**ndcg@10**") {
		t.Errorf("report.md:\n%s", md)
	}
}
