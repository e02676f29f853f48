// Package gate is ragbench's baseline gate: it tells CI whether a change
// made retrieval worse. Given the per-query scores of a baseline and of the
// current version of the same cells (chunking × retriever, or run files), it
// compares each cell with its baseline counterpart — the cell of the same
// name, or the one a mapping names (a chunking change: fixed-128/bm25 in
// the baseline, fixed-256/bm25 now; see Map) — on each gated metric, over
// the queries both runs scored, through package compare (plan Explicit:
// one pair per cell; compare is the one paired-test-and-correction loop of
// ragbench), and gives each comparison a verdict:
//
//   - regressed: compare's "worse" (the corrected test is significant and
//     the interval lies below 0), or a fall larger than the absolute
//     tolerance Options.MaxDrop (when Options.UseMaxDrop is set);
//   - improved: compare's "better" (never fails);
//   - equivalent (within ±δ): with Options.Equivalence, both one-sided
//     tests (TOST) reject after the correction and the interval lies within
//     ±δ — "no regression" shown, not merely "no significant drop";
//   - unchanged (identical): the same score on every query (a cell served
//     unchanged from the run cache); such comparisons are reported but not
//     counted in the correction, which would only weaken the others;
//   - no evidence either way: anything else (noise never fails).
//
// The test, correction, α, samples, seed and interval are the config's
// significance section (bench run) or bench compare's flags; differences
// are now − baseline with their paired confidence interval (BCa by
// default). Seeding is compare's: comparison (A, B) on metric m draws its
// test from stats.Stream(seed, test, A, B, m) and its bootstrap interval
// from stats.Stream(seed, "interval", A, B, m), where A is the cell's name
// in this run and B its baseline cell's name — with " (baseline)" appended
// when that name is also one of this run's gated cells (always so for an
// unmapped cell). So bench compare --gate --baseline main gives the
// p-values of bench compare --baseline main, and a gate is reproducible
// whatever GOMAXPROCS. Tukey HSD compares many systems at once and has no
// two-system form: the gate then uses the randomization test and says so
// in Result.Notes.
//
// Data flow: Input (from two results.json with their manifests, see
// FromRuns; or from run files, as bench compare builds it) → Compare →
// Result → Result.Markdown (a GitHub-flavoured summary for a pull-request
// comment or $GITHUB_STEP_SUMMARY). Result.Regressed tells the command to
// exit with ExitRegressed.
package gate

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

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

// The verdicts, in the words the summary prints (Equivalent with its
// margin: "equivalent within ±0.02"); all but Regressed and Improved are
// compare's words.
const (
	Regressed  Verdict = "regressed"
	Improved   Verdict = "improved"
	Equivalent         = Verdict(compare.Equivalent)
	NoEvidence         = Verdict(compare.NoEvidence)
	Identical          = Verdict(compare.Identical)
)

// Cell is one gated cell's per-query scores in the baseline and now:
// metric name ("ndcg@10") → query id → value (any finite float; NaN or
// ±Inf is an error naming the query). Name is the cell's name in this
// run; From the baseline cell it is compared with, when another (a mapped
// chunking change; empty: the same name).
type Cell struct {
	Name, From        string
	Baseline, Current map[string]map[string]float64
}

// BaselineName is the baseline cell c is compared with: From, else Name.
func (c Cell) BaselineName() string { return cmp.Or(c.From, c.Name) }

