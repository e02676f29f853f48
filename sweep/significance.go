package sweep

import (
	"context"
	"fmt"

	"github.com/ragbench/ragbench/compare"
	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/internal/jsonnum"
	"github.com/ragbench/ragbench/kinds"
	"github.com/ragbench/ragbench/results"
	"github.com/ragbench/ragbench/stats"
)

// pairTest is results.json's form of one compare.Pair of report rep: the
// difference with the interval the report shows (null bounds when it is
// undefined: Interval.Defined, never a NaN or a made-up [0, 0]), the
// verdict in words, the plan-level MDD and sample size, the TOST's p.
func pairTest(rep *compare.Report, p compare.Pair) results.PairTest {
	t := results.PairTest{A: p.A, B: p.B, Metric: p.Metric, MeanA: p.MeanA, MeanB: p.MeanB, N: p.N,
		P: p.P, PAdjusted: p.PAdjusted, Significant: p.Significant, MeanDiff: p.Effect.MeanDiff,
		CIMethod: string(p.CI.Method), Wins: p.Effect.Wins, Ties: p.Effect.Ties, Losses: p.Effect.Losses,
		Verdict: rep.VerdictText(p), Identical: p.Identical, Counted: p.Counted, Warnings: p.Warnings}
	if p.CI.Defined {
		t.CILow, t.CIHigh = jsonnum.Finite(p.CI.Low), jsonnum.Finite(p.CI.High)
	}
	if p.N >= 2 && p.MDD > 0 {
		t.MDD = jsonnum.Finite(p.MDD)
	}
	if p.Needed > 0 {
		n := p.Needed
		t.QueriesNeeded = &n
	}
	if rep.Options.Equivalence > 0 {
		t.PEquivalence, t.PEquivalenceAdjusted = jsonnum.Finite(p.Equivalence.P), jsonnum.Finite(p.PEquivalenceAdjusted)
	}
	return t
}

// comparisonCount is the number of comparisons a plan of kind k makes
// over n cells and the config's tested metrics (the significance
// progress stage's total), plus the all-pairs matrix's when asked for.
func comparisonCount(cfg *Config, n int) int {
	per := n - 1
	if cfg.Significance.PlanKind() == compare.AllPairs {
		per = n * (n - 1) / 2
	}
	total := max(per, 0) * len(cfg.Significance.Metrics)
	if cfg.Significance.Matrix && cfg.Significance.PlanKind() != compare.AllPairs {
		total += n * (n - 1) / 2
	}
	return total
}

// baselineCell resolves the baseline plan's reference cell: the one the
// config names, else the best BM25 cell (kinds.IsReference) by the
// primary metric at prompt_k over all answerable queries (the earlier
// cell among tied ones), else — no BM25 cell — the first cell. rule says
// which, for the report.
func baselineCell(cfg *Config, cells []results.CellResult) (name, rule string) {
	if b := cfg.Significance.Baseline; b != "" {
		return b, "named in the config (significance.baseline)"
	}
	m := cfg.GateMetric()
	best := -1
	for i, c := range cells {
		if kinds.IsReference(c.Retriever.Type) && (best < 0 || c.Means[results.GroupAll][m] > cells[best].Means[results.GroupAll][m]) {
			best = i
		}
	}
	if best >= 0 {
		return cells[best].Name, fmt.Sprintf("the best BM25 cell on %s (set significance.baseline to choose another)", m)
	}
	return cells[0].Name, "the first cell: the config has no BM25 cell (set significance.baseline to choose another)"
}

