package sweep

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ragbench/ragbench/eval"
)

// TestHybridFlatListNotes (issue 26): a hybrid cell whose min-max
// normalisation meets flat lists (one result, or equal scores: each
// document gets 0, as ranx does) says so at run time, counted per input
// with an example query, in results.json's and report.md's warnings — for
// an untuned hybrid and for a tuned one's chosen setting — and again when
// the runs come from the run cache (the notes are cached beside them; a
// cached run without them is made again). Counted by hand: input a's list
// is a single result for q00 and q01, input b's scores are equal for q02;
// 4 queries.
func TestHybridFlatListNotes(t *testing.T) {
	a := eval.Run{
		"q00": {{DocID: "g00", Score: 3}},
		"q01": {{DocID: "g01", Score: 3}},
		"q02": {{DocID: "g02", Score: 3}, {DocID: "x02", Score: 1}},
		"q03": {{DocID: "g03", Score: 3}, {DocID: "x03", Score: 1}},
	}
	b := eval.Run{
		"q00": {{DocID: "x00", Score: 2}, {DocID: "g00", Score: 1}},
		"q01": {{DocID: "x01", Score: 2}, {DocID: "g01", Score: 1}},
		"q02": {{DocID: "x02", Score: 2}, {DocID: "g02", Score: 2}},
		"q03": {{DocID: "x03", Score: 2}, {DocID: "g03", Score: 1}},
	}
	gold := map[string][]string{"q00": {"g00"}, "q01": {"g01"}, "q02": {"g02"}, "q03": {"g03"}}
	p, be := tuneFixture(t, map[string]eval.Run{"a": a, "b": b}, gold, `retrievers:
  - {name: a, type: bm25}
  - {name: b, type: bm25, k1: 1.2}
  - {name: sum, type: hybrid, inputs: [a, b], fusion: combsum}
  - {name: rrf, type: hybrid, inputs: [a, b]}
  - {name: tuned, type: hybrid, inputs: [a, b], fusion: combsum, normalization: minmax, weights: [[1, 1], [2, 1]]}
k: [1, 3]
prompt_k: 3
heldout: {fraction: 0.5, seed: 1}
`)
	flatA := "input a: 2 of 4 queries' lists are flat (a single result, or equal scores): minmax gives each of their documents 0, as ranx does (e.g. query q00)"
	flatB := "input b: 1 of 4 queries' lists are flat (a single result, or equal scores): minmax gives each of their documents 0, as ranx does (e.g. query q02)"
	run := func(label string, wantCached bool) {
		t.Helper()
		res, err := Run(t.Context(), loadFixture(t, p), Options{NoHistory: true, backend: &be})
		if err != nil {
			t.Fatal(err)
		}
		chosen := res.Cells[4].Tuning.Chosen.Name
		want := []string{"cell doc/sum: " + flatA, "cell doc/sum: " + flatB,
			"cell doc/tuned: chosen setting " + chosen + ": " + flatA, "cell doc/tuned: chosen setting " + chosen + ": " + flatB}
		var got []string
		for _, w := range res.Warnings {
			if slices.Contains(want, w) || len(w) > 5 && w[:5] == "cell " {
				got = append(got, w)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: warnings\n%q\nwant\n%q", label, got, want)
		}
		if res.Timings[2].Cached != wantCached || res.Timings[4].Cached != wantCached {
			t.Errorf("%s: cached %v, %v; want %v", label, res.Timings[2].Cached, res.Timings[4].Cached, wantCached)
		}
	}
	run("first run", false)
	run("from the run cache", true)
	notes, _ := filepath.Glob(filepath.Join(filepath.Dir(p), "cache", "runs", "*", "*.notes.json"))
	if len(notes) != 3 { // sum, rrf, tuned
		t.Fatalf("%d notes files in the run cache, want 3 (the hybrids')", len(notes))
	}
	for _, n := range notes {
		os.Remove(n)
	}
	run("cached runs without their notes", false)
}