// Uncompared says, when cells exist only in the baseline and only in this
// run — most often a changed chunking, which renames its cells — that
// those changed cells were not compared, naming them and the --gate-map
// that would compare them: a chunking mapping OLD=NEW for each baseline
// chunking whose retrievers all reappear under one new chunking (cell
// names "chunking/retriever"), else a cell mapping when one cell is on
// each side, else --gate-map OLD=NEW. "" when one side has no unmatched
// cell (a cell only added, or only dropped, is no change to gate).
func (in Input) Uncompared() string {
	if len(in.OnlyBaseline) == 0 || len(in.OnlyCurrent) == 0 {
		return ""
	}
	split := func(cell string) (chunking, retriever string) {
		c, r, ok := strings.Cut(cell, "/")
		if !ok {
			return "", cell
		}
		return c, r
	}
	// baseline chunking → the new chunkings holding its retrievers
	targets := map[string]map[string]bool{}
	var order []string
	for _, b := range in.OnlyBaseline {
		bc, br := split(b)
		if bc == "" {
			continue
		}
		if targets[bc] == nil {
			targets[bc] = map[string]bool{}
			order = append(order, bc)
		}
		for _, c := range in.OnlyCurrent {
			if cc, cr := split(c); cc != "" && cr == br && cc != bc {
				targets[bc][cc] = true
			}
		}
	}
	var maps []string
	for _, bc := range order {
		if len(targets[bc]) == 1 {
			for cc := range targets[bc] {
				maps = append(maps, "--gate-map "+bc+"="+cc)
			}
		}
	}
	switch {
	case len(maps) > 0:
	case len(in.OnlyBaseline) == 1 && len(in.OnlyCurrent) == 1:
		maps = []string{"--gate-map " + in.OnlyBaseline[0] + "=" + in.OnlyCurrent[0]}
	default:
		maps = []string{"--gate-map OLD=NEW"}
	}
	return fmt.Sprintf("the changed cells were not compared (%s in the baseline only; %s new in this run): to gate them, add %s (docs/ci.md)",
		strings.Join(in.OnlyBaseline, ", "), strings.Join(in.OnlyCurrent, ", "), strings.Join(maps, " "))
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
// α = 0.05, 10,000 permutations and resamples, BCa intervals).
type Options struct {
	// Test is the paired test (stats.Tukey is replaced by the randomization
	// test, with a note); Correction is applied over all counted (cell,
	// metric) comparisons of the gate (identical ones aside); Alpha is the
	// significance level, in (0, 1).
	Test       stats.Test
	Correction stats.Correction
	Alpha      float64
	// Permutations and Resamples are the Monte Carlo sample counts of the
	// randomization test and of the bootstrap test and intervals.
	Permutations, Resamples int
	// Seed seeds each comparison's streams (see the package comment).
	Seed uint64
	// Interval is the method of each difference's 95 % interval (default
	// stats.BCa, paired bootstrap).
	Interval stats.IntervalMethod
	// Equivalence is the margin δ ≥ 0 of the equivalence tests: a
	// comparison within ±δ is "equivalent" (0: no equivalence test).
	Equivalence float64
	// Detect is the difference whose required number of queries the
	// summary gives (0: none).
	Detect float64
	// UseMaxDrop turns on MaxDrop: a fall of the mean larger than MaxDrop
	// (in the metric's units, finite and ≥ 0: CheckMaxDrop) regresses
	// whatever its test.
	UseMaxDrop bool
	MaxDrop    float64
	// Changed is how many queries that got most worse, and most better,
	// the summary lists per cell (on the first metric); default 3.
	Changed int
}

// SetDefaults fills the zero fields of o: the test's with compare's
// defaults (their one owner), Changed with 3.
func (o *Options) SetDefaults() {
	co := compare.Options{Test: o.Test, Correction: o.Correction, Alpha: o.Alpha, Permutations: o.Permutations, Resamples: o.Resamples, Interval: o.Interval}
	co.SetDefaults()
	o.Test, o.Correction, o.Alpha, o.Permutations, o.Resamples, o.Interval = co.Test, co.Correction, co.Alpha, co.Permutations, co.Resamples, co.Interval
	if o.Changed == 0 {
		o.Changed = 3
	}
}

// Comparison is the gate's outcome for one cell on one metric.
type Comparison struct {
	// Cell is the cell's name in this run, From its baseline cell's.
	Cell, From, Metric string
	// N is the number of queries compared.
	N int
	// Baseline and Current are the means over those N queries; Diff is
	// Current − Baseline with its 95 % interval [CILow, CIHigh]
	// (Options.Interval) when CIDefined (N ≥ 2; else both 0).
	Baseline, Current, Diff, CILow, CIHigh float64
	CIDefined                              bool
	// P is the test's two-sided p-value; PAdjusted after the correction
	// (1 when not Counted). Identical: the same score on every query (not
	// Counted in the correction).
	P, PAdjusted       float64
	Identical, Counted bool
	// PEquivalence is the TOST's corrected p (1 without a margin).
	PEquivalence float64
	Verdict      Verdict
	// Reason says why a comparison regressed or improved: "significant",
	// or "drop 0.0239 > max-drop 0.01".
	Reason string
	// Warnings are the comparison's caveats (compare.Pair.Warnings).
	Warnings []string
	// Floor says why no verdict was reachable: too few queries differ
	// (compare.Pair.Floor, stats.FewDifferNote); printed beside the table.
	Floor string
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
	// Queries is the number of queries compared (those every gated cell
	// scored in both runs).
	Queries int
	// Counted is the number of comparisons the correction covers,
	// Identical the number left out as identical.
	Counted, Identical int
	// Sentences are compare's sentences for the summary: the plan and its
	// number of comparisons, the intervals, the equivalence tests, then
	// what the set can show per metric ("What …").
	Sentences []string
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

// Compare gates in.Cells: one paired comparison per (cell, metric), cell
// now − its baseline cell, through compare.Compare (package comment).
// Errors: no metrics or no cells, invalid options (alpha outside (0, 1), a
// MaxDrop CheckMaxDrop refuses, a bad margin), a metric missing from a
// side of a cell, a cell with no query scored in both runs, no query that
// every cell scored in both runs, or NaN/±Inf scores (naming cell, metric
// and query).
func Compare(in Input, opt Options) (*Result, error) {
	opt.SetDefaults()
	switch {
	case len(in.Metrics) == 0:
		return nil, errors.New("gate: no metric to compare")
	case len(in.Cells) == 0:
		return nil, errors.New("gate: no cell is present in both the baseline and this run (a changed chunking? map the baseline's cells to this run's: bench run --gate-map OLD=NEW, docs/ci.md)")
	case !(opt.Alpha > 0 && opt.Alpha < 1):
		return nil, fmt.Errorf("gate: alpha must be in (0, 1), got %g", opt.Alpha)
	case opt.UseMaxDrop:
		if err := CheckMaxDrop(opt.MaxDrop); err != nil {
			return nil, fmt.Errorf("gate: %w", err)
		}
	}
	res := &Result{Input: in, Notes: append([]string(nil), in.Notes...)}
	if opt.Test == stats.Tukey {
		opt.Test = stats.Randomization
		res.Notes = append(res.Notes, "Tukey HSD compares many systems at once; the gate compares each cell with its baseline by the paired randomization test instead.")
	}
	res.Options = opt
	ids, err := res.queries()
	if err != nil {
		return nil, err
	}
	cin, pairs := compareInput(in, ids)
	unit := cmp.Or(in.Unit, "cell")
	rep, err := compare.Compare(cin, compare.Options{Test: opt.Test, Correction: opt.Correction, Alpha: opt.Alpha,
		Permutations: opt.Permutations, Resamples: opt.Resamples, Seed: opt.Seed, Interval: opt.Interval,
		Equivalence: opt.Equivalence, Detect: opt.Detect, Noun: unit,
		Plan: compare.Plan{Kind: compare.Explicit, Pairs: pairs, Description: "each " + unit + " against its baseline counterpart"}})
	if err != nil {
		return nil, fmt.Errorf("gate: %w", err)
	}
	res.Counted, res.Identical = rep.Comparisons, rep.Identical
	for _, w := range rep.Warnings { // fewer than 20 queries, …
		res.Notes = append(res.Notes, "Warning: "+w+".")
	}
	// "Gate plan:", not "Plan:": bench run prints the sweep's own plan
	// too, and this one decides the exit code.
	res.Sentences = append(res.Sentences, "Gate plan (decides the exit code): "+strings.TrimPrefix(rep.PlanSentence(), "Plan: "))
	for _, s := range rep.Summary() {
		if strings.HasPrefix(s, "Intervals: ") || strings.HasPrefix(s, "Equivalence: ") || strings.HasPrefix(s, "What ") {
			res.Sentences = append(res.Sentences, s)
		}
	}
	// rep.Pairs are metric by metric, cells in order within each.
	for ci, cell := range in.Cells {
		for mi, m := range in.Metrics {
			p := rep.Pairs[mi*len(in.Cells)+ci]
			c := Comparison{Cell: cell.Name, From: cell.BaselineName(), Metric: m, N: p.N, Baseline: p.MeanB, Current: p.MeanA,
				Diff: p.Effect.MeanDiff, CILow: p.CI.Low, CIHigh: p.CI.High, CIDefined: p.CI.Defined,
				P: p.P, PAdjusted: p.PAdjusted, Identical: p.Identical, Counted: p.Counted, PEquivalence: p.PEquivalenceAdjusted, Warnings: p.Warnings, Floor: p.Floor}
			c.Verdict, c.Reason = verdict(p, opt)
			res.Comparisons = append(res.Comparisons, c)
			res.Changes = append(res.Changes, changes(cell.Name, m, ids[m], cell.Baseline[m], cell.Current[m], in.Texts, opt.Changed))
		}
	}
	return res, nil
}

// queries checks every cell's scores and returns, per metric, the query
// ids every cell scored in both runs (sorted; res.Queries is their
// largest number), noting the cells that scored queries in one run only.
func (res *Result) queries() (map[string][]string, error) {
	in := res.Input
	ids := map[string][]string{}
	for mi, m := range in.Metrics {
		var common map[string]bool
		for _, cell := range in.Cells {
			b, okB := cell.Baseline[m]
			c, okC := cell.Current[m]
			if !okB || !okC {
				side := "the baseline"
				if okB {
					side = "this run"
				}
				return nil, fmt.Errorf("gate: cell %s: %s has no %s", cell.Name, side, m)
			}
			for _, side := range []map[string]float64{b, c} {
				for _, q := range slices.Sorted(maps.Keys(side)) {
					if v := side[q]; math.IsNaN(v) || math.IsInf(v, 0) {
						return nil, fmt.Errorf("gate: cell %s, %s: query %q: score is %v", cell.Name, m, q, v)
					}
				}
			}
			sh, onlyOne := shared(b, c)
			if len(sh) == 0 {
				return nil, fmt.Errorf("gate: cell %s: no query is scored in both the baseline and this run", cell.Name)
			}
			if onlyOne > 0 && mi == 0 {
				res.Notes = append(res.Notes, fmt.Sprintf("%s: %d queries are scored in one run only and are left out (%d shared).", cell.Name, onlyOne, len(sh)))
			}
			if common == nil {
				common = map[string]bool{}
				for _, q := range sh {
					common[q] = true
				}
				continue
			}
			keep := map[string]bool{}
			for _, q := range sh {
				if common[q] {
					keep[q] = true
				}
			}
			common = keep
		}
		if len(common) == 0 {
			return nil, fmt.Errorf("gate: %s: no query is scored by every cell in both the baseline and this run", m)
		}
		ids[m] = slices.Sorted(maps.Keys(common))
		res.Queries = max(res.Queries, len(ids[m]))
	}
	return ids, nil
}

// compareInput is compare's Input for the gate: this run's cells under
// their names and the baseline cells under theirs (" (baseline)" appended
// when this run gates a cell of that name), each restricted to the
// metric's common queries, and the pairs (cell, its baseline cell).
func compareInput(in Input, ids map[string][]string) (compare.Input, [][2]string) {
	current := map[string]bool{}
	for _, c := range in.Cells {
		current[c.Name] = true
	}
	baseName := func(c Cell) string {
		if b := c.BaselineName(); !current[b] {
			return b
		}
		return c.BaselineName() + " (baseline)"
	}
	out := compare.Input{Metrics: in.Metrics, Scores: compare.Scores{}}
	restrict := func(scores map[string]map[string]float64) map[string]map[string]float64 {
		r := map[string]map[string]float64{}
		for _, m := range in.Metrics {
			r[m] = make(map[string]float64, len(ids[m]))
			for _, q := range ids[m] {
				r[m][q] = scores[m][q]
			}
		}
		return r
	}
	var pairs [][2]string
	for _, c := range in.Cells {
		b := baseName(c)
		out.Systems = append(out.Systems, c.Name)
		out.Scores[c.Name] = restrict(c.Current)
		if _, ok := out.Scores[b]; !ok {
			out.Systems = append(out.Systems, b)
			out.Scores[b] = restrict(c.Baseline)
		}
		pairs = append(pairs, [2]string{c.Name, b})
	}
	return out, pairs
}

// verdict is the gate's verdict on compare's pair p (now − baseline): the
// package comment's rules, --max-drop first.
func verdict(p compare.Pair, opt Options) (Verdict, string) {
	d := p.Effect.MeanDiff
	switch {
	case p.Verdict == compare.Worse:
		return Regressed, "significant"
	case d < 0 && opt.UseMaxDrop && -d > opt.MaxDrop:
		return Regressed, fmt.Sprintf("drop %.4f > max-drop %g", -d, opt.MaxDrop)
	case p.Verdict == compare.Better:
		return Improved, "significant"
	case p.Verdict == compare.Equivalent:
		return Equivalent, ""
	case p.Verdict == compare.Identical:
		return Identical, ""
	}
	return NoEvidence, ""
}

// VerdictText is c's verdict in words ("equivalent within ±0.02").
func (r *Result) VerdictText(c Comparison) string {
	if c.Verdict == Equivalent {
		return fmt.Sprintf("equivalent within ±%g", r.Options.Equivalence)
	}
	return string(c.Verdict)
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
