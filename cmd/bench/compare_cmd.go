package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ragbench/ragbench/compare"
	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/gate"
	"github.com/ragbench/ragbench/internal/plural"
	"github.com/ragbench/ragbench/passages"
	"github.com/ragbench/ragbench/spans"
	"github.com/ragbench/ragbench/stats"
)

const compareUsage = `usage: bench compare --qrels QRELS [flags] RUN...
       bench compare --corpus DIR --qrels LABELS [flags] RUN...

Compare retrieval runs on the same queries with paired significance tests and
print a ranx-style table: a row per run, a column per measure, and superscript
labels marking the runs that a run beats significantly after correcting for
multiple comparisons (Holm by default, over every counted comparison).
Below the table: the plan and its number of comparisons, the test, the
correction, the intervals, what the set can show (per measure the minimum
detectable difference at 80% power under the plan, and the questions needed
to detect --detect), then one row per comparison: the difference with its
95% paired bootstrap interval (BCa by default), Cohen's d_z,
wins/ties/losses, p, adjusted p and a verdict in words (better, worse,
equivalent within ±δ, no evidence either way, unchanged (identical)).

Plans (--plan): baseline (each run against --baseline: m − 1 comparisons;
the default with --baseline), best (each run against the best run of each
measure) or all-pairs (m(m − 1)/2; the default without --baseline). Runs whose
per-query scores equal the baseline's on every query are reported
"unchanged (identical)" and not counted in the correction. --equivalence δ
adds two one-sided paired t-tests (TOST): a run within ±δ is "equivalent".
Fewer than 20 queries per measure gives a warning: read such numbers as
indicative.

RUN is a TREC run or ranx JSON file (see 'bench eval --help'); its name is
its file name, or NAME when given as NAME=PATH (an existing file whose path
holds '=' is taken as a path). Runs must cover the qrels'
queries: a qrels query missing from a run, or from every run, is an error
saying how many are missing and listing them per run file, unless -c (then
it scores 0 in the runs that lack it, as trec_eval -c and ranx's
make_comparable do). Queries with no relevant document in the qrels are
left out, as in bench eval's means.

Tests (--test): randomization (default; paired sign-flip test of the mean
difference, exact when ≤ 20 queries differ, else --permutations Monte Carlo
samples with p = (b+1)/(B+1)), t (paired Student t), bootstrap (paired
bootstrap, --resamples), tukey (randomized Tukey HSD over all runs at once;
no further correction), wilcoxon and sign (available, not recommended for IR:
Smucker, Allan & Carterette, CIKM 2007). Random tests are reproducible: each
comparison draws from a stream derived from --seed and its names.

With --corpus, LABELS may be span labels and each RUN a passage run or a
TREC run placed by --chunk-map or --chunking (see 'bench eval --help' and
docs/pipelines.md): the runs are compared on span and token measures
(-m span_recall@10, token_recall@5, ...; default span_recall@10) and on
chunk-level measures derived from the spans, with the same plans, tests,
intervals and gate. Queries with no gold span are left out.

A run whose ids are mostly unjudged (at most 1 query in 10 retrieved a
judged id) gets a warning on stderr naming the share.

--gate turns the comparison against --baseline into the baseline gate of
'bench run --baseline' (docs/ci.md): every other run is compared with the
baseline on each measure over the queries both cover, with --test,
--interval and --correction over all of them but the runs identical to the
baseline ("unchanged (identical)", not counted), and --equivalence;
instead of the table, a Markdown summary (also appended to
$GITHUB_STEP_SUMMARY when set) gives the plan, per run baseline → now, the
difference with its 95% CI, the corrected p and a verdict (regressed,
improved, equivalent within ±δ, no evidence either way), and the queries
that changed most. The p-values are those of --baseline without --gate.
Exit status 3 when a run regressed (significantly worse, or a fall larger
than --max-drop), 0 otherwise: an improvement never fails.

Examples:
  bench compare --qrels qrels.test bm25.trec dense.trec hybrid.trec
  bench compare --qrels qrels.tsv --baseline bm25 --equivalence 0.02 \
      bm25=runs/bm25.trec hybrid=runs/hybrid.trec
  bench compare --qrels qrels.tsv --plan best --detect 0.05 runs/*.trec
  bench compare --qrels qrels.tsv -m ndcg@10 -m recall@100 --baseline bm25 \
      bm25=runs/bm25.trec hybrid=runs/hybrid.trec rerank=runs/rerank.trec
  bench compare --qrels qrels.tsv --test t --correction bh --format md a.trec b.trec
  bench compare --qrels qrels.tsv -c --format json a.trec b.trec > compare.json
  bench compare --qrels qrels.tsv --gate --baseline main --max-drop 0.01 main=main.trec pr=pr.trec
  bench compare --corpus corpus/ --qrels labels.jsonl -m span_recall@5 -m ndcg@10 \
      --baseline langchain langchain=run.langchain.jsonl llamaindex=run.llamaindex.jsonl

Flags:
`

