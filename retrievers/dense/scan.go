package dense

import (
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/retrievers"
)

// minRowsPerWorker is the least rows a scan goroutine gets: below it, a
// goroutine costs more than it saves.
const minRowsPerWorker = 8192

// scan returns the top k (1 ≤ k ≤ n) rows for the normalised query q: a
// contiguous pass over r.mat split over runtime.GOMAXPROCS(0) goroutines,
// each keeping a bounded heap of its k best rows, the heaps merged at the
// end. Similarities are chromem's dot product (float32, component order);
// the order is score descending, then id descending, so the result does not
// depend on the number of goroutines.
func (r *Retriever) scan(q []float32, k int) []eval.Result {
	p := max(1, min(runtime.GOMAXPROCS(0), r.n/minRowsPerWorker))
	per := (r.n + p - 1) / p
	heaps := make([][]row, p)
	var wg sync.WaitGroup
	for w := range p {
		lo, hi := w*per, min((w+1)*per, r.n)
		wg.Go(func() { heaps[w] = r.scanRows(q, lo, hi, k) })
	}
	wg.Wait()
	all := slices.Concat(heaps...)
	slices.SortFunc(all, retrievers.ByBetter(r.better))
	all = all[:min(k, len(all))]
	out := make([]eval.Result, len(all))
	for i, x := range all {
		out[i] = eval.Result{DocID: r.ids[x.i], Score: float64(x.s)}
	}
	return out
}

// row is a scored row of the matrix.
type row struct {
	i int32
	s float32
}

// better reports whether a ranks before b: similarity descending, then id
// descending (eval.TieDocIDDesc).
func (r *Retriever) better(a, b row) bool {
	if a.s != b.s {
		return a.s > b.s
	}
	return strings.Compare(r.ids[a.i], r.ids[b.i]) > 0
}

// scanRows returns the k best of rows [lo, hi) as a heap (worst at the
// root). A row enters only if it beats the root, so most rows cost one dot
// product and one comparison.
func (r *Retriever) scanRows(q []float32, lo, hi, k int) []row {
	h := make([]row, 0, k)
	d := r.dim
	for i := lo; i < hi; i++ {
		s := dot(q, r.mat[i*d:i*d+d:i*d+d])
		x := row{int32(i), s}
		if len(h) < k {
			h = append(h, x)
			for c := len(h) - 1; c > 0; {
				up := (c - 1) / 2
				if !r.better(h[up], h[c]) {
					break
				}
				h[c], h[up] = h[up], h[c]
				c = up
			}
			continue
		}
		if s < h[0].s || !r.better(x, h[0]) {
			continue
		}
		h[0] = x
		for c := 0; ; {
			l := 2*c + 1
			if l >= len(h) {
				break
			}
			w := l
			if rr := l + 1; rr < len(h) && r.better(h[l], h[rr]) {
				w = rr
			}
			if !r.better(h[c], h[w]) {
				break
			}
			h[c], h[w] = h[w], h[c]
			c = w
		}
	}
	return h
}

// dot is chromem's dotProduct: one float32 accumulator, components in
// order (so the same bits).
func dot(q, v []float32) float32 {
	q = q[:len(v)]
	var s float32
	for j, x := range v {
		s += q[j] * x
	}
	return s
}
