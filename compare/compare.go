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

// Options configures Compare. The zero value gives the defaults.
type Options struct {
	// Test is the paired test; default stats.Randomization.
	Test stats.Test
	// Correction is the multiple-comparison correction applied over every
	// comparison of the report (all pairs × all metrics); default
	// stats.Holm. Ignored (none) for stats.Tukey, which controls the
	// family-wise error rate itself.
	Correction stats.Correction
	// Alpha is the significance level: a comparison is significant when its
	// adjusted p-value is ≤ Alpha. Default 0.05, must be in (0, 1).
	Alpha float64
	// Permutations is the number of Monte Carlo permutations
	// (randomization, Tukey HSD); default 10,000.
	Permutations int
	// Resamples is the number of bootstrap resamples; default 10,000.
	Resamples int
	// Seed is the global seed. Each comparison draws from its own stream
	// derived from Seed, the test, the two system names and the metric
	// (stats.Stream), so results do not depend on Workers or GOMAXPROCS.
	Seed uint64
	// Baseline, when set, compares every other system against this one
	// only (baseline-vs-all); otherwise every pair is compared (all-pairs).
	Baseline string
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
		o.Test = stats.Randomization
	}
	if o.Correction == "" {
		o.Correction = stats.Holm
	}
	if o.Alpha == 0 {
		o.Alpha = 0.05
	}
	if o.Permutations == 0 {
		o.Permutations = 10000
	}
	if o.Resamples == 0 {
		o.Resamples = 10000
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
}

