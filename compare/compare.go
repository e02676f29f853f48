// Package compare builds ragbench's comparison report: given per-query
// scores of N systems on one or more metrics, it runs a paired significance
// test (package stats) on every pair of systems (or every system against a
// baseline) and metric, corrects the p-values for multiple comparisons over
// the whole report, and renders a ranx-style table — a row per system, a
// column per metric, superscript letters marking the systems a system beats
// significantly — as a terminal table, Markdown, LaTeX, CSV or JSON.
//
// Data flow: Input (ordered system and metric names, per-query score
// matrix) → Compare (align queries, run tests in parallel into preallocated
// slots, adjust p-values) → Report → Write (one of the Formats).
package compare

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ragbench/ragbench/stats"
)

// Scores holds per-query scores: system name → metric name → query id →
// score (any finite float64; NaN or ±Inf is an error naming the query).
type Scores map[string]map[string]map[string]float64

// Input is what Compare compares.
type Input struct {
	// Systems are the system names in report order. Row i of the table is
	// Systems[i] and its letter is the i-th of a, b, c, … At least one.
	Systems []string
	// Metrics are the metric names (for example "ndcg@10") in column order.
	// At least one.
	Metrics []string
	// Scores must hold every (system, metric) listed; see Options.MissingAsZero
	// for queries that some systems lack.
	Scores Scores
	// Queries, when not empty, are the query ids every system must cover
	// (for example the qrels' queries with a relevant doc): a query that
	// every system lacks is then missing too, and counts ("lacks 2 of 3
	// queries") are out of len(Queries). A score for a query outside
	// Queries is an error. When empty, the queries are the union of the
	// systems' query ids.
	Queries []string
}

// Options configures Compare. The zero value gives the defaults (package
// stats owns them: stats.DefaultTest, stats.DefaultCorrection, ...).
type Options struct {
	// Test is the paired test; default stats.DefaultTest (randomization).
	Test stats.Test
	// Correction is the multiple-comparison correction applied over every
	// counted comparison of the report (the plan's comparisons × all
	// metrics, identical ones aside); default stats.DefaultCorrection
	// (Holm). Ignored (none) for stats.Tukey, which controls the
	// family-wise error rate itself.
	Correction stats.Correction
	// Alpha is the significance level: a comparison is significant when its
	// adjusted p-value is ≤ Alpha. Default 0.05, must be in (0, 1).
	Alpha float64
	// Permutations is the number of Monte Carlo permutations
	// (randomization, Tukey HSD); default stats.DefaultPermutations.
	Permutations int
	// Resamples is the number of bootstrap resamples, of the bootstrap
	// test and of every comparison's interval; default
	// stats.DefaultResamples.
	Resamples int
	// Seed is the global seed. Each comparison draws from its own streams
	// derived from Seed, the test, the two system names and the metric
	// (stats.Stream), so results do not depend on Workers or GOMAXPROCS.
	Seed uint64
	// Plan chooses the comparisons (see Plan; the zero Plan is the
	// behaviour from before plans).
	Plan Plan
	// Baseline, with the zero Plan only, compares every other system
	// against this one (A the baseline, B the other); otherwise every pair
	// is compared. Deprecated: set Plan{Kind: VsBaseline, Baseline: ...}.
	Baseline string
	// Interval is the method of each comparison's confidence interval
	// (Pair.CI): stats.BCa (default), stats.Percentile (paired bootstrap)
	// or stats.StudentT. The zero Plan always uses stats.StudentT.
	Interval stats.IntervalMethod
	// Equivalence is the margin δ > 0 of the equivalence tests (TOST): a
	// comparison is "equivalent within ±δ" when both one-sided tests
	// reject after the correction. 0: no equivalence test.
	Equivalence float64
	// Detect is the difference whose required number of queries the
	// report gives (Pair.Needed, PowerSummary.Needed), in the metrics'
	// units; 0: none.
	Detect float64
	// Noun is what the report's sentences call a compared system ("cell"
	// in the sweep's report); default "system".
	Noun string
	// MissingAsZero scores 0 for a query that a system lacks but another
	// system has (trec_eval -c); the count is reported as a warning.
	// Otherwise missing queries are an error listing them.
	MissingAsZero bool
	// Workers is the number of comparisons run at once; default
	// runtime.GOMAXPROCS(0).
	Workers int
	// Context, when not nil, stops Compare early: no comparison starts
	// once it is done, the running ones stop within milliseconds
	// (stats.Options.Context), and Compare returns its error. It is not
	// kept in Report.Options.
	Context context.Context
}

