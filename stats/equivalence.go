package stats

import (
	"fmt"
	"math"
)

// Equivalence is the outcome of a two one-sided tests (TOST) procedure for
// the equivalence of two systems within a margin ±δ (Schuirmann 1987;
// Lakens 2017): H0 is |mean(d)| ≥ δ, rejected when both one-sided paired
// t-tests reject — mean(d) > −δ and mean(d) < δ. P is the larger of their
// p-values. Every field is finite.
type Equivalence struct {
	// Margin is δ > 0, in the metric's units.
	Margin float64
	// N is the number of pairs; DF = N − 1 the tests' degrees of freedom.
	N, DF int
	// TLower = (mean(d) + δ)/se tests H0: mean(d) ≤ −δ, PLower its
	// one-sided p-value; TUpper = (mean(d) − δ)/se tests H0: mean(d) ≥ δ,
	// PUpper its p-value. When se = 0 the t's are ±math.MaxFloat64 (±inf).
	TLower, TUpper float64
	PLower, PUpper float64
	// P = max(PLower, PUpper): equivalence within ±δ is shown at level α
	// when P ≤ α. 1 when N < 2 (undefined: a warning says so).
	P float64
	// Warnings lists caveats (N < 2).
	Warnings []string
}

// TOST runs the two one-sided paired t-tests of equivalence of A and B
// within ±margin on s, as statsmodels'
// stats.weightstats.ttost_paired(A, B, −margin, margin). Errors: a margin
// that is not a finite number > 0, and the sample errors of Paired.
func TOST(s Sample, margin float64) (Equivalence, error) {
	if !(margin > 0) || math.IsInf(margin, 0) {
		return Equivalence{}, fmt.Errorf("equivalence margin: must be a finite number > 0, got %v", margin)
	}
	d, err := s.diffs()
	if err != nil {
		return Equivalence{}, err
	}
	n := len(d)
	e := Equivalence{Margin: margin, N: n, DF: max(0, n-1), P: 1, PLower: 1, PUpper: 1}
	if n < 2 {
		e.Warnings = append(e.Warnings, fmt.Sprintf("n = %d: equivalence needs at least 2 queries; p set to 1", n))
		return e, nil
	}
	m := mean(d)
	se := stdDev(d, m) / math.Sqrt(float64(n))
	tdist := studentT(n - 1)
	e.TLower, e.PLower = oneSided(m+margin, se, func(t float64) float64 { return tdist.Survival(t) })
	e.TUpper, e.PUpper = oneSided(m-margin, se, tdist.CDF)
	e.P = math.Max(e.PLower, e.PUpper)
	return e, nil
}

// oneSided returns t = diff/se and p = tail(t); with se = 0, t is
// ±math.MaxFloat64 by the sign of diff (p = tail(±inf)), and diff = 0 gives
// t = 0, p = tail(0).
func oneSided(diff, se float64, tail func(float64) float64) (t, p float64) {
	if se > 0 {
		t = diff / se
		return t, tail(t)
	}
	if diff == 0 {
		return 0, tail(0)
	}
	return math.Copysign(math.MaxFloat64, diff), tail(math.Copysign(math.Inf(1), diff))
}
