package hybrid

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ragbench/ragbench/eval"
)

// TestFuseMethodsHandComputed checks every method and normalisation on the
// two hand inputs (bm25Like, denseLike), each value worked out by hand from
// the definition's source (comments); c = 4 candidates (d1 … d4).
func TestFuseMethodsHandComputed(t *testing.T) {
	z := math.Sqrt(1.5) // z-score of the top and bottom of {3, 2, 1} and {0.9, 0.8, 0.7}
	for _, tc := range []struct {
		name string
		opts Options
		want []eval.Result
	}{
		// max (ranx): input 0 → d1 1, d2 2/3, d3 1/3; input 1 → d3 1, d1 8/9, d4 7/9.
		{"combsum max", Options{Method: CombSUM, Norm: Max}, []eval.Result{{DocID: "d1", Score: 17.0 / 9}, {DocID: "d3", Score: 4.0 / 3}, {DocID: "d4", Score: 7.0 / 9}, {DocID: "d2", Score: 2.0 / 3}}},
		// sum (ranx): (s − min)/Σ(s − min): input 0 → 2/3, 1/3, 0; input 1 → d3 2/3, d1 1/3, d4 0.
		{"combsum sum", Options{Method: CombSUM, Norm: Sum}, []eval.Result{{DocID: "d1", Score: 1}, {DocID: "d3", Score: 2.0 / 3}, {DocID: "d2", Score: 1.0 / 3}, {DocID: "d4", Score: 0}}},
		// rank (ranx): 1 − (r−1)/n, n = 3: 1, 2/3, 1/3.
		{"combsum rank", Options{Method: CombSUM, Norm: Rank}, []eval.Result{{DocID: "d1", Score: 5.0 / 3}, {DocID: "d3", Score: 4.0 / 3}, {DocID: "d2", Score: 2.0 / 3}, {DocID: "d4", Score: 1.0 / 3}}},
		// borda (ranx): (c − r + 1)/c = 1, 3/4, 1/2; missing (c − n + 1)/2c = 1/4.
		{"combsum borda", Options{Method: CombSUM, Norm: Borda}, []eval.Result{{DocID: "d1", Score: 1.75}, {DocID: "d3", Score: 1.5}, {DocID: "d2", Score: 1}, {DocID: "d4", Score: 0.75}}},
		{"combsum borda missing zero", Options{Method: CombSUM, Norm: Borda, Missing: MissingZero}, []eval.Result{{DocID: "d1", Score: 1.75}, {DocID: "d3", Score: 1.5}, {DocID: "d2", Score: 0.75}, {DocID: "d4", Score: 0.5}}},
		// CombMNZ borda: × the number of inputs scoring d — both under
		// MissingBorda (ranx), only those containing it under MissingZero.
		{"combmnz borda", Options{Method: CombMNZ, Norm: Borda}, []eval.Result{{DocID: "d1", Score: 3.5}, {DocID: "d3", Score: 3}, {DocID: "d2", Score: 2}, {DocID: "d4", Score: 1.5}}},
		{"combmnz borda missing zero", Options{Method: CombMNZ, Norm: Borda, Missing: MissingZero}, []eval.Result{{DocID: "d1", Score: 3.5}, {DocID: "d3", Score: 3}, {DocID: "d2", Score: 0.75}, {DocID: "d4", Score: 0.5}}},
		// z-score, missing = the input's minimum (−z in both inputs).
		{"combsum zscore missing min", Options{Method: CombSUM, Norm: ZScore, Missing: MissingMin}, []eval.Result{{DocID: "d1", Score: z}, {DocID: "d3", Score: 0}, {DocID: "d2", Score: -z}, {DocID: "d4", Score: -2 * z}}},
		// RRF, missing = rank Depth + 1 = 4: 1/64.
		{"rrf missing rank", Options{Method: RRF, K: 60, Missing: MissingRank}, []eval.Result{{DocID: "d1", Score: 1.0/61 + 1.0/62}, {DocID: "d3", Score: 1.0/63 + 1.0/61}, {DocID: "d2", Score: 1.0/62 + 1.0/64}, {DocID: "d4", Score: 1.0/64 + 1.0/63}}},
		// RRF with K = 0 is taken literally: 1/rank.
		{"rrf k 0", Options{Method: RRF, K: 0}, []eval.Result{{DocID: "d1", Score: 1 + 0.5}, {DocID: "d3", Score: 1.0/3 + 1}, {DocID: "d2", Score: 0.5}, {DocID: "d4", Score: 1.0 / 3}}},
		// A weight 0 drops the input (Options.Weights): input 1's d4,
		// which only it returned, is no candidate (it scored 0 at the
		// bottom).
		{"rrf weight 0", Options{Method: RRF, K: 60, Weights: []float64{1, 0}}, []eval.Result{{DocID: "d1", Score: 1.0 / 61}, {DocID: "d2", Score: 1.0 / 62}, {DocID: "d3", Score: 1.0 / 63}}},
		// CombMNZ does not count a weight-0 input among those returning d:
		// rank norm of input 0 alone, d1 1, d2 2/3, d3 1/3, each × 1. (Input
		// 1 was counted: d1 1 × 2, d3 1/3 × 2 = 2/3 tying d2 2/3 × 1 and
		// ranked above it by doc id, d4 0 × 1.)
		{"combmnz rank weight 0", Options{Method: CombMNZ, Norm: Rank, Weights: []float64{1, 0}}, []eval.Result{{DocID: "d1", Score: 1}, {DocID: "d2", Score: 2.0 / 3}, {DocID: "d3", Score: 1.0 / 3}}},
		// Borda with a weight-0 input: c = 3 candidates (d1, d2, d3, not
		// input 1's d4): (c − r + 1)/c = 1, 2/3, 1/3, and under MissingBorda
		// × 1 input awarding points. (It was c = 4: 1, 3/4, 1/2, d4 the
		// missing 1/4, all × 2.)
		{"combmnz borda weight 0", Options{Method: CombMNZ, Norm: Borda, Weights: []float64{1, 0}}, []eval.Result{{DocID: "d1", Score: 1}, {DocID: "d2", Score: 2.0 / 3}, {DocID: "d3", Score: 1.0 / 3}}},
		// DBSF (Qdrant): input 0 mean 2, sample σ 1 → (s + 1)/6; input 1 mean
		// 0.8, σ 0.1 → (s − 0.5)/0.6.
		{"dbsf", Options{Method: DBSF}, []eval.Result{{DocID: "d1", Score: 4.0/6 + 0.5}, {DocID: "d3", Score: 2.0/6 + 2.0/3}, {DocID: "d2", Score: 0.5}, {DocID: "d4", Score: 1.0 / 3}}},
		// Harmonic (OpenSearch) over min-max: d1 2/(1/1 + 1/0.5); d3's 0 in
		// input 0 is skipped; d4's only score is 0 → 0.
		{"harmonic minmax", Options{Method: Harmonic, Norm: MinMax}, []eval.Result{{DocID: "d3", Score: 1}, {DocID: "d1", Score: 2.0 / 3}, {DocID: "d2", Score: 0.5}, {DocID: "d4", Score: 0}}},
		// Geometric (OpenSearch) over sum, weights 2 and 1: input 0 → d1 2/3,
		// d2 1/3, d3 0; input 1 → d3 2/3, d1 1/3, d4 0. d1 = ((2/3)²·1/3)^(1/3)
		// = ∛4/3; d3's 0 is skipped: 2/3 alone; d2 1/3 alone; d4 only 0 → 0.
		{"geometric sum", Options{Method: Geometric, Norm: Sum, Weights: []float64{2, 1}}, []eval.Result{{DocID: "d3", Score: 2.0 / 3}, {DocID: "d1", Score: math.Cbrt(4) / 3}, {DocID: "d2", Score: 1.0 / 3}, {DocID: "d4", Score: 0}}},
	} {
		o := tc.opts
		o.Depth = 3
		got, err := Fuse([]eval.Run{bm25Like, denseLike}, o)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if d := cmp.Diff(eval.Run{"q": tc.want}, got, cmpopts.EquateApprox(1e-12, 1e-12)); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}

// TestFuseZeroWeightIsAbsent: for every method, normalisation and policy,
// inputs of weight 0 change nothing: the fusion equals that of the other
// inputs alone, with their weights (Options.Weights).
func TestFuseZeroWeightIsAbsent(t *testing.T) {
	third := eval.Run{"q": {{DocID: "d5", Score: 9}, {DocID: "d1", Score: -4}, {DocID: "d2", Score: 0.5}}}
	for _, m := range Methods {
		for _, n := range append([]Normalization{""}, Normalizations...) {
			for _, miss := range []Missing{"", MissingZero, MissingMin, MissingRank, MissingBorda} {
				o := Options{Method: m, Norm: n, Missing: miss, K: DefaultK, Depth: 3, Weights: []float64{0, 2, 0}}
				if o.Validate(3) != nil {
					continue // a combination that has no meaning
				}
				got, err := Fuse([]eval.Run{third, denseLike, bm25Like}, o)
				if err != nil {
					t.Errorf("%s %s %s: %v", m, n, miss, err)
					continue
				}
				o.Weights = []float64{2}
				want, err := Fuse([]eval.Run{denseLike}, o)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(want, got, cmpopts.EquateApprox(1e-12, 1e-12)); d != "" {
					t.Errorf("%s %s %s: weights 0, 2, 0 differ from input 1 alone (-alone +weighted):\n%s", m, n, miss, d)
				}
			}
		}
	}
}

// TestFuseTiesStraddleCut: equal scores at the depth cut keep trec_eval's
// order (doc id descending), in the inputs and in the fused list.
func TestFuseTiesStraddleCut(t *testing.T) {
	a := eval.Run{"q": {{DocID: "a", Score: 3}, {DocID: "b", Score: 3}, {DocID: "top", Score: 5}, {DocID: "c", Score: 3}}}
	b := eval.Run{"q": {{DocID: "a", Score: 1}}}
	o := DefaultOptions()
	o.Depth = 2 // input 0 keeps top and c (c > b > a); b and a are cut
	got, err := Fuse([]eval.Run{a, b}, o)
	if err != nil {
		t.Fatal(err)
	}
	// top and a tie at 1/61: "top" > "a" in byte order comes first.
	want := eval.Run{"q": {{DocID: "top", Score: 1.0 / 61}, {DocID: "a", Score: 1.0 / 61}, {DocID: "c", Score: 1.0 / 62}}}
	if d := cmp.Diff(want, got, approx); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// The fused order is eval.Sort's: sorting it again changes nothing.
	again := append([]eval.Result(nil), got["q"]...)
	eval.Sort(again, eval.TieDocIDDesc)
	if d := cmp.Diff(got["q"], again); d != "" {
		t.Errorf("not in eval.Sort order (-fused +sorted):\n%s", d)
	}
}

func TestValidateAndDefaults(t *testing.T) {
	if err := DefaultOptions().Validate(2); err != nil {
		t.Errorf("DefaultOptions: %v", err)
	}
	if err := DefaultOptions().Validate(0); err == nil {
		t.Error("0 inputs: want an error")
	}
	if DefaultMissing(Borda) != MissingBorda || DefaultMissing(MinMax) != MissingZero {
		t.Error("DefaultMissing")
	}
	o := Options{Method: CombSUM, Norm: MinMax, Depth: 10, Weights: []float64{0, 1}}
	if err := o.Validate(2); err != nil {
		t.Errorf("a zero weight is valid (it drops that input): %v", err)
	}
	o.Weights = []float64{0, 0}
	if err := o.Validate(2); err == nil {
		t.Error("every weight 0: want an error (nothing left to fuse)")
	}
}

// TestFuseEdgeCases: empty queries under every method and policy, a huge
// depth, one input, and a query only some inputs hold.
func TestFuseEdgeCases(t *testing.T) {
	empty := eval.Run{"q": {}}
	for _, m := range Methods {
		for _, n := range Normalizations {
			o := Options{Method: m, Norm: n, K: DefaultK, Depth: DefaultDepth}
			if m == RRF || m == DBSF {
				o.Norm = ""
			}
			if meanNorm(m, n) != nil {
				continue // refused (TestMeanNormsRefused)
			}
			got, err := Fuse([]eval.Run{empty, empty}, o)
			if err != nil {
				t.Errorf("%s: %v", o, err)
				continue
			}
			if l, ok := got["q"]; !ok || l == nil || len(l) != 0 {
				t.Errorf("%s: %v, want an empty non-nil list", o, got)
			}
		}
	}
	// Depth near MaxInt: rank Depth + 1 stays positive (no overflow).
	o := Options{Method: RRF, K: 60, Missing: MissingRank, Depth: math.MaxInt}
	got, err := Fuse([]eval.Run{bm25Like, denseLike}, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range got["q"] {
		if !(r.Score > 0) {
			t.Errorf("%s: score %v, want > 0", r.DocID, r.Score)
		}
	}
	// Borda with one input empty for the query: every doc gets (c + 1)/2c there.
	got, err = Fuse([]eval.Run{bm25Like, {}}, Options{Method: CombSUM, Norm: Borda, Depth: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := eval.Run{"q": {{DocID: "d1", Score: 1 + 4.0/6}, {DocID: "d2", Score: 2.0/3 + 4.0/6}, {DocID: "d3", Score: 1.0/3 + 4.0/6}}}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(1e-12, 1e-12)); d != "" {
		t.Errorf("borda, one input empty (-want +got):\n%s", d)
	}
}
