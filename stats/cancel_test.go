package stats

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// cancelSample is n queries whose differences are all non-zero (so the
// randomization test is Monte Carlo for n > ExactMaxN) and not symmetric.
func cancelSample(n int) Sample {
	var s Sample
	for i := range n {
		s.QueryIDs = append(s.QueryIDs, fmt.Sprintf("q%d", i))
		s.A = append(s.A, float64(i%7)/10+0.05)
		s.B = append(s.B, float64(i%5)/10)
	}
	return s
}

// TestContextStopsTests: given minutes of work (10⁹ sign vectors, 2^30
// exact ones, 2·10⁶ bootstrap resamples or Tukey permutations of 2,000
// queries) and a context cancelled after 50 ms, the randomization (Monte
// Carlo and exact), bootstrap and Tukey HSD tests return context.Canceled
// within a second; a context that is never cancelled gives the same result
// as none.
func TestContextStopsTests(t *testing.T) {
	s, big := cancelSample(40), cancelSample(2000)
	run := func(name string, b int, f func(Options) error) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		start := time.Now()
		err := f(Options{Permutations: b, Resamples: max(b, MinResamples), ExactMaxN: 30, Seed: 1, Context: ctx})
		if d := time.Since(start); !errors.Is(err, context.Canceled) || d > time.Second {
			t.Errorf("%s: error %v after %v; want context.Canceled within 1s", name, err, d.Round(time.Millisecond))
		}
	}
	run("randomization", 1_000_000_000, func(o Options) error { _, err := Paired(Randomization, s, o); return err })
	run("randomization exact (2^30 sign vectors)", 1, func(o Options) error {
		e := Sample{QueryIDs: s.QueryIDs[:30], A: s.A[:30], B: s.B[:30]}
		_, err := Paired(Randomization, e, o)
		return err
	})
	run("bootstrap", 2_000_000, func(o Options) error { _, err := Paired(Bootstrap, big, o); return err })
	run("tukey", 2_000_000, func(o Options) error {
		_, err := TukeyHSD([]string{"a", "b", "c"}, big.QueryIDs, [][]float64{big.A, big.B, big.A}, o)
		return err
	})

	for _, test := range []Test{Randomization, Bootstrap} {
		o := Options{Permutations: 2000, Resamples: 2000, Seed: 7}
		want, err1 := Paired(test, s, o)
		o.Context = context.Background()
		got, err2 := Paired(test, s, o)
		if err := errors.Join(err1, err2); err != nil {
			t.Fatal(err)
		}
		if got.P != want.P || got.Effect.CILow != want.Effect.CILow || got.Effect.CIHigh != want.Effect.CIHigh {
			t.Errorf("%s with a live context: p %v CI [%v, %v]; without: p %v CI [%v, %v]", test, got.P, got.Effect.CILow, got.Effect.CIHigh, want.P, want.Effect.CILow, want.Effect.CIHigh)
		}
	}
}
