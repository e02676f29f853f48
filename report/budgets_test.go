package report

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/results"
)

// TestParetoFront, worked by hand: quality (higher better) against cost
// (lower better). a (0.5, 100) and d (0.8, 300) and f (0.9, 900) are beaten
// by no one on both; b (0.4, 200) is beaten by a (better and cheaper); c
// (0.5, 150) by a (as good, cheaper); e (0.8, 300) ties d exactly, so both
// stay; g (0.9, 1000) by f (as good, cheaper).
func TestParetoFront(t *testing.T) {
	q := []float64{0.5, 0.4, 0.5, 0.8, 0.8, 0.9, 0.9}
	c := []float64{100, 200, 150, 300, 300, 900, 1000}
	want := []bool{true, false, false, true, true, true, false}
	if got := ParetoFront(q, c); !reflect.DeepEqual(got, want) {
		t.Errorf("front %v, want %v", got, want)
	}
}

// TestBudgetFinding: the verdict at the prompt budget is given beside the
// winner at prompt_k, each other chunking's best cell with its difference
// and test; a report with budgets has the budget table with a column per
// budget and one at prompt_k.
func TestBudgetFinding(t *testing.T) {
	bm := func(v256, v1024 float64) *results.PromptBudgets {
		return &results.PromptBudgets{Tokenizer: "cl100k_base", Budgets: []results.BudgetMeans{
			{Tokens: 256, Chunks: 1, Means: map[string]map[string]float64{results.GroupAll: {"span_recall": v256}}},
			{Tokens: 1024, Chunks: 3.5, Means: map[string]map[string]float64{results.GroupAll: {"span_recall": v1024}}},
		}}
	}
	cell := func(ch, r string, atK float64, pb *results.PromptBudgets) results.CellResult {
		return results.CellResult{Name: ch + "/" + r, Chunking: config.Chunking{Name: ch}, Retriever: config.RetrieverConfig{Name: r},
			Means: map[string]map[string]float64{results.GroupAll: {"span_recall@5": atK}}, PromptBudgets: pb}
	}
	res := &results.Results{
		Config:  config.Config{Metrics: []string{"span_recall"}, K: []int{5}, PromptK: 5, PrimaryMetric: "span_recall", BudgetTokens: []int{256, 1024}, PromptBudget: 1024},
		Dataset: results.DatasetSummary{Labels: results.LabelsSpans, Answerable: 10},
		Cells: []results.CellResult{
			cell("tokens-400", "bm25", 0.9, bm(0.3, 0.6)),
			cell("tokens-100", "bm25", 0.7, bm(0.5, 0.8)),
		},
		BudgetVerdict: &results.BudgetVerdict{Budget: 1024, Tokenizer: "cl100k_base", Metric: "span_recall", Winner: "tokens-100/bm25", Comparisons: 1, Correction: "holm",
			Best:  []results.BudgetBest{{Chunking: "tokens-400", Cell: "tokens-400/bm25", Mean: 0.6}, {Chunking: "tokens-100", Cell: "tokens-100/bm25", Mean: 0.8}},
			Tests: []results.PairTest{{A: "tokens-400/bm25", B: "tokens-100/bm25", Metric: "span_recall@1024 tokens", MeanA: 0.6, MeanB: 0.8, P: 0.01, PAdjusted: 0.01, Significant: true}}},
	}
	f := budgetFinding(res)
	for _, s := range []string{
		"At a 1,024-token prompt budget (cl100k_base) the winning chunking on span_recall is `tokens-100`: its best cell `tokens-100/bm25` scores 0.8000",
		"at prompt_k = 5 the winner is `tokens-400` instead (`tokens-400/bm25`, 0.9000)",
		"`tokens-400/bm25` 0.6000 (−0.2000), significantly worse (adjusted p = 0.01)",
	} {
		if !strings.Contains(f, s) {
			t.Errorf("the finding lacks %q:\n%s", s, f)
		}
	}
	var r reportWriter
	r.res, r.cfg, r.pk = res, &res.Config, 5
	r.promptBudgets(res.Cells[0].PromptBudgets)
	for _, s := range []string{"| cell            | @256   | @1024  | @k=5   |", "| tokens-100/bm25 | 0.5000 | 0.8000 | 0.7000 |"} {
		if !strings.Contains(r.b.String(), s) {
			t.Errorf("the budget section lacks %q:\n%s", s, r.b.String())
		}
	}
}
