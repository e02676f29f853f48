package sweep

import (
	"context"
	"fmt"

	"github.com/ragbench/ragbench/compare"
	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/stats"
)

// Significance holds the paired tests between cells (package compare):
// every pair of cells on every tested metric at prompt_k, over all
// answerable queries, with one correction over all comparisons.
type Significance struct {
	Test        string     `json:"test"`
	Correction  string     `json:"correction"`
	Alpha       float64    `json:"alpha"`
	Metrics     []string   `json:"metrics"`
	Queries     int        `json:"queries"`
	Comparisons int        `json:"comparisons"`
	Pairs       []PairTest `json:"pairs"`
	// Beats maps metric → cell → indexes (in Results.Cells) of the cells it
	// beats significantly after correction.
	Beats map[string]map[string][]int `json:"beats"`
	// Notes are compare's explanatory sentences (test, correction, minimum
	// detectable differences, warnings).
	Notes []string `json:"notes"`

	report *compare.Report
}

// PairTest is one comparison of cell A against cell B on one metric.
type PairTest struct {
	A           string  `json:"a"`
	B           string  `json:"b"`
	Metric      string  `json:"metric"`
	MeanA       float64 `json:"mean_a"`
	MeanB       float64 `json:"mean_b"`
	P           float64 `json:"p"`
	PAdjusted   float64 `json:"p_adjusted"`
	Significant bool    `json:"significant"`
	MeanDiff    float64 `json:"mean_diff"`
	CILow       float64 `json:"ci_low"`
	CIHigh      float64 `json:"ci_high"`
	Wins        int     `json:"wins"`
	Ties        int     `json:"ties"`
	Losses      int     `json:"losses"`
}

// pairTest is results.json's form of one compare.Pair.
func pairTest(p compare.Pair) PairTest {
	return PairTest{A: p.A, B: p.B, Metric: p.Metric, MeanA: p.MeanA, MeanB: p.MeanB,
		P: p.P, PAdjusted: p.PAdjusted, Significant: p.Significant, MeanDiff: p.Effect.MeanDiff,
		CILow: p.Effect.CILow, CIHigh: p.Effect.CIHigh, Wins: p.Effect.Wins, Ties: p.Effect.Ties, Losses: p.Effect.Losses}
}

// significance runs the paired tests between cells (compare.Compare).
// Cancelling ctx stops it within milliseconds (compare.Options.Context),
// with ctx's error.
func significance(ctx context.Context, cfg *Config, ds *dataset, cells []CellResult) (Significance, error) {
	s := cfg.Significance
	sig := Significance{Test: s.Test, Correction: s.Correction, Alpha: s.Alpha,
		Queries: len(ds.answerable), Pairs: []PairTest{}, Beats: map[string]map[string][]int{}, Notes: []string{}}
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
		in.Systems = append(in.Systems, c.Name)
		in.Scores[c.Name] = c.scores
	}
	opts.Context = ctx
	rep, err := compare.Compare(in, opts)
	if err != nil {
		return sig, fmt.Errorf("significance: %w", err)
	}
	sig.report = rep
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

func bestPerChunking(cfg *Config, cells []CellResult) []Best {
	metric := config.MetricName(cfg.PrimaryMetric, cfg.PromptK)
	var out []Best
	index := map[string]int{}
	for _, c := range cells {
		t := c.Means[GroupTuning][metric]
		i, ok := index[c.Chunking.Name]
		if !ok {
			index[c.Chunking.Name] = len(out)
			out = append(out, Best{Chunking: c.Chunking.Name, Cell: c.Name, Metric: metric, Tuning: t, HeldOut: c.Means[GroupHeldOut][metric]})
			continue
		}
		if t > out[i].Tuning {
			out[i] = Best{Chunking: c.Chunking.Name, Cell: c.Name, Metric: metric, Tuning: t, HeldOut: c.Means[GroupHeldOut][metric]}
		}
	}
	return out
}
