package stats

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// Paired runs test t of A against B on s and returns its Result with effect
// sizes. Tukey needs all systems at once: use TukeyHSD. Errors: an invalid
// sample (see Sample), NaN or infinite scores (naming the query id),
// invalid options, an unknown test, or opt.Context's error when it was
// cancelled.
func Paired(t Test, s Sample, opt Options) (Result, error) {
	d, err := prepare(s, &opt)
	if err != nil {
		return Result{}, err
	}
	r := describe(s, d, opt)
	r.Test = t
	switch t {
	case TTest:
		tTest(d, &r)
	case Randomization:
		randomization(d, opt, &r)
	case Bootstrap:
		bootstrap(d, opt, &r)
	case Wilcoxon:
		wilcoxon(d, &r)
	case Sign:
		signTest(&r)
	case Tukey:
		return Result{}, fmt.Errorf("test %q compares all systems at once: use TukeyHSD", t)
	default:
		return Result{}, fmt.Errorf("unknown test %q", t)
	}
	if err := opt.contextErr(); err != nil {
		return Result{}, err // the loops stopped early: r is not the test's
	}
	if r.N < 2 {
		r.P = 1 // policy stated in the n = 1 warning
	}
	return r, nil
}

// Describe returns the Result fields that do not depend on the test (N,
// MeanA, MeanB, Effect and the n = 1 / all-zero warnings), with P = 1 and
// Test empty. Errors as for Paired.
func Describe(s Sample, opt Options) (Result, error) {
	d, err := prepare(s, &opt)
	if err != nil {
		return Result{}, err
	}
	return describe(s, d, opt), nil
}

// prepare fills the zero fields of opt with the defaults, validates them
// and returns the differences of s (errors: see Paired).
func prepare(s Sample, opt *Options) ([]float64, error) {
	opt.SetDefaults()
	if err := opt.validate(); err != nil {
		return nil, err
	}
	return s.diffs()
}

func describe(s Sample, d []float64, opt Options) Result {
	n := len(d)
	r := Result{N: n, P: 1, Exact: true}
	e := &r.Effect
	e.CIMethod = "t"
	e.Wins, e.Ties, e.Losses = signs(d)
	switch n {
	case 0:
		r.Warnings = append(r.Warnings, "n = 0: no query to compare; p set to 1, no interval")
		return r
	case 1:
		// One difference says nothing about its spread: the t interval has
		// 0 degrees of freedom and is unbounded, not [d, d].
		r.MeanA, r.MeanB, e.MeanDiff = s.A[0], s.B[0], d[0]
		r.Warnings = append(r.Warnings, "n = 1: one query cannot show a significant difference; p set to 1, no interval")
		return r
	}
	r.MeanA, r.MeanB, e.MeanDiff = mean(s.A), mean(s.B), mean(d)
	e.SD = stdDev(d, e.MeanDiff)
	e.CILow, e.CIHigh, e.CIDefined = e.MeanDiff, e.MeanDiff, true
	switch {
	case e.SD > 0:
		e.DZ, e.DZDefined = e.MeanDiff/e.SD, true
		se := e.SD / math.Sqrt(float64(n))
		tq := studentT(n - 1).Quantile(1 - (1-opt.Confidence)/2)
		e.CILow, e.CIHigh = e.MeanDiff-tq*se, e.MeanDiff+tq*se
	case e.MeanDiff == 0:
		e.DZDefined = true
	}
	e.MDD = MDD(n, e.SD, opt.Alpha, opt.Power)
	if e.Ties == n {
		r.Warnings = append(r.Warnings, "all per-query differences are zero (identical scores): p set to 1")
	}
	return r
}

// signs counts the positive, zero and negative values of d.
func signs(d []float64) (pos, zero, neg int) {
	for _, v := range d {
		switch {
		case v > 0:
			pos++
		case v < 0:
			neg++
		default:
			zero++
		}
	}
	return pos, zero, neg
}

