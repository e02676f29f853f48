package bm25

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/retrievers"
)

// hostileQueries are queries a user writes: only stop words (no terms),
// one word repeated, words in no segment, punctuation, a long paste, the
// same word in many cases, and some ordinary ones.
func hostileQueries() []retrievers.Query {
	return append(randomQueries(30, 41),
		retrievers.Query{ID: "stop", Text: "the a of and"},
		retrievers.Query{ID: "dup", Text: "w1 w1 w1 w2 w2 w1"},
		retrievers.Query{ID: "dupcase", Text: "W3 w3 W3 w3"},
		retrievers.Query{ID: "nowhere", Text: "zzqx yyqv w99999999"},
		retrievers.Query{ID: "mixed", Text: "zzqx w5 w5 the"},
		retrievers.Query{ID: "punct", Text: "!!! ??? ... ,,,"},
		retrievers.Query{ID: "long", Text: strings.Repeat("w1 w7 w13 w200 w4000 ", 200)},
		retrievers.Query{ID: "space", Text: "   \t\n  "},
	)
}

// TestHostileConcurrentCalls: Search calls on one Retriever from many
// goroutines at once (the workbench does this), each call reading new
// terms' statistics and releasing segments while the others read them,
// return what the same calls return one after the other, on a
// many-segment and a single-segment index, k from 1 to beyond the index.
func TestHostileConcurrentCalls(t *testing.T) {
	docs := synthetic(300, 41)
	chunksView, err := corpus.Spec{Strategy: corpus.Fixed, Size: 60, Overlap: 5, Title: true}.Chunk(docs)
	if err != nil {
		t.Fatal(err)
	}
	chunks := chunksView.Slice()
	qs := hostileQueries()
	for _, o := range []Options{{BatchSize: 37, Workers: 3}, {BatchSize: 100000, Workers: 2}} {
		for _, k := range []int{1, 10, len(chunks) + 50} {
			seq := newRetriever(t, chunks, o)
			want := eval.Run{}
			for _, q := range qs {
				run, err := seq.Search(context.Background(), []retrievers.Query{q}, k)
				if err != nil {
					t.Fatal(err)
				}
				want[q.ID] = run[q.ID]
			}
			r := newRetriever(t, chunks, o)
			const callers = 12
			runs := make([]eval.Run, callers)
			errs := make([]error, callers)
			var wg sync.WaitGroup
			for g := range callers {
				wg.Go(func() {
					// Each caller searches a rotated, differently split copy.
					rot := append(append([]retrievers.Query{}, qs[g%len(qs):]...), qs[:g%len(qs)]...)
					runs[g] = eval.Run{}
					for len(rot) > 0 {
						n := min(len(rot), 1+g)
						part, err := r.Search(context.Background(), rot[:n], k)
						if err != nil {
							errs[g] = err
							return
						}
						for id, res := range part {
							runs[g][id] = res
						}
						rot = rot[n:]
					}
				})
			}
			wg.Wait()
			for g := range callers {
				if errs[g] != nil {
					t.Fatalf("caller %d: %v", g, errs[g])
				}
				if !sameRun(want, runs[g]) {
					t.Fatalf("%+v k=%d (%d segments): caller %d differs from sequential calls:\n%s", o, k, len(r.segs), g, cmp.Diff(want, runs[g]))
				}
			}
			if len(want["stop"]) != 0 || len(want["nowhere"]) != 0 || len(want["punct"]) != 0 || len(want["space"]) != 0 {
				t.Errorf("queries without an indexed term matched: %v %v %v %v", want["stop"], want["nowhere"], want["punct"], want["space"])
			}
			for id, res := range want {
				if len(res) > min(k, len(chunks)) {
					t.Errorf("k=%d: query %s has %d results for %d chunks", k, id, len(res), len(chunks))
				}
			}
		}
	}
}

// TestHostileCancel: a Search cancelled before or during the call
// returns the context's error, no run and no panic, leaves no goroutine
// behind, and the Retriever still answers the next call exactly.
func TestHostileCancel(t *testing.T) {
	nDocs := 1500
	if raceDetector {
		nDocs = 500
	}
	docs := synthetic(nDocs, 43)
	chunksView, err := corpus.Spec{Strategy: corpus.Fixed, Size: 40, Overlap: 0, Title: true}.Chunk(docs)
	if err != nil {
		t.Fatal(err)
	}
	chunks := chunksView.Slice()
	qs := randomQueries(400, 43)
	r := newRetriever(t, chunks, Options{BatchSize: 50, Workers: 4})
	ref := newRetriever(t, chunks, Options{BatchSize: 50, Workers: 1})
	want, err := ref.Search(context.Background(), qs, 100)
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if run, err := r.Search(ctx, qs, 100); !errors.Is(err, context.Canceled) || run != nil {
		t.Fatalf("cancelled before the call: run %d queries, err %v; want no run and context.Canceled", len(run), err)
	}
	cancelled := 0
	for i, delay := range []time.Duration{0, 50 * time.Microsecond, 200 * time.Microsecond, time.Millisecond, 3 * time.Millisecond, 10 * time.Millisecond} {
		r.stats.Clear() // the next call reads the terms' statistics again
		r.freqBytes.Store(0)
		ctx, cancel := context.WithCancel(context.Background())
		go func() { time.Sleep(delay); cancel() }()
		run, err := r.Search(ctx, qs, 100)
		cancel()
		switch {
		case err == nil:
			if !sameRun(want, run) {
				t.Fatalf("delay %d: an uncancelled call differs", i)
			}
		case errors.Is(err, context.Canceled):
			cancelled++
			if run != nil {
				t.Fatalf("delay %d: a run with the error", i)
			}
		default:
			t.Fatalf("delay %d: %v, want context.Canceled", i, err)
		}
		if got, err := r.Search(context.Background(), qs, 100); err != nil || !sameRun(want, got) {
			t.Fatalf("after a cancelled call (delay %d): err %v, or results differ", i, err)
		}
	}
	if cancelled == 0 {
		t.Log("no call was cancelled mid-search (too fast here)")
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines after the cancelled calls, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

// TestHostileEmptyIndexAndQueries: an index whose chunks all analyse to
// nothing, and calls with no queries, answer empty runs, not errors.
func TestHostileEmptyIndexAndQueries(t *testing.T) {
	chunks := chunksOf(t, false, corpus.Document{ID: "a", Text: "the of and"}, corpus.Document{ID: "b", Text: "!!!"})
	r, err := New(context.Background(), chunks, Options{})
	if err != nil {
		t.Skipf("an index of stop words only is refused: %v", err)
	}
	defer r.Close()
	run, err := r.Search(context.Background(), []retrievers.Query{{ID: "q", Text: "cat"}, {ID: "e", Text: ""}}, 5)
	if err != nil || len(run["q"]) != 0 || len(run["e"]) != 0 {
		t.Fatalf("stop-word index: %v %v", run, err)
	}
	run, err = r.Search(context.Background(), nil, 5)
	if err != nil || len(run) != 0 {
		t.Fatalf("no queries: %v %v", run, err)
	}
}
