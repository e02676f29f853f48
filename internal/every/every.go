// Package every runs a function at a fixed interval on a goroutine of its
// own until told to stop: the one owner of the ticker loop that releases
// the spilled corpus's pages during a pass (corpus.Texts.Paced), bounds the
// collector's headroom (internal/gcpace) and samples the heap in the scale
// benchmark.
package every

import (
	"sync"
	"time"
)

// Start calls f every d (d > 0; the first call after d, not at once) on a
// new goroutine until f returns false or stop is called. stop waits for a
// call in progress to return, so nothing runs after it; calling it twice
// is harmless.
func Start(d time.Duration, f func() bool) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(d)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if !f() {
					return
				}
			}
		}
	})
	var once sync.Once
	return func() {
		once.Do(func() { close(done) })
		wg.Wait()
	}
}