// cmdCompare implements 'bench compare'.
func cmdCompare(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("compare")
	var measures measureList
	var (
		qrelsPath    = fs.String("qrels", "", "qrels `file` (TREC, BEIR TSV or JSONL; required)")
		testName     = fs.String("test", string(stats.DefaultTest), "significance `test`: "+strings.Join(stats.TestNames(false), ", "))
		corrName     = fs.String("correction", string(stats.DefaultCorrection), "multiple-comparison `correction`: "+strings.Join(stats.CorrectionNames(), ", "))
		alpha        = fs.Float64("alpha", stats.DefaultAlpha, "significance level: significant when the adjusted p ≤ `alpha`")
		permutations = fs.Int("permutations", stats.DefaultPermutations, "Monte Carlo permutations (randomization, tukey)")
		resamples    = fs.Int("resamples", stats.DefaultResamples, "bootstrap resamples (bootstrap test and every interval)")
		seed         = fs.Uint64("seed", stats.DefaultSeed, "random seed (results depend only on it, not on CPUs)")
		baseline     = fs.String("baseline", "", "compare every run against this run `name` (the baseline plan; default: all pairs)")
		planName     = fs.String("plan", "", "comparison `plan`: baseline (each run against --baseline), best (each run against the best run of each measure) or all-pairs; default baseline with --baseline, else all-pairs")
		equivalence  = fs.Float64("equivalence", 0, "equivalence margin `δ`: TOST shows a difference within ±δ as \"equivalent\" (0: no equivalence test)")
		detect       = fs.Float64("detect", stats.DefaultDetect, "report the questions needed to detect a true difference of `Δ` (0: none)")
		interval     = fs.String("interval", string(stats.BCa), "interval `method`: bca or percentile (paired bootstrap), or t (Student t)")
		complete     = fs.Bool("c", false, "score 0 for qrels queries missing from a run instead of failing")
		level        = fs.Int("l", 1, "smallest grade counted relevant by binary measures (trec_eval -l; 0: grade 0 too)")
		format       = fs.String("format", "table", "output `format`: table, md, latex, csv or json")
		workers      = fs.Int("workers", 0, "comparisons run at once (0 = all CPUs; results do not depend on it)")
		gateMode     = fs.Bool("gate", false, "gate every run against --baseline: Markdown summary, exit 3 when one regressed (see docs/ci.md)")
		gf           gateFlags
		pf           passageFlags
	)
	gf.register(fs)
	pf.register(fs)
	fs.Var(&measures, "m", "measure `name` as in bench eval (repeatable; default ndcg@10)")
	runArgs, err := parseInterspersed(fs, args)
	if err != nil {
		return flagErr(fs, stdout, stderr, compareUsage, err)
	}
	if *qrelsPath == "" {
		return usagef("--qrels is required; see 'bench compare --help'")
	}
	if len(runArgs) == 0 {
		return usagef("no runs given; see 'bench compare --help'")
	}
	test, corr, err := parseCompareTest(*testName, *corrName)
	if err != nil {
		return err
	}
	f, err := compare.ParseFormat(*format)
	if err != nil {
		return usagef("--format: %v", err)
	}
	if err := checkCompareNumbers(*alpha, *permutations, *resamples, *level); err != nil {
		return err
	}
	if err := pf.check(); err != nil {
		return err
	}
	plan, ivMethod, err := comparePlan(*planName, *baseline, *interval, *equivalence, *detect)
	if err != nil {
		return err
	}
	runs, err := parseCompareRuns(runArgs)
	if err != nil {
		return err
	}
	if err := checkCompareBaseline(*gateMode, *baseline, *format, runs); err != nil {
		return err
	}
	var (
		in           compare.Input
		texts        map[string]string
		evalWarnings []string
	)
	if pf.corpus != "" {
		in, texts, evalWarnings, err = readCompareCorpus(stderr, pf, *qrelsPath, runs, measures, *complete, *level)
	} else {
		if err = needCorpus(*qrelsPath, "", measures); err != nil {
			return err
		}
		for _, r := range runs {
			if isPassageRun(r.path) {
				return usagef("%s is a passage run: pass --corpus DIR, the documents its passages are in (docs/pipelines.md)", r.path)
			}
		}
		labels, ms, merr := compareMeasures(measures)
		if merr != nil {
			return usagef("%v", merr)
		}
		in, texts, evalWarnings, err = readCompareInput(stderr, *qrelsPath, runs, labels, ms, *complete, *level)
	}
	if err != nil {
		return err
	}
	if *gateMode {
		return compareGate(stdout, in, *baseline, texts, gf, gate.Options{Test: test, Correction: corr, Alpha: *alpha,
			Permutations: *permutations, Resamples: *resamples, Seed: *seed, Interval: ivMethod, Equivalence: *equivalence, Detect: *detect})
	}
	return writeCompareReport(stdout, f, in, evalWarnings, compare.Options{
		Test: test, Correction: corr, Alpha: *alpha, Permutations: *permutations, Resamples: *resamples,
		Seed: *seed, Plan: plan, Interval: ivMethod, Equivalence: *equivalence, Detect: *detect,
		MissingAsZero: *complete, Workers: *workers,
	})
}

