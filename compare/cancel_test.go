package compare

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ragbench/ragbench/stats"
)

// TestCompareContext: four systems × two metrics (12 comparisons) with 10⁹
// permutations each (minutes of work) stop within a second of the
// context's cancel, with context.Canceled and no report; with the
// Tukey HSD too; a context already cancelled starts no comparison; a live
// context gives the report of none and is not kept in it.
func TestCompareContext(t *testing.T) {
	in := Input{Metrics: []string{"ndcg@10", "recall@10"}, Scores: Scores{}}
	for s := range 4 {
		name := fmt.Sprintf("sys%d", s)
		in.Systems = append(in.Systems, name)
		in.Scores[name] = map[string]map[string]float64{}
		for _, m := range in.Metrics {
			col := map[string]float64{}
			for q := range 200 {
				col[fmt.Sprintf("q%03d", q)] = float64((q*(s+3))%11) / 10
			}
			in.Scores[name][m] = col
		}
	}
	for _, test := range []stats.Test{stats.Randomization, stats.Tukey} {
		b := 1_000_000_000
		if test == stats.Tukey {
			b = 5_000_000 // one float64 each: 40 MB
		}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		start := time.Now()
		rep, err := Compare(in, Options{Test: test, Permutations: b, Seed: 1, Context: ctx})
		if d := time.Since(start); !errors.Is(err, context.Canceled) || rep != nil || d > time.Second {
			t.Errorf("%s cancelled after 50ms: report %v, error %v after %v; want no report, context.Canceled within 1s", test, rep != nil, err, d.Round(time.Millisecond))
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Compare(in, Options{Permutations: 1_000_000_000, Context: ctx}); !errors.Is(err, context.Canceled) {
		t.Errorf("context cancelled before: error %v, want context.Canceled", err)
	}
	want, err1 := Compare(in, Options{Permutations: 500, Seed: 3})
	got, err2 := Compare(in, Options{Permutations: 500, Seed: 3, Context: context.Background()})
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	for i := range want.Pairs {
		if got.Pairs[i].P != want.Pairs[i].P || got.Pairs[i].PAdjusted != want.Pairs[i].PAdjusted {
			t.Errorf("pair %d with a live context: p %v (adjusted %v), without: %v (%v)", i, got.Pairs[i].P, got.Pairs[i].PAdjusted, want.Pairs[i].P, want.Pairs[i].PAdjusted)
		}
	}
	if got.Options.Context != nil {
		t.Error("Report.Options keeps the caller's context")
	}
}
