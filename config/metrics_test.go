package config

import (
	"testing"

	"github.com/ragbench/ragbench/stats"
)

// TestCompareOptionsMinResamples: a config's permutations are also its
// bootstrap resamples; below stats.MinResamples (permutations: 100, as
// quick configs set) the intervals draw MinResamples, which stats'
// CheckResamples requires — a "95% interval" of 100 or fewer resamples
// is not one.
func TestCompareOptionsMinResamples(t *testing.T) {
	seed := int64(42)
	for perms, want := range map[int]int{100: stats.MinResamples, 1000: 1000, 20000: 20000} {
		o, err := SignificanceConfig{Test: "randomization", Correction: "holm", Alpha: 0.05, Permutations: perms, Seed: &seed}.CompareOptions()
		if err != nil || o.Resamples != want || o.Permutations != perms {
			t.Errorf("permutations %d: resamples %d, permutations %d (%v); want %d resamples", perms, o.Resamples, o.Permutations, err, want)
		}
	}
}
