package bm25

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/retrievers"

	"github.com/ragbench/ragbench/internal/testenv"
)

// randomQueries returns n queries of 1–8 Zipf-distributed words like
// synthetic's (frequent terms probed through tf arrays, rare ones, repeated
// words), plus an empty query and one matching nothing.
func randomQueries(n int, seed uint64) []retrievers.Query {
	rng := rand.New(rand.NewPCG(seed, 3))
	zipf := rand.NewZipf(rng, 1.1, 1, 20000)
	qs := []retrievers.Query{{ID: "empty", Text: ""}, {ID: "none", Text: "nothing-here"}}
	for i := range n {
		var ws []string
		for range 1 + rng.IntN(8) {
			ws = append(ws, fmt.Sprintf("w%d", zipf.Uint64()))
		}
		qs = append(qs, retrievers.Query{ID: fmt.Sprint("q", i), Text: strings.Join(ws, " ")})
	}
	return qs
}

// searchSplit searches qs in calls of the given sizes (the rest in one
// last call) and merges the runs.
func searchSplit(t *testing.T, r *Retriever, qs []retrievers.Query, k int, sizes ...int) eval.Run {
	t.Helper()
	run := eval.Run{}
	for len(qs) > 0 {
		n := len(qs)
		if len(sizes) > 0 {
			n, sizes = min(sizes[0], n), sizes[1:]
		}
		part, err := r.Search(context.Background(), qs[:n], k)
		if err != nil {
			t.Fatal(err)
		}
		for q, res := range part {
			run[q] = res
		}
		qs = qs[n:]
	}
	return run
}

// TestSegmentMajorEqualsQueryMajor: searching a call's queries
// segment-major (every query through one segment before the next, pages
// released in between) returns, bit for bit, what searching each query
// alone returns (query-major: one query through every segment, then the
// next, as Search did before issue 27's change), and what summing every
// posting returns (exhaustive), on indexes of many small segments, for many
// random queries, k from 1 to beyond the matches, 1 to 8 workers, both field
// layouts, exact lengths and BinaryTF (ties at every cut), and any split of
// the queries into calls.
func TestSegmentMajorEqualsQueryMajor(t *testing.T) {
	nDocs, nQueries := 1200, 60
	if raceDetector {
		nDocs, nQueries = 400, 40
	}
	docs := synthetic(nDocs, 29)
	// A frequent term with a frequency above 255 in one document is read
	// from its postings rather than a tf array.
	docs = append(docs, corpus.Document{ID: "many-w2", Text: strings.Repeat("w2 ", 300)})
	chunksView, err := corpus.Spec{Strategy: corpus.Fixed, Size: 300, Overlap: 20, Title: true}.Chunk(docs)
	if err != nil {
		t.Fatal(err)
	}
	chunks := chunksView.Slice()
	qs := randomQueries(nQueries, 29)
	for _, o := range []Options{
		{BatchSize: 97}, {BatchSize: 41, Fields: FieldsMulti}, {BatchSize: 113, ExactLengths: true},
		{BatchSize: 64, BinaryTF: true}, {BatchSize: 1000},
	} {
		r := newRetriever(t, chunks, o)
		// search runs qs in calls of sizes with w workers on r, whose term
		// statistics are forgotten first (the first call reads them).
		search := func(w, k int, sizes ...int) eval.Run {
			r.opts.Workers = w
			r.stats.Clear()
			r.freqBytes.Store(0)
			return searchSplit(t, r, qs, k, sizes...)
		}
		for _, k := range []int{1, 7, 100, len(chunks) + 5} {
			alone := search(1, k, slices1(len(qs))...)
			for _, w := range []int{1, 2, 3, 8} {
				if block := search(w, k); !sameRun(alone, block) {
					t.Fatalf("%+v (%d segments) workers=%d k=%d: segment-major differs from query-major:\n%s", o, len(r.segs), w, k, cmp.Diff(alone, block))
				}
				if split := search(w, k, 1, 17, 5, 60); !sameRun(alone, split) {
					t.Fatalf("%+v (%d segments) workers=%d k=%d: split calls differ from query-major:\n%s", o, len(r.segs), w, k, cmp.Diff(alone, split))
				}
			}
			if w := 3; !sameRun(alone, search(w, k, slices1(len(qs))...)) {
				t.Fatalf("%+v k=%d: query-major with %d workers differs from 1", o, k, w)
			}
			if k > 100 && raceDetector {
				continue
			}
			for _, q := range qs {
				if want := exhaustive(t, r, q.Text, k); !sameRun(eval.Run{q.ID: want}, eval.Run{q.ID: alone[q.ID]}) {
					t.Fatalf("%+v k=%d %q: differs from exhaustive:\n%s", o, k, q.Text, cmp.Diff(want, alone[q.ID]))
				}
			}
		}
	}
}

