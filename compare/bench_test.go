package compare

import (
	"testing"

	"github.com/ragbench/ragbench/stats"
)

// BenchmarkCompare20x1000 is the speed target: 20 systems × 1,000
// queries, all 190 pairs on one metric, 10,000 Monte Carlo sign-flip
// permutations each (plus effect sizes and the Holm correction).
//
//	go test -run '^$' -bench Compare20x1000 -benchtime 5x ./compare
func BenchmarkCompare20x1000(b *testing.B) {
	in := synthetic(20, 1000, 0.002, 11)
	in.Metrics = in.Metrics[:1]
	for _, test := range []stats.Test{stats.Randomization, stats.TTest} {
		b.Run(string(test), func(b *testing.B) {
			for b.Loop() {
				r, err := Compare(in, Options{Test: test, Permutations: 10000, Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				if r.Comparisons != 190 {
					b.Fatalf("%d comparisons", r.Comparisons)
				}
			}
		})
	}
}

// BenchmarkIntervals20x1000: the same 190 pairs under an explicit plan,
// each with its 95% paired bootstrap BCa interval (10,000 resamples of
// 1,000 queries) beside the t-test.
//
//	go test -run '^$' -bench Intervals20x1000 -benchtime 3x ./compare
func BenchmarkIntervals20x1000(b *testing.B) {
	in := synthetic(20, 1000, 0.002, 11)
	in.Metrics = in.Metrics[:1]
	for _, plan := range []PlanKind{AllPairs, VsBest} {
		b.Run(string(plan), func(b *testing.B) {
			for b.Loop() {
				if _, err := Compare(in, Options{Test: stats.TTest, Plan: Plan{Kind: plan}, Seed: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTukey20x1000: randomized Tukey HSD over 20 systems × 1,000
// queries with 10,000 permutations.
//
//	go test -run '^$' -bench Tukey20x1000 -benchtime 3x ./compare
func BenchmarkTukey20x1000(b *testing.B) {
	in := synthetic(20, 1000, 0.002, 11)
	in.Metrics = in.Metrics[:1]
	for b.Loop() {
		if _, err := Compare(in, Options{Test: stats.Tukey, Permutations: 10000, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