// parseCompareTest parses --test and --correction. Errors: usage errors
// naming the flag.
func parseCompareTest(testName, corrName string) (stats.Test, stats.Correction, error) {
	test, err := stats.ParseTest(testName)
	if err != nil {
		return "", "", usagef("--test: %v", err)
	}
	corr, err := stats.ParseCorrection(corrName)
	if err != nil {
		return "", "", usagef("--correction: %v", err)
	}
	return test, corr, nil
}

// writeCompareReport runs the comparison and writes its report in format
// f, the evaluations' warnings added to the report's.
func writeCompareReport(stdout io.Writer, f compare.Format, in compare.Input, evalWarnings []string, opt compare.Options) error {
	rep, err := compare.Compare(in, opt)
	if err != nil {
		return err
	}
	rep.Warnings = append(rep.Warnings, evalWarnings...)
	return rep.Write(stdout, f)
}

// checkCompareNumbers checks the numeric flags of 'bench compare': alpha in
// (0, 1), at least one permutation, stats.MinResamples resamples
// (stats.CheckResamples), a relevance level that
// eval.CheckRelevanceLevel accepts. Errors: usage errors naming the flag.
func checkCompareNumbers(alpha float64, permutations, resamples, level int) error {
	if !(alpha > 0 && alpha < 1) {
		return usagef("--alpha %g: must be in (0, 1)", alpha)
	}
	if permutations < 1 {
		return usagef("--permutations must be ≥ 1")
	}
	if err := stats.CheckResamples(resamples); err != nil {
		return usagef("--resamples: %v", err)
	}
	if err := eval.CheckRelevanceLevel(level); err != nil {
		return usagef("-l: %v", err)
	}
	return nil
}

