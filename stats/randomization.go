package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// tukeyChunks is the fixed number of independently seeded chunks the
// Tukey HSD permutations are split into.
const tukeyChunks = 16

// newRand returns the PCG generator of one comparison.
func newRand(opt Options) *rand.Rand {
	return rand.New(rand.NewPCG(opt.Seed, opt.Stream))
}

// tieTolerance is the slack when comparing a resampled statistic with the
// observed one, so that sums equal in exact arithmetic count as ties despite
// rounding: 1e-10 · Σ|d_i|.
func tieTolerance(d []float64) float64 {
	s := 0.0
	for _, v := range d {
		s += math.Abs(v)
	}
	return 1e-10 * s
}

// randomization: paired sign-flip test with statistic mean(d). Zero
// differences do not change the statistic under any sign, so only the m
// non-zero differences are flipped: exactly (all 2^m sign vectors) when
// m ≤ ExactMaxN, else by Monte Carlo.
func randomization(d []float64, opt Options, r *Result) {
	r.Statistic = r.Effect.MeanDiff
	nz := make([]float64, 0, len(d))
	for _, v := range d {
		if v != 0 {
			nz = append(nz, v)
		}
	}
	if len(nz) == 0 {
		r.P, r.Exact = 1, true
		return
	}
	obs := 0.0
	for _, v := range nz {
		obs += v
	}
	thr := math.Abs(obs) - tieTolerance(nz)
	if len(nz) <= opt.ExactMaxN {
		r.Exact = true
		r.P = exactSignFlip(nz, thr, opt)
		return
	}
	r.Exact = false
	r.Samples = opt.Permutations
	b := monteCarloSignFlip(nz, thr, opt.Permutations, newRand(opt), opt)
	r.P = float64(b+1) / float64(opt.Permutations+1)
}

// exactSignFlip returns the fraction of the 2^m sign vectors s with
// |Σ s_i d_i| ≥ thr. The sum is split into two halves whose 2^(m/2)
// partial sums are tabulated, so every sum is computed from ≤ m/2+1 terms.
// It stops early (a meaningless count) when opt.Context is done.
func exactSignFlip(d []float64, thr float64, opt Options) float64 {
	h := len(d) / 2
	lo, hi := signedSums(d[:h]), signedSums(d[h:])
	count := 0
	every := cancelEvery(len(lo))
	for i, b := range hi {
		if i%every == 0 && opt.cancelled() {
			break
		}
		for _, a := range lo {
			if math.Abs(a+b) >= thr {
				count++
			}
		}
	}
	return float64(count) / float64(len(lo)*len(hi))
}

// signedSums returns, for each mask in [0, 2^len(d)), Σ_i ±d_i with d_i
// negated when bit i of mask is set.
func signedSums(d []float64) []float64 {
	out := make([]float64, 1<<len(d))
	for mask := range out {
		s := 0.0
		for i, v := range d {
			if mask&(1<<i) != 0 {
				s -= v
			} else {
				s += v
			}
		}
		out[mask] = s
	}
	return out
}

// monteCarloSignFlip draws B random sign vectors and counts those with
// |Σ s_i d_i| ≥ thr. Signs come 8 at a time from random bytes; the signed
// sum of each group of 8 differences is looked up in a 256-entry table.
// It stops early (a meaningless count) when opt.Context is done.
func monteCarloSignFlip(d []float64, thr float64, B int, rng *rand.Rand, opt Options) int {
	groups := (len(d) + 7) / 8
	table := make([]float64, groups*256)
	for g := range groups {
		copy(table[g*256:(g+1)*256], signedSums(d[g*8:min(len(d), g*8+8)]))
	}
	// Groups with fewer than 8 differences only use the low bits of the byte;
	// signedSums returned 2^k entries, replicate them over the 256 slots.
	if k := len(d) % 8; k != 0 {
		last := table[(groups-1)*256 : groups*256]
		for mask := 1 << k; mask < 256; mask++ {
			last[mask] = last[mask&(1<<k-1)]
		}
	}
	count, every := 0, cancelEvery(groups)
	for k := range B {
		if k%every == 0 && opt.cancelled() {
			break
		}
		s := 0.0
		var bits uint64
		for g := range groups {
			if g%8 == 0 {
				bits = rng.Uint64()
			}
			s += table[g*256+int(bits&0xff)]
			bits >>= 8
		}
		if math.Abs(s) >= thr {
			count++
		}
	}
	return count
}

