// Package parallel runs independent calls on a bounded number of
// goroutines. The callers (bm25's query batches, judged coverage's hole
// search) write each call's result to its own index, so their results do
// not depend on the number of goroutines or their order.
package parallel

import (
	"context"
	"sync"
	"sync/atomic"
)

// ForEach calls fn(w, i) for every i in [0, n) on min(workers, n)
// goroutines (workers ≥ 1; fewer is one), w being the goroutine's number
// in [0, workers), and returns the first error, fn's or ctx's: no new call
// starts after one, the calls under way finish. Calls are handed out in
// increasing i.
func ForEach(ctx context.Context, workers, n int, fn func(w, i int) error) error {
	var next atomic.Int64
	var stop atomic.Bool
	var firstErr error
	var errOnce sync.Once
	var wg sync.WaitGroup
	for w := range min(max(workers, 1), n) {
		wg.Go(func() {
			for !stop.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				err := ctx.Err()
				if err == nil {
					err = fn(w, i)
				}
				if err != nil {
					errOnce.Do(func() { firstErr = err })
					stop.Store(true)
					return
				}
			}
		})
	}
	wg.Wait()
	return firstErr
}
