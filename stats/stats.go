package stats

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"math"
)

// Test names a paired significance test; the string values are the ones
// accepted on the command line (bench compare --test).
type Test string

// The tests of this package. See the package documentation for definitions.
const (
	TTest         Test = "t"
	Randomization Test = "randomization"
	Bootstrap     Test = "bootstrap"
	Wilcoxon      Test = "wilcoxon"
	Sign          Test = "sign"
	Tukey         Test = "tukey"
)

// Options configures the tests. The zero value is usable: SetDefaults fills
// unset fields, and every test calls it on its own copy.
type Options struct {
	// Permutations is the number B of Monte Carlo sign-flip (or, for Tukey,
	// row-permutation) samples; default DefaultPermutations (10,000).
	Permutations int
	// Resamples is the number B of bootstrap resamples (the bootstrap test
	// and BootstrapInterval); default DefaultResamples (10,000).
	Resamples int
	// ExactMaxN is the largest n for which the randomization test enumerates
	// all 2^n sign vectors exactly; default 20, at most 30.
	ExactMaxN int
	// Alpha is the significance level used by the minimum detectable
	// difference (two-sided); default 0.05, must be in (0, 1).
	Alpha float64
	// Power is the power at which the minimum detectable difference is
	// computed; default 0.8, must be in (Alpha, 1).
	Power float64
	// Confidence is the level of the confidence intervals of the mean
	// difference; default 0.95, must be in (0, 1).
	Confidence float64
	// Seed and Stream seed the PCG generator of the Monte Carlo tests. Use
	// Stream(seed, names...) to derive Stream from the comparison's names.
	Seed, Stream uint64
	// Workers bounds the goroutines of TukeyHSD (default GOMAXPROCS); the
	// result does not depend on it. The two-system tests are sequential.
	Workers int
	// Context, when not nil, stops a test early: the Monte Carlo and exact
	// enumeration loops check it about every cancelWork steps (well under
	// a millisecond of work), and once it is done Paired and TukeyHSD
	// return its error (context.Canceled or DeadlineExceeded) instead of a
	// result. A test that runs to the end gives the same numbers with or
	// without it.
	Context context.Context
}

// cancelWork is about how many elementary steps (table look-ups, draws,
// additions) the loops take between two checks of Options.Context: small
// enough that a cancelled test stops within milliseconds (also under the
// race detector), large enough that the check costs nothing measurable.
const cancelWork = 1 << 16

// cancelEvery is the number of samples between two checks of
// Options.Context when each sample takes steps steps.
func cancelEvery(steps int) int { return max(1, cancelWork/max(1, steps)) }

// cancelled reports whether o.Context is done.
func (o Options) cancelled() bool { return o.Context != nil && o.Context.Err() != nil }

// contextErr is o.Context's error, nil when there is none or it is not
// done.
func (o Options) contextErr() error {
	if o.Context == nil {
		return nil
	}
	return o.Context.Err()
}

// SetDefaults fills the zero fields of o with the defaults documented on
// each field.
func (o *Options) SetDefaults() {
	o.Permutations = cmp.Or(o.Permutations, DefaultPermutations)
	o.Resamples = cmp.Or(o.Resamples, DefaultResamples)
	o.ExactMaxN = cmp.Or(o.ExactMaxN, DefaultExactMaxN)
	o.Alpha = cmp.Or(o.Alpha, DefaultAlpha)
	o.Power = cmp.Or(o.Power, DefaultPower)
	o.Confidence = cmp.Or(o.Confidence, DefaultConfidence)
}

// CheckResamples is the one rule for a number of bootstrap resamples
// (Options.Resamples; bench compare --resamples; a config's significance,
// through config's CompareOptions): at least MinResamples. A 95% interval
// read from the 2.5th and 97.5th percentiles of a handful of resamples is
// not a 95% interval — with 1 or 2 it can exclude its own point estimate,
// and the verdict reads it — and BCa's bias correction and acceleration
// move those percentiles further into the tails, which take about 1,000
// resamples to estimate (Efron & Tibshirani 1993, §14.3 and §19.3).
func CheckResamples(n int) error {
	if n < MinResamples {
		return fmt.Errorf("resamples %d: want ≥ %d: the 95%% bootstrap interval reads the 2.5th and 97.5th percentiles (BCa: further into the tails) of the resamples, which take ≥ %d to estimate; fewer can give an interval that excludes its own point estimate (docs/compare.md)", n, MinResamples, MinResamples)
	}
	return nil
}

func (o Options) validate() error {
	switch {
	case o.Permutations < 1:
		return fmt.Errorf("permutations: must be ≥ 1, got %d", o.Permutations)
	case CheckResamples(o.Resamples) != nil:
		return CheckResamples(o.Resamples)
	case o.ExactMaxN < 0 || o.ExactMaxN > 30:
		return fmt.Errorf("exact max n: must be in [0, 30], got %d", o.ExactMaxN)
	case !(o.Alpha > 0 && o.Alpha < 1):
		return fmt.Errorf("alpha: must be in (0, 1), got %g", o.Alpha)
	case !(o.Power > o.Alpha && o.Power < 1):
		return fmt.Errorf("power: must be in (alpha, 1), got %g", o.Power)
	case !(o.Confidence > 0 && o.Confidence < 1):
		return fmt.Errorf("confidence: must be in (0, 1), got %g", o.Confidence)
	}
	return nil
}

