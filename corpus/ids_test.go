package corpus

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestIDIndexAgainstMap: the index finds what a map[string]int keeping
// each id's first position finds, over ids added one at a time from an
// empty table (every growth), with repeats, and for ids never added.
func TestIDIndexAgainstMap(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 1))
	for _, n := range []int{0, 1, 5, 6, 7, 100, 5000} {
		ids := make([]string, n)
		for i := range ids {
			ids[i] = fmt.Sprintf("d%d", r.IntN(n*3/4+1)) // about a quarter repeat
		}
		want := map[string]int{}
		x := NewIDIndex(func(i int) string { return ids[i] }, 0)
		for i, id := range ids {
			first, dup := x.Add(i)
			prev, seen := want[id]
			if dup != seen || (seen && first != prev) || (!seen && first != i) {
				t.Fatalf("n=%d: Add(%d) %q = %d, %v; the map says %d, %v", n, i, id, first, dup, prev, seen)
			}
			if !seen {
				want[id] = i
			}
		}
		if x.Len() != len(want) {
			t.Fatalf("n=%d: Len %d, want %d", n, x.Len(), len(want))
		}
		for id, i := range want {
			if got, ok := x.Get(id); !ok || got != i {
				t.Fatalf("n=%d: Get(%q) = %d, %v; want %d", n, id, got, ok, i)
			}
		}
		for _, id := range []string{"", "d", "x1", fmt.Sprintf("d%d", n)} {
			if got, ok := x.Get(id); ok {
				t.Fatalf("n=%d: Get(%q) = %d for an id never added", n, id, got)
			}
		}
		y := IndexIDs(n, func(i int) string { return ids[i] })
		for id, i := range want {
			if got, ok := y.Get(id); !ok || got != i {
				t.Fatalf("IndexIDs n=%d: Get(%q) = %d, %v; want %d", n, id, got, ok, i)
			}
		}
	}
	var nilIndex *IDIndex
	if _, ok := nilIndex.Get("d1"); ok || nilIndex.Len() != 0 {
		t.Fatal("a nil index finds an id")
	}
}

// BenchmarkIDIndex builds the index and a map[string]int of a million
// document ids (the run's index of the corpus, issue 27): B/op is each
// one's memory (8.4 MB and 55.9 MB on the machine of BENCHMARKS.md).
func BenchmarkIDIndex(b *testing.B) {
	const n = 1_000_000
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("doc%07d", i)
	}
	b.Run("IDIndex", func(b *testing.B) {
		for b.Loop() {
			x := IndexIDs(n, func(i int) string { return ids[i] })
			_ = x
		}
	})
	b.Run("map", func(b *testing.B) {
		for b.Loop() {
			m := make(map[string]int, n)
			for i, id := range ids {
				m[id] = i
			}
		}
	})
}
