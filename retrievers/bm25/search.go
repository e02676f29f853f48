package bm25

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	segment "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/retrievers"
)

// Search returns, per query, the top k chunks by BM25 score (descending;
// ties by chunk id descending, eval.CompareRank). Queries are evaluated in
// parallel (Options.Workers); results do not depend on the number of
// workers, on bleve's segment layout or on the order of the queries.
// Errors: k ≤ 0, duplicate query ids, cancellation, index read failures.
//
// Lucene scoring runs document at a time with MaxScore (Turtle & Flood
// 1995): the query's (field, term) clauses are ordered by their score upper
// bound, and a document is only scored in full while the bounds of the
// clauses not yet read could still lift it to the current k-th score, so
// most postings of frequent terms are skipped (bleve's posting iterators
// Advance past them) rather than summed. A clause's upper bound is the
// largest tf/(tf + k1·(1 − b + b·dl/avgdl)) over its postings, times
// qtf·idf: exact, computed once per (field, term) on first use and kept for
// the retriever's life; a term in at least 1/32 of the items also keeps its
// term frequencies in a byte per item (at most 64 MiB of them per
// retriever), so that probing it for a candidate is one array read. The pruning keeps every document whose score can
// reach the k-th (ties included, with a relative margin of 1e-9 for
// rounding), and every kept document's score is summed in the same order as
// an exhaustive evaluation (fields, then terms in byte order), so results
// are bit for bit those of summing every posting.
func (r *Retriever) Search(ctx context.Context, queries []retrievers.Query, k int) (eval.Run, error) {
	if k <= 0 {
		return nil, fmt.Errorf("bm25: k = %d, want > 0", k)
	}
	seen := make(map[string]bool, len(queries))
	for _, q := range queries {
		if seen[q.ID] {
			return nil, fmt.Errorf("bm25: duplicate query id %q", q.ID)
		}
		seen[q.ID] = true
	}
	results := make([][]eval.Result, len(queries))
	lat := make([]time.Duration, len(queries))
	var next atomic.Int64
	var firstErr error
	var errOnce sync.Once
	var wg sync.WaitGroup
	for w := 0; w < min(r.opts.Workers, len(queries)); w++ {
		wg.Go(func() {
			s := r.newSearcher()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(queries) {
					return
				}
				if err := ctx.Err(); err != nil {
					errOnce.Do(func() { firstErr = err })
					return
				}
				t0 := time.Now()
				var res []eval.Result
				var err error
				if r.opts.Scoring == ScoringBleve {
					res, err = r.searchBleve(ctx, queries[i].Text, k)
				} else {
					res, err = s.search(ctx, queries[i].Text, k)
				}
				if err != nil {
					errOnce.Do(func() { firstErr = fmt.Errorf("bm25: query %q: %w", queries[i].ID, err) })
					return
				}
				results[i] = res
				lat[i] = time.Since(t0)
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	run := make(eval.Run, len(queries))
	for i, q := range queries {
		run[q.ID] = results[i]
	}
	r.mu.Lock()
	r.latencies = append(r.latencies, lat...)
	r.mu.Unlock()
	return run, nil
}

// exhausted is a clause's doc once its postings are read.
const exhausted = math.MaxUint64

// prune is the relative margin of the MaxScore tests: a document is dropped
// only when its upper bound is below θ·(1 − prune), far more than the
// rounding of a dozen float64 additions.
const prune = 1e-9

// clause is one (field, term) of a query, with its posting iterators: one
// per segment holding the term, read one segment after the other (the
// segments hold consecutive ordinals), so doc only grows.
type clause struct {
	canon int // position in the exhaustive summation order
	f     *field
	w     float64                    // qtf · idf
	ub    float64                    // w · the largest tf/(tf + denom) of the postings
	pls   []segment.PostingsList     // per segment of the retriever (reused)
	its   []segment.PostingsIterator // per segment (reused)
	in    []int                      // the segments holding the term, in order
	k     int                        // position in in of the current segment
	segs  []segRef
	doc   uint64 // current ordinal, exhausted at the end
	tf    float64
	// tfs, for a frequent term, is its term frequency per ordinal (0:
	// absent), read once from its postings: a non-essential clause is
	// probed by one array read instead of advancing its iterator, which in
	// zap walks every posting passed.
	tfs []uint8
}

func (c *clause) set(s int, p segment.Posting) {
	c.doc, c.tf = c.segs[s].base+p.Number(), float64(p.Frequency())
}

// next moves to the next posting, in this segment or the following ones.
func (c *clause) next() error {
	for ; c.k < len(c.in); c.k++ {
		s := c.in[c.k]
		p, err := c.its[s].Next()
		if err != nil {
			return err
		}
		if p != nil {
			c.set(s, p)
			return nil
		}
	}
	c.doc = exhausted
	return nil
}

// advance moves to the first posting at or after ordinal d.
func (c *clause) advance(d uint64) error {
	if c.doc >= d {
		return nil
	}
	for c.k < len(c.in) && c.segs[c.in[c.k]].end <= d {
		c.k++ // segments ending before d are skipped whole
	}
	if c.k == len(c.in) {
		c.doc = exhausted
		return nil
	}
	// The current segment's iterator is at c.doc (< d) or, for a segment
	// just entered, not started: Advance to d, or Next from its start.
	s := c.in[c.k]
	if base := c.segs[s].base; d > base {
		p, err := c.its[s].Advance(d - base)
		if err != nil {
			return err
		}
		if p != nil {
			c.set(s, p)
			return nil
		}
		c.k++
	}
	return c.next()
}

// score is the clause's contribution to its current document.
func (c *clause) score() float64 { return c.w * c.tf / (c.tf + c.f.denom(c.doc)) }

// hit is a scored document in the top-k heap.
type hit struct {
	doc   uint32
	score float64
}

// searcher is one worker's reusable state: term dictionaries, clause slots
// (posting lists and iterators are reused from query to query, so reading
// postings allocates nothing per term once warm) and the top-k heap.
type searcher struct {
	r       *Retriever
	dicts   [][]segment.TermDictionary // per field and segment; nil until first used
	slots   []*clause
	cl      []*clause // this query's clauses, by upper bound
	cum     []float64 // cum[i] = Σ ub of cl[0..i]
	contrib []float64 // by canon
	matched []int     // canon of the clauses matching the current document
	heap    []hit
}

func (r *Retriever) newSearcher() *searcher {
	return &searcher{r: r, dicts: make([][]segment.TermDictionary, len(r.fields))}
}

// better reports whether a ranks before b: score descending, then chunk id
// descending (eval.CompareRank).
func (s *searcher) better(a, b hit) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return bytes.Compare(s.r.side.id(int(a.doc)), s.r.side.id(int(b.doc))) > 0
}

// clauses sets s.cl to the query's clauses with postings, ordered by upper
// bound (then exhaustive order), positioned on their first posting.
func (s *searcher) clauses(text string) error {
	terms := s.r.Terms(text)
	segs := s.r.segs
	s.cl = s.cl[:0]
	for fi, f := range s.r.fields {
		if f.docCount == 0 {
			continue
		}
		if s.dicts[fi] == nil {
			s.dicts[fi] = make([]segment.TermDictionary, len(segs))
			for si, sr := range segs {
				d, err := sr.seg.Dictionary(f.name)
				if err != nil {
					return err
				}
				s.dicts[fi][si] = d
			}
		}
		for _, t := range terms {
			if len(s.cl) == len(s.slots) {
				s.slots = append(s.slots, &clause{pls: make([]segment.PostingsList, len(segs)),
					its: make([]segment.PostingsIterator, len(segs)), segs: segs})
			}
			c := s.slots[len(s.cl)]
			c.in = c.in[:0]
			df := uint64(0)
			for si := range segs {
				pl, err := s.dicts[fi][si].PostingsList([]byte(t.Term), nil, c.pls[si])
				if err != nil {
					return err
				}
				c.pls[si] = pl
				if n := pl.Count(); n > 0 {
					df += n
					c.in = append(c.in, si)
				}
			}
			if df == 0 {
				continue
			}
			idf := math.Log(1 + (float64(f.docCount)-float64(df)+0.5)/(float64(df)+0.5))
			c.canon, c.f, c.w = len(s.cl), f, float64(t.Count)*idf
			st, err := s.r.termStats(fi, t.Term, c)
			if err != nil {
				return err
			}
			c.ub, c.tfs = c.w*st.bound, st.tfs
			for _, si := range c.in {
				c.its[si] = c.pls[si].Iterator(true, false, false, c.its[si])
			}
			c.k = 0
			if err := c.next(); err != nil {
				return err
			}
			s.cl = append(s.cl, c)
		}
	}
	slices.SortStableFunc(s.cl, func(a, b *clause) int {
		if a.ub != b.ub {
			if a.ub < b.ub {
				return -1
			}
			return 1
		}
		return 0
	})
	s.cum = s.cum[:0]
	sum := 0.0
	for _, c := range s.cl {
		sum += c.ub
		s.cum = append(s.cum, sum)
	}
	if cap(s.contrib) < len(s.cl) {
		s.contrib = make([]float64, len(s.cl))
	}
	s.contrib = s.contrib[:len(s.cl)]
	return nil
}

// Frequent terms' tf arrays (clause.tfs): a term in at least 1/freqShare
// of the documents gets one byte per document, within freqBudget bytes per
// retriever (first come, first kept; 64 MiB is 64 such terms at 1 M
// documents). A term with a frequency above 255 in some document is not
// kept (its postings are read as usual).
const (
	freqShare  = 32
	freqBudget = 64 << 20
)

// termStat is what the retriever keeps of a (field, term) after reading its
// postings once: the largest tf/(tf + denom) and, for a frequent term, its
// tf array.
type termStat struct {
	bound float64
	tfs   []uint8
}

// termStats returns the stats of term in field fi, reading the postings of
// clause c's segments once (with iterators of their own) on first use.
func (r *Retriever) termStats(fi int, term string, c *clause) (termStat, error) {
	key := string(rune('0'+fi)) + "\x00" + term
	if v, ok := r.stats.Load(key); ok {
		return v.(termStat), nil
	}
	f := r.fields[fi]
	n := r.side.n
	df := uint64(0)
	for _, si := range c.in {
		df += c.pls[si].Count()
	}
	var tfs []uint8
	if df >= uint64(n/freqShare) && r.freqBytes.Add(int64(n)) <= freqBudget {
		tfs = make([]uint8, n)
	}
	best := 0.0
	for _, si := range c.in {
		base := r.segs[si].base
		it := c.pls[si].Iterator(true, false, false, nil)
		for {
			p, err := it.Next()
			if err != nil {
				return termStat{}, err
			}
			if p == nil {
				break
			}
			d, ftf := base+p.Number(), p.Frequency()
			tf := float64(ftf)
			best = max(best, tf/(tf+f.denom(d)))
			if tfs != nil {
				if ftf > 255 {
					tfs = nil // rare in chunks; the budget stays spent
				} else {
					tfs[d] = uint8(ftf)
				}
			}
		}
	}
	st, _ := r.stats.LoadOrStore(key, termStat{bound: best, tfs: tfs})
	return st.(termStat), nil
}

// search returns the top k of one query (see Search).
func (s *searcher) search(ctx context.Context, text string, k int) ([]eval.Result, error) {
	if err := s.clauses(text); err != nil {
		return nil, err
	}
	s.heap = s.heap[:0]
	cl, cum := s.cl, s.cum
	n := len(cl)
	p := 0        // cl[:p] are non-essential: together they cannot reach θ
	theta := -1.0 // the k-th score once the heap holds k hits
	for steps := 0; ; steps++ {
		if steps%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		d := uint64(exhausted)
		for _, c := range cl[p:] {
			d = min(d, c.doc)
		}
		if d == exhausted {
			break
		}
		partial := 0.0
		s.matched = s.matched[:0]
		for _, c := range cl[p:] {
			if c.doc == d {
				v := c.score()
				s.contrib[c.canon] = v
				s.matched = append(s.matched, c.canon)
				partial += v
				if err := c.next(); err != nil {
					return nil, err
				}
			}
		}
		pruned := false
		for i := p - 1; i >= 0; i-- {
			if partial+cum[i] < theta*(1-prune) {
				pruned = true
				break
			}
			c := cl[i]
			if c.tfs != nil {
				if tf := c.tfs[d]; tf > 0 {
					c.doc, c.tf = d, float64(tf)
				} else {
					continue
				}
			} else if err := c.advance(d); err != nil {
				return nil, err
			}
			if c.doc == d {
				v := c.score()
				s.contrib[c.canon] = v
				s.matched = append(s.matched, c.canon)
				partial += v
			}
		}
		if pruned {
			continue
		}
		// The score in the exhaustive order: fields, then terms.
		slices.Sort(s.matched)
		score := 0.0
		for _, ci := range s.matched {
			score += s.contrib[ci]
		}
		if s.offer(hit{uint32(d), score}, k) {
			theta = s.heap[0].score
			for p < n && cum[p] < theta*(1-prune) {
				p++
			}
		}
	}
	return s.results(), nil
}

// offer puts h into the bounded heap of the k best (worst at the root) and
// reports whether the heap is full afterwards (so its root is the k-th).
func (s *searcher) offer(h hit, k int) bool {
	if len(s.heap) < k {
		s.heap = append(s.heap, h)
		for i := len(s.heap) - 1; i > 0; {
			up := (i - 1) / 2
			if !s.better(s.heap[up], s.heap[i]) {
				break
			}
			s.heap[i], s.heap[up] = s.heap[up], s.heap[i]
			i = up
		}
		return len(s.heap) == k
	}
	if !s.better(h, s.heap[0]) {
		return true
	}
	s.heap[0] = h
	for i := 0; ; {
		l := 2*i + 1
		if l >= len(s.heap) {
			break
		}
		w := l // the worse child
		if r := l + 1; r < len(s.heap) && s.better(s.heap[l], s.heap[r]) {
			w = r
		}
		if !s.better(s.heap[i], s.heap[w]) {
			break
		}
		s.heap[i], s.heap[w] = s.heap[w], s.heap[i]
		i = w
	}
	return true
}

// results returns the heap's hits in rank order (eval.CompareRank).
func (s *searcher) results() []eval.Result {
	hs := slices.Clone(s.heap)
	slices.SortFunc(hs, retrievers.ByBetter(s.better))
	out := make([]eval.Result, len(hs))
	for i, h := range hs {
		out[i] = eval.Result{DocID: string(s.r.side.id(int(h.doc))), Score: h.score}
	}
	return out
}
