package sweep

import (
	"strings"
	"testing"
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
		Config:  Config{Name: "x", Dataset: DatasetConfig{Title: ptr(true)}, Metrics: []string{"recall", "ndcg"}, K: []int{10}, PromptK: 10, HeldOut: HeldOutConfig{Seed: ptr(int64(1)), Fraction: ptr(0.2)}},
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
