package spans_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ragbench/ragbench/spans"
)

// TestJudgedChunks: on docs/spans.md's alternatives example, the chunks a
// labeller looked at are those overlapping a gold passage (any member of
// the group): faq#1 and the manual's three sentences; faq#0, the FAQ's
// question, is not judged. The example's run (faq#1, faq#0, manual#1,
// manual#0, manual#2) is then judged@1 = 1, @3 = 2/3, @5 = 4/5 (by hand).
func TestJudgedChunks(t *testing.T) {
	qs, ch, run := alternatives(t)
	j := spans.JudgedChunks(qs, ch)["login"]
	want := map[string]int{"faq#1": 1, "manual#0": 1, "manual#1": 1, "manual#2": 1}
	if len(j) != len(want) {
		t.Errorf("judged chunks %v, want %v", j, want)
	}
	for id, g := range want {
		if got, ok := j[id]; !ok || got != g {
			t.Errorf("%s: %d, %v; want %d", id, got, ok, g)
		}
	}
	n := 0
	for i, r := range run["login"] {
		if _, ok := j[r.DocID]; ok {
			n++
		}
		if k := i + 1; k == 1 || k == 3 || k == 5 {
			if w := map[int]float64{1: 1, 3: 2.0 / 3, 5: 4.0 / 5}[k]; float64(n)/float64(k) != w {
				t.Errorf("judged@%d = %d/%d, want %v", k, n, k, w)
			}
		}
	}
}

// TestFindHoles: an unjudged result holding the gold passage with one
// character changed ("60" for "90": 1 edit of 31, by hand 1 − 1/31) is a
// hole; one holding it exactly is a hole of similarity 1; a judged
// result, one too short to hold three quarters of the passage, and an
// holeGold and holeTexts are FindHoles' fixtures: two gold passages, and
// results holding a near-copy of the first (a, e), an exact copy (c), a
// fragment (b), unrelated text (d) and a near-copy of the second (f).
var (
	holeGold  = []spans.GoldText{{Label: "manual [0, 31)", Text: "Passwords expire after 90 days."}, {Label: "manual [32, 71)", Text: "Accounts lock after five failed logins."}}
	holeTexts = map[string]string{
		"a": "Remember: PASSWORDS expire after 60 days. Plan ahead.",
		"b": "Passwords expire",
		"c": "Passwords expire after 90 days.",
		"d": "The canteen opens at noon and closes at three.",
		"e": "## Reminder\n\nPasswords   expire after 90 days.",
		"f": "Accounts lock after 5 failed logins.",
	}
)

// unrelated one are not. Holes come in rank order with their gold label.
func TestFindHoles(t *testing.T) {
	gold, text := holeGold, holeTexts
	ids := []string{"c", "a", "b", "d", "e"}
	holes := spans.FindHoles("q", ids, 5, map[string]int{"c": 1}, func(id string) string { return text[id] }, gold)
	if len(holes) != 2 {
		t.Fatalf("holes %+v, want a and e", holes)
	}
	if h := holes[0]; h.ID != "a" || h.Rank != 2 || h.Gold != "manual [0, 31)" || math.Abs(h.Similarity-(1-1.0/31)) > 1e-12 {
		t.Errorf("first hole %+v, want a at rank 2, similarity 1 − 1/31", h)
	}
	if h := holes[1]; h.ID != "e" || h.Rank != 5 || h.Similarity != 1 {
		t.Errorf("second hole %+v, want e at rank 5 (white space folded), similarity 1", h)
	}
	if h := spans.FindHoles("q", ids, 4, map[string]int{"c": 1}, func(id string) string { return text[id] }, gold); len(h) != 1 {
		t.Errorf("top 4: %+v, want a alone", h)
	}
}

