// Package gate is ragbench's baseline gate: it tells CI whether a change
// made retrieval worse. Given the per-query scores of a baseline and of the
// current version of the same cells (chunking × retriever, or run files), it
// compares every cell present in both, on each gated metric, with a paired
// significance test over the queries both share, corrects the p-values for
// multiple comparisons over all (cell, metric) comparisons of the gate, and
// gives each a verdict:
//
//   - regressed: the mean fell (now < baseline) and either the adjusted
//     p-value is ≤ α, or the drop is larger than the absolute tolerance
//     Options.MaxDrop (when Options.UseMaxDrop is set);
//   - improved: the mean rose and the adjusted p-value is ≤ α;
//   - unchanged: anything else (noise never fails, an improvement never
//     fails).
//
// The tests and corrections are package stats' (the same as the report's:
// bench run passes its config's significance.test, correction, alpha,
// permutations and seed). Differences are now − baseline, with their 95%
// confidence interval (stats.Effect). Each comparison draws its random
// numbers from stats.Stream(seed, "gate", cell, metric), so a gate is
// reproducible. Tukey HSD compares many systems at once and has no
// two-system form: the gate then uses the randomization test and says so in
// Result.Notes.
//
// Data flow: Input (from two results.json with their manifests, see
// FromResults; or from run files, as bench compare builds it) → Compare →
// Result → Result.Markdown (a GitHub-flavoured summary for a pull-request
// comment or $GITHUB_STEP_SUMMARY). Result.Regressed tells the command to
// exit with ExitRegressed.
package gate

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/ragbench/ragbench/compare"
	"github.com/ragbench/ragbench/stats"
)

// ExitRegressed is the exit status of bench run --baseline and bench
// compare --gate when at least one cell regressed. It is distinct from 1
// (error), 2 (usage error) and 130/143 (interrupted), so a CI script can
// tell "retrieval got worse" from "the check could not run".
const ExitRegressed = 3

// Verdict is the outcome of one (cell, metric) comparison.
type Verdict string

// The verdicts, in the words the summary prints.
const (
	Regressed Verdict = "regressed"
	Improved  Verdict = "improved"
	Unchanged Verdict = "unchanged"
)

// Cell is one cell's per-query scores in the baseline and now: metric name
// ("ndcg@10") → query id → value (any finite float; NaN or ±Inf is an
// error naming the query).
type Cell struct {
	Name              string
	Baseline, Current map[string]map[string]float64
}

// Input is what Compare gates.
type Input struct {
	// Metrics are the gated metric names, in report order; at least one.
	// Each must be present in both sides of every cell.
	Metrics []string
	// Cells are the cells present in both runs, in report order.
	Cells []Cell
	// OnlyBaseline and OnlyCurrent name the cells present in one run only
	// (listed in the summary, never gated).
	OnlyBaseline, OnlyCurrent []string
	// Texts maps query id → query text, for the queries that changed most
	// (optional: a query without text is shown by id).
	Texts map[string]string
	// Baseline and Current describe the two runs in the summary's heading
	// (for example a path and a commit); optional.
	Baseline, Current string
	// Notes are sentences to print under the table (for example why a
	// cell is not gated).
	Notes []string
	// Unit names what is gated in the summary: "cell" (default) or "run"
	// (bench compare --gate).
	Unit string
}

// Options configures Compare. The zero value gives the defaults, which are
// bench compare's (compare.Options.SetDefaults: randomization test, Holm,
// α = 0.05, 10,000 permutations and resamples).
type Options struct {
	// Test is the paired test (stats.Tukey is replaced by the randomization
	// test, with a note); Correction is applied over all (cell, metric)
	// comparisons of the gate; Alpha is the significance level, in (0, 1).
	Test       stats.Test
	Correction stats.Correction
	Alpha      float64
	// Permutations and Resamples are the Monte Carlo sample counts of the
	// randomization and bootstrap tests.
	Permutations, Resamples int
	// Seed seeds each comparison's stream (see the package comment).
	Seed uint64
	// UseMaxDrop turns on MaxDrop: a fall of the mean larger than MaxDrop
	// (in the metric's units, finite and ≥ 0: CheckMaxDrop) regresses
	// whatever its p-value.
	UseMaxDrop bool
	MaxDrop    float64
	// Changed is how many queries that got most worse, and most better,
	// the summary lists per cell (on the first metric); default 3.
	Changed int
}