// bootstrap: paired bootstrap of mean(d). The percentile interval of the
// resampled means is the confidence interval; the shift-method p-value
// counts resampled means whose distance from mean(d) is at least |mean(d)|.
func bootstrap(d []float64, opt Options, r *Result) {
	n := len(d)
	m := r.Effect.MeanDiff
	r.Statistic = m
	r.Exact = false
	r.Samples = opt.Resamples
	r.Effect.CIMethod = "bootstrap percentile"
	if r.Effect.Ties == n {
		r.P, r.Exact, r.Samples = 1, true, 0
		return
	}
	if n == 1 { // every resample is d itself: no interval (see describe)
		r.P, r.Exact, r.Samples = 1, true, 0
		return
	}
	means := resampleMeans(d, opt)
	if opt.cancelled() {
		return // Paired returns the context's error
	}
	thr := math.Abs(m) - tieTolerance(d)/float64(n)
	b := 0
	for _, v := range means {
		if math.Abs(v-m) >= thr {
			b++
		}
	}
	r.P = float64(b+1) / float64(opt.Resamples+1)
	slices.Sort(means)
	a := (1 - opt.Confidence) / 2
	r.Effect.CILow, r.Effect.CIHigh, r.Effect.CIDefined = quantile7(means, a), quantile7(means, 1-a), true
}

// quantile7 is the linear-interpolation quantile of sorted x (Hyndman & Fan
// type 7, numpy's default).
func quantile7(x []float64, p float64) float64 {
	h := p * float64(len(x)-1)
	i := int(math.Floor(h))
	if i+1 >= len(x) {
		return x[len(x)-1]
	}
	return x[i] + (h-float64(i))*(x[i+1]-x[i])
}

// HSD is the outcome of a randomized Tukey HSD test over m systems.
type HSD struct {
	// Systems are the system names, in input order.
	Systems []string
	// N is the number of queries.
	N int
	// Means holds each system's mean score over the N queries.
	Means []float64
	// P[i][j] is the family-wise p-value of systems i and j (symmetric,
	// P[i][i] = 1): (b+1)/(B+1) with b the number of permutations whose
	// range of system means max−min reaches |Means[i] − Means[j]|.
	P [][]float64
	// Samples is the number B of permutations.
	Samples int
	// Warnings lists caveats (n = 1, identical systems).
	Warnings []string
}

// TukeyHSD runs the randomized Tukey HSD test (Carterette, TOIS 2012;
// Sakai 2018, §4.5): for each of Options.Permutations permutations it
// shuffles, independently for every query, the m systems' scores among the
// systems, and records the range (max − min) of the resulting system means.
// scores[s][q] is the score of systems[s] on queryIDs[q]. No query (n = 0)
// gives p = 1 for every pair and a warning, as does n = 1 (a warning).
// Errors: fewer than two systems, ragged rows, NaN or infinite scores
// (naming system and query), or opt.Context's error when it was cancelled.
func TukeyHSD(systems, queryIDs []string, scores [][]float64, opt Options) (*HSD, error) {
	opt.SetDefaults()
	if err := opt.validate(); err != nil {
		return nil, err
	}
	if err := checkHSDInput(systems, queryIDs, scores); err != nil {
		return nil, err
	}
	m, n := len(systems), len(queryIDs)
	h := &HSD{Systems: systems, N: n, Means: make([]float64, m), Samples: opt.Permutations}
	sumAbs := 0.0
	for s, row := range scores {
		for _, v := range row {
			h.Means[s] += v
			sumAbs += math.Abs(v)
		}
		if n > 0 {
			h.Means[s] /= float64(n)
		}
	}
	var ranges []float64
	if n > 0 {
		ranges = permutationRanges(scores, n, opt)
		if err := opt.contextErr(); err != nil {
			return nil, err // before sorting millions of ranges
		}
		slices.Sort(ranges)
	}
	h.P = hsdPValues(h.Means, ranges, 1e-10*sumAbs/math.Max(1, float64(n)))
	switch n {
	case 0:
		h.Samples = 0
		h.Warnings = append(h.Warnings, "n = 0: no query to compare; p set to 1")
	case 1:
		h.Warnings = append(h.Warnings, "n = 1: one query cannot show a significant difference")
	}
	return h, nil
}

