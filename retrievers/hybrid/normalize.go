package hybrid

import (
	"fmt"
	"math"
	"slices"

	"github.com/ragbench/ragbench/eval"
)

// normalized returns the normalised scores of one input's rank-ordered list
// l (DBSF's distribution normalisation for DBSF, else o.Norm), the value a
// document missing from l gets under o.Missing, and whether l was flat
// (flatList). candidates is the number of distinct documents in all inputs'
// lists for the query (Borda's c).
func normalized(l []eval.Result, o Options, candidates int) (v []float64, miss float64, flat bool, err error) {
	v = make([]float64, len(l))
	for i, r := range l {
		v[i] = r.Score
	}
	if o.Method == DBSF {
		flat = distribution(v)
	} else if flat, err = normalize(v, o.Norm, candidates); err != nil {
		return nil, 0, false, err
	}
	switch o.Missing {
	case MissingMin:
		if len(v) > 0 {
			miss = slices.Min(v)
		}
	case MissingBorda:
		if c := float64(candidates); c > 0 {
			miss = (c - float64(len(v)) + 1) / (2 * c)
		}
	}
	return v, miss, flat, nil
}

// normalize replaces v, the scores of one rank-ordered list, by their
// normalisation n (see Normalization's constants for each definition). flat
// reports a non-empty list that n maps to one constant because its scores
// are all equal (or it holds one): 0 under MinMax, ZScore and Sum.
func normalize(v []float64, n Normalization, candidates int) (flat bool, err error) {
	if len(v) == 0 {
		return false, nil
	}
	if n != None {
		rescale(v)
	}
	switch n {
	case MinMax:
		lo, hi := slices.Min(v), slices.Max(v)
		for i := range v {
			if hi > lo {
				v[i] = (v[i] - lo) / (hi - lo)
			} else {
				v[i] = 0
			}
		}
		return !(hi > lo), nil
	case ZScore:
		return ZScores(v), nil
	case Max:
		hi := slices.Max(v)
		if !(hi > 0) {
			return false, fmt.Errorf("max normalization needs a top score > 0, got %v", hi)
		}
		for i := range v {
			v[i] /= hi
		}
	case Sum:
		lo := slices.Min(v)
		var sum float64
		for _, x := range v {
			sum += x - lo
		}
		for i := range v {
			if sum > 0 {
				v[i] = (v[i] - lo) / sum
			} else {
				v[i] = 0
			}
		}
		return !(sum > 0), nil
	case Rank:
		for i := range v {
			v[i] = 1 - float64(i)/float64(len(v))
		}
	case Borda:
		c := float64(candidates)
		for i := range v {
			v[i] = (c - float64(i)) / c
		}
	case None:
	}
	return false, nil
}

// distribution applies Qdrant's DBSF normalisation to v in place: s ↦
// (s − (μ − 3σ)) / 6σ with μ and σ the mean and sample standard deviation
// (n − 1) of v, not clipped; 0.5 for a list of one or when σ = 0 (then it
// reports flat, for a non-empty v). Mean and variance are computed in
// float64 with Welford's method, as Qdrant does (in float32).
func distribution(v []float64) (flat bool) {
	rescale(v)
	if len(v) < 2 {
		for i := range v {
			v[i] = 0.5
		}
		return len(v) == 1
	}
	var mean, agg float64
	for k, x := range v {
		d := x - mean
		mean += d / float64(k+1)
		agg += d * (x - mean)
	}
	sd := math.Sqrt(agg / float64(len(v)-1))
	lo, hi := mean-3*sd, mean+3*sd
	for i := range v {
		if hi > lo {
			v[i] = (v[i] - lo) / (hi - lo)
		} else {
			v[i] = 0.5
		}
	}
	return !(hi > lo)
}

// ZScores replaces v's values by their z-scores (x − mean) / σ, with σ the
// population standard deviation (ddof = 0, numpy's default); when σ = 0 (or v
// has one value) every value becomes 0 and flat is true (false for an empty
// v). Sums run in index order.
func ZScores(v []float64) (flat bool) {
	if len(v) == 0 {
		return false
	}
	rescale(v)
	var sum float64
	for _, x := range v {
		sum += x
	}
	mean := sum / float64(len(v))
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / float64(len(v)))
	for i := range v {
		if sd > 0 {
			v[i] = (v[i] - mean) / sd
		} else {
			v[i] = 0
		}
	}
	return !(sd > 0)
}

// rescale divides v in place by a power of two when its largest magnitude
// exceeds 2^500, so that the differences, sums and squares the
// normalisations compute cannot overflow: finite scores such as ±1e308 would
// otherwise give Inf − Inf = NaN or σ = +Inf. Every normalisation that reads
// the scores (min-max, z-score, max, sum, DBSF) is scale-invariant and a
// power-of-two scaling is exact, so the result is what unbounded arithmetic
// gives; lists within ±2^500 are left untouched, bit for bit.
func rescale(v []float64) {
	var m float64
	for _, x := range v {
		m = max(m, math.Abs(x))
	}
	if !(m > 0x1p500) || math.IsInf(m, 0) {
		return
	}
	_, e := math.Frexp(m)
	for i := range v {
		v[i] = math.Ldexp(v[i], -e)
	}
}
