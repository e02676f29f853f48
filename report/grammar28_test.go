package report

import (
	"strings"
	"testing"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/results"
)

// TestReportGrammarOne: counts of one read in the singular ("1 document",
// "1 query has no relevant document"), and without a superscript in the
// table the sentence under it says no cell beats another instead of
// explaining letters nobody carries.
func TestReportGrammarOne(t *testing.T) {
	res := &results.Results{
		Config:  config.Config{Name: "x", Dataset: config.DatasetConfig{Title: ptr(true)}, Metrics: []string{"ndcg"}, K: []int{10}, PromptK: 10, HeldOut: config.HeldOutConfig{Seed: ptr(int64(1)), Fraction: ptr(0.2)}},
		Dataset: results.DatasetSummary{Name: "d", Documents: 1, Queries: 1, Answerable: 0, Unanswerable: 1},
		Cells: []results.CellResult{
			{Name: "doc/bm25", Means: map[string]map[string]float64{results.GroupAll: {"ndcg@10": 0.5}}},
			{Name: "doc/rerank", Means: map[string]map[string]float64{results.GroupAll: {"ndcg@10": 0.6}}},
		},
		Significance: results.Significance{Metrics: []string{"ndcg@10"}, Queries: 1},
	}
	md := Markdown(res)
	for _, want := range []string{
		"Dataset **d**: 1 document, 1 judged query (",
		"1 query has no relevant document; it is not averaged",
		"No cell beats another significantly on a tested metric (after correction), over the 1 answerable query: no mean has a superscript.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	for _, bad := range []string{"1 documents", "1 queries have", "Superscript letters name"} {
		if strings.Contains(md, bad) {
			t.Errorf("report.md says %q:\n%s", bad, md)
		}
	}
}

// TestBudgetFindingCountsCounted: the budget verdict lists two cells, one
// identical to the winner (not counted): the correction is "over the 1
// counted comparison; 1 identical, not counted", not "over these 1
// comparisons" above a list of 2; with one counted comparison listed alone,
// "over this one comparison".
func TestBudgetFindingCountsCounted(t *testing.T) {
	cell := func(ch string, v float64) results.CellResult {
		return results.CellResult{Name: ch + "/bm25", Chunking: config.Chunking{Name: ch}, Retriever: config.RetrieverConfig{Name: "bm25"},
			Means:         map[string]map[string]float64{results.GroupAll: {"span_recall@3": v}},
			PromptBudgets: &results.PromptBudgets{Tokenizer: "cl100k_base", Budgets: []results.BudgetMeans{{Tokens: 100, Chunks: 1, Means: map[string]map[string]float64{results.GroupAll: {"span_recall": v}}}}}}
	}
	m := "span_recall@100 tokens"
	res := &results.Results{
		Config:  config.Config{Metrics: []string{"span_recall"}, K: []int{3}, PromptK: 3, PrimaryMetric: "span_recall", BudgetTokens: []int{100}, PromptBudget: 100},
		Dataset: results.DatasetSummary{Labels: results.LabelsSpans, Answerable: 9},
		Cells:   []results.CellResult{cell("recursive-120", 0.7778), cell("recursive-300", 0.7222), cell("sent-20", 0.7778)},
		BudgetVerdict: &results.BudgetVerdict{Budget: 100, Tokenizer: "cl100k_base", Metric: "span_recall", Winner: "recursive-120/bm25", Comparisons: 1, Correction: "holm",
			Best: []results.BudgetBest{{Chunking: "recursive-120", Cell: "recursive-120/bm25", Mean: 0.7778}, {Chunking: "recursive-300", Cell: "recursive-300/bm25", Mean: 0.7222}, {Chunking: "sent-20", Cell: "sent-20/bm25", Mean: 0.7778}},
			Tests: []results.PairTest{
				{A: "recursive-300/bm25", B: "recursive-120/bm25", Metric: m, MeanA: 0.7222, MeanB: 0.7778, PAdjusted: 1, Counted: true, Verdict: "no evidence either way"},
				{A: "sent-20/bm25", B: "recursive-120/bm25", Metric: m, MeanA: 0.7778, MeanB: 0.7778, PAdjusted: 1, Identical: true, Verdict: "unchanged (identical)"},
			}},
	}
	if f, want := budgetFinding(res), "(Holm–Bonferroni correction over the 1 counted comparison; 1 identical, not counted):"; !strings.Contains(f, want) {
		t.Errorf("the finding lacks %q:\n%s", want, f)
	}
	res.BudgetVerdict.Best = res.BudgetVerdict.Best[:2]
	res.BudgetVerdict.Tests = res.BudgetVerdict.Tests[:1]
	if f, want := budgetFinding(res), "(Holm–Bonferroni correction over this one comparison):"; !strings.Contains(f, want) {
		t.Errorf("the finding lacks %q:\n%s", want, f)
	}
}
