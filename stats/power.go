package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Power is the probability that a two-sided paired t-test at level alpha
// rejects H0: mean(d) = 0 when the true mean difference is diff and the
// differences' standard deviation is sd, over n pairs: with
// T' ~ noncentral t(n−1, λ = diff·√n/sd) and c = t_{1−α/2, n−1},
// P(T' > c) + P(T' < −c). This is statsmodels' TTestPower().power(
// effect_size = diff/sd, nobs = n, alpha, alternative = "two-sided"), the
// paired t approximation of every power and sample-size figure here. 0 when
// n < 2; alpha when diff = 0; 1 when sd = 0 and diff ≠ 0.
func Power(n int, diff, sd, alpha float64) float64 {
	switch {
	case n < 2:
		return 0
	case diff == 0:
		return alpha
	case sd == 0:
		return 1
	}
	df := float64(n - 1)
	c := studentT(n - 1).Quantile(1 - alpha/2)
	nt := distuv.NoncentralT{Nu: df, Mu: math.Abs(diff) * math.Sqrt(float64(n)) / sd}
	// gonum's noncentral t rounds past 1 by ~1e-10 at large df: clamp.
	return math.Max(0, math.Min(1, 1-nt.CDF(c)+nt.CDF(-c)))
}

// MDD returns the minimum detectable difference: the smallest |mean
// difference| that a two-sided paired t-test at level alpha detects with
// the given power, for n pairs whose differences have standard deviation
// sd: λ·sd/√n where λ solves Power = power (bisection to 1e-12). Same units
// as sd; 0 when sd = 0, and 0 (undefined) when n < 2. For a plan of m
// comparisons under a family-wise correction, pass alpha/m (PlanAlpha).
func MDD(n int, sd, alpha, power float64) float64 {
	if n < 2 || sd == 0 {
		return 0
	}
	pw := func(ncp float64) float64 { return Power(n, ncp, math.Sqrt(float64(n)), alpha) }
	lo, hi := 0.0, 1.0
	for pw(hi) < power {
		lo, hi = hi, 2*hi
		if hi > 1e6 {
			return 0 // unreachable for power < 1: the noncentral t's mass moves past c
		}
	}
	for range 200 {
		mid := (lo + hi) / 2
		if pw(mid) < power {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo < 1e-12*hi {
			break
		}
	}
	return (lo + hi) / 2 * sd / math.Sqrt(float64(n))
}

// SampleSize returns the number of queries (pairs) a two-sided paired
// t-test at level alpha needs to detect a true mean difference diff with
// the given power when the differences have standard deviation sd: the
// smallest n ≥ 2 with Power(n, diff, sd, alpha) ≥ power — statsmodels'
// TTestPower().solve_power(effect_size = diff/sd, alpha, power) rounded up
// (the paired t approximation; sd comes from the observed per-query
// differences). ok is false when diff = 0 (no sample suffices) or more than
// maxSampleSize queries would be needed; 2 when sd = 0.
func SampleSize(diff, sd, alpha, power float64) (n int, ok bool) {
	if diff == 0 || math.IsNaN(diff) || math.IsNaN(sd) {
		return 0, false
	}
	if sd == 0 {
		return 2, true
	}
	if Power(maxSampleSize, diff, sd, alpha) < power {
		return 0, false
	}
	lo, hi := 1, maxSampleSize // Power(lo) < power ≤ Power(hi)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if Power(mid, diff, sd, alpha) >= power {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, true
}

// maxSampleSize bounds SampleSize's search: beyond a million queries the
// answer is "more than any labelled set" (and gonum's noncentral t, checked
// against statsmodels to 1e-9 up to there, loses accuracy).
const maxSampleSize = 1_000_000

// PlanAlpha is the per-comparison level at which a comparison of a plan of
// m comparisons must be significant for the correction c to call it
// significant at family level alpha in the worst case: alpha/m for Holm,
// Bonferroni and Benjamini–Hochberg (the first step of each), alpha for
// None or m ≤ 1. Minimum detectable differences and sample sizes of a plan
// use it, so that they answer for the plan's correction, not a single test.
func PlanAlpha(alpha float64, m int, c Correction) float64 {
	if c == None || m <= 1 {
		return alpha
	}
	return alpha / float64(m)
}
