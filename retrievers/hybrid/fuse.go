// Package hybrid fuses N ranked lists into one: reciprocal rank fusion (RRF),
// weighted CombSUM after min-max or z-score normalisation, and CombMNZ. Fuse
// works on eval.Run values (runs read from files, or produced by retrievers);
// New wraps any retrievers as one retrievers.Retriever.
//
// Every input list is first put in rank order — score descending, ties by doc
// id ascending (the retrievers.Retriever contract) — and cut to Options.Depth.
// Fused scores are summed input by input in argument order, and the fused list
// is sorted by fused score descending, ties by doc id ascending, so the output
// is the same on every run and whatever GOMAXPROCS is.
package hybrid

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/ragbench/ragbench/eval"
)

// Method names a fusion method.
type Method string

const (
	// RRF is reciprocal rank fusion (Cormack, Clarke & Büttcher, "Reciprocal
	// rank fusion outperforms Condorcet and individual rank learning methods",
	// SIGIR 2009): score(d) = Σᵢ wᵢ / (K + rankᵢ(d)), ranks from 1, summed over
	// the inputs whose top Depth contain d. Scores of the inputs are used only to
	// rank them.
	RRF Method = "rrf"
	// CombSUM is score(d) = Σᵢ wᵢ · norm(sᵢ(d)) over the inputs whose top Depth
	// contain d (Fox & Shaw, "Combination of multiple searches", TREC-2, 1994);
	// a missing document contributes 0.
	CombSUM Method = "combsum"
	// CombMNZ is CombSUM multiplied by the number of inputs whose top Depth
	// contain d (Fox & Shaw 1994).
	CombMNZ Method = "combmnz"
)

// Normalization names the per-query score normalisation CombSUM and CombMNZ
// apply to each input's top Depth before summing (as ranx's "min-max" and
// "zmuv"). RRF ignores it.
type Normalization string

const (
	// MinMax maps s to (s − min) / (max − min) over the query's list, into
	// [0, 1]; when max = min every score becomes 0 (ranx's convention).
	MinMax Normalization = "minmax"
	// ZScore maps s to (s − mean) / σ with σ the population standard deviation
	// (numpy's default, ddof = 0) over the query's list; when σ = 0 every score
	// becomes 0.
	ZScore Normalization = "zscore"
	// None sums raw scores (only meaningful when the inputs share a scale).
	None Normalization = "none"
)

// Defaults for Options' zero values.
const (
	DefaultK     = 60  // RRF rank constant (Cormack et al. 2009)
	DefaultDepth = 100 // results taken from each input per query
)

// Options configure a fusion. The zero value is RRF with K = 60, depth 100 and
// equal weights.
type Options struct {
	// Method is the fusion method; "" means RRF.
	Method Method
	// K is RRF's rank constant, > 0; 0 means DefaultK (60).
	K float64
	// Norm is the normalisation for CombSUM/CombMNZ; "" means MinMax.
	Norm Normalization
	// Weights are per-input weights (finite, ≥ 0), one per input in order; nil
	// means 1 for every input.
	Weights []float64
	// Depth is how many top results of each input are fused per query, > 0;
	// 0 means DefaultDepth (100). To fuse whole lists set it to at least the
	// longest list.
	Depth int
}

// resolve fills defaults and validates o for n inputs.
func (o Options) resolve(n int) (Options, error) {
	switch o.Method {
	case "":
		o.Method = RRF
	case RRF, CombSUM, CombMNZ:
	default:
		return o, fmt.Errorf("hybrid: method: unknown fusion method %q (want rrf, combsum or combmnz)", o.Method)
	}
	switch o.Norm {
	case "":
		o.Norm = MinMax
	case MinMax, ZScore, None:
	default:
		return o, fmt.Errorf("hybrid: norm: unknown normalization %q (want minmax, zscore or none)", o.Norm)
	}
	if o.K == 0 {
		o.K = DefaultK
	}
	if !(o.K > 0) || math.IsInf(o.K, 0) {
		return o, fmt.Errorf("hybrid: k: RRF rank constant must be a finite number > 0, got %v", o.K)
	}
	if o.Depth == 0 {
		o.Depth = DefaultDepth
	}
	if o.Depth < 0 {
		return o, fmt.Errorf("hybrid: depth: must be > 0, got %d", o.Depth)
	}
	if o.Weights == nil {
		o.Weights = make([]float64, n)
		for i := range o.Weights {
			o.Weights[i] = 1
		}
	} else {
		if len(o.Weights) != n {
			return o, fmt.Errorf("hybrid: weights: %d weights for %d inputs", len(o.Weights), n)
		}
		for i, w := range o.Weights {
			if !(w >= 0) || math.IsInf(w, 0) {
				return o, fmt.Errorf("hybrid: weights[%d]: must be finite and ≥ 0, got %v", i, w)
			}
		}
		o.Weights = slices.Clone(o.Weights)
	}
	return o, nil
}

