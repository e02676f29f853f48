package bm25

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	segment "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/mapped"
	"github.com/ragbench/ragbench/internal/parallel"
	"github.com/ragbench/ragbench/retrievers"
)

// Search returns, per query, the top k chunks by BM25 score (descending;
// ties by chunk id descending, eval.CompareRank). Queries are evaluated in
// parallel (Options.Workers); results do not depend on the number of
// workers, on bleve's segment layout, on the order of the queries or on
// how they are split into Search calls.
// Errors: k ≤ 0, duplicate query ids, cancellation, index read failures,
// a retriever closed (errClosed).
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
//
// The queries of one call are evaluated segment-major (issue 27: memory
// bounded by the index's segment, not the whole index): the statistics of
// the terms not seen before are read one segment after the other, then
// every query advances through the first segment, then through the second,
// and so on, each query keeping its own state (clauses, top-k heap and
// threshold) from one segment to the next; the queries of a segment run on
// Options.Workers goroutines. Each query still visits the segments in chunk
// order with the same running threshold, so its result is the one it would
// get alone. Once every query is through a segment its pages are released
// from the process (madvise MADV_DONTNEED on the segment's read-only file
// mapping, where the platform has it: the page-table entries go, the bytes
// stay in the page cache and are faulted back in by the next read), so the
// file-backed memory a call holds is one segment's (10,000 chunks by
// default), not the whole index's, at the cost of re-faulting the pages a
// later call reads (kinds.searchBlocks calls with 256 queries at a time).
// A query's latency (Stats) is the time spent on it — analysis, clauses,
// its pass through every segment — plus an equal share of the call's
// reading of new terms' statistics.
func (r *Retriever) Search(ctx context.Context, queries []retrievers.Query, k int) (eval.Run, error) {
	if k <= 0 {
		return nil, fmt.Errorf("bm25: k = %d, want > 0", k)
	}
	if r.side == nil { // Close dropped the segments, side file and tf arrays
		return nil, errClosed
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
	var err error
	if r.opts.Scoring == ScoringBleve {
		err = parallel.ForEach(ctx, r.opts.Workers, len(queries), func(_, i int) error {
			t0 := time.Now()
			res, err := r.searchBleve(ctx, queries[i].Text, k)
			if err != nil {
				return fmt.Errorf("bm25: query %q: %w", queries[i].ID, err)
			}
			results[i], lat[i] = res, time.Since(t0)
			return nil
		})
	} else {
		err = r.searchSegmentMajor(ctx, queries, k, results, lat)
	}
	if err != nil {
		return nil, err
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

// errClosed is Search's error on a retriever after Close.
var errClosed = errors.New("bm25: search on a closed retriever")

// searchSegmentMajor evaluates queries with Lucene scoring, segment-major
// (see Search), into results and lat.
func (r *Retriever) searchSegmentMajor(ctx context.Context, queries []retrievers.Query, k int, results [][]eval.Result, lat []time.Duration) error {
	ss := make([]*searcher, len(queries))
	err := parallel.ForEach(ctx, r.opts.Workers, len(queries), func(_, i int) error {
		t0 := time.Now()
		ss[i] = &searcher{r: r, terms: r.queryTerms(queries[i].Text)}
		ss[i].lat = time.Since(t0)
		return nil
	})
	if err != nil {
		return err
	}
	t0 := time.Now()
	if err := r.learnTerms(ctx, ss); err != nil {
		return err
	}
	shared := time.Since(t0) / time.Duration(max(1, len(ss)))
	for i, s := range ss {
		t0 := time.Now()
		if err := s.clauses(); err != nil {
			return fmt.Errorf("bm25: query %q: %w", queries[i].ID, err)
		}
		s.lat += time.Since(t0)
	}
	err = r.sweep(ctx, len(ss), func(sc *scanner, i int) error {
		s := ss[i]
		if len(s.cl) == 0 {
			return nil
		}
		t0 := time.Now()
		err := s.scan(ctx, sc, k)
		s.lat += time.Since(t0)
		if err != nil {
			return fmt.Errorf("bm25: query %q: %w", queries[i].ID, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i, s := range ss {
		t0 := time.Now()
		results[i] = s.results()
		lat[i] = s.lat + time.Since(t0) + shared
	}
	return nil
}

// sweep calls fn(sc, i) for every segment of the retriever in chunk order
// and every i < n: a segment's calls run on Options.Workers goroutines (sc
// is the goroutine's scanner, set to the segment), and once they are done
// the segment's pages are released (segRef.release) before the next
// segment starts.
func (r *Retriever) sweep(ctx context.Context, n int, fn func(sc *scanner, i int) error) error {
	scs := make([]scanner, min(r.opts.Workers, n))
	for si := range r.segs {
		for w := range scs {
			scs[w].enter(r, si)
		}
		err := parallel.ForEach(ctx, len(scs), n, func(w, i int) error { return fn(&scs[w], i) })
		r.segs[si].release()
		if err != nil {
			return err
		}
	}
	return nil
}

// scanner is one goroutine's state in one segment of a sweep: the
// segment's term dictionaries and posting lists and iterators by slot,
// reused from query to query and segment to segment (so reading postings
// allocates nothing per term once warm).
type scanner struct {
	seg   segment.Segment
	base  uint64
	names []string
	dicts []segment.TermDictionary // per field; nil until first used in the segment
	pls   []segment.PostingsList
	its   []segment.PostingsIterator
}

// enter sets sc to segment si of r.
func (sc *scanner) enter(r *Retriever, si int) {
	sc.seg, sc.base = r.segs[si].seg, r.segs[si].base
	if sc.names == nil {
		for _, f := range r.fields {
			sc.names = append(sc.names, f.name)
		}
		sc.dicts = make([]segment.TermDictionary, len(r.fields))
	}
	clear(sc.dicts)
}

// postings returns the posting list of term in field fi of the current
// segment, read into slot j (an empty list when the segment lacks the term).
func (sc *scanner) postings(fi int, term []byte, j int) (segment.PostingsList, error) {
	if sc.dicts[fi] == nil {
		d, err := sc.seg.Dictionary(sc.names[fi])
		if err != nil {
			return nil, err
		}
		sc.dicts[fi] = d
	}
	for len(sc.pls) <= j {
		sc.pls, sc.its = append(sc.pls, nil), append(sc.its, nil)
	}
	pl, err := sc.dicts[fi].PostingsList(term, nil, sc.pls[j])
	if err != nil {
		return nil, err
	}
	sc.pls[j] = pl
	return pl, nil
}

// iterator returns an iterator over slot j's posting list (with
// frequencies), reusing the slot's.
func (sc *scanner) iterator(j int) segment.PostingsIterator {
	sc.its[j] = sc.pls[j].Iterator(true, false, false, sc.its[j])
	return sc.its[j]
}

// exhausted is a clause's doc once its postings in the current segment are
// read.
const exhausted = math.MaxUint64

// prune is the relative margin of the MaxScore tests: a document is dropped
// only when its upper bound is below θ·(1 − prune), far more than the
// rounding of a dozen float64 additions.
const prune = 1e-9

// clause is one (field, term) of a query: its weight and bound for the
// whole search, and its position in the segment being read (the segments
// hold consecutive ordinals, so doc only grows).
type clause struct {
	canon int // position in the exhaustive summation order
	f     *field
	fi    int
	term  []byte
	w     float64 // qtf · idf
	ub    float64 // w · the largest tf/(tf + denom) of the postings
	// tfs, for a frequent term, is its term frequency per ordinal (0:
	// absent), read once from its postings: a non-essential clause is
	// probed by one array read instead of advancing its iterator, which in
	// zap walks every posting passed.
	tfs []uint8

	// In the current segment (scan):
	it   segment.PostingsIterator // nil when not read there
	base uint64                   // the segment's first ordinal
	doc  uint64                   // current ordinal, exhausted at the segment's end
	tf   float64
}

func (c *clause) set(p segment.Posting) {
	if p == nil {
		c.doc = exhausted
		return
	}
	c.doc, c.tf = c.base+p.Number(), float64(p.Frequency())
}

// next moves to the next posting of the segment.
func (c *clause) next() error {
	p, err := c.it.Next()
	if err != nil {
		return err
	}
	c.set(p)
	return nil
}

// advance moves to the first posting of the segment at or after ordinal d.
func (c *clause) advance(d uint64) error {
	if c.doc >= d {
		return nil
	}
	p, err := c.it.Advance(d - c.base)
	if err != nil {
		return err
	}
	c.set(p)
	return nil
}

// score is the clause's contribution to its current document.
func (c *clause) score() float64 { return c.w * c.tf / (c.tf + c.f.denom(c.doc)) }

// hit is a scored document in the top-k heap.
type hit struct {
	doc   uint32
	score float64
}

// queryTerm is a (field, term) of a query, in the exhaustive order.
type queryTerm struct {
	fi    int
	term  string
	count int
}

// searcher is one query's state through a segment-major search: its
// clauses, the MaxScore split and threshold, and the top-k heap.
type searcher struct {
	r       *Retriever
	terms   []queryTerm
	cl      []*clause // by upper bound
	cum     []float64 // cum[i] = Σ ub of cl[0..i]
	contrib []float64 // by canon
	matched []int     // canon of the clauses matching the current document
	heap    []hit
	p       int     // cl[:p] are non-essential: together they cannot reach theta
	theta   float64 // the k-th score once the heap holds k hits
	lat     time.Duration
}

// better reports whether a ranks before b: score descending, then chunk id
// descending (eval.CompareRank).
func (s *searcher) better(a, b hit) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return bytes.Compare(s.r.side.id(int(a.doc)), s.r.side.id(int(b.doc))) > 0
}

// queryTerms returns the (field, term) pairs of a query text, fields with
// items first, then terms in byte order (the exhaustive order).
func (r *Retriever) queryTerms(text string) []queryTerm {
	terms := r.Terms(text)
	var out []queryTerm
	for fi, f := range r.fields {
		if f.docCount == 0 {
			continue
		}
		for _, t := range terms {
			out = append(out, queryTerm{fi: fi, term: t.Term, count: t.Count})
		}
	}
	return out
}

// statKey is the key of (field fi, term) in Retriever.stats.
func statKey(fi int, term string) string { return string(rune('0'+fi)) + "\x00" + term }

// clauses sets s.cl to the query's clauses with postings, ordered by upper
// bound (then exhaustive order), and starts the search: empty heap, every
// clause essential. The terms' statistics must be known (learnTerms).
func (s *searcher) clauses() error {
	s.cl = s.cl[:0]
	for _, t := range s.terms {
		v, ok := s.r.stats.Load(statKey(t.fi, t.term))
		if !ok {
			return fmt.Errorf("no statistics for term %q", t.term)
		}
		st := v.(termStat)
		if st.df == 0 {
			continue
		}
		f := s.r.fields[t.fi]
		idf := math.Log(1 + (float64(f.docCount)-float64(st.df)+0.5)/(float64(st.df)+0.5))
		c := &clause{canon: len(s.cl), f: f, fi: t.fi, term: []byte(t.term), w: float64(t.count) * idf, tfs: st.tfs}
		c.ub = c.w * st.bound
		s.cl = append(s.cl, c)
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
	s.contrib = make([]float64, len(s.cl))
	s.heap, s.p, s.theta = s.heap[:0], 0, -1
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

// freqArray is the tf array of n bytes at offset off of the budget: a
// part of r.freqMem, one anonymous mapping of freqBudget bytes outside
// the Go heap (mapped.Anon), made at the first frequent term and unmapped
// by Close. On the heap the arrays, which live as long as the retriever,
// would count twice in the peak (the collector lets the heap grow to
// about twice what is live, internal/gcpace); in the mapping they count
// once, and its unused pages not at all. The array is zeroed (a test
// that forgets the statistics hands the same offsets out again). Where
// the mapping is refused (or the platform has none) the array is on the
// heap.
func (r *Retriever) freqArray(off, n int) []uint8 {
	r.freqOnce.Do(func() { r.freqMem, _ = mapped.Anon(freqBudget) })
	if r.freqMem == nil {
		return make([]uint8, n)
	}
	a := r.freqMem[off : off+n : off+n]
	clear(a)
	return a
}

// termStat is what the retriever keeps of a (field, term) after reading its
// postings once: its document frequency, the largest tf/(tf + denom) and,
// for a frequent term, its tf array.
type termStat struct {
	df    uint64
	bound float64
	tfs   []uint8
}

// newTerm is a (field, term) whose statistics a search is reading.
type newTerm struct {
	fi   int
	term []byte
	termStat
}

// learnTerms reads the statistics of the terms of ss not known yet (two
// sweeps over the segments: document frequencies, then the postings of the
// terms present) and keeps them in r.stats. tf arrays are allotted in the
// order of the terms' first occurrence in ss.
func (r *Retriever) learnTerms(ctx context.Context, ss []*searcher) error {
	var terms []*newTerm
	seen := map[string]bool{}
	for _, s := range ss {
		for _, t := range s.terms {
			key := statKey(t.fi, t.term)
			if seen[key] {
				continue
			}
			seen[key] = true
			if _, ok := r.stats.Load(key); !ok {
				terms = append(terms, &newTerm{fi: t.fi, term: []byte(t.term)})
			}
		}
	}
	if len(terms) == 0 {
		return nil
	}
	err := r.sweep(ctx, len(terms), func(sc *scanner, i int) error {
		t := terms[i]
		pl, err := sc.postings(t.fi, t.term, 0)
		if err != nil {
			return err
		}
		t.df += pl.Count()
		return nil
	})
	if err != nil {
		return err
	}
	n := r.side.n
	var present []*newTerm
	for _, t := range terms {
		if t.df == 0 {
			continue
		}
		present = append(present, t)
		if t.df >= uint64(n/freqShare) {
			if end := r.freqBytes.Add(int64(n)); end <= freqBudget {
				t.tfs = r.freqArray(int(end)-n, n)
			}
		}
	}
	err = r.sweep(ctx, len(present), func(sc *scanner, i int) error {
		return present[i].read(sc, r.fields[present[i].fi])
	})
	if err != nil {
		return err
	}
	for _, t := range terms {
		r.stats.LoadOrStore(statKey(t.fi, string(t.term)), t.termStat)
	}
	return nil
}

// read reads the postings of t in sc's segment into its bound and tf array.
func (t *newTerm) read(sc *scanner, f *field) error {
	pl, err := sc.postings(t.fi, t.term, 0)
	if err != nil || pl.Count() == 0 {
		return err
	}
	it := sc.iterator(0)
	for {
		p, err := it.Next()
		if err != nil {
			return err
		}
		if p == nil {
			return nil
		}
		d, ftf := sc.base+p.Number(), p.Frequency()
		tf := float64(ftf)
		t.bound = max(t.bound, tf/(tf+f.denom(d)))
		if t.tfs != nil {
			if ftf > 255 {
				t.tfs = nil // rare in chunks; the budget stays spent
			} else {
				t.tfs[d] = uint8(ftf)
			}
		}
	}
}

// scan advances the query through sc's segment: every document of the
// segment that can reach the top k is scored, with the threshold and the
// essential/non-essential split carried over from the previous segments.
func (s *searcher) scan(ctx context.Context, sc *scanner, k int) error {
	for j, c := range s.cl {
		c.base, c.it, c.doc = sc.base, nil, exhausted
		if j < s.p && c.tfs != nil {
			continue // probed through its tf array only
		}
		pl, err := sc.postings(c.fi, c.term, j)
		if err != nil {
			return err
		}
		if pl.Count() == 0 {
			continue
		}
		c.it = sc.iterator(j)
		if err := c.next(); err != nil {
			return err
		}
	}
	cl, cum := s.cl, s.cum
	n := len(cl)
	for steps := 0; ; steps++ {
		if steps%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		d := uint64(exhausted)
		for _, c := range cl[s.p:] {
			d = min(d, c.doc)
		}
		if d == exhausted {
			return nil
		}
		partial := 0.0
		s.matched = s.matched[:0]
		for _, c := range cl[s.p:] {
			if c.doc == d {
				v := c.score()
				s.contrib[c.canon] = v
				s.matched = append(s.matched, c.canon)
				partial += v
				if err := c.next(); err != nil {
					return err
				}
			}
		}
		pruned := false
		for i := s.p - 1; i >= 0; i-- {
			if partial+cum[i] < s.theta*(1-prune) {
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
				return err
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
			s.theta = s.heap[0].score
			for s.p < n && cum[s.p] < s.theta*(1-prune) {
				s.p++
			}
		}
	}
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
