package eval

import (
	"slices"
	"testing"
)

// TestAnswerableMatchesEvaluate: Qrels.Answerable is the rule Evaluate
// averages by (trec_eval counts a query relevant with a grade > 0): q1 has
// grade 2, q2 only grades 0 and −1, q3 grade 1; Evaluation.Unanswerable
// must list exactly the others.
func TestAnswerableMatchesEvaluate(t *testing.T) {
	q := Qrels{"q1": {"a": 2, "b": 0}, "q2": {"c": 0, "d": -1}, "q3": {"e": 1}}
	if got, want := q.AnswerableIDs(), []string{"q1", "q3"}; !slices.Equal(got, want) {
		t.Errorf("AnswerableIDs() = %v, want %v", got, want)
	}
	ms, err := ParseMeasures([]string{"P.1"})
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.AverageUnanswerable = false
	e, err := Evaluate(q, Run{"q1": {{DocID: "a", Score: 1}}}, ms, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(e.Unanswerable, []string{"q2"}) || q.Answerable("q2") || q.Answerable("missing") {
		t.Errorf("Evaluate's unanswerable %v; Answerable(q2) = %v", e.Unanswerable, q.Answerable("q2"))
	}
}