// studentT is Student's t distribution with df degrees of freedom.
func studentT(df int) distuv.StudentsT {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func stdDev(x []float64, m float64) float64 {
	ss := 0.0
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return math.Sqrt(ss / float64(len(x)-1))
}

// tTest: scipy.stats.ttest_rel, two-sided.
func tTest(d []float64, r *Result) {
	r.Exact = true
	n := len(d)
	if n < 2 || r.Effect.Ties == n {
		r.Statistic, r.P = 0, 1
		return
	}
	sd := r.Effect.SD
	if sd == 0 {
		// scipy's t = ±inf, written as the largest float so that the
		// Result stays finite (JSON has no infinity).
		r.Statistic = math.Copysign(math.MaxFloat64, r.Effect.MeanDiff)
		r.P = 0
		r.Warnings = append(r.Warnings, "all per-query differences are equal and non-zero: t is infinite, p = 0")
		return
	}
	t := r.Effect.MeanDiff / (sd / math.Sqrt(float64(n)))
	r.Statistic = t
	r.P = math.Min(1, 2*studentT(n-1).Survival(math.Abs(t)))
}

// wilcoxon follows scipy 1.10.1 scipy.stats.wilcoxon(x, y) with
// zero_method="wilcox", correction=False, alternative="two-sided",
// method="auto": exact distribution of R+ when n ≤ 50 and no difference is
// zero (ties among |d| are ranked by their average and R+ truncated to an
// integer, as scipy does), otherwise the normal approximation on the
// non-zero differences with the tie correction of the variance.
func wilcoxon(d []float64, r *Result) {
	n := len(d)
	nz := r.Effect.Ties
	if nz == n {
		r.Statistic, r.P, r.Exact = 0, 1, true
		return
	}
	exact := n <= 50 && nz == 0
	dd := d
	if !exact {
		dd = make([]float64, 0, n-nz)
		for _, v := range d {
			if v != 0 {
				dd = append(dd, v)
			}
		}
	}
	count := len(dd)
	abs := make([]float64, count)
	for i, v := range dd {
		abs[i] = math.Abs(v)
	}
	ranks, tieSizes := rankAverage(abs)
	var rPlus, rMinus float64
	for i, v := range dd {
		if v > 0 {
			rPlus += ranks[i]
		} else if v < 0 {
			rMinus += ranks[i]
		}
	}
	T := math.Min(rPlus, rMinus)
	r.Statistic = T
	if exact {
		r.Exact = true
		if len(tieSizes) > 0 {
			r.Warnings = append(r.Warnings, "tied |differences|: the exact Wilcoxon distribution assumes no ties (p as scipy 1.10 computes it)")
		}
		pmf := wilcoxonPMF(count)
		rp := int(rPlus)
		if rp == (len(pmf)-1)/2 {
			r.P = 1
			return
		}
		var less, greater float64
		for i := 0; i <= rp; i++ {
			less += pmf[i]
		}
		for i := rp; i < len(pmf); i++ {
			greater += pmf[i]
		}
		r.P = math.Max(0, math.Min(1, 2*math.Min(less, greater)))
		return
	}
	r.Exact = false
	if count < 10 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("Wilcoxon normal approximation with only %d non-zero differences", count))
	}
	c := float64(count)
	mn := c * (c + 1) * 0.25
	se := c * (c + 1) * (2*c + 1)
	for _, t := range tieSizes {
		tf := float64(t)
		se -= 0.5 * tf * (tf*tf - 1)
	}
	se = math.Sqrt(se / 24)
	z := (T - mn) / se
	r.P = math.Min(1, math.Erfc(math.Abs(z)/math.Sqrt2))
}

// wilcoxonPMF returns P(R+ = k), k = 0..n(n+1)/2, under H0 (scipy's
// _get_wilcoxon_distr recursion).
func wilcoxonPMF(n int) []float64 {
	c := []float64{1}
	for k := 1; k <= n; k++ {
		next := make([]float64, k*(k+1)/2+1)
		m := len(c)
		for i, v := range c {
			next[i] += v * 0.5
			next[len(next)-m+i] += v * 0.5
		}
		c = next
	}
	return c
}

// rankAverage returns the 1-based ranks of x with ties given their average
// rank (scipy.stats.rankdata "average"), and the sizes of tie groups > 1.
func rankAverage(x []float64) (ranks []float64, ties []int) {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	ranks = make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && x[idx[j]] == x[idx[i]] {
			j++
		}
		avg := float64(i+1+j) / 2
		for k := i; k < j; k++ {
			ranks[idx[k]] = avg
		}
		if j-i > 1 {
			ties = append(ties, j-i)
		}
		i = j
	}
	return ranks, ties
}

// signTest: scipy.stats.binomtest(wins, wins+losses, 0.5), two-sided.
func signTest(r *Result) {
	r.Exact = true
	k, m := r.Effect.Wins, r.Effect.Wins+r.Effect.Losses
	r.Statistic = float64(k)
	if m == 0 || 2*k == m {
		r.P = 1
		return
	}
	lo := min(k, m-k)
	lnHalf := float64(m) * math.Ln2
	lgm, _ := math.Lgamma(float64(m + 1))
	cdf := 0.0
	for i := 0; i <= lo; i++ {
		a, _ := math.Lgamma(float64(i + 1))
		b, _ := math.Lgamma(float64(m - i + 1))
		cdf += math.Exp(lgm - a - b - lnHalf)
	}
	r.P = math.Min(1, 2*cdf)
}
