package sweep

import (
	"context"
	"fmt"

	"github.com/ragbench/ragbench/compare"
	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/internal/jsonnum"
	"github.com/ragbench/ragbench/results"
	"github.com/ragbench/ragbench/stats"
)

// pairTest is results.json's form of one compare.Pair; the interval is
// null when it is undefined (one query).
func pairTest(p compare.Pair) results.PairTest {
	t := results.PairTest{A: p.A, B: p.B, Metric: p.Metric, MeanA: p.MeanA, MeanB: p.MeanB,
		P: p.P, PAdjusted: p.PAdjusted, Significant: p.Significant, MeanDiff: p.Effect.MeanDiff,
		Wins: p.Effect.Wins, Ties: p.Effect.Ties, Losses: p.Effect.Losses}
	if p.Effect.CIDefined {
		t.CILow, t.CIHigh = jsonnum.Finite(p.Effect.CILow), jsonnum.Finite(p.Effect.CIHigh)
	}
	return t
}

// significance runs the paired tests between cells (compare.Compare).
// Cancelling ctx stops it within milliseconds (compare.Options.Context),
// with ctx's error.
func significance(ctx context.Context, cfg *Config, ds *dataset, cells []scoredCell) (results.Significance, error) {
	s := cfg.Significance
	sig := results.Significance{Test: s.Test, Correction: s.Correction, Alpha: s.Alpha,
		Queries: len(ds.answerable), Pairs: []results.PairTest{}, Beats: map[string]map[string][]int{}, Notes: []string{}}
	for _, f := range s.Metrics {
		sig.Metrics = append(sig.Metrics, config.MetricName(f, cfg.PromptK))
	}
	if len(cells) == 0 || len(ds.answerable) == 0 {
		sig.Notes = append(sig.Notes, "No answerable query: nothing to compare.")
		return sig, nil
	}
	opts, err := s.CompareOptions()
	if err != nil {
		return sig, err
	}
	test, corr := opts.Test, opts.Correction
	in := compare.Input{Metrics: sig.Metrics, Scores: compare.Scores{}}
	for _, c := range cells {
		in.Systems = append(in.Systems, c.name)
		in.Scores[c.name] = c.scores
	}
	opts.Context = ctx
	rep, err := compare.Compare(in, opts)
	if err != nil {
		return sig, fmt.Errorf("significance: %w", err)
	}
	sig.Comparisons = rep.Comparisons
	sig.Notes = append(sig.Notes, rep.Notes()...)
	if (test == stats.Randomization || test == stats.Bootstrap) && corr != stats.None && rep.Comparisons > 0 && len(ds.answerable) > 20 {
		// (With ≤ 20 queries the randomization test is exact.) The
		// smallest Monte Carlo p-value is 1/(B+1); the correction
		// multiplies it by up to the number of comparisons.
		if floor := float64(rep.Comparisons) / float64(s.Permutations+1); floor >= s.Alpha {
			sig.Notes = append(sig.Notes, fmt.Sprintf("Warning: with %d permutations and %d comparisons no difference can reach significance (smallest adjusted p ≥ %.3g > α = %g); raise significance.permutations above %d or test fewer metrics.",
				s.Permutations, rep.Comparisons, floor, s.Alpha, int(float64(rep.Comparisons)/s.Alpha)))
		}
	}
	for _, p := range rep.Pairs {
		sig.Pairs = append(sig.Pairs, pairTest(p))
	}
	for mi, m := range rep.Metrics {
		bm := map[string][]int{}
		for si, sys := range rep.Systems {
			if b := rep.Beats[si][mi]; len(b) > 0 {
				bm[sys] = append([]int(nil), b...)
			}
		}
		sig.Beats[m] = bm
	}
	return sig, nil
}

func bestPerChunking(cfg *Config, cells []results.CellResult) []results.Best {
	metric := config.MetricName(cfg.PrimaryMetric, cfg.PromptK)
	var out []results.Best
	index := map[string]int{}
	for _, c := range cells {
		t := c.Means[results.GroupTuning][metric]
		i, ok := index[c.Chunking.Name]
		if !ok {
			index[c.Chunking.Name] = len(out)
			out = append(out, results.Best{Chunking: c.Chunking.Name, Cell: c.Name, Metric: metric, Tuning: t, HeldOut: c.Means[results.GroupHeldOut][metric]})
			continue
		}
		if t > out[i].Tuning {
			out[i] = results.Best{Chunking: c.Chunking.Name, Cell: c.Name, Metric: metric, Tuning: t, HeldOut: c.Means[results.GroupHeldOut][metric]}
		}
	}
	return out
}
