package hybrid

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbench/ragbench/eval"
)

// TestNormalizeHugeFiniteScores: finite scores whose range or squares
// overflow float64 (±1e308) normalise as the same scores divided by 1e300
// do — every score normalisation and DBSF are scale-invariant — instead of
// failing with "score NaN not finite" (minmax, sum) or silently becoming 0
// (zscore, dbsf).
func TestNormalizeHugeFiniteScores(t *testing.T) {
	huge := eval.Run{"q": {{DocID: "d1", Score: 1e308}, {DocID: "d2", Score: -1e308}, {DocID: "d3", Score: 5e307}}}
	small := eval.Run{"q": {{DocID: "d1", Score: 1e8}, {DocID: "d2", Score: -1e8}, {DocID: "d3", Score: 5e7}}}
	other := eval.Run{"q": {{DocID: "d2", Score: 5}, {DocID: "d4", Score: 4}}}
	for _, o := range []Options{
		{Method: CombSUM, Norm: MinMax},
		{Method: CombSUM, Norm: ZScore},
		{Method: CombSUM, Norm: Sum},
		{Method: CombSUM, Norm: Max},
		{Method: CombMNZ, Norm: ZScore},
		{Method: DBSF},
	} {
		o.Depth = 100
		o.Missing = DefaultMissing(o.Norm)
		want, err := Fuse([]eval.Run{small, other}, o)
		if err != nil {
			t.Fatalf("%v %v small: %v", o.Method, o.Norm, err)
		}
		got, err := Fuse([]eval.Run{huge, other}, o)
		if err != nil {
			t.Errorf("%v %v huge: %v", o.Method, o.Norm, err)
			continue
		}
		if d := cmp.Diff(want, got, approx); d != "" {
			t.Errorf("%v %v: ±1e308 fused unlike ±1e8 (-want +got):\n%s", o.Method, o.Norm, d)
		}
	}
	v := []float64{1e308, -1e308}
	ZScores(v)
	if math.Abs(v[0]-1) > 1e-12 || math.Abs(v[1]+1) > 1e-12 {
		t.Errorf("ZScores(±1e308) = %v, want [1 -1]", v)
	}
}
