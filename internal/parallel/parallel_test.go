package parallel

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

// TestForEach: every index once, on at most workers goroutines; the first
// error stops new calls; a cancelled context calls nothing.
func TestForEach(t *testing.T) {
	for _, workers := range []int{0, 1, 3, 100} {
		seen := make([]atomic.Int32, 50)
		var maxW atomic.Int32
		err := ForEach(context.Background(), workers, len(seen), func(w, i int) error {
			seen[i].Add(1)
			if int32(w) > maxW.Load() {
				maxW.Store(int32(w))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for i := range seen {
			if seen[i].Load() != 1 {
				t.Fatalf("workers %d: index %d called %d times", workers, i, seen[i].Load())
			}
		}
		if int(maxW.Load()) >= max(workers, 1) {
			t.Fatalf("workers %d: goroutine number %d", workers, maxW.Load())
		}
	}
	boom := errors.New("boom")
	var calls atomic.Int32
	err := ForEach(context.Background(), 1, 10, func(_, i int) error {
		calls.Add(1)
		if i == 3 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || calls.Load() != 4 {
		t.Fatalf("error %v after %d calls, want boom after 4", err, calls.Load())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls.Store(0)
	if err := ForEach(ctx, 2, 10, func(_, _ int) error { calls.Add(1); return nil }); !errors.Is(err, context.Canceled) || calls.Load() != 0 {
		t.Fatalf("cancelled: %v after %d calls", err, calls.Load())
	}
}
