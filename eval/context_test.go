package eval

import (
	"context"
	"errors"
	"testing"
)

// TestEvaluateContext: a cancelled Options.Context makes Evaluate return
// context.Canceled and no evaluation; a live one gives the numbers of
// none, here ExampleEvaluate's hand-checked MAP 0.75 (q1: (1/2 + 2/4)/2,
// q2: 1) and MRR 0.75 (q1 1/2, q2 1).
func TestEvaluateContext(t *testing.T) {
	qrels := Qrels{"q1": {"d1": 1, "d2": 1, "d4": 0}, "q2": {"d7": 1}}
	run := Run{
		"q1": {{DocID: "d3", Score: 4}, {DocID: "d1", Score: 3}, {DocID: "d5", Score: 2}, {DocID: "d2", Score: 1}},
		"q2": {{DocID: "d7", Score: 0.9}, {DocID: "d8", Score: 0.1}},
	}
	ms, err := ParseMeasures([]string{"map", "mrr"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	opts := DefaultOptions()
	opts.Context = ctx
	if e, err := Evaluate(qrels, run, ms, opts); !errors.Is(err, context.Canceled) || e != nil {
		t.Errorf("cancelled: evaluation %v, error %v; want none and context.Canceled", e != nil, err)
	}
	opts.Context = context.Background()
	e, err := Evaluate(qrels, run, ms, opts)
	if err != nil {
		t.Fatal(err)
	}
	if e.Means[0] != 0.75 || e.Means[1] != 0.75 {
		t.Errorf("live context: MAP %v, MRR %v; want 0.75, 0.75", e.Means[0], e.Means[1])
	}
}
