// Package fuzzwatch bounds the time a fuzz target may spend on one input.
//
// Go's fuzzing engine has no per-input time limit: an input that makes a
// reader hang never returns, so the target can neither fail nor be
// recorded. Start arms a timer that panics from its own goroutine, which
// crashes the fuzzing worker; the engine then records the input under
// testdata/fuzz/ as a crasher, to be fixed and kept as a regression seed.
//
//	f.Fuzz(func(t *testing.T, data []byte) {
//		defer fuzzwatch.Start(fuzzwatch.Bound)()
//		...
//	})
package fuzzwatch

import (
	"fmt"
	"time"
)

// Bound is the time every ragbench fuzz target allows one input: generous
// on a loaded 2-core machine, far below what a hang or a cost quadratic in
// a number in the input takes.
const Bound = 10 * time.Second

// Start panics, from a timer goroutine, when d passes before the returned
// stop function is called (stop is safe to call more than once).
func Start(d time.Duration) (stop func()) {
	t := time.AfterFunc(d, func() { panic(fmt.Sprintf("fuzzwatch: one input took longer than %v", d)) })
	return func() { t.Stop() }
}
