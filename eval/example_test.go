package eval_test

import (
	"fmt"

	"github.com/ragbench/ragbench/eval"
)

// ExampleEvaluate scores a two-query run. The reference values are
// computed by hand from the measures' definitions (trec_eval's):
//   - q1: relevant d1, d2; ranking d3 d1 d5 d2 → AP (1/2 + 2/4)/2 = 0.5,
//     RR 1/2, nDCG@10 (1/log2 3 + 1/log2 5)/(1 + 1/log2 3) = 0.650921,
//     recall@100 2/2;
//   - q2: relevant d7; ranking d7 d8 → AP 1, RR 1, nDCG@10 1, recall 1;
//   - the means are (q1 + q2)/2, e.g. nDCG@10 0.825460.
func ExampleEvaluate() {
	qrels := eval.Qrels{
		"q1": {"d1": 1, "d2": 1, "d4": 0},
		"q2": {"d7": 1},
	}
	run := eval.Run{
		"q1": {{DocID: "d3", Score: 4}, {DocID: "d1", Score: 3}, {DocID: "d5", Score: 2}, {DocID: "d2", Score: 1}},
		"q2": {{DocID: "d7", Score: 0.9}, {DocID: "d8", Score: 0.1}},
	}
	measures, err := eval.ParseMeasures([]string{"map", "mrr", "ndcg@10,recall@100"})
	if err != nil {
		fmt.Println(err)
		return
	}
	e, err := eval.Evaluate(qrels, run, measures, eval.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	for j, m := range e.Measures {
		fmt.Printf("%-12s %.6f (q1 %.6f)\n", m.Name, e.Means[j], e.Values[0][j])
	}
	// Output:
	// map          0.750000 (q1 0.500000)
	// recip_rank   0.750000 (q1 0.500000)
	// ndcg_cut_10  0.825460 (q1 0.650921)
	// recall_100   1.000000 (q1 1.000000)
}

// ExampleSort puts results in trec_eval's rank order: score descending,
// equal scores by doc id in descending byte order (trec_eval compares
// docnos with strcmp), the order every ragbench retriever returns.
func ExampleSort() {
	res := []eval.Result{{DocID: "a", Score: 1}, {DocID: "c", Score: 2}, {DocID: "b", Score: 1}, {DocID: "B", Score: 1}}
	eval.Sort(res, eval.TieDocIDDesc)
	fmt.Println(res)
	// Output: [{c 2} {b 1} {a 1} {B 1}]
}
