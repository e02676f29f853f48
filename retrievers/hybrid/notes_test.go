package hybrid

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/retrievers"
)

// TestFuseNotesFlat: min-max over a single result or equal scores gives
// every document 0 (documented, as ranx), which nothing reported at run
// time; FuseWithNotes counts such lists per input (z-score and sum alike;
// DBSF's 0.5), Lines words them, and rank-based methods never note any.
// Input 0 is flat for q1 (one result) and q2 (equal scores), input 1 for
// q3 (one result); q4 is in input 0 only (an empty list is not flat).
func TestFuseNotesFlat(t *testing.T) {
	a := eval.Run{
		"q1": {{DocID: "d1", Score: 4}},
		"q2": {{DocID: "d1", Score: 5}, {DocID: "d2", Score: 5}},
		"q3": {{DocID: "d1", Score: 3}, {DocID: "d2", Score: 1}},
		"q4": {{DocID: "d1", Score: 3}, {DocID: "d2", Score: 1}},
	}
	b := eval.Run{
		"q1": {{DocID: "d1", Score: 0.9}, {DocID: "d3", Score: 0.2}},
		"q2": {{DocID: "d2", Score: 0.9}, {DocID: "d3", Score: 0.2}},
		"q3": {{DocID: "d3", Score: 0.5}},
	}
	names := []string{"bm25.trec", "dense.trec"}
	for _, tc := range []struct {
		o     Options
		flat  []int
		lines []string
	}{
		{Options{Method: CombSUM, Norm: MinMax}, []int{2, 1}, []string{
			"bm25.trec: 2 of 4 queries' lists are flat (a single result, or equal scores): minmax gives each of their documents 0, as ranx does (e.g. query q1)",
			"dense.trec: 1 of 4 queries' lists are flat (a single result, or equal scores): minmax gives each of their documents 0, as ranx does (e.g. query q3)",
		}},
		{Options{Method: Harmonic, Norm: MinMax}, []int{2, 1}, nil},
		{Options{Method: CombMNZ, Norm: ZScore}, []int{2, 1}, nil},
		{Options{Method: CombSUM, Norm: Sum}, []int{2, 1}, nil},
		{Options{Method: DBSF}, []int{2, 1}, []string{
			"bm25.trec: 2 of 4 queries' lists are flat (a single result, or equal scores): dbsf gives each of their documents 0.5, as Qdrant does (e.g. query q1)",
			"dense.trec: 1 of 4 queries' lists are flat (a single result, or equal scores): dbsf gives each of their documents 0.5, as Qdrant does (e.g. query q3)",
		}},
		{Options{Method: CombSUM, Norm: MinMax, Weights: []float64{0, 1}}, []int{0, 1}, nil},
		{Options{Method: RRF, K: 60}, []int{0, 0}, nil},
		{Options{Method: CombSUM, Norm: Rank}, []int{0, 0}, nil},
		{Options{Method: CombSUM, Norm: Max}, []int{0, 0}, nil},
	} {
		tc.o.Depth = 10
		run, notes, err := FuseWithNotes([]eval.Run{a, b}, tc.o)
		if err != nil {
			t.Fatalf("%s: %v", tc.o, err)
		}
		if want, _ := Fuse([]eval.Run{a, b}, tc.o); !cmp.Equal(run, want) {
			t.Errorf("%s: FuseWithNotes's run differs from Fuse's", tc.o)
		}
		if notes.Queries != 4 || !cmp.Equal(notes.Flat, tc.flat) {
			t.Errorf("%s: notes %+v, want flat %v of 4 queries", tc.o, notes, tc.flat)
		}
		if tc.lines != nil {
			if d := cmp.Diff(tc.lines, notes.Lines(names)); d != "" {
				t.Errorf("%s: Lines (-want +got):\n%s", tc.o, d)
			}
		}
		if (tc.flat[0]+tc.flat[1] == 0) != (notes.Lines(names) == nil) {
			t.Errorf("%s: Lines %q with flat %v", tc.o, notes.Lines(names), tc.flat)
		}
	}

	// The Retriever counts the same over its Searches.
	r, err := New([]retrievers.Retriever{&fakeRetriever{run: a}, &fakeRetriever{run: b}}, Options{Method: CombSUM, Norm: MinMax, Depth: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, qs := range [][]retrievers.Query{{{ID: "q1"}, {ID: "q2"}}, {{ID: "q3"}, {ID: "q4"}}} {
		if _, err := r.Search(context.Background(), qs, 5); err != nil {
			t.Fatal(err)
		}
	}
	if n := r.Notes(); n.Queries != 4 || !cmp.Equal(n.Flat, []int{2, 1}) || !cmp.Equal(n.FlatQuery, []string{"q1", "q3"}) {
		t.Errorf("Retriever.Notes() = %+v", n)
	}
}
