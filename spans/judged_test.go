package spans_test

import (
	"math"
	"testing"

	"github.com/ragbench/ragbench/spans"
)

// TestJudgedChunks: on docs/spans.md's alternatives example, the chunks a
// labeller looked at are those overlapping a gold passage (any member of
// the group): faq#1 and the manual's three sentences; faq#0, the FAQ's
// question, is not judged. The example's run (faq#1, faq#0, manual#1,
// manual#0, manual#2) is then judged@1 = 1, @3 = 2/3, @5 = 4/5 (by hand).
func TestJudgedChunks(t *testing.T) {
	qs, ch, run := alternatives(t)
	j := spans.JudgedChunks(qs, ch)["login"]
	want := map[string]int{"faq#1": 1, "manual#0": 1, "manual#1": 1, "manual#2": 1}
	if len(j) != len(want) {
		t.Errorf("judged chunks %v, want %v", j, want)
	}
	for id, g := range want {
		if got, ok := j[id]; !ok || got != g {
			t.Errorf("%s: %d, %v; want %d", id, got, ok, g)
		}
	}
	n := 0
	for i, r := range run["login"] {
		if _, ok := j[r.DocID]; ok {
			n++
		}
		if k := i + 1; k == 1 || k == 3 || k == 5 {
			if w := map[int]float64{1: 1, 3: 2.0 / 3, 5: 4.0 / 5}[k]; float64(n)/float64(k) != w {
				t.Errorf("judged@%d = %d/%d, want %v", k, n, k, w)
			}
		}
	}
}

// TestFindHoles: an unjudged result holding the gold passage with one
// character changed ("60" for "90": 1 edit of 31, by hand 1 − 1/31) is a
// hole; one holding it exactly is a hole of similarity 1; a judged
// result, one too short to hold three quarters of the passage, and an
// unrelated one are not. Holes come in rank order with their gold label.
func TestFindHoles(t *testing.T) {
	gold := []spans.GoldText{{Label: "manual [0, 31)", Text: "Passwords expire after 90 days."}, {Label: "manual [32, 71)", Text: "Accounts lock after five failed logins."}}
	text := map[string]string{
		"a": "Remember: PASSWORDS expire after 60 days. Plan ahead.",
		"b": "Passwords expire",
		"c": "Passwords expire after 90 days.",
		"d": "The canteen opens at noon and closes at three.",
		"e": "## Reminder\n\nPasswords   expire after 90 days.",
	}
	ids := []string{"c", "a", "b", "d", "e"}
	holes := spans.FindHoles("q", ids, 5, map[string]int{"c": 1}, func(id string) string { return text[id] }, gold)
	if len(holes) != 2 {
		t.Fatalf("holes %+v, want a and e", holes)
	}
	if h := holes[0]; h.ID != "a" || h.Rank != 2 || h.Gold != "manual [0, 31)" || math.Abs(h.Similarity-(1-1.0/31)) > 1e-12 {
		t.Errorf("first hole %+v, want a at rank 2, similarity 1 − 1/31", h)
	}
	if h := holes[1]; h.ID != "e" || h.Rank != 5 || h.Similarity != 1 {
		t.Errorf("second hole %+v, want e at rank 5 (white space folded), similarity 1", h)
	}
	if h := spans.FindHoles("q", ids, 4, map[string]int{"c": 1}, func(id string) string { return text[id] }, gold); len(h) != 1 {
		t.Errorf("top 4: %+v, want a alone", h)
	}
}