// comparePlan builds the comparison plan of --plan and --baseline and
// checks the interval, equivalence and detect flags. Errors: usage errors
// naming the flag (an unknown plan or method, --plan baseline without
// --baseline, --baseline with another plan, a negative or non-finite δ or
// Δ).
func comparePlan(planName, baseline, interval string, equivalence, detect float64) (compare.Plan, stats.IntervalMethod, error) {
	method, err := stats.ParseIntervalMethod(interval)
	if err != nil {
		return compare.Plan{}, "", usagef("--interval: %v", err)
	}
	if !(equivalence >= 0) || math.IsInf(equivalence, 0) {
		return compare.Plan{}, "", usagef("--equivalence %v: must be a finite number ≥ 0", equivalence)
	}
	if !(detect >= 0) || math.IsInf(detect, 0) {
		return compare.Plan{}, "", usagef("--detect %v: must be a finite number ≥ 0", detect)
	}
	kind := compare.AllPairs
	if baseline != "" {
		kind = compare.VsBaseline
	}
	if planName != "" {
		if kind, err = compare.ParsePlanKind(planName); err != nil {
			return compare.Plan{}, "", usagef("--plan: %v", err)
		}
	}
	switch {
	case kind == compare.VsBaseline && baseline == "":
		return compare.Plan{}, "", usagef("--plan baseline needs --baseline NAME")
	case kind != compare.VsBaseline && baseline != "":
		return compare.Plan{}, "", usagef("--baseline %s applies to --plan baseline, not --plan %s", baseline, kind)
	}
	return compare.Plan{Kind: kind, Baseline: baseline}, method, nil
}

// checkCompareBaseline checks --baseline and --gate against the runs: the
// baseline must be one of them, and --gate needs a baseline, another run
// and the Markdown format. Errors: usage errors naming the flag.
func checkCompareBaseline(gateMode bool, baseline, format string, runs []compareRun) error {
	if gateMode && (baseline == "" || len(runs) < 2) {
		return usagef("--gate needs --baseline NAME and at least one other run")
	}
	if gateMode && format != "table" && format != "md" {
		return usagef("--gate writes a Markdown summary: --format %s does not apply (drop it)", format)
	}
	if baseline != "" && !slices.ContainsFunc(runs, func(r compareRun) bool { return r.name == baseline }) {
		return usagef("--baseline %q is not one of the runs", baseline)
	}
	return nil
}

// parseCompareRuns parses the RUN arguments (PATH or NAME=PATH; an existing
// path holding '=' is a path) into runs. Errors: usage errors for an empty
// name or path, or a name given twice.
func parseCompareRuns(runArgs []string) ([]compareRun, error) {
	var runs []compareRun
	seen := map[string]string{}
	for _, a := range runArgs {
		name, path, ok := strings.Cut(a, "=")
		if _, err := os.Stat(a); !ok || err == nil {
			// A path that exists is a path, even with '=' in it
			// ("runs/k=10.trec").
			name, path = filepath.Base(a), a
		}
		if name == "" || path == "" {
			return nil, usagef("run %q: want PATH or NAME=PATH", a)
		}
		if prev, dup := seen[name]; dup {
			return nil, usagef("two runs named %q (%s and %s): name them with NAME=PATH", name, prev, path)
		}
		seen[name] = path
		runs = append(runs, compareRun{name, path})
	}
	return runs, nil
}

