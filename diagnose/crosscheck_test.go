package diagnose

import (
	"fmt"
	"testing"

	"github.com/ragbench/ragbench/eval"
)

// TestRetrievedAgreesWithTrecEvalSuccess checks the "retrieved" side of the
// 2×2 table against an independent implementation: the eval package's
// trec_eval success@k (success.k), query by query, for k = 1..3.
func TestRetrievedAgreesWithTrecEvalSuccess(t *testing.T) {
	for depth := 1; depth <= 3; depth++ {
		ms, err := eval.ParseMeasures([]string{fmt.Sprintf("success.%d", depth)})
		if err != nil {
			t.Fatal(err)
		}
		e, err := eval.Evaluate(fixtureQrels(), fixtureRun(), ms, eval.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		perQuery := e.PerQuery()
		name := ms[0].Name
		for _, q := range []string{"q1", "q2", "q3", "q4", "q7"} { // the answerable queries
			a, err := Attribute(AttributeInput{Run: fixtureRun(), Qrels: fixtureQrels(),
				Verdicts: []Verdict{{QueryID: q, Correct: false, Line: 1}}}, AttributeOptions{Depth: depth})
			if err != nil {
				t.Fatal(err)
			}
			got := float64(a.Overall.Retrieved())
			if want := perQuery[q][name]; got != want {
				t.Errorf("depth %d, %s: retrieved = %v, trec_eval %s = %v", depth, q, got, name, want)
			}
		}
	}
}