// checkHSDInput checks TukeyHSD's systems and score rows.
func checkHSDInput(systems, queryIDs []string, scores [][]float64) error {
	m, n := len(systems), len(queryIDs)
	if m < 2 || len(scores) != m {
		return fmt.Errorf("tukey HSD: need ≥ 2 systems with one score row each, got %d names and %d rows", m, len(scores))
	}
	for s, row := range scores {
		if len(row) != n {
			return fmt.Errorf("tukey HSD: system %q has %d scores for %d queries", systems[s], len(row), n)
		}
		for q, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("query %q: score of system %q is %v", queryIDs[q], systems[s], v)
			}
		}
	}
	return nil
}

// permutationRanges returns the ranges (max − min) of the system
// means over opt.Permutations permutations of each query's scores among the
// systems. The permutations are split into tukeyChunks fixed chunks, each
// with its own generator stream, and run on up to opt.Workers goroutines:
// the result depends on the seed only, not on the number of workers. It
// stops early (a meaningless result) when opt.Context is done.
func permutationRanges(scores [][]float64, n int, opt Options) []float64 {
	m := len(scores)
	cols := make([]float64, n*m) // column-major: cols[q*m+s]
	for s, row := range scores {
		for q, v := range row {
			cols[q*m+s] = v
		}
	}
	ranges := make([]float64, opt.Permutations)
	chunk := (opt.Permutations + tukeyChunks - 1) / tukeyChunks
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	every := cancelEvery(n * m)
	for range min(workers, tukeyChunks) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sums, perm := make([]float64, m), make([]float64, m)
			for {
				c := int(next.Add(1)) - 1
				if c >= tukeyChunks {
					return
				}
				o := opt
				o.Stream = opt.Stream + uint64(c)*0x9e3779b97f4a7c15
				rng := newRand(o)
				for k := c * chunk; k < min((c+1)*chunk, len(ranges)); k++ {
					if k%every == 0 && opt.cancelled() {
						return // TukeyHSD returns the context's error
					}
					clear(sums)
					for q := range n {
						copy(perm, cols[q*m:(q+1)*m])
						for i := m - 1; i > 0; i-- {
							j := rng.IntN(i + 1)
							perm[i], perm[j] = perm[j], perm[i]
						}
						for s, v := range perm {
							sums[s] += v
						}
					}
					ranges[k] = (slices.Max(sums) - slices.Min(sums)) / float64(n)
				}
			}
		}()
	}
	wg.Wait()
	return ranges
}

// hsdPValues returns the symmetric matrix of Tukey HSD p-values of the
// systems with means means: (b+1)/(B+1), b counting the sorted ranges that
// reach |mean_i − mean_j| − tol; 1 on the diagonal, for equal means and
// when there are no ranges (n = 0).
func hsdPValues(means, ranges []float64, tol float64) [][]float64 {
	m := len(means)
	p := make([][]float64, m)
	for i := range p {
		p[i] = make([]float64, m)
		p[i][i] = 1
	}
	for i := range m {
		for j := i + 1; j < m; j++ {
			v := 1.0
			if diff := math.Abs(means[i] - means[j]); diff != 0 && len(ranges) > 0 {
				idx, _ := slices.BinarySearch(ranges, diff-tol)
				v = float64(len(ranges)-idx+1) / float64(len(ranges)+1)
			}
			p[i][j], p[j][i] = v, v
		}
	}
	return p
}