// readCompareInput reads the qrels and every run, and evaluates each run on
// measures ms (labels their columns) into compare's input: per run and
// measure, the answerable queries' scores. texts are the labelled queries'
// texts by id; warnings the evaluations' notes, each prefixed with its
// run's name; a run whose ids are mostly unjudged is warned of on stderr
// (unjudgedWarning). complete and level are -c and -l. Errors: a file that
// cannot be read, runs missing answerable queries without -c
// (missingQueriesError), a run with no query to compare.
func readCompareInput(stderr io.Writer, qrelsPath string, runs []compareRun, labels []string, ms []eval.Measure, complete bool, level int) (in compare.Input, texts map[string]string, warnings []string, err error) {
	qrels, meta, err := eval.ReadQrels(qrelsPath)
	if err != nil {
		return compare.Input{}, nil, nil, err
	}
	texts = map[string]string{} // labelled queries carry their text
	for q, m := range meta {
		texts[q] = m.Text
	}
	// The queries compared: the qrels queries with a judged doc of positive
	// grade, whatever -l (those without one are unanswerable and left out,
	// as in bench eval's means; under -l a query relevant only below the
	// level is compared, its binary measures 0 as in trec_eval).
	answerable := qrels.AnswerableIDs()
	in = compare.Input{Metrics: labels, Scores: compare.Scores{}, Queries: answerable}
	type readRun struct {
		run  eval.Run
		info eval.RunInfo
	}
	read := make([]readRun, len(runs))
	missing := make([][]string, len(runs)) // answerable queries each run lacks
	for i, ra := range runs {
		run, info, err := eval.ReadRunInfo(ra.path)
		if err != nil {
			return compare.Input{}, nil, nil, err
		}
		read[i] = readRun{run, info}
		retrieved, judged, sample := runJudgedCounts(qrels, run)
		if w := unjudgedWarning(ra.label(), retrieved, judged, sample, judgedIDs(qrels)); w != "" {
			fmt.Fprintf(stderr, "bench compare: warning: %s\n", w)
		}
		for _, q := range answerable {
			if _, ok := run[q]; !ok {
				missing[i] = append(missing[i], q)
			}
		}
	}
	if !complete {
		if err := missingQueriesError(qrelsPath, len(answerable), runs, missing); err != nil {
			return compare.Input{}, nil, nil, err
		}
	}
	for i, ra := range runs {
		run, info := read[i].run, read[i].info
		opts := eval.DefaultOptions()
		opts.CompleteQueries = complete
		opts.RelevanceLevel = level
		opts.RunTag = info.Tag
		e, err := eval.Evaluate(qrels, run, ms, opts)
		if err != nil {
			return compare.Input{}, nil, nil, fmt.Errorf("%s: %w", ra.path, err)
		}
		if e.NumQ == 0 {
			return compare.Input{}, nil, nil, fmt.Errorf("%s: no query to compare: all %d evaluated queries are unanswerable (no doc with a positive grade in %s)", ra.path, len(e.Queries), qrelsPath)
		}
		e.RunNotes = info.Warnings() // a cut last line, another run's tag
		for _, w := range e.Warnings() {
			warnings = append(warnings, ra.name+": "+w)
		}
		byMetric, err := compare.FromEvaluation(e, labels)
		if err != nil {
			return compare.Input{}, nil, nil, err
		}
		in.Systems = append(in.Systems, ra.name)
		in.Scores[ra.name] = byMetric
	}
	return in, texts, warnings, nil
}

// compareRun is a run argument: its name in the report and its file.
type compareRun struct{ name, path string }

// label names the run in messages: its name, followed by its path in
// parentheses when the two differ (NAME=PATH, or a file in another folder).
func (r compareRun) label() string {
	if r.path == r.name {
		return r.name
	}
	return r.name + " (" + r.path + ")"
}

// missingQueriesError is the error of runs that lack qrels queries with a
// relevant doc (nil when none does): how many of the qrels' nAnswerable
// queries are missing, the queries missing from every run, and per run the
// ids it lacks (at most 10 each). Without -c such queries cannot be
// compared: trec_eval without -c would average each run over its own
// queries, and ranx refuses runs whose query ids differ from the qrels'
// unless make_comparable (which scores them 0, as -c does).
func missingQueriesError(qrelsPath string, nAnswerable int, runs []compareRun, missing [][]string) error {
	count := map[string]int{}
	for _, m := range missing {
		for _, q := range m {
			count[q]++
		}
	}
	if len(count) == 0 {
		return nil
	}
	list := func(ids []string) string {
		if len(ids) > 10 {
			return strings.Join(ids[:10], ", ") + fmt.Sprintf(" and %d more", len(ids)-10)
		}
		return strings.Join(ids, ", ")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d of the %d queries of %s with a relevant doc %s missing from the runs; runs must cover the same queries, or -c scores a missing query 0 (as trec_eval -c and ranx make_comparable):",
		len(count), nAnswerable, qrelsPath, plural.Word(len(count), "is", "are"))
	if len(runs) > 1 {
		var all []string
		for q, n := range count {
			if n == len(runs) {
				all = append(all, q)
			}
		}
		if len(all) > 0 {
			slices.Sort(all)
			fmt.Fprintf(&b, "\n  missing from every run: %s (%s)", plural.Count(len(all), "query", "queries"), list(all))
		}
	}
	for i, m := range missing {
		if len(m) > 0 {
			fmt.Fprintf(&b, "\n  %s lacks %d of %d: %s", runs[i].label(), len(m), nAnswerable, list(m))
		}
	}
	return errors.New(b.String())
}