// Fuse fuses runs (one per input system) query by query and returns the fused
// run: for every query id present in any input, all documents found in any
// input's top Depth, with their fused scores, sorted by fused score descending
// and doc id ascending. A query missing from an input counts as an empty list
// there; a query whose lists are all empty gets an empty, non-nil list.
//
// Errors: no inputs; bad options; a NaN or infinite score, or a doc id twice
// in one list (each naming the input index, query id and doc id). The inputs
// are not modified.
func Fuse(runs []eval.Run, opts Options) (eval.Run, error) {
	if len(runs) == 0 {
		return nil, errors.New("hybrid: no runs to fuse")
	}
	o, err := opts.resolve(len(runs))
	if err != nil {
		return nil, err
	}
	var qids []string
	seen := map[string]bool{}
	for _, r := range runs {
		for q := range r {
			if !seen[q] {
				seen[q] = true
				qids = append(qids, q)
			}
		}
	}
	slices.Sort(qids)
	out := make(eval.Run, len(qids))
	lists := make([][]eval.Result, len(runs))
	for _, q := range qids {
		for i, r := range runs {
			l, err := rankOrder(r[q], o.Depth)
			if err != nil {
				return nil, fmt.Errorf("hybrid: input %d, query %q: %w", i, q, err)
			}
			lists[i] = l
		}
		out[q] = fuseQuery(lists, o)
	}
	return out, nil
}

// rankOrder returns a sorted copy of l (score descending, doc id ascending)
// cut to depth, after checking scores and duplicate ids.
func rankOrder(l []eval.Result, depth int) ([]eval.Result, error) {
	c := slices.Clone(l)
	for _, r := range c {
		if math.IsNaN(r.Score) || math.IsInf(r.Score, 0) {
			return nil, fmt.Errorf("doc %q: score is %v (want a finite number)", r.DocID, r.Score)
		}
	}
	ids := make(map[string]struct{}, len(c))
	for _, r := range c {
		if _, dup := ids[r.DocID]; dup {
			return nil, fmt.Errorf("doc %q: listed twice", r.DocID)
		}
		ids[r.DocID] = struct{}{}
	}
	SortResults(c)
	if len(c) > depth {
		c = c[:depth]
	}
	return c, nil
}

// SortResults sorts l in place in rank order: score descending, ties by doc
// id ascending (the order every ragbench retriever returns).
func SortResults(l []eval.Result) {
	slices.SortStableFunc(l, func(a, b eval.Result) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.DocID, b.DocID)
	})
}

// fuseQuery fuses one query's rank-ordered, depth-cut lists.
func fuseQuery(lists [][]eval.Result, o Options) []eval.Result {
	score := map[string]float64{}
	hits := map[string]int{}
	var order []string // first-seen order, for a map-independent summation
	for i, l := range lists {
		var norm []float64
		if o.Method != RRF {
			norm = normalize(l, o.Norm)
		}
		for j, r := range l {
			var s float64
			if o.Method == RRF {
				s = o.Weights[i] / (o.K + float64(j+1))
			} else {
				s = o.Weights[i] * norm[j]
			}
			if _, ok := hits[r.DocID]; !ok {
				order = append(order, r.DocID)
			}
			score[r.DocID] += s
			hits[r.DocID]++
		}
	}
	out := make([]eval.Result, 0, len(order))
	for _, id := range order {
		s := score[id]
		if o.Method == CombMNZ {
			s *= float64(hits[id])
		}
		out = append(out, eval.Result{DocID: id, Score: s})
	}
	SortResults(out)
	return out
}

// normalize returns l's scores normalised per Normalization.
func normalize(l []eval.Result, n Normalization) []float64 {
	v := make([]float64, len(l))
	for i, r := range l {
		v[i] = r.Score
	}
	if len(v) == 0 || n == None {
		return v
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
	case ZScore:
		ZScores(v)
	}
	return v
}

// ZScores replaces v's values by their z-scores (x − mean) / σ, with σ the
// population standard deviation (ddof = 0, numpy's default); when σ = 0 (or v
// has one value) every value becomes 0. Sums run in index order.
func ZScores(v []float64) {
	if len(v) == 0 {
		return
	}
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
}