// significance runs the comparisons between cells of the config's plan
// (compare.Compare; Options.Noun "cell"), and with significance.matrix
// the all-pairs family of report.html's matrix. cells are the cells'
// results in grid order (the baseline's candidates). Cancelling ctx stops
// it within milliseconds (compare.Options.Context), with ctx's error.
func significance(ctx context.Context, cfg *Config, ds *dataset, scored []scoredCell, cells []results.CellResult) (results.Significance, error) {
	s := cfg.Significance
	sig := results.Significance{Test: s.Test, Correction: s.Correction, Alpha: s.Alpha, Plan: string(s.PlanKind()),
		Interval: s.Interval, Equivalence: s.Equivalence, Detect: *s.Detect,
		Queries: len(ds.answerable), Pairs: []results.PairTest{}, Beats: map[string]map[string][]int{}, Notes: []string{}}
	for _, f := range s.Metrics {
		sig.Metrics = append(sig.Metrics, config.MetricName(f, cfg.PromptK))
	}
	if len(scored) == 0 || len(ds.answerable) == 0 {
		sig.Notes = append(sig.Notes, "No answerable query: nothing to compare.")
		return sig, nil
	}
	opts, err := s.CompareOptions()
	if err != nil {
		return sig, err
	}
	if opts.Interval != stats.StudentT {
		sig.Resamples = opts.Resamples
	}
	opts.Noun, opts.Context = "cell", ctx
	opts.Plan = compare.Plan{Kind: s.PlanKind()}
	if opts.Plan.Kind == compare.VsBaseline {
		opts.Plan.Baseline, sig.BaselineRule = baselineCell(cfg, cells)
		sig.Baseline = opts.Plan.Baseline
	}
	in := compare.Input{Metrics: sig.Metrics, Scores: compare.Scores{}}
	for _, c := range scored {
		in.Systems = append(in.Systems, c.name)
		in.Scores[c.name] = c.scores
	}
	rep, err := compare.Compare(in, opts)
	if err != nil {
		return sig, fmt.Errorf("significance: %w", err)
	}
	sig.Comparisons, sig.Identical = rep.Comparisons, rep.Identical
	sig.Notes = append(sig.Notes, rep.Summary()...)
	sig.Warnings = append(sig.Warnings, rep.AllWarnings()...)
	if w := monteCarloFloor(cfg, rep.Comparisons, len(ds.answerable)); w != "" {
		sig.Warnings = append(sig.Warnings, w)
	}
	for _, p := range rep.Pairs {
		sig.Pairs = append(sig.Pairs, pairTest(rep, p))
	}
	sig.Reference, sig.Ties = rep.ReferenceNames(), rep.TieNames()
	for _, p := range rep.Power {
		sig.Power = append(sig.Power, power(p))
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
	if s.Matrix {
		if sig.AllPairs, err = allPairs(ctx, opts, in, rep); err != nil {
			return sig, err
		}
	}
	return sig, nil
}

// allPairs is report.html's all-pairs matrix (significance.matrix) on the
// first tested metric: the plan's own comparisons under plan all-pairs,
// else a family of its own (all pairs, corrected apart from the plan's,
// Student-t intervals: the matrix shows none).
func allPairs(ctx context.Context, opts compare.Options, in compare.Input, rep *compare.Report) (*results.AllPairs, error) {
	m := in.Metrics[0]
	if opts.Plan.Kind != compare.AllPairs {
		opts.Plan, opts.Interval, opts.Context = compare.Plan{Kind: compare.AllPairs}, stats.StudentT, ctx
		in.Metrics = []string{m}
		var err error
		if rep, err = compare.Compare(in, opts); err != nil {
			return nil, fmt.Errorf("significance matrix: %w", err)
		}
	}
	out := &results.AllPairs{Metric: m, Comparisons: rep.Comparisons, Identical: rep.Identical, Pairs: []results.PairTest{}}
	for _, p := range rep.Pairs {
		if p.Metric == m {
			out.Pairs = append(out.Pairs, pairTest(rep, p))
		}
	}
	return out, nil
}

// power is results.json's form of one metric's compare.PowerSummary:
// undefined numbers (no counted comparison with per-query variance, no
// sample size) are null.
func power(p compare.PowerSummary) results.Power {
	out := results.Power{Metric: p.Metric, Queries: p.N, Counted: p.Counted, Flat: p.Flat, Alpha: p.Alpha, Detect: p.Detect}
	if p.N >= 2 && p.Counted > p.Flat {
		out.MDD, out.MDDMin, out.MDDMax, out.SD = jsonnum.Finite(p.MDD), jsonnum.Finite(p.MDDMin), jsonnum.Finite(p.MDDMax), jsonnum.Finite(p.SD)
	}
	if p.Needed > 0 {
		n := p.Needed
		out.Needed = &n
	}
	return out
}

// monteCarloFloor warns when the randomization or bootstrap test's
// smallest p-value, 1/(B+1), times the counted comparisons reaches α: then
// no difference can be significant (with ≤ 20 queries the randomization
// test is exact and has no such floor).
func monteCarloFloor(cfg *Config, comparisons, queries int) string {
	s := cfg.Significance
	if (s.Test != string(stats.Randomization) && s.Test != string(stats.Bootstrap)) || s.Correction == string(stats.None) || comparisons == 0 || queries <= stats.DefaultExactMaxN {
		return ""
	}
	if floor := float64(comparisons) / float64(s.Permutations+1); floor >= s.Alpha {
		return fmt.Sprintf("with %d permutations and %d comparisons no difference can reach significance (smallest adjusted p ≥ %.3g > α = %g); raise significance.permutations above %d or test fewer metrics.",
			s.Permutations, comparisons, floor, s.Alpha, int(float64(comparisons)/s.Alpha))
	}
	return ""
}

// bestPerChunking is, per chunking, the cell with the highest tuning mean
// of the primary metric at prompt_k (the earlier cell among tied ones, the
// others listed as Tied).
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
		switch {
		case t > out[i].Tuning:
			out[i] = results.Best{Chunking: c.Chunking.Name, Cell: c.Name, Metric: metric, Tuning: t, HeldOut: c.Means[results.GroupHeldOut][metric]}
		case t == out[i].Tuning:
			out[i].Tied = append(out[i].Tied, c.Name)
		}
	}
	return out
}
