package stats

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// IntervalMethod names how BootstrapInterval turns the bootstrap
// distribution of mean(d) into a confidence interval.
type IntervalMethod string

// The bootstrap interval methods, with the definitions of
// scipy.stats.bootstrap's method argument.
const (
	// BCa is the bias-corrected and accelerated percentile interval (Efron
	// & Tibshirani 1993, §14.3, eq. 14.10 and 14.15): the percentiles are
	// moved by the bootstrap distribution's median bias z0 and the
	// jackknife acceleration a. Second-order accurate; ragbench's default,
	// as scipy's.
	BCa IntervalMethod = "bca"
	// Percentile is the plain percentile interval (Efron & Tibshirani
	// 1993, §13.3): the (1−c)/2 and (1+c)/2 quantiles of the resampled
	// means.
	Percentile IntervalMethod = "percentile"
	// StudentT is the Student-t interval mean ± t_{(1+c)/2, n−1}·sd/√n of
	// Effect (no resampling): exact under normal differences, quick for
	// large reports.
	StudentT IntervalMethod = "t"
)

// TInterval returns e's Student-t interval as an Interval at level.
func TInterval(e Effect, level float64) Interval {
	return Interval{Low: e.CILow, High: e.CIHigh, Defined: e.CIDefined, Level: level, Method: StudentT}
}

// ParseIntervalMethod returns the IntervalMethod named s ("bca",
// "percentile" or "t", case-insensitive), or an error naming the valid
// ones.
func ParseIntervalMethod(s string) (IntervalMethod, error) {
	switch m := IntervalMethod(strings.ToLower(strings.TrimSpace(s))); m {
	case BCa, Percentile, StudentT:
		return m, nil
	}
	return "", fmt.Errorf("unknown interval method %q (want bca, percentile or t)", s)
}

// Description is the method's name in reports ("paired bootstrap BCa").
func (m IntervalMethod) Description() string {
	switch m {
	case BCa:
		return "paired bootstrap BCa"
	case Percentile:
		return "paired bootstrap percentile"
	case StudentT:
		return "paired Student t"
	}
	return string(m)
}

// Interval is a confidence interval of the mean difference A − B.
type Interval struct {
	// Low and High bound the interval, in the metric's units; both 0 when
	// Defined is false (shown as "[–, –]").
	Low, High float64
	// Defined is false when the data cannot bound the mean (n < 2).
	Defined bool
	// Level is the confidence level (0.95).
	Level float64
	// Method is how the interval was computed.
	Method IntervalMethod
	// Resamples is the number of bootstrap resamples behind it (0 when the
	// bootstrap distribution is degenerate: n < 2 or constant differences).
	Resamples int
}

// Contains reports whether x lies in the interval (false when undefined).
func (iv Interval) Contains(x float64) bool { return iv.Defined && iv.Low <= x && x <= iv.High }

// BootstrapInterval returns the paired bootstrap confidence interval of
// mean(A − B) at level opt.Confidence from opt.Resamples resamples of the
// per-query differences with replacement (the queries resampled as pairs:
// scipy.stats.bootstrap((a, b), mean-of-differences, paired=True)), by
// method (BCa or Percentile). The resamples draw from the PCG stream
// (opt.Seed, opt.Stream): same seed, same interval, whatever GOMAXPROCS.
// n < 2: undefined, no warning here (Paired's warns). Constant differences
// (sd = 0): the degenerate [d, d] (every resample has the same mean).
// Errors: as Paired's sample and option errors, an unknown method, or
// opt.Context's error.
func BootstrapInterval(s Sample, method IntervalMethod, opt Options) (Interval, error) {
	if method != BCa && method != Percentile {
		return Interval{}, fmt.Errorf("unknown interval method %q", method)
	}
	d, err := prepare(s, &opt)
	if err != nil {
		return Interval{}, err
	}
	iv := Interval{Level: opt.Confidence, Method: method}
	if len(d) < 2 {
		return iv, nil
	}
	m := mean(d)
	if slices.Min(d) == slices.Max(d) {
		iv.Low, iv.High, iv.Defined = m, m, true
		return iv, nil
	}
	means := fastResampleMeans(d, opt)
	if err := opt.contextErr(); err != nil {
		return Interval{}, err
	}
	slices.Sort(means)
	a := (1 - opt.Confidence) / 2
	lo, hi := a, 1-a
	if method == BCa {
		lo, hi = bcaLevels(d, m, means, a)
	}
	iv.Low, iv.High, iv.Defined, iv.Resamples = quantile7(means, lo), quantile7(means, hi), true, len(means)
	return iv, nil
}

// resampleMeans returns opt.Resamples means of n draws with replacement
// from d, from the generator of (opt.Seed, opt.Stream); it stops early
// (leaving zeros) when opt.Context is done.
func resampleMeans(d []float64, opt Options) []float64 {
	n := len(d)
	rng := newRand(opt)
	means := make([]float64, opt.Resamples)
	every := cancelEvery(n)
	for k := range means {
		if k%every == 0 && opt.cancelled() {
			return means
		}
		s := 0.0
		for range n {
			s += d[rng.IntN(n)]
		}
		means[k] = s / float64(n)
	}
	return means
}

// fastResampleMeans is resampleMeans for intervals, about 3× faster: the
// PCG generator is called directly (no interface) and an index is the high
// word of a 64-bit draw times n (Lemire 2019, without the rejection step:
// its bias, below n/2^64, is far under any Monte Carlo error). The
// bootstrap test keeps resampleMeans, so that its p-values are those of
// earlier versions.
func fastResampleMeans(d []float64, opt Options) []float64 {
	n := uint64(len(d))
	pcg := rand.NewPCG(opt.Seed, opt.Stream)
	means := make([]float64, opt.Resamples)
	every := cancelEvery(len(d))
	for k := range means {
		if k%every == 0 && opt.cancelled() {
			return means
		}
		s := 0.0
		for range n {
			hi, _ := bits.Mul64(pcg.Uint64(), n)
			s += d[hi]
		}
		means[k] = s / float64(n)
	}
	return means
}

// bcaLevels returns the BCa interval's quantile levels for the lower tail
// a (scipy's _bca_interval): z0 = Φ⁻¹(share of resampled means below
// mean(d), ties counted half), the acceleration of the mean from the
// jackknife, â = Σc³ / (6 (Σc²)^{3/2}) with c = d − mean(d), and
// level(z) = Φ(z0 + (z0 + z)/(1 − â(z0 + z))) at z = Φ⁻¹(a) and −Φ⁻¹(a).
// A degenerate bias (every resampled mean on one side) falls back to the
// percentile levels.
func bcaLevels(d []float64, m float64, sorted []float64, a float64) (float64, float64) {
	below, _ := slices.BinarySearch(sorted, m) // count < m
	atOrBelow := below
	for atOrBelow < len(sorted) && sorted[atOrBelow] <= m {
		atOrBelow++
	}
	share := float64(below+atOrBelow) / float64(2*len(sorted))
	if share <= 0 || share >= 1 {
		return a, 1 - a
	}
	std := distuv.UnitNormal
	z0 := std.Quantile(share)
	var s2, s3 float64
	for _, v := range d {
		c := v - m
		s2 += c * c
		s3 += c * c * c
	}
	acc := s3 / (6 * math.Pow(s2, 1.5))
	level := func(z float64) float64 {
		num := z0 + z
		return std.CDF(z0 + num/(1-acc*num))
	}
	za := std.Quantile(a)
	return level(za), level(-za)
}