// Pair is one comparison of system A against system B on one metric.
// Differences are A − B.
type Pair struct {
	// A and B are the system names (A is the earlier system in
	// Input.Systems, or the baseline), Metric the metric name.
	A, B, Metric string
	// N is the number of queries compared.
	N int
	// MeanA and MeanB are the systems' mean scores over the N queries.
	MeanA, MeanB float64
	// Statistic is the test statistic (see stats.Result.Statistic).
	Statistic float64
	// P is the raw two-sided p-value; PAdjusted the p-value after the
	// report's correction; Significant is PAdjusted ≤ Alpha.
	P, PAdjusted float64
	Significant  bool
	// Exact reports an exact p-value; Samples the Monte Carlo sample count.
	Exact   bool
	Samples int
	// Effect holds mean difference, its CI, d_z, wins/ties/losses and MDD.
	Effect stats.Effect
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

// Report is the outcome of Compare.
type Report struct {
	// Systems, Letters and Metrics: row names, their letters, column names.
	Systems, Letters, Metrics []string
	// Means[s][m] is the mean of Systems[s] on Metrics[m]; Queries[m] the
	// number of queries of Metrics[m].
	Means   [][]float64
	Queries []int
	// Beats[s][m] lists the indexes of the systems that Systems[s] beats
	// significantly on Metrics[m] (higher mean, adjusted p ≤ Alpha).
	Beats [][][]int
	// Options holds the options used, with defaults filled in.
	Options Options
	// Comparisons is the number of comparisons covered by the correction.
	Comparisons int
	// Pairs are the comparisons, metric by metric, pairs in system order.
	Pairs []Pair
	// MDD has one summary per metric.
	MDD []MDDSummary
	// Warnings are report-wide caveats (missing queries scored 0, a single
	// system, a correction ignored by Tukey HSD).
	Warnings []string
}

// letter returns the label of system i: a…z, then A…Z, then "s53"….
func letter(i int) string {
	switch {
	case i < 26:
		return string(rune('a' + i))
	case i < 52:
		return string(rune('A' + i - 26))
	}
	return fmt.Sprintf("s%d", i+1)
}

// Compare runs the tests and builds the Report. Errors: no systems or
// metrics, duplicate names, an unknown baseline, a (system, metric) without
// scores, missing queries (unless MissingAsZero; the error lists them),
// NaN or infinite scores (naming system, metric and query), invalid options,
// or opt.Context's error (as is) when it was cancelled. A single system is not an error: the report has no pairs and says so.
func Compare(in Input, opt Options) (*Report, error) {
	opt.SetDefaults()
	if !(opt.Alpha > 0 && opt.Alpha < 1) {
		return nil, fmt.Errorf("alpha: must be in (0, 1), got %g", opt.Alpha)
	}
	if len(in.Systems) == 0 {
		return nil, errors.New("no systems to compare")
	}
	if len(in.Metrics) == 0 {
		return nil, errors.New("no metrics to compare")
	}
	if d := firstDuplicate(in.Systems); d != "" {
		return nil, fmt.Errorf("system %q given twice", d)
	}
	if d := firstDuplicate(in.Metrics); d != "" {
		return nil, fmt.Errorf("metric %q given twice", d)
	}
	base := -1
	if opt.Baseline != "" {
		base = slices.Index(in.Systems, opt.Baseline)
		if base < 0 {
			return nil, fmt.Errorf("baseline %q is not among the systems (%s)", opt.Baseline, strings.Join(in.Systems, ", "))
		}
	}
	if opt.Test == stats.Tukey && opt.Correction != stats.None {
		opt.Correction = stats.None
	}
	ctx := opt.Context
	if ctx == nil {
		ctx = context.Background()
	}
	opt.Context = nil // a report does not keep its caller's context
	r := &Report{Systems: in.Systems, Metrics: in.Metrics, Options: opt}
	for i := range in.Systems {
		r.Letters = append(r.Letters, letter(i))
	}
	if len(in.Systems) == 1 {
		r.Warnings = append(r.Warnings, "only one system: nothing to compare")
	}
	if opt.Test == stats.Tukey {
		r.Warnings = append(r.Warnings, "randomized Tukey HSD controls the family-wise error rate over all pairs of a metric itself: no further correction")
	}

	// Align queries per metric into matrices mat[m][s][q].
	mats := make([][][]float64, len(in.Metrics))
	ids := make([][]string, len(in.Metrics))
	r.Queries = make([]int, len(in.Metrics))
	for m, metric := range in.Metrics {
		var err error
		ids[m], mats[m], err = align(in, metric, opt.MissingAsZero, &r.Warnings)
		if err != nil {
			return nil, err
		}
		r.Queries[m] = len(ids[m])
	}
	r.Means = make([][]float64, len(in.Systems))
	for s := range in.Systems {
		r.Means[s] = make([]float64, len(in.Metrics))
		for m := range in.Metrics {
			sum := 0.0
			for _, v := range mats[m][s] {
				sum += v
			}
			r.Means[s][m] = sum / float64(len(mats[m][s]))
		}
	}

	// The comparisons, each with its own preallocated slot.
	type task struct{ m, a, b int }
	var tasks []task
	for m := range in.Metrics {
		for a := range in.Systems {
			for b := a + 1; b < len(in.Systems); b++ {
				if base >= 0 && a != base && b != base {
					continue
				}
				if base >= 0 && b == base {
					tasks = append(tasks, task{m, b, a})
				} else {
					tasks = append(tasks, task{m, a, b})
				}
			}
		}
	}
	r.Pairs = make([]Pair, len(tasks))
	errs := make([]error, len(tasks))
	sopt := stats.Options{Permutations: opt.Permutations, Resamples: opt.Resamples, Alpha: opt.Alpha, Seed: opt.Seed, Workers: opt.Workers, Context: ctx}

	// Tukey HSD: one family per metric, computed first (in parallel).
	var hsd []*stats.HSD
	if opt.Test == stats.Tukey && len(in.Systems) > 1 {
		hsd = make([]*stats.HSD, len(in.Metrics))
		herr := make([]error, len(in.Metrics))
		parallel(len(in.Metrics), opt.Workers, func(m int) {
			if ctx.Err() != nil {
				return
			}
			o := sopt
			o.Stream = stats.Stream(opt.Seed, string(opt.Test), in.Metrics[m])
			hsd[m], herr[m] = stats.TukeyHSD(in.Systems, ids[m], mats[m], o)
		})
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := errors.Join(herr...); err != nil {
			return nil, err
		}
	}
	parallel(len(tasks), opt.Workers, func(i int) {
		if ctx.Err() != nil {
			return // Compare returns the context's error
		}
		t := tasks[i]
		metric := in.Metrics[t.m]
		sample := stats.Sample{QueryIDs: ids[t.m], A: mats[t.m][t.a], B: mats[t.m][t.b]}
		o := sopt
		o.Stream = stats.Stream(opt.Seed, string(opt.Test), in.Systems[t.a], in.Systems[t.b], metric)
		var res stats.Result
		var err error
		if hsd != nil {
			res, err = stats.Describe(sample, o)
			res.Test, res.Statistic, res.Exact, res.Samples = stats.Tukey, res.Effect.MeanDiff, false, hsd[t.m].Samples
			if err == nil {
				res.P = hsd[t.m].P[t.a][t.b]
			}
		} else {
			res, err = stats.Paired(opt.Test, sample, o)
		}
		if err != nil {
			errs[i] = fmt.Errorf("%s vs %s, %s: %w", in.Systems[t.a], in.Systems[t.b], metric, err)
			return
		}
		r.Pairs[i] = Pair{
			A: in.Systems[t.a], B: in.Systems[t.b], Metric: metric, N: res.N,
			MeanA: res.MeanA, MeanB: res.MeanB, Statistic: res.Statistic, P: res.P,
			Exact: res.Exact, Samples: res.Samples, Effect: res.Effect, Warnings: res.Warnings,
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	r.Comparisons = len(r.Pairs)
	ps := make([]float64, len(r.Pairs))
	for i, p := range r.Pairs {
		ps[i] = p.P
	}
	adj, err := stats.Adjust(ps, opt.Correction)
	if err != nil {
		return nil, err
	}
	r.Beats = make([][][]int, len(in.Systems))
	for s := range r.Beats {
		r.Beats[s] = make([][]int, len(in.Metrics))
	}
	for i := range r.Pairs {
		p := &r.Pairs[i]
		p.PAdjusted = adj[i]
		p.Significant = adj[i] <= opt.Alpha
		if !p.Significant {
			continue
		}
		t := tasks[i]
		switch {
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
	for m, metric := range in.Metrics {
		sum := MDDSummary{Metric: metric, N: r.Queries[m]}
		var v []float64
		for _, p := range r.Pairs {
			if p.Metric == metric && !math.IsNaN(p.Effect.MDD) {
				v = append(v, p.Effect.MDD)
			}
		}
		sum.Pairs = len(v)
		if len(v) > 0 {
			slices.Sort(v)
			sum.Min, sum.Max = v[0], v[len(v)-1]
			sum.Median = v[len(v)/2]
			if len(v)%2 == 0 {
				sum.Median = (v[len(v)/2-1] + v[len(v)/2]) / 2
			}
		}
		r.MDD = append(r.MDD, sum)
	}
	return r, nil
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