// sameRun reports whether a and b hold the same ids, ranks and float64
// scores (cmp.Equal is much slower on long lists).
func sameRun(a, b eval.Run) bool {
	if len(a) != len(b) {
		return false
	}
	for q, l := range a {
		m, ok := b[q]
		if !ok || len(l) != len(m) || (l == nil) != (m == nil) {
			return false
		}
		for i := range l {
			if l[i] != m[i] {
				return false
			}
		}
	}
	return true
}

// slices1 returns n ones (one query per call).
func slices1(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

// segmentRSS sums the resident kB of the process's mappings of the .zap
// files under dir (/proc/self/smaps; ok false where it is unreadable).
func segmentRSS(t *testing.T, dir string) (kb int, maps int, ok bool) {
	t.Helper()
	all, ok := testenv.Mappings(t)
	for _, m := range all {
		if strings.HasPrefix(m.Path, dir) && strings.HasSuffix(m.Path, ".zap") {
			kb += m.RssKB
			maps++
		}
	}
	return kb, maps, ok
}

// TestSearchReleasesSegments: the pages released are those of the one
// mapping of each segment file, the one zap reads through: none resident
// once the index is opened (New reads documents of every segment, then
// releases them), some after reading postings through zap directly, none
// once Search is through (Linux).
func TestSearchReleasesSegments(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/self/smaps")
	}
	chunksView, err := corpus.Spec{Strategy: corpus.Whole, Title: true}.Chunk(synthetic(3000, 31))
	if err != nil {
		t.Fatal(err)
	}
	chunks := chunksView.Slice()
	dir := t.TempDir()
	r := newRetriever(t, chunks, Options{Dir: dir, BatchSize: 500})
	kb, maps, ok := segmentRSS(t, dir)
	if !ok {
		t.Skip("no /proc/self/smaps")
	}
	if maps != len(r.segs) || kb != 0 {
		t.Fatalf("after New: %d segment mappings with %d kB resident, want %d with none", maps, kb, len(r.segs))
	}
	// Read through zap directly: its pages come in through those mappings.
	for _, s := range r.segs {
		d, err := s.seg.Dictionary("text")
		if err != nil {
			t.Fatal(err)
		}
		pl, err := d.PostingsList([]byte("w1"), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		it := pl.Iterator(true, false, false, nil)
		for p, err := it.Next(); p != nil || err != nil; p, err = it.Next() {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if kb, _, _ := segmentRSS(t, dir); kb == 0 {
		t.Fatal("reading postings through zap left no page of the segment mappings resident: zap reads through another mapping")
	}
	qs := randomQueries(100, 31)
	first := searchSplit(t, r, qs, 10)
	if kb, maps, _ := segmentRSS(t, dir); maps != len(r.segs) || kb != 0 {
		t.Fatalf("after Search: %d segment mappings with %d kB resident, want %d with none", maps, kb, len(r.segs))
	}
	// Released pages are read back: the same results again.
	if again := searchSplit(t, r, qs, 10); !cmp.Equal(first, again) {
		t.Fatalf("second search differs:\n%s", cmp.Diff(first, again))
	}
	if kb, _, _ := segmentRSS(t, dir); kb != 0 {
		t.Fatalf("after the second Search: %d kB of segments resident, want none", kb)
	}
}