// Stream derives a generator stream from a global seed and names (for
// example the two system names and the metric), so that every comparison
// draws its own reproducible random numbers whatever the order in which
// comparisons run. It hashes seed and names with 64-bit FNV-1a.
func Stream(seed uint64, names ...string) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for i := range b {
		b[i] = byte(seed >> (8 * i))
	}
	h.Write(b[:])
	for _, n := range names {
		h.Write([]byte(n))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// Sample holds the per-query scores of two systems A and B on the same
// queries: A[i] and B[i] are the scores of query QueryIDs[i]. QueryIDs may
// be nil (errors then name the index); otherwise it has the length of A.
type Sample struct {
	QueryIDs []string
	A, B     []float64
}

func (s Sample) id(i int) string {
	if i < len(s.QueryIDs) {
		return fmt.Sprintf("query %q", s.QueryIDs[i])
	}
	return fmt.Sprintf("query #%d", i+1)
}

// diffs validates s and returns d_i = A[i] − B[i] (empty for no queries,
// which every statistic accepts: p = 1, no interval, a warning). Errors:
// length mismatch, and NaN or ±Inf scores (naming the query id and the
// system).
func (s Sample) diffs() ([]float64, error) {
	if len(s.A) != len(s.B) {
		return nil, fmt.Errorf("paired sample: A has %d scores, B has %d", len(s.A), len(s.B))
	}
	if s.QueryIDs != nil && len(s.QueryIDs) != len(s.A) {
		return nil, fmt.Errorf("paired sample: %d query ids for %d scores", len(s.QueryIDs), len(s.A))
	}
	d := make([]float64, len(s.A))
	for i := range s.A {
		if math.IsNaN(s.A[i]) || math.IsInf(s.A[i], 0) {
			return nil, fmt.Errorf("%s: score of system A is %v", s.id(i), s.A[i])
		}
		if math.IsNaN(s.B[i]) || math.IsInf(s.B[i], 0) {
			return nil, fmt.Errorf("%s: score of system B is %v", s.id(i), s.B[i])
		}
		d[i] = s.A[i] - s.B[i]
	}
	return d, nil
}

// Result is the outcome of one paired test of A against B. Every number in
// it is finite whatever the sample (n = 0 and n = 1 included), so that a
// Result can always be written as JSON; what cannot be computed is marked
// by a flag (Effect.CIDefined, Effect.DZDefined, N < 2) and explained in
// Warnings.
type Result struct {
	// Test is the test that produced P.
	Test Test
	// N is the number of queries (pairs), including zero differences.
	N int
	// MeanA and MeanB are the mean scores of A and B over the N queries (0
	// when N = 0).
	MeanA, MeanB float64
	// Statistic is the test statistic: t for TTest (±math.MaxFloat64 stands
	// for scipy's ±inf when all differences are equal and non-zero); mean(d)
	// for Randomization, Bootstrap and Tukey; scipy's min(R+, R−) for
	// Wilcoxon; the number of wins (d > 0) for Sign.
	Statistic float64
	// P is the two-sided p-value in (0, 1] (it is 0 only for the t-test when
	// all differences are equal and non-zero, as in scipy; it is 1 when
	// N < 2).
	P float64
	// Exact reports whether P comes from an exact distribution (exact
	// enumeration, exact Wilcoxon or binomial distribution) rather than
	// Monte Carlo sampling or a normal approximation.
	Exact bool
	// Samples is the number of Monte Carlo permutations or bootstrap
	// resamples behind P (0 when P is exact or analytic).
	Samples int
	// Effect holds the effect sizes of A − B.
	Effect Effect
	// Warnings lists statistical caveats (n < 2, all differences zero,
	// fewer than SmallSample queries, normal approximation with small n,
	// ...). They do not make P invalid but should be shown with it.
	Warnings []string
}

// Effect describes the size of the difference A − B over paired queries.
// All fields are finite; the flags say which are defined.
type Effect struct {
	// MeanDiff is mean(d) = MeanA − MeanB, in the metric's units (0 when
	// n = 0).
	MeanDiff float64
	// CILow and CIHigh bound the Options.Confidence (95%) confidence
	// interval of MeanDiff: the Student-t interval mean ± t·sd/√n, or the
	// bootstrap percentile interval when the test is Bootstrap (CIMethod
	// says which). Both equal MeanDiff when sd = 0. When CIDefined is false
	// (n < 2: one difference says nothing of its spread, the t interval has
	// 0 degrees of freedom) both are 0 and the interval is shown as
	// "[–, –]".
	CILow, CIHigh float64
	// CIDefined reports whether CILow and CIHigh bound an interval (n ≥ 2).
	CIDefined bool
	// CIMethod is "t" or "bootstrap percentile".
	CIMethod string
	// DZ is Cohen's d_z = mean(d)/sd(d) (sd with n−1; Cohen 1988, Lakens
	// 2013); 0 when all differences are zero. DZDefined is false (and DZ 0)
	// when n < 2 or the differences are constant and non-zero (d_z would be
	// infinite).
	DZ        float64
	DZDefined bool
	// Wins, Ties and Losses count queries with d > 0, d = 0 and d < 0.
	Wins, Ties, Losses int
	// SD is the sample standard deviation of d (n−1 denominator; 0 when
	// n < 2, where it is undefined).
	SD float64
	// MDD is the minimum detectable difference: the smallest |mean(d)| that
	// a two-sided paired t-test at level Options.Alpha detects with
	// probability Options.Power (default 80%) given n and the observed
	// SD, from the noncentral t distribution (see MDD). 0 when SD = 0, and
	// undefined (0) when n < 2.
	MDD float64
}
