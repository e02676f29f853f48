package sweep

import (
	"fmt"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/report"
	"github.com/ragbench/ragbench/results"
)

// newcomerCells is issue 23's newcomer sweep as scored cells: 9 chunkings
// × bm25, bm25-b, bm25-c (BM25) and rrf (hybrid) = 36 cells over 35
// questions, nDCG@3 per question. fixed-4/bm25 scores 1 on e01–e17 and 0
// on h01–h18; 18 cells are identical to it (bm25 and bm25-b elsewhere,
// fixed-4/bm25-c); fixed-6o1/rrf scores 0.9 on h01–h10 (+9/35 = +0.2571);
// the 16 other cells are noise (−0.05 on e01–e04, +0.05 on h01–h03: a
// lower mean, p = 1).
func newcomerCells() ([]scoredCell, []results.CellResult, []string) {
	var ids []string
	base := map[string]float64{}
	for i := 1; i <= 17; i++ {
		ids = append(ids, fmt.Sprintf("e%02d", i))
		base[ids[len(ids)-1]] = 1
	}
	for i := 1; i <= 18; i++ {
		ids = append(ids, fmt.Sprintf("h%02d", i))
		base[ids[len(ids)-1]] = 0
	}
	var scored []scoredCell
	var cells []results.CellResult
	for _, ch := range []string{"fixed-4", "fixed-4o1", "fixed-4o2", "fixed-6", "fixed-6o1", "fixed-6o2", "fixed-8", "fixed-8o1", "fixed-8o2"} {
		for _, r := range []struct{ name, typ string }{{"bm25", "bm25"}, {"bm25-b", "bm25"}, {"bm25-c", "bm25"}, {"rrf", "hybrid"}} {
			name := ch + "/" + r.name
			v := map[string]float64{}
			for q, x := range base {
				v[q] = x
			}
			switch {
			case name == "fixed-6o1/rrf":
				for i := 1; i <= 10; i++ {
					v[fmt.Sprintf("h%02d", i)] = 0.9
				}
			case r.name == "rrf" || r.name == "bm25-c" && ch != "fixed-4":
				for i := 1; i <= 4; i++ {
					v[fmt.Sprintf("e%02d", i)] = 0.95
				}
				for i := 1; i <= 3; i++ {
					v[fmt.Sprintf("h%02d", i)] = 0.05
				}
			}
			mean := 0.0
			for _, q := range ids {
				mean += v[q] / float64(len(ids))
			}
			scored = append(scored, scoredCell{name: name, scores: map[string]map[string]float64{"ndcg@3": v}})
			cells = append(cells, results.CellResult{Name: name, Chunking: config.Chunking{Name: ch}, Retriever: config.RetrieverConfig{Name: r.name, Type: r.typ},
				Means: map[string]map[string]float64{results.GroupAll: {"ndcg@3": mean}}})
		}
	}
	return scored, cells, ids
}

// TestNewcomerPlan is issue 23's newcomer case in the sweep's report, under
// the default plan: each cell against the baseline, here the best BM25
// cell fixed-4/bm25 (all BM25 cells not lower tie with it: the first). The
// 18 cells identical to it are "unchanged (identical)" and not counted;
// Holm covers the 17 others: fixed-6o1/rrf (exact sign-flip p = 2/2^10 =
// 0.001953125, ten equal differences, by hand) gets 17 × 0.001953125 =
// 0.033203125 and "better", with a bootstrap interval above 0; the noise
// cells p = 1. Under the all-pairs plan (630 comparisons, 153 of them
// identical) the same comparison is not significant — the issue's
// complaint. Same results whatever GOMAXPROCS.
func TestNewcomerPlan(t *testing.T) {
	cfg := loadSmall(t, t.TempDir())
	scored, cells, ids := newcomerCells()
	ds := &dataset{answerable: ids}
	sig, err := significance(t.Context(), cfg, ds, scored, cells)
	if err != nil {
		t.Fatal(err)
	}
	if sig.Plan != "baseline" || sig.Baseline != "fixed-4/bm25" || sig.BaselineRule != "the best BM25 cell on ndcg@3 (set significance.baseline to choose another)" {
		t.Errorf("plan %s, baseline %s (%s)", sig.Plan, sig.Baseline, sig.BaselineRule)
	}
	if len(sig.Pairs) != 35 || sig.Comparisons != 17 || sig.Identical != 18 {
		t.Fatalf("%d pairs, %d counted, %d identical; want 35, 17, 18", len(sig.Pairs), sig.Comparisons, sig.Identical)
	}
	verdicts := map[string]int{}
	for _, p := range sig.Pairs {
		verdicts[p.Verdict]++
		if p.B != "fixed-4/bm25" {
			t.Errorf("pair %s vs %s, want every cell against the baseline", p.A, p.B)
		}
		if p.Identical == p.Counted {
			t.Errorf("%s: identical %v, counted %v", p.A, p.Identical, p.Counted)
		}
		if p.A == "fixed-6o1/rrf" {
			if p.P != 0.001953125 || p.PAdjusted != 17*0.001953125 || p.Verdict != "better" || p.CILow == nil || !(*p.CILow > 0) || math.Abs(p.MeanDiff-9.0/35) > 1e-12 {
				t.Errorf("changed cell: %+v", p)
			}
		}
	}
	if verdicts["better"] != 1 || verdicts["unchanged (identical)"] != 18 || verdicts["no evidence either way"] != 16 {
		t.Errorf("verdicts %v", verdicts)
	}
	if !strings.HasPrefix(sig.Notes[0], "Plan: each cell against baseline fixed-4/bm25: 35 comparisons × 1 metric = 35; 18 identical (same score on every query) reported as unchanged and not counted, 17 counted.") {
		t.Errorf("plan sentence %q", sig.Notes[0])
	}
	res := &results.Results{Config: *cfg, Cells: cells, Significance: sig, Dataset: results.DatasetSummary{Answerable: 35}}
	md := report.Markdown(res)
	for _, want := range []string{
		"The baseline, `fixed-4/bm25`, is the best BM25 cell on ndcg@3",
		"**ndcg@3**: each cell against the baseline `fixed-4/bm25` — 35 comparisons, 17 counted in the correction, 18 identical (unchanged, not counted).",
		"| fixed-6o1/rrf    | 0.7429 | fixed-4/bm25 | 0.4857    | +0.2571 | [+0.",
		"| 0.0332        | better                 |",
		"| fixed-4o1/bm25   | 0.4857 | fixed-4/bm25 | 0.4857    | 0.0000  | [0.0000, 0.0000]       | –             | unchanged (identical)  |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	for _, procs := range []int{1, 3} {
		old := runtime.GOMAXPROCS(procs)
		again, err := significance(t.Context(), cfg, ds, scored, cells)
		runtime.GOMAXPROCS(old)
		if err != nil || !reflect.DeepEqual(again, sig) {
			t.Errorf("GOMAXPROCS %d: different results (err %v)", procs, err)
		}
	}
	cfg.Significance.Plan = "all-pairs"
	all, err := significance(t.Context(), cfg, ds, scored, cells)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range all.Pairs {
		if p.A == "fixed-4/bm25" && p.B == "fixed-6o1/rrf" && (p.Significant || p.Verdict != "no evidence either way") {
			t.Errorf("all pairs (%d counted): %+v, want no evidence", all.Comparisons, p)
		}
	}
	if len(all.Pairs) != 630 {
		t.Errorf("all pairs: %d comparisons, want 630", len(all.Pairs))
	}
}