// SetDefaults fills the zero fields of o: the test's with compare's
// defaults (their one owner), Changed with 3.
func (o *Options) SetDefaults() {
	co := compare.Options{Test: o.Test, Correction: o.Correction, Alpha: o.Alpha, Permutations: o.Permutations, Resamples: o.Resamples}
	co.SetDefaults()
	o.Test, o.Correction, o.Alpha, o.Permutations, o.Resamples = co.Test, co.Correction, co.Alpha, co.Permutations, co.Resamples
	if o.Changed == 0 {
		o.Changed = 3
	}
}

// Comparison is the gate's outcome for one cell on one metric.
type Comparison struct {
	Cell, Metric string
	// N is the number of queries both runs scored for this cell.
	N int
	// Baseline and Current are the means over those N queries; Diff is
	// Current − Baseline with its confidence interval [CILow, CIHigh]
	// (stats.Effect: 95% Student-t, or bootstrap percentile; both NaN when
	// undefined, over one query).
	Baseline, Current, Diff, CILow, CIHigh float64
	// P is the test's two-sided p-value; PAdjusted after the correction.
	P, PAdjusted float64
	Verdict      Verdict
	// Reason says why a comparison regressed or improved: "significant",
	// or "drop 0.0239 > max-drop 0.01".
	Reason string
	// Warnings are the test's caveats (stats.Result.Warnings).
	Warnings []string
}

// QueryChange is one query's change in one cell on one metric.
type QueryChange struct {
	QueryID, Text     string
	Baseline, Current float64
}

// Delta is Current − Baseline.
func (q QueryChange) Delta() float64 { return q.Current - q.Baseline }

// CellChanges lists, for one cell on one metric, the queries that got
// most worse (most negative delta first) and most better (most positive
// first); at most Options.Changed each, and only queries that changed.
type CellChanges struct {
	Cell, Metric  string
	Worse, Better []QueryChange
}

// Result is the outcome of Compare.
type Result struct {
	Input   Input
	Options Options // with defaults filled in
	// Comparisons are cell by cell, metrics in Input order.
	Comparisons []Comparison
	// Changes has one entry per (cell, metric), in Comparisons' order.
	Changes []CellChanges
	// Queries is the number of queries shared by both runs (the largest
	// over cells; cells usually share the same queries).
	Queries int
	// Notes are the input's notes and the gate's own (test replaced,
	// queries not shared).
	Notes []string
}

// Regressed reports whether any comparison regressed.
func (r *Result) Regressed() bool { return len(r.RegressedCells()) > 0 }

// RegressedCells lists "cell (metric)" of every regressed comparison.
func (r *Result) RegressedCells() []string {
	var out []string
	for _, c := range r.Comparisons {
		if c.Verdict == Regressed {
			out = append(out, c.Cell+" ("+c.Metric+")")
		}
	}
	return out
}

// CheckMaxDrop is the one rule for Options.MaxDrop (bench run and bench
// compare check their --max-drop flag with it): a finite number ≥ 0, in the
// metric's units. NaN, a negative drop and ±Inf are refused: NaN and a
// negative bound have no meaning, and +Inf (no fall is ever large enough)
// is the gate without --max-drop, so giving it is almost surely a mistake
// (e.g. a CI variable that did not expand to a number).
func CheckMaxDrop(v float64) error {
	if !(v >= 0) || math.IsInf(v, 1) {
		return fmt.Errorf("max-drop must be a finite number ≥ 0 (a fall of the mean in the metric's units, e.g. 0.01), got %g", v)
	}
	return nil
}

