package hybrid

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/eval"
)

// TestMeanNormsRefused: harmonic and geometric skip scores ≤ 0, so over a
// normalisation that can be negative they reversed a list's negative tail
// (geometric, norm none, on d1 −1, d2 −2, d3 −3 wrote d3, d2, d1; zscore
// lifted d4 above d3). They take minmax, sum, rank and borda only, as
// OpenSearch's normalization-processor defines harmonic_mean and
// geometric_mean on min_max and l2 scores; the others are refused, naming
// the allowed ones.
func TestMeanNormsRefused(t *testing.T) {
	neg := eval.Run{"q": {{DocID: "d1", Score: -1}, {DocID: "d2", Score: -2}, {DocID: "d3", Score: -3}}}
	for _, m := range []Method{Harmonic, Geometric} {
		for _, n := range []Normalization{ZScore, Max, None} {
			o := Options{Method: m, Norm: n, Depth: 10}
			want := fmt.Sprintf("hybrid: norm: %s takes a non-negative normalization (minmax, sum, rank or borda), not %s: it skips scores ≤ 0", m, n)
			if err := o.Validate(1); err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("%s %s: Validate = %v, want %q…", m, n, err, want)
			}
			if run, err := Fuse([]eval.Run{neg}, o); err == nil {
				t.Errorf("%s %s: fused %v, want an error", m, n, run["q"])
			}
		}
		for _, n := range MeanNorms {
			if err := (Options{Method: m, Norm: n, Depth: 10}).Validate(1); err != nil {
				t.Errorf("%s %s: %v", m, n, err)
			}
		}
	}
}

// TestSingleInputKeepsOrder: fusing one input alone, every method,
// normalisation and missing policy Validate accepts keeps the input's
// order: the fused doc ids are the input's in rank order (eval.Sort,
// TieDocIDDesc). Random lists of 1–8 distinct scores (integers −50…50
// times a power of two, so no two round to one fused score), random doc
// ids, random weights. Issue 26's break-it pass found 206 of 3,840 random
// fusions breaking it, all harmonic or geometric over zscore, max or none.
func TestSingleInputKeepsOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 1))
	fusions := 0
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(8)
		scale := float64(int(1)<<rng.IntN(20)) / 1024
		var l []eval.Result
		for _, x := range rng.Perm(101)[:n] {
			l = append(l, eval.Result{DocID: fmt.Sprintf("d%x", rng.Uint32()), Score: float64(x-50) * scale})
		}
		want := slices.Clone(l)
		eval.Sort(want, eval.TieDocIDDesc)
		w := []float64{0.25 + rng.Float64()*2}
		for _, m := range Methods {
			for _, norm := range append([]Normalization{""}, Normalizations...) {
				for _, miss := range []Missing{MissingZero, MissingMin, MissingRank, MissingBorda} {
					o := Options{Method: m, Norm: norm, Missing: miss, K: float64(rng.IntN(100)), Depth: n + rng.IntN(3), Weights: w}
					if o.Validate(1) != nil {
						continue
					}
					if norm == Max && want[0].Score <= 0 {
						continue // refused by Fuse: max needs a top score > 0
					}
					fusions++
					got, err := Fuse([]eval.Run{{"q": l}}, o)
					if err != nil {
						t.Fatalf("%s on %v: %v", o, l, err)
					}
					if !slices.EqualFunc(got["q"], want, func(a, b eval.Result) bool { return a.DocID == b.DocID }) {
						t.Fatalf("%s: input %v fused alone gives %v: the order changed", o, want, got["q"])
					}
				}
			}
		}
	}
	t.Logf("%d single-input fusions keep their input's order", fusions)
}