// SetDefaults fills the zero fields of o with the documented defaults.
func (o *Options) SetDefaults() {
	if o.Test == "" {
		o.Test = stats.DefaultTest
	}
	if o.Correction == "" {
		o.Correction = stats.DefaultCorrection
	}
	if o.Alpha == 0 {
		o.Alpha = stats.DefaultAlpha
	}
	if o.Permutations == 0 {
		o.Permutations = stats.DefaultPermutations
	}
	if o.Resamples == 0 {
		o.Resamples = stats.DefaultResamples
	}
	if o.Interval == "" {
		o.Interval = stats.BCa
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
}

// check validates the options after SetDefaults.
func (o Options) check() error {
	if err := stats.CheckResamples(o.Resamples); err != nil {
		return err
	}
	switch {
	case !(o.Alpha > 0 && o.Alpha < 1):
		return fmt.Errorf("alpha: must be in (0, 1), got %g", o.Alpha)
	case !(o.Equivalence >= 0) || math.IsInf(o.Equivalence, 0):
		return fmt.Errorf("equivalence margin: must be a finite number ≥ 0, got %v", o.Equivalence)
	case !(o.Detect >= 0) || math.IsInf(o.Detect, 0):
		return fmt.Errorf("difference to detect: must be a finite number ≥ 0, got %v", o.Detect)
	case o.Plan.Kind != "" && o.Baseline != "":
		return errors.New("baseline: set Plan.Baseline, not Options.Baseline, with a plan")
	}
	_, err := stats.ParseIntervalMethod(string(o.Interval))
	return err
}

// Verdict is a comparison's conclusion in words, from its interval and its
// corrected tests.
type Verdict string

// The verdicts of a comparison of A against B.
const (
	// Better: A − B is significant after the correction and its interval
	// lies above 0.
	Better Verdict = "better"
	// Worse: significant after the correction, the interval below 0.
	Worse Verdict = "worse"
	// Equivalent: within ±Options.Equivalence: the corrected TOST rejects
	// and the interval lies inside [−δ, δ].
	Equivalent Verdict = "equivalent"
	// NoEvidence: neither a difference nor (without a margin, or not
	// shown) equivalence.
	NoEvidence Verdict = "no evidence either way"
	// Identical: the same score on every query; not counted in the
	// correction.
	Identical Verdict = "unchanged (identical)"
)

// Pair is one comparison of system A against system B on one metric.
// Differences are A − B. Every number is finite (undefined ones are 0 and
// flagged).
type Pair struct {
	// A and B are the system names (see PlanKind for which is which),
	// Metric the metric name.
	A, B, Metric string
	// N is the number of queries compared.
	N int
	// MeanA and MeanB are the systems' mean scores over the N queries.
	MeanA, MeanB float64
	// Statistic is the test statistic (see stats.Result.Statistic).
	Statistic float64
	// P is the raw two-sided p-value; PAdjusted the p-value after the
	// report's correction (1 for a comparison not counted); Significant is
	// PAdjusted ≤ Alpha.
	P, PAdjusted float64
	Significant  bool
	// Exact reports an exact p-value; Samples the Monte Carlo sample count.
	Exact   bool
	Samples int
	// Effect holds mean difference, its t-interval, d_z, wins/ties/losses
	// and the MDD at the uncorrected α (stats.Effect).
	Effect stats.Effect
	// CI is the confidence interval of A − B the report shows: the paired
	// bootstrap interval (Options.Interval, Options.Resamples resamples,
	// seeded per comparison), or the Student-t one (stats.StudentT).
	CI stats.Interval
	// Identical reports that A and B score the same on every query; such a
	// comparison is not Counted (except under the zero Plan).
	Identical bool
	// Counted reports that the comparison is in the correction's family.
	Counted bool
	// Equivalence is the TOST of ±Options.Equivalence (zero when no
	// margin); PEquivalenceAdjusted its p after the report's correction.
	Equivalence          stats.Equivalence
	PEquivalenceAdjusted float64
	// MDD is the minimum detectable difference at 80 % power at the plan's
	// per-comparison level (stats.PlanAlpha over the counted comparisons);
	// 0 when undefined (N < 2) or without per-query variance.
	MDD float64
	// Needed is the number of queries needed to detect Options.Detect at
	// 80 % power at the plan's level (stats.SampleSize); 0 when not
	// computed (no Detect, N < 2, or beyond a million).
	Needed int
	// Verdict is the comparison's conclusion (Better, Worse, Equivalent,
	// NoEvidence, Identical).
	Verdict Verdict
	// Floor says why a counted comparison with no verdict could not have
	// one: only a few queries differ, and the randomization test's
	// smallest p is above the level (stats.FewDifferNote); also in
	// Warnings, named by the pair. "" otherwise.
	Floor string
	// Warnings lists caveats of this comparison.
	Warnings []string
}

// MDDSummary summarizes the minimum detectable differences (80% power) of
// one metric's comparisons: median, min and max over its pairs with a
// defined MDD.
type MDDSummary struct {
	// Metric is the metric name; N its number of queries; Pairs the number
	// of comparisons with a defined MDD (n ≥ 2).
	Metric   string
	N, Pairs int
	// Median, Min and Max of the pairs' MDDs, in the metric's units (0 when
	// Pairs = 0).
	Median, Min, Max float64
}

// PowerSummary is what one metric's set of queries can show under the
// report's plan: the minimum detectable difference at 80 % power and the
// queries needed to detect Options.Detect, at the plan's per-comparison
// level, from the counted comparisons with per-query variance.
type PowerSummary struct {
	// Metric is the metric name; N its number of queries.
	Metric string
	N      int
	// Counted is the number of the metric's counted comparisons; Flat how
	// many of them have no per-query variance (no MDD).
	Counted, Flat int
	// Alpha is the per-comparison level (stats.PlanAlpha over all counted
	// comparisons of the report).
	Alpha float64
	// MDD, MDDMin and MDDMax: median, min and max over the counted
	// comparisons with variance (0 when none).
	MDD, MDDMin, MDDMax float64
	// SD is the median standard deviation of the per-query differences
	// over the same comparisons.
	SD float64
	// Detect is Options.Detect; Needed the queries needed to detect it
	// with the median SD (0: not computed or beyond a million).
	Detect float64
	Needed int
	// Floor is stats.FewDifferNote for the counted comparison with the
	// most differing queries: when even that one cannot reach
	// significance, none can, whatever the MDD says ("" otherwise).
	Floor string
}

// Report is the outcome of Compare.
type Report struct {
	// Systems, Letters and Metrics: row names, their labels (Labels), column
	// names.
	Systems, Letters, Metrics []string
	// Means[s][m] is the mean of Systems[s] on Metrics[m]; Queries[m] the
	// number of queries of Metrics[m].
	Means   [][]float64
	Queries []int
	// Beats[s][m] lists the indexes of the systems that Systems[s] beats
	// significantly on Metrics[m] (higher mean, adjusted p ≤ Alpha).
	Beats [][][]int
	// Ties[m] lists the systems tied at the highest mean of Metrics[m] when
	// two or more are (nil otherwise).
	Ties [][]int
	// Options holds the options used, with defaults filled in.
	Options Options
	// Plan is the plan used (Options.Plan, or the one the zero Plan stands
	// for); Reference[m] the index of Metrics[m]'s reference system
	// (baseline or best; -1 for all pairs).
	Plan      Plan
	Reference []int
	// Comparisons is the number of comparisons covered by the correction
	// (the counted ones); Identical the number of comparisons left out as
	// identical.
	Comparisons, Identical int
	// Pairs are the comparisons, metric by metric, in plan order.
	Pairs []Pair
	// MDD has one summary per metric at the uncorrected α.
	MDD []MDDSummary
	// Power has one summary per metric at the plan's level.
	Power []PowerSummary
	// Warnings are report-wide caveats (missing queries scored 0, a single
	// system, a correction ignored by Tukey HSD, fewer than
	// stats.SmallSample queries).
	Warnings []string
}

// Labels returns the labels of n systems in report order: a, b, …, z for
// up to 26 systems, else 1, 2, …, n — numbers, so that a run of
// superscripts ("1,12") cannot be misread as other systems ("ah" read as a
// and h).
func Labels(n int) []string {
	out := make([]string, n)
	for i := range out {
		if n <= 26 {
			out[i] = string(rune('a' + i))
		} else {
			out[i] = strconv.Itoa(i + 1)
		}
	}
	return out
}

// Compare runs the tests and builds the Report. Errors: no systems or
// metrics, duplicate names, an unknown baseline or plan pair, a (system,
// metric) without scores, missing queries (unless MissingAsZero; the error
// lists them), NaN or infinite scores (naming system, metric and query),
// invalid options, or opt.Context's error (as is) when it was cancelled.
// A single system is not an error: the report has no pairs and says so.
func Compare(in Input, opt Options) (*Report, error) {
	opt.SetDefaults()
	if err := opt.check(); err != nil {
		return nil, err
	}
	if err := checkInput(in); err != nil {
		return nil, err
	}
	if opt.Test == stats.Tukey && opt.Correction != stats.None {
		opt.Correction = stats.None
	}
	ctx := opt.Context
	if ctx == nil {
		ctx = context.Background()
	}
	opt.Context = nil // a report does not keep its caller's context
	r, ids, mats, err := newReport(in, opt)
	if err != nil {
		return nil, err
	}
	legacyBase := slices.Index(in.Systems, opt.Baseline)
	if opt.Baseline != "" && legacyBase < 0 {
		return nil, fmt.Errorf("baseline %q is not among the systems (%s)", opt.Baseline, strings.Join(in.Systems, ", "))
	}
	tasks, ref, err := r.Plan.tasks(in.Systems, len(in.Metrics), r.Means, legacyBase)
	if err != nil {
		return nil, err
	}
	r.Reference = ref
	if len(in.Systems) == 1 {
		tasks = nil
	}
	if err := r.runTasks(ctx, tasks, ids, mats); err != nil {
		return nil, err
	}
	if err := r.correct(tasks); err != nil {
		return nil, err
	}
	r.summarize()
	return r, nil
}

// checkInput checks that in has systems and metrics, each named once.
func checkInput(in Input) error {
	if len(in.Systems) == 0 {
		return errors.New("no systems to compare")
	}
	if len(in.Metrics) == 0 {
		return errors.New("no metrics to compare")
	}
	if d := firstDuplicate(in.Systems); d != "" {
		return fmt.Errorf("system %q given twice", d)
	}
	if d := firstDuplicate(in.Metrics); d != "" {
		return fmt.Errorf("metric %q given twice", d)
	}
	return nil
}

// newReport aligns the queries of every metric (ids[m], score matrices
// mats[m][s][q]) and starts the report: labels, means, ties, plan,
// report-wide warnings.
func newReport(in Input, opt Options) (*Report, [][]string, [][][]float64, error) {
	r := &Report{Systems: in.Systems, Metrics: in.Metrics, Options: opt, Letters: Labels(len(in.Systems)), Plan: opt.Plan}
	if r.Plan.Kind == "" {
		// Before plans: the sweep's report, which shows no interval yet,
		// needs no resampling.
		r.Plan.Baseline, r.Options.Interval = opt.Baseline, stats.StudentT
	}
	if len(in.Systems) == 1 {
		r.Warnings = append(r.Warnings, "only one system: nothing to compare")
	}
	if opt.Test == stats.Tukey {
		r.Warnings = append(r.Warnings, "randomized Tukey HSD controls the family-wise error rate over all pairs of a metric itself: no further correction")
	}
	mats := make([][][]float64, len(in.Metrics))
	ids := make([][]string, len(in.Metrics))
	r.Queries = make([]int, len(in.Metrics))
	for m, metric := range in.Metrics {
		var err error
		ids[m], mats[m], err = align(in, metric, opt.MissingAsZero, &r.Warnings)
		if err != nil {
			return nil, nil, nil, err
		}
		r.Queries[m] = len(ids[m])
		if w := stats.SmallSampleWarning(len(ids[m]), metric); w != "" && len(in.Systems) > 1 {
			r.Warnings = append(r.Warnings, w)
		}
	}
	r.Means = make([][]float64, len(in.Systems))
	for s := range in.Systems {
		r.Means[s] = make([]float64, len(in.Metrics))
		for m := range in.Metrics {
			r.Means[s][m] = mean(mats[m][s])
		}
	}
	for m := range in.Metrics {
		r.Ties = append(r.Ties, topTies(r.Means, m))
	}
	return r, ids, mats, nil
}

// mean is the arithmetic mean of x (0 for none).
func mean(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	sum := 0.0
	for _, v := range x {
		sum += v
	}
	return sum / float64(len(x))
}

// runTasks runs every comparison into its own preallocated slot of
// r.Pairs, in parallel: the Tukey HSD families first (one per metric),
// then each pair's test, interval and equivalence test.
func (r *Report) runTasks(ctx context.Context, tasks []task, ids [][]string, mats [][][]float64) error {
	opt := r.Options
	r.Pairs = make([]Pair, len(tasks))
	errs := make([]error, len(tasks))
	sopt := stats.Options{Permutations: opt.Permutations, Resamples: opt.Resamples, Alpha: opt.Alpha, Seed: opt.Seed, Workers: opt.Workers, Context: ctx}
	var hsd []*stats.HSD
	if opt.Test == stats.Tukey && len(tasks) > 0 {
		hsd = make([]*stats.HSD, len(r.Metrics))
		herr := make([]error, len(r.Metrics))
		parallel(len(r.Metrics), opt.Workers, func(m int) {
			if ctx.Err() != nil {
				return
			}
			o := sopt
			o.Stream = stats.Stream(opt.Seed, string(opt.Test), r.Metrics[m])
			hsd[m], herr[m] = stats.TukeyHSD(r.Systems, ids[m], mats[m], o)
		})
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := errors.Join(herr...); err != nil {
			return err
		}
	}
	parallel(len(tasks), opt.Workers, func(i int) {
		if ctx.Err() != nil {
			return // Compare returns the context's error
		}
		t := tasks[i]
		sample := stats.Sample{QueryIDs: ids[t.m], A: mats[t.m][t.a], B: mats[t.m][t.b]}
		var h *stats.HSD
		if hsd != nil {
			h = hsd[t.m]
		}
		r.Pairs[i], errs[i] = r.comparePair(t, sample, sopt, h)
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// comparePair runs one comparison: the test (or the HSD family's p), the
// bootstrap interval and, with a margin, the equivalence test.
func (r *Report) comparePair(t task, sample stats.Sample, sopt stats.Options, hsd *stats.HSD) (Pair, error) {
	opt := r.Options
	a, b, metric := r.Systems[t.a], r.Systems[t.b], r.Metrics[t.m]
	wrap := func(err error) error { return fmt.Errorf("%s vs %s, %s: %w", a, b, metric, err) }
	o := sopt
	o.Stream = stats.Stream(opt.Seed, string(opt.Test), a, b, metric)
	var res stats.Result
	var err error
	if hsd != nil {
		res, err = stats.Describe(sample, o)
		res.Test, res.Statistic, res.Exact, res.Samples = stats.Tukey, res.Effect.MeanDiff, false, hsd.Samples
		if err == nil {
			res.P = hsd.P[t.a][t.b]
		}
	} else {
		res, err = stats.Paired(opt.Test, sample, o)
	}
	if err != nil {
		return Pair{}, wrap(err)
	}
	p := Pair{
		A: a, B: b, Metric: metric, N: res.N,
		MeanA: res.MeanA, MeanB: res.MeanB, Statistic: res.Statistic, P: res.P,
		Exact: res.Exact, Samples: res.Samples, Effect: res.Effect, Warnings: res.Warnings,
		Identical: res.N > 0 && res.Effect.Ties == res.N,
	}
	switch {
	case opt.Interval == stats.StudentT:
		p.CI = stats.TInterval(res.Effect, stats.DefaultConfidence)
	default:
		o.Stream = stats.Stream(opt.Seed, "interval", a, b, metric)
		if p.CI, err = stats.BootstrapInterval(sample, opt.Interval, o); err != nil {
			return Pair{}, wrap(err)
		}
	}
	p.PEquivalenceAdjusted = 1
	if opt.Equivalence > 0 {
		if p.Equivalence, err = stats.TOST(sample, opt.Equivalence); err != nil {
			return Pair{}, wrap(err)
		}
	}
	return p, nil
}

// correct adjusts the counted comparisons' p-values (and equivalence
// p-values) under the report's correction, then sets each pair's verdict,
// the plan-level MDD and sample size, and Beats.
func (r *Report) correct(tasks []task) error {
	opt := r.Options
	var counted []int
	for i := range r.Pairs {
		p := &r.Pairs[i]
		p.Counted = !p.Identical || r.Plan.Kind == ""
		p.PAdjusted = 1
		if p.Counted {
			counted = append(counted, i)
		} else {
			r.Identical++
		}
	}
	r.Comparisons = len(counted)
	ps, pe := make([]float64, len(counted)), make([]float64, len(counted))
	for k, i := range counted {
		ps[k], pe[k] = r.Pairs[i].P, r.Pairs[i].Equivalence.P
	}
	adj, err := stats.Adjust(ps, opt.Correction)
	if err != nil {
		return err
	}
	adjE, err := stats.Adjust(pe, opt.Correction)
	if err != nil {
		return err
	}
	for k, i := range counted {
		r.Pairs[i].PAdjusted = adj[k]
		if opt.Equivalence > 0 {
			r.Pairs[i].PEquivalenceAdjusted = adjE[k]
		}
	}
	level := stats.PlanAlpha(opt.Alpha, r.Comparisons, opt.Correction)
	r.Beats = make([][][]int, len(r.Systems))
	for s := range r.Beats {
		r.Beats[s] = make([][]int, len(r.Metrics))
	}
	for i := range r.Pairs {
		p := &r.Pairs[i]
		p.Significant = p.PAdjusted <= opt.Alpha
		p.Verdict = r.verdict(p)
		if p.Counted && p.Verdict == NoEvidence {
			if note := stats.FewDifferNote(opt.Test, p.Effect.Wins+p.Effect.Losses, r.Comparisons, opt.Alpha, opt.Correction); note != "" {
				p.Floor = note
				p.Warnings = append(p.Warnings, fmt.Sprintf("%s vs %s, %s: %s", p.A, p.B, p.Metric, note))
			}
		}
		p.MDD = stats.MDD(p.N, p.Effect.SD, level, stats.DefaultPower)
		if opt.Detect > 0 && p.N >= 2 {
			p.Needed, _ = stats.SampleSize(opt.Detect, p.Effect.SD, level, stats.DefaultPower)
		}
		t := tasks[i]
		switch {
		case !p.Significant:
		case p.MeanA > p.MeanB:
			r.Beats[t.a][t.m] = append(r.Beats[t.a][t.m], t.b)
		case p.MeanB > p.MeanA:
			r.Beats[t.b][t.m] = append(r.Beats[t.b][t.m], t.a)
		}
	}
	for s := range r.Beats {
		for m := range r.Beats[s] {
			sort.Ints(r.Beats[s][m])
		}
	}
	return nil
}

// verdict is p's conclusion: Identical; Better or Worse when the corrected
// test is significant and the interval lies on the same side of 0 (a
// significant test whose interval covers 0 — the two methods disagreeing
// at the edge — is no evidence, with a warning); Equivalent when the
// corrected TOST shows it and the interval lies within ±δ (so that the
// verdict never contradicts the interval printed beside it); else
// NoEvidence.
func (r *Report) verdict(p *Pair) Verdict {
	switch {
	case p.Identical:
		return Identical
	case p.Significant && p.CI.Defined && p.CI.Low > 0 && p.MeanA > p.MeanB:
		return Better
	case p.Significant && p.CI.Defined && p.CI.High < 0 && p.MeanA < p.MeanB:
		return Worse
	case p.Significant:
		p.Warnings = append(p.Warnings, "the corrected test is significant but the bootstrap interval covers 0: no verdict")
	}
	if d := r.Options.Equivalence; d > 0 && p.PEquivalenceAdjusted <= r.Options.Alpha && p.CI.Defined && -d <= p.CI.Low && p.CI.High <= d {
		return Equivalent
	}
	return NoEvidence
}

// summarize fills the per-metric MDD (uncorrected α) and power (plan
// level) summaries.
func (r *Report) summarize() {
	level := stats.PlanAlpha(r.Options.Alpha, r.Comparisons, r.Options.Correction)
	for m, metric := range r.Metrics {
		sum := MDDSummary{Metric: metric, N: r.Queries[m]}
		pw := PowerSummary{Metric: metric, N: r.Queries[m], Alpha: level, Detect: r.Options.Detect}
		var v, plan, sds []float64
		most := 0 // the most queries any counted comparison has differing
		for _, p := range r.Pairs {
			if p.Metric != metric {
				continue
			}
			if p.N >= 2 {
				v = append(v, p.Effect.MDD)
			}
			if !p.Counted {
				continue
			}
			pw.Counted++
			most = max(most, p.Effect.Wins+p.Effect.Losses)
			switch {
			case p.N < 2:
			case p.Effect.SD <= flatSD:
				pw.Flat++
			default:
				plan, sds = append(plan, p.MDD), append(sds, p.Effect.SD)
			}
		}
		sum.Pairs = len(v)
		sum.Median, sum.Min, sum.Max = medianRange(v)
		pw.MDD, pw.MDDMin, pw.MDDMax = medianRange(plan)
		pw.SD, _, _ = medianRange(sds)
		if pw.Detect > 0 && pw.SD > 0 && r.Queries[m] >= 2 {
			pw.Needed, _ = stats.SampleSize(pw.Detect, pw.SD, level, stats.DefaultPower)
		}
		if pw.Counted > 0 {
			pw.Floor = stats.FewDifferNote(r.Options.Test, most, r.Comparisons, r.Options.Alpha, r.Options.Correction)
		}
		r.MDD = append(r.MDD, sum)
		r.Power = append(r.Power, pw)
	}
}

// flatSD is the standard deviation of per-query differences up to which a
// comparison counts as having no per-query variance (float rounding of a
// constant shift): its MDD is undefined rather than "0.000".
const flatSD = 1e-12

// medianRange returns the median, minimum and maximum of v (zeros for
// none); v is sorted in place.
func medianRange(v []float64) (med, lo, hi float64) {
	if len(v) == 0 {
		return 0, 0, 0
	}
	slices.Sort(v)
	med = v[len(v)/2]
	if len(v)%2 == 0 {
		med = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return med, v[0], v[len(v)-1]
}

// parallel calls f(0..n-1) on up to workers goroutines; each call writes
// only its own slot, so the outcome does not depend on scheduling.
func parallel(n, workers int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
}

func firstDuplicate(names []string) string {
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if seen[n] {
			return n
		}
		seen[n] = true
	}
	return ""
}

// align returns the query ids of metric — in.Queries when given, else the
// union of the systems' query ids — sorted, and the score matrix
// [system][query]. A system lacking some of them is an error listing up to
// 10 missing ids, unless zero is set (then they score 0 and a warning counts
// them).
func align(in Input, metric string, zero bool, warnings *[]string) ([]string, [][]float64, error) {
	union := map[string]bool{}
	for _, q := range in.Queries {
		union[q] = true
	}
	for _, s := range in.Systems {
		byQ, ok := in.Scores[s][metric]
		if !ok {
			return nil, nil, fmt.Errorf("system %q has no scores for metric %q", s, metric)
		}
		for _, q := range slices.Sorted(maps.Keys(byQ)) { // the first bad query in id order
			v := byQ[q]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, fmt.Errorf("system %q, metric %q, query %q: score is %v", s, metric, q, v)
			}
			if len(in.Queries) > 0 && !union[q] {
				return nil, nil, fmt.Errorf("system %q, metric %q: query %q is not one of the %d queries to compare", s, metric, q, len(in.Queries))
			}
			union[q] = true
		}
	}
	if len(union) == 0 {
		return nil, nil, fmt.Errorf("metric %q: no queries", metric)
	}
	ids := make([]string, 0, len(union))
	for q := range union {
		ids = append(ids, q)
	}
	sort.Strings(ids)
	mat := make([][]float64, len(in.Systems))
	var problems []string
	for s, name := range in.Systems {
		byQ := in.Scores[name][metric]
		row := make([]float64, len(ids))
		var missing []string
		for q, id := range ids {
			v, ok := byQ[id]
			if !ok {
				missing = append(missing, id)
			}
			row[q] = v
		}
		mat[s] = row
		if len(missing) == 0 {
			continue
		}
		if zero {
			*warnings = append(*warnings, fmt.Sprintf("system %q, metric %q: %d of %d queries missing, scored 0", name, metric, len(missing), len(ids)))
			continue
		}
		list := missing
		more := ""
		if len(list) > 10 {
			list, more = list[:10], fmt.Sprintf(" and %d more", len(missing)-10)
		}
		problems = append(problems, fmt.Sprintf("system %q lacks %d of %d queries (%s%s)", name, len(missing), len(ids), strings.Join(list, ", "), more))
	}
	if len(problems) > 0 {
		return nil, nil, fmt.Errorf("metric %q: systems must cover the same queries (use -c to score missing queries 0): %s", metric, strings.Join(problems, "; "))
	}
	return ids, mat, nil
}
