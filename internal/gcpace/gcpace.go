// Package gcpace bounds the garbage collector's headroom over the live heap
// for a long command whose live heap is mostly one long-lived structure
// (bench run's corpus, documents' index and chunks: issue 27).
//
// Go's collector lets the heap grow to live × (1 + GOGC/100) before the next
// collection (https://go.dev/doc/gc-guide): with the default GOGC of 100 a
// run holding 600 MB of corpus for its whole life peaks near 1.2 GB, and the
// headroom grows with the corpus, although what the run allocates between
// collections (a batch of index segments, one query's postings) does not.
// Start lowers GOGC while the live heap is large, so that the headroom is
// at most a fixed number of bytes: the percentage is 100 × headroom / live,
// kept between a floor (so that a huge heap is not collected without end)
// and the setting at the start (GOGC, default 100). The price is CPU: more
// collections, each marking the same live heap (BENCHMARKS.md gives both).
// Results never depend on it.
//
// A user who sets GOGC or GOMEMLIMIT has chosen the trade-off: Start then
// leaves the collector alone.
package gcpace

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/ragbench/ragbench/internal/every"
)

// Headroom is bench run's bound on the collector's headroom, in bytes: what
// the run allocates between two collections is well under it (an index
// batch, a query's postings), so collections stay rare on small corpora
// (the percentage stays at GOGC's until the live heap exceeds it).
const Headroom = 256 << 20

// Floor is the lowest percentage Start sets: with a live heap of 4 GB the
// headroom is then 1 GB rather than 256 MB, so that the collector's CPU
// stays a fraction of the run's however large the corpus.
const Floor = 25

// interval is how often Start reads the live heap (a runtime/metrics read:
// microseconds) and sets the percentage when it changed by more than a
// tenth.
const interval = 250 * time.Millisecond

// Start bounds the collector's headroom to headroom bytes (at least floor
// percent of the live heap, at most the percentage in force when called)
// until stop is called, which restores the percentage in force at the
// start. It does nothing, and stop does nothing, when the environment sets
// GOGC or GOMEMLIMIT, when headroom is 0 or when floor is not in 1 … 100.
//
// The percentage is the process's: Starts that overlap (runs from several
// goroutines of one process, as tests may do) share the first one's
// pacing, and the percentage in force before the first is restored when
// the last of them stops, in whatever order they stop (each Start would
// otherwise take the lowered percentage in force as the one to restore).
// Calling stop again does nothing.
func Start(headroom uint64, floor int) (stop func()) {
	if headroom == 0 || floor < 1 || floor > 100 || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	mu.Lock()
	defer mu.Unlock()
	if users == 0 {
		base := debug.SetGCPercent(100)
		debug.SetGCPercent(base)
		if base <= floor { // GC off (-1) or already lower: nothing to bound
			return func() {}
		}
		stopPacer = pace(headroom, floor, base)
	}
	users++
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			defer mu.Unlock()
			if users--; users == 0 {
				stopPacer()
				stopPacer = nil
			}
		})
	}
}

// The process's pacer, shared by overlapping Starts: users is the number of
// Starts not yet stopped, stopPacer ends the pacing (pace) and restores the
// percentage. mu guards both.
var (
	mu        sync.Mutex
	users     int
	stopPacer func()
)

// pace sets the percentage from the live heap every interval (Percent of
// headroom, floor and base) until the returned function is called, which
// then restores base.
func pace(headroom uint64, floor, base int) func() {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	current := base
	halt := every.Start(interval, func() bool {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return false // not this runtime's metric: leave GOGC as it is
		}
		p := Percent(sample[0].Value.Uint64(), headroom, floor, base)
		if p*10 < current*9 || p*10 > current*11 {
			debug.SetGCPercent(p)
			current = p
		}
		return true
	})
	return func() {
		halt()
		debug.SetGCPercent(base)
	}
}

// Percent is the GOGC percentage that lets a heap of live bytes grow by at
// most headroom bytes: 100 × headroom / live, at least floor and at most
// ceiling (ceiling when live is 0).
func Percent(live, headroom uint64, floor, ceiling int) int {
	if live == 0 {
		return ceiling
	}
	p := headroom * 100 / live
	if p >= uint64(ceiling) {
		return ceiling
	}
	return max(int(p), floor)
}
