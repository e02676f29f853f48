package spans

import (
	"testing"

	"github.com/ragbench/ragbench/eval"
)

// TestUncoverablePassages: a group is uncoverable only when no member is
// (listed once, by its first member); a required span alone. RunJudgements
// judges the chunks of a non-relevant passage 0 and picks a group's
// representative by the run's order.
func TestUncoverablePassages(t *testing.T) {
	ch := &Chunking{IDs: []string{"a", "b", "c"}, Intervals: map[string]Interval{"a": iv(0, 10), "b": iv(10, 20), "c": iv(20, 30)}}
	qs := []Query{
		{ID: "q1", Gold: []Span{{Doc: "d", Start: 40, End: 60, Grade: 1, Group: 1}, {Doc: "d", Start: 2, End: 8, Grade: 1, Group: 1}}},
		{ID: "q2", Gold: []Span{{Doc: "d", Start: 40, End: 60, Grade: 1, Group: 1}, {Doc: "d", Start: 70, End: 80, Grade: 1, Group: 1}, {Doc: "d", Start: 41, End: 50, Grade: 1}},
			NonRelevant: []Span{{Doc: "d", Start: 21, End: 29}}},
	}
	un, err := UncoverablePassages(qs, ch, 0.5)
	if err != nil || len(un) != 2 || un[0].Query != "q2" || un[0].Span.Start != 40 || un[1].Span.Start != 41 {
		t.Errorf("uncoverable %+v, %v", un, err)
	}
	qs[0].Gold = append(qs[0].Gold, Span{Doc: "d", Start: 12, End: 18, Grade: 2, Group: 1}, Span{Doc: "d", Start: 21, End: 28, Grade: 1})
	qrels, err := RunJudgements(qs, ch, eval.Run{"q1": {{DocID: "c", Score: 3}, {DocID: "b", Score: 2}, {DocID: "a", Score: 1}}}, 0.5, eval.TieDocIDDesc)
	if err != nil {
		t.Fatal(err)
	}
	// q1's group: b (rank 2) covers [12, 18) before a (rank 3) covers
	// [2, 8): the representative is [12, 18), grade 2; c covers the
	// required [21, 28). q2: only c, judged 0.
	if want := (eval.Qrels{"q1": {"b": 2, "c": 1}, "q2": {"c": 0}}); !qrelsEqual(qrels, want) {
		t.Errorf("judgements %v, want %v", qrels, want)
	}
}

func qrelsEqual(a, b eval.Qrels) bool {
	if len(a) != len(b) {
		return false
	}
	for q, m := range a {
		if len(m) != len(b[q]) {
			return false
		}
		for d, g := range m {
			if bg, ok := b[q][d]; !ok || bg != g {
				return false
			}
		}
	}
	return true
}