// compareMeasures parses -m names (default ndcg@10) into measures and their
// column labels: the name as typed when it denotes one measure, else the
// measures' trec_eval names. Counts, text measures and geometric means
// (gm_map, gm_bpref) cannot be compared.
func compareMeasures(names []string) ([]string, []eval.Measure, error) {
	if len(names) == 0 {
		names = []string{"ndcg@10"}
	}
	var labels []string
	var ms []eval.Measure
	seen := map[string]bool{}
	for _, n := range names {
		for _, part := range eval.SplitMeasureList(n) {
			got, err := eval.ParseMeasures([]string{part})
			if err != nil {
				return nil, nil, fmt.Errorf("-m %s: %v", part, err)
			}
			for _, m := range got {
				if m.Integer() || m.Kind == eval.RelString || m.Kind == eval.RunID {
					return nil, nil, fmt.Errorf("-m %s: %s is not a per-query score and cannot be compared", part, m.Name)
				}
				if m.Kind == eval.GMAP || m.Kind == eval.GMBpref {
					// The tests compare arithmetic means; the arithmetic mean
					// of gm_map's per-query values is MAP, not gm_map.
					return nil, nil, fmt.Errorf("-m %s: %s is a geometric mean over queries, which the paired tests (of arithmetic means) do not compare; compare %s instead", part, m.Name, strings.TrimPrefix(m.Name, "gm_"))
				}
				if seen[m.Name] {
					continue
				}
				seen[m.Name] = true
				label := m.Name
				if len(got) == 1 {
					label = part
				}
				labels = append(labels, label)
				ms = append(ms, m)
			}
		}
	}
	return labels, ms, nil
}