// TestFindAll: over many queries sharing results, FindAll on 1 and 4
// goroutines lists exactly the holes of Find query by query with a fresh
// finder (computed by hand in TestFindHoles for the same texts), each pair
// compared once; a cancelled context stops it.
func TestFindAll(t *testing.T) {
	gold, text := holeGold, holeTexts
	ids := []string{"a", "b", "c", "d", "e", "f"}
	var qs []spans.HoleQuery
	var want []spans.Hole
	for i := range 40 {
		q := spans.HoleQuery{Query: fmt.Sprintf("q%02d", i), IDs: slices.Clone(ids), Judged: map[string]int{ids[i%6]: i % 2}, Gold: gold[:1+i%2]}
		rng := rand.New(rand.NewPCG(uint64(i), 7))
		rng.Shuffle(len(q.IDs), func(a, b int) { q.IDs[a], q.IDs[b] = q.IDs[b], q.IDs[a] })
		qs = append(qs, q)
		want = append(want, spans.FindHoles(q.Query, q.IDs, 4, q.Judged, func(id string) string { return text[id] }, q.Gold)...)
	}
	if len(want) < 40 {
		t.Fatalf("only %d holes: the test needs many", len(want))
	}
	for _, workers := range []int{1, 4} {
		var calls atomic.Int32
		f := spans.NewHoleFinder(func(id string) string { calls.Add(1); return text[id] })
		got, err := f.FindAll(context.Background(), qs, 4, workers)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("workers %d: holes\n%+v\nwant\n%+v", workers, got, want)
		}
		// Each {result, gold passage} pair once: 6 results × 2 passages at most.
		if calls.Load() > 12 {
			t.Errorf("workers %d: %d comparisons, want at most 12", workers, calls.Load())
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := spans.NewHoleFinder(func(id string) string { return text[id] }).FindAll(ctx, qs, 4, 2); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

// TestHoleFinderKeepsNoPatterns: after FindAll, or Find query by query
// (the miss diagnoser's duplicates), a finder holds the similarities it
// computed, not the prepared tables of every gold passage it met (63 KB
// for a 1,500-character passage when they were kept, for every gold
// passage of a run until the next chunking: 60 MB of the live heap of a
// run of 3,000 queries). 200 passages of 1,500 characters against 3
// results each: the finder keeps under 1 MB.
func TestHoleFinderKeepsNoPatterns(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	words := []string{"alpha", "beta", "gamma", "delta", "rent", "lease", "notice"}
	passage := func() string {
		var b strings.Builder
		for b.Len() < 1500 {
			b.WriteString(words[r.IntN(len(words))] + " ")
		}
		return b.String()[:1500]
	}
	text := map[string]string{"a": passage(), "b": passage(), "c": passage()}
	var qs []spans.HoleQuery
	for i := range 200 {
		qs = append(qs, spans.HoleQuery{Query: fmt.Sprint(i), IDs: []string{"a", "b", "c"}, Gold: []spans.GoldText{{Label: "g", Text: passage()}}})
	}
	for _, how := range []string{"FindAll", "Find"} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		f := spans.NewHoleFinder(func(id string) string { return text[id] })
		if how == "FindAll" {
			if _, err := f.FindAll(context.Background(), qs, 3, 2); err != nil {
				t.Fatal(err)
			}
		} else {
			for _, q := range qs {
				f.Find(q.Query, q.IDs, 3, q.Judged, q.Gold)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		kept := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		runtime.KeepAlive(f)
		if kept > 1<<20 {
			t.Errorf("%s: the finder keeps %.1f MB, want under 1 MB", how, float64(kept)/(1<<20))
		}
	}
	runtime.KeepAlive(qs)
}

// TestFindAllStopsMidway: a context cancelled during the comparisons
// (Ctrl-C while judged coverage runs) stops FindAll after the comparisons
// under way, at most one a goroutine more, with the context's error, and
// leaves no goroutine behind; the finder remembers nothing of the cut
// run, and a live context then finds every hole.
func TestFindAllStopsMidway(t *testing.T) {
	gold := []spans.GoldText{{Label: "g", Text: "Passwords expire after 90 days."}}
	text := func(id string) string { return "Remember: passwords expire after 90 days. " + id }
	var qs []spans.HoleQuery
	for i := range 50 {
		var ids []string
		for j := range 10 {
			ids = append(ids, fmt.Sprintf("c%d-%d", i, j))
		}
		qs = append(qs, spans.HoleQuery{Query: fmt.Sprint(i), IDs: ids, Gold: gold})
	}
	const workers, cancelAt = 4, 20
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls atomic.Int32
	f := spans.NewHoleFinder(func(id string) string {
		if calls.Add(1) == cancelAt {
			cancel()
		}
		return text(id)
	})
	if _, err := f.FindAll(ctx, qs, 10, workers); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if n := calls.Load(); n > cancelAt+workers-1 {
		t.Errorf("%d comparisons, want at most %d (cancelled at the %dth)", n, cancelAt+workers-1, cancelAt)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after FindAll, %d before", n, before)
	}
	calls.Store(cancelAt) // past the cancel
	holes, err := f.FindAll(context.Background(), qs, 10, workers)
	if err != nil || len(holes) != 500 || calls.Load() != cancelAt+500 {
		t.Fatalf("after the cancel: %d holes, %v, %d comparisons; want 500 of each", len(holes), err, calls.Load()-cancelAt)
	}
}
