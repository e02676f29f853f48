package beir

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/retrievers"
	"github.com/ragbench/ragbench/stats"
)

// Measures are the trec_eval measures the end-to-end tests score with
// Evaluate: nDCG@10, Recall@100 and MRR@10. Their result names, as Mean
// takes them, are "ndcg_cut_10", "recall_100" and "recip_rank_cut_10".
var Measures = []string{"ndcg_cut.10", "recall.100", "recip_rank_cut.10"}

// Evaluate scores run against qrels on Measures with eval.DefaultOptions
// (a judged query missing from the run scores 0; every qrels query is
// averaged). Any error fails the test.
func Evaluate(t testing.TB, qrels eval.Qrels, run eval.Run) *eval.Evaluation {
	t.Helper()
	ms, err := eval.ParseMeasures(Measures)
	if err != nil {
		t.Fatal(err)
	}
	e, err := eval.Evaluate(qrels, run, ms, eval.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// Mean returns the mean over queries of the measure with result name name
// (e.g. "ndcg_cut_10", in [0, 1] for the Measures); a measure e does not
// hold fails the test as "no measure NAME".
func Mean(t testing.TB, e *eval.Evaluation, name string) float64 {
	t.Helper()
	v, ok := e.Mean(name)
	if !ok {
		t.Fatalf("no measure %s", name)
	}
	return v
}

// Summary formats the means of an Evaluate result as
// "nDCG@10 0.6789  R@100 0.9253  MRR@10 0.6441" (four decimals).
func Summary(t testing.TB, e *eval.Evaluation) string {
	t.Helper()
	return fmt.Sprintf("nDCG@10 %.4f  R@100 %.4f  MRR@10 %.4f",
		Mean(t, e, "ndcg_cut_10"), Mean(t, e, "recall_100"), Mean(t, e, "recip_rank_cut_10"))
}

// LogPaired logs a paired randomization test and a paired t-test (seed 1,
// stats' default options) of a against b on nDCG@10, one line each:
// "NAMEA vs NAMEB, nDCG@10, paired TEST test: MEANA vs MEANB, Δ ±D, p = P
// (n = N)". a and b must be Evaluate results over the same qrels; queries
// in a different order, or a failed test, fail the test.
func LogPaired(t testing.TB, nameA, nameB string, a, b *eval.Evaluation) {
	t.Helper()
	if len(a.Queries) != len(b.Queries) {
		t.Fatalf("%s has %d queries, %s %d", nameA, len(a.Queries), nameB, len(b.Queries))
	}
	for i := range a.Queries {
		if a.Queries[i] != b.Queries[i] {
			t.Fatalf("query order differs at %d", i)
		}
	}
	s := stats.Sample{QueryIDs: a.Queries, A: a.Column("ndcg_cut_10"), B: b.Column("ndcg_cut_10")}
	for _, test := range []stats.Test{stats.Randomization, stats.TTest} {
		r, err := stats.Paired(test, s, stats.Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s vs %s, nDCG@10, paired %s test: %.4f vs %.4f, Δ %+.4f, p = %.4g (n = %d)",
			nameA, nameB, test, r.MeanA, r.MeanB, r.MeanA-r.MeanB, r.P, r.N)
	}
}

// TimedSearch runs r.Search(ctx, queries, k) and returns the run and the
// wall time of that call alone. An error fails the test.
func TimedSearch(t testing.TB, ctx context.Context, r retrievers.Retriever, queries []retrievers.Query, k int) (eval.Run, time.Duration) {
	t.Helper()
	start := time.Now()
	run, err := r.Search(ctx, queries, k)
	if err != nil {
		t.Fatal(err)
	}
	return run, time.Since(start)
}