// readCompareCorpus is readCompareInput with --corpus: labels may be span
// labels, and runs passage runs or TREC runs placed by --chunk-map or
// --chunking (passageFlags.readPassages). With span labels every run is
// read as passages and scored by passages.Evaluate (the chunk-level
// measures of -m, then its span measures; default span_recall@10), the
// queries compared being those with a gold span; with id labels a passage
// run is scored on its documents (MaxP) and other runs as without
// --corpus. Each passage run's notes (placing, unmapped results, order)
// join the warnings. Errors: readCompareInput's, a run that is not
// passages with span labels, a run above --max-unmapped.
func readCompareCorpus(stderr io.Writer, pf passageFlags, labelsPath string, runs []compareRun, measures measureList, complete bool, level int) (in compare.Input, texts map[string]string, warnings []string, err error) {
	fail := func(err error) (compare.Input, map[string]string, []string, error) {
		return compare.Input{}, nil, nil, err
	}
	spanned, err := spanLabels(labelsPath)
	if err != nil {
		return fail(err)
	}
	spanNames, rest := splitSpanMeasures(measures)
	if err := checkSpanNames(spanNames); err != nil {
		return fail(err)
	}
	if !spanned && len(spanNames) > 0 {
		return fail(usagef("-m %s: span measures need span labels (\"gold_spans\" or Chroma's questions.csv); %s holds ids", spanNames[0], labelsPath))
	}
	if spanned && len(measures) == 0 {
		spanNames = []string{"span_recall@10"}
	}
	var labels []string
	var ms []eval.Measure
	if len(rest) > 0 || !spanned && len(measures) == 0 {
		if labels, ms, err = compareMeasures(rest); err != nil {
			return fail(usagef("%v", err))
		}
	}
	labels = append(labels, spanNames...)
	ci, err := loadCorpus(pf.corpus)
	if err != nil {
		return fail(err)
	}
	var (
		queries    []spans.Query
		qrels      eval.Qrels
		answerable []string
	)
	texts = map[string]string{}
	if spanned {
		if queries, err = spans.Read(labelsPath, ci.docs); err != nil {
			return fail(err)
		}
		for _, q := range queries {
			texts[q.ID] = q.Text
			if len(q.Gold) > 0 {
				answerable = append(answerable, q.ID)
			}
		}
		slices.Sort(answerable)
	} else {
		var meta map[string]eval.QueryMeta
		if qrels, meta, err = eval.ReadQrels(labelsPath); err != nil {
			return fail(err)
		}
		for q, m := range meta {
			texts[q] = m.Text
		}
		answerable = qrels.AnswerableIDs()
	}
	// evaluate scores one run once the missing queries are known.
	type readRun struct {
		has      func(qid string) bool
		evaluate func(opts eval.Options) (*eval.Evaluation, error)
		notes    []string
	}
	read := make([]readRun, len(runs))
	missing := make([][]string, len(runs))
	for i, ra := range runs {
		pr, ok, err := pf.readPassages(ra.path, ci, eval.TieDocIDDesc)
		switch {
		case err != nil:
			return fail(err)
		case ok:
			sc, err := pr.Scored(ci.docs)
			if err != nil {
				return fail(err)
			}
			read[i].has = func(q string) bool { _, ok := pr.Query(q); return ok }
			if pr.UnmappedCount() > 0 || pr.OutOfOrder() > 0 {
				read[i].notes = pr.Notes()
			}
			if spanned {
				read[i].evaluate = func(opts eval.Options) (*eval.Evaluation, error) {
					return passages.Evaluate(queries, sc, ms, passages.Options{Span: spanNames, CoverShare: pf.coverShare, Eval: opts})
				}
			} else {
				docRun := corpus.MaxP(sc.Run, sc.DocOf)
				read[i].evaluate = func(opts eval.Options) (*eval.Evaluation, error) { return eval.Evaluate(qrels, docRun, ms, opts) }
			}
		case spanned:
			return fail(usagef("%s: span labels score passages: give a passage run, or a TREC run with --chunk-map FILE (the pipeline's chunk ids) or --chunking NAME (ragbench's)", ra.path))
		default:
			run, info, err := eval.ReadRunInfo(ra.path)
			if err != nil {
				return fail(err)
			}
			retrieved, judged, sample := runJudgedCounts(qrels, run)
			if w := unjudgedWarning(ra.label(), retrieved, judged, sample, judgedIDs(qrels)); w != "" {
				fmt.Fprintf(stderr, "bench compare: warning: %s\n", w)
			}
			read[i].has = func(q string) bool { _, ok := run[q]; return ok }
			read[i].notes = info.Warnings()
			read[i].evaluate = func(opts eval.Options) (*eval.Evaluation, error) {
				opts.RunTag = info.Tag
				return eval.Evaluate(qrels, run, ms, opts)
			}
		}
		for _, q := range answerable {
			if !read[i].has(q) {
				missing[i] = append(missing[i], q)
			}
		}
	}
	if !complete {
		if err := missingQueriesError(labelsPath, len(answerable), runs, missing); err != nil {
			return fail(err)
		}
	}
	in = compare.Input{Metrics: labels, Scores: compare.Scores{}, Queries: answerable}
	for i, ra := range runs {
		opts := eval.DefaultOptions()
		opts.CompleteQueries = complete
		opts.RelevanceLevel = level
		e, err := read[i].evaluate(opts)
		if err != nil {
			return fail(fmt.Errorf("%s: %w", ra.path, err))
		}
		if e.NumQ == 0 {
			return fail(fmt.Errorf("%s: no query to compare: all %d evaluated queries are unanswerable (no gold passage in %s)", ra.path, len(e.Queries), labelsPath))
		}
		e.RunNotes = read[i].notes
		for _, w := range e.Warnings() {
			warnings = append(warnings, ra.name+": "+w)
		}
		byMetric, err := compare.FromEvaluation(e, labels)
		if err != nil {
			return fail(err)
		}
		in.Systems = append(in.Systems, ra.name)
		in.Scores[ra.name] = byMetric
	}
	return in, texts, warnings, nil
}
