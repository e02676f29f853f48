package compare_test

import (
	"fmt"

	"github.com/ragbench/ragbench/compare"
)

// ExampleCompare compares three systems on nDCG@10 over four queries with
// the default test (paired randomization, exact for n ≤ 20) and Holm's
// correction over the three pairs. The reference p-values are computed by
// hand: each of bm25 − dense and bm25 − hybrid has four positive
// differences, so only the two sign vectors with all signs equal (of 2^4 =
// 16) reach its |mean| and p = 2/16 = 0.125; dense − hybrid has differences
// 0, 0, 0, 0.1: every sign vector gives |mean(d*)| = 0.025, p = 1. Holm (sorted 0.125, 0.125, 1): 3·0.125 = 0.375,
// max(0.375, 2·0.125) = 0.375, max(0.375, 1·1) = 1.
func ExampleCompare() {
	byQuery := func(v ...float64) map[string]float64 {
		m := map[string]float64{}
		for i, x := range v {
			m[fmt.Sprintf("q%d", i+1)] = x
		}
		return m
	}
	in := compare.Input{
		Systems: []string{"bm25", "dense", "hybrid"},
		Metrics: []string{"ndcg@10"},
		Scores: compare.Scores{
			"bm25":   {"ndcg@10": byQuery(0.5, 0.7, 0.9, 1.0)},
			"dense":  {"ndcg@10": byQuery(0.4, 0.5, 0.6, 0.7)},
			"hybrid": {"ndcg@10": byQuery(0.4, 0.5, 0.6, 0.6)},
		},
	}
	r, err := compare.Compare(in, compare.Options{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	// r.Write(os.Stdout, compare.Markdown) would render the report: the
	// systems table with significance letters, the notes and the pairwise
	// table (see bench compare's golden files in cmd/bench/testdata).
	for _, p := range r.Pairs {
		fmt.Printf("%s vs %s: mean %.3f vs %.3f, p = %.3f, Holm p = %.3f, significant %v\n",
			p.A, p.B, p.MeanA, p.MeanB, p.P, p.PAdjusted, p.Significant)
	}
	// Output:
	// bm25 vs dense: mean 0.775 vs 0.550, p = 0.125, Holm p = 0.375, significant false
	// bm25 vs hybrid: mean 0.775 vs 0.525, p = 0.125, Holm p = 0.375, significant false
	// dense vs hybrid: mean 0.550 vs 0.525, p = 1.000, Holm p = 1.000, significant false
}