// Compare gates in.Cells. Errors: no metrics or no cells, invalid options
// (alpha outside (0, 1), a MaxDrop CheckMaxDrop refuses), a metric missing from a side
// of a cell, a cell with no query scored in both runs, or NaN/±Inf scores
// (naming cell, metric and query).
func Compare(in Input, opt Options) (*Result, error) {
	opt.SetDefaults()
	switch {
	case len(in.Metrics) == 0:
		return nil, errors.New("gate: no metric to compare")
	case len(in.Cells) == 0:
		return nil, errors.New("gate: no cell is present in both the baseline and this run")
	case !(opt.Alpha > 0 && opt.Alpha < 1):
		return nil, fmt.Errorf("gate: alpha must be in (0, 1), got %g", opt.Alpha)
	case opt.UseMaxDrop:
		if err := CheckMaxDrop(opt.MaxDrop); err != nil {
			return nil, fmt.Errorf("gate: %w", err)
		}
	}
	res := &Result{Input: in, Notes: append([]string(nil), in.Notes...)}
	test := opt.Test
	if test == stats.Tukey {
		test = stats.Randomization
		res.Notes = append(res.Notes, "Tukey HSD compares many systems at once; the gate compares each cell with its baseline by the paired randomization test instead.")
	}
	opt.Test = test
	res.Options = opt
	var ps []float64
	for _, cell := range in.Cells {
		for mi, m := range in.Metrics {
			b, okB := cell.Baseline[m]
			c, okC := cell.Current[m]
			if !okB || !okC {
				side := "the baseline"
				if okB {
					side = "this run"
				}
				return nil, fmt.Errorf("gate: cell %s: %s has no %s", cell.Name, side, m)
			}
			ids, onlyOne := shared(b, c)
			if len(ids) == 0 {
				return nil, fmt.Errorf("gate: cell %s: no query is scored in both the baseline and this run", cell.Name)
			}
			if onlyOne > 0 && mi == 0 {
				res.Notes = append(res.Notes, fmt.Sprintf("%s: %d queries are scored in one run only and are left out (%d shared).", cell.Name, onlyOne, len(ids)))
			}
			s := stats.Sample{QueryIDs: ids, A: make([]float64, len(ids)), B: make([]float64, len(ids))}
			for i, id := range ids {
				s.A[i], s.B[i] = c[id], b[id]
			}
			r, err := stats.Paired(test, s, stats.Options{Permutations: opt.Permutations, Resamples: opt.Resamples,
				Alpha: opt.Alpha, Seed: opt.Seed, Stream: stats.Stream(opt.Seed, "gate", cell.Name, m)})
			if err != nil {
				return nil, fmt.Errorf("gate: cell %s, %s: %w", cell.Name, m, err)
			}
			comp := Comparison{Cell: cell.Name, Metric: m, N: r.N,
				Baseline: r.MeanB, Current: r.MeanA, Diff: r.Effect.MeanDiff, CILow: r.Effect.CILow, CIHigh: r.Effect.CIHigh,
				P: r.P, Warnings: r.Warnings}
			if !r.Effect.CIDefined { // one shared query: no interval, printed [–, –]
				comp.CILow, comp.CIHigh = math.NaN(), math.NaN()
			}
			res.Comparisons = append(res.Comparisons, comp)
			ps = append(ps, r.P)
			res.Queries = max(res.Queries, len(ids))
			res.Changes = append(res.Changes, changes(cell.Name, m, ids, b, c, in.Texts, opt.Changed))
		}
	}
	adj, err := stats.Adjust(ps, opt.Correction)
	if err != nil {
		return nil, fmt.Errorf("gate: %w", err)
	}
	for i := range res.Comparisons {
		c := &res.Comparisons[i]
		c.PAdjusted = adj[i]
		c.Verdict, c.Reason = verdict(*c, opt)
	}
	return res, nil
}

// verdict applies the package comment's rules to one comparison.
func verdict(c Comparison, opt Options) (Verdict, string) {
	significant := c.PAdjusted <= opt.Alpha
	switch {
	case c.Diff < 0 && significant:
		return Regressed, "significant"
	case c.Diff < 0 && opt.UseMaxDrop && -c.Diff > opt.MaxDrop:
		return Regressed, fmt.Sprintf("drop %.4f > max-drop %g", -c.Diff, opt.MaxDrop)
	case c.Diff > 0 && significant:
		return Improved, "significant"
	}
	return Unchanged, ""
}

// shared returns the query ids scored in both maps, sorted, and how many
// are scored in only one.
func shared(a, b map[string]float64) ([]string, int) {
	var ids []string
	for id := range a {
		if _, ok := b[id]; ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, len(a) + len(b) - 2*len(ids)
}

// changes picks the n queries of ids that fell most and rose most from b to
// c (ties by query id, so the choice is deterministic).
func changes(cell, metric string, ids []string, b, c map[string]float64, texts map[string]string, n int) CellChanges {
	all := make([]QueryChange, 0, len(ids))
	for _, id := range ids {
		if d := c[id] - b[id]; d != 0 && !math.IsNaN(d) {
			all = append(all, QueryChange{QueryID: id, Text: texts[id], Baseline: b[id], Current: c[id]})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Delta() < all[j].Delta() })
	out := CellChanges{Cell: cell, Metric: metric}
	for i := 0; i < len(all) && i < n && all[i].Delta() < 0; i++ {
		out.Worse = append(out.Worse, all[i])
	}
	for i := len(all) - 1; i >= 0 && len(all)-1-i < n && all[i].Delta() > 0; i-- {
		out.Better = append(out.Better, all[i])
	}
	return out
}
