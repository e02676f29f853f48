package compare

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbench/ragbench/eval"
)

// TestFromEvaluation: trec_eval's P_1 and recip_rank on a hand-made run
// (q1's relevant d1 at rank 2: P_1 0, RR 1/2; q2's relevant d3 at rank 1:
// P_1 1, RR 1), keyed by the caller's labels; q3, with no relevant doc, is
// not averaged and so not compared.
func TestFromEvaluation(t *testing.T) {
	qrels := eval.Qrels{"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}, "q3": {"d4": 0}}
	run := eval.Run{
		"q1": {{DocID: "d2", Score: 2}, {DocID: "d1", Score: 1}},
		"q2": {{DocID: "d3", Score: 5}},
		"q3": {{DocID: "d4", Score: 1}},
	}
	ms, err := eval.ParseMeasures([]string{"P.1", "recip_rank"})
	if err != nil {
		t.Fatal(err)
	}
	opts := eval.DefaultOptions()
	opts.AverageUnanswerable = false
	e, err := eval.Evaluate(qrels, run, ms, opts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := FromEvaluation(e, []string{"precision@1", "mrr"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]float64{
		"precision@1": {"q1": 0, "q2": 1},
		"mrr":         {"q1": 0.5, "q2": 1},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if _, err := FromEvaluation(e, []string{"p1"}); err == nil {
		t.Error("1 label for 2 measures: no error")
	}
}
