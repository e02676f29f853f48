package eval

import (
	"context"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/ragbench/ragbench/internal/plural"
)

// Options control Evaluate. Start from DefaultOptions (ragbench's honest
// defaults) or TrecEvalOptions (trec_eval's own defaults); the zero value is
// TrecEvalOptions without AverageUnanswerable, but with relevance level 0.
type Options struct {
	// RelevanceLevel is the smallest grade counted as relevant by binary
	// measures (trec_eval -l; DefaultOptions and TrecEvalOptions set 1).
	// 0 is a level like any other, as in trec_eval -l 0: judged docs of
	// grade 0 count as relevant (negative grades never do). Negative
	// values are an error from Evaluate. nDCG's gain ignores it, as in
	// trec_eval.
	RelevanceLevel int
	// MaxResults reads at most this many results per query, after sorting
	// (trec_eval -M); 0 means no limit.
	MaxResults int
	// CompleteQueries scores every qrels query: a query missing from the run
	// is evaluated with an empty result list (0 for every measure) and
	// averaged in (trec_eval -c, ranx make_comparable). When false such
	// queries are skipped, as trec_eval does by default.
	CompleteQueries bool
	// AverageUnanswerable includes unanswerable queries (no judged doc
	// with a positive grade, whatever RelevanceLevel) in the means, as
	// trec_eval does. When false they still get a row but are left out of
	// the means and of num_q, and are listed in Evaluation.Unanswerable.
	// A query whose positive grades all lie below RelevanceLevel is not
	// unanswerable: it is averaged, binary measures scoring it as trec_eval
	// does (R = 0: 0), and listed in Evaluation.BelowLevel.
	AverageUnanswerable bool
	// JudgedOnly removes the retrieved docs that are not judged with a
	// grade ≥ 0 (absent from the qrels, or in them with a negative grade)
	// from each ranking before any measure, after MaxResults applied, the
	// docs below moving up (trec_eval -J, form_res_rels.c): num_ret then
	// counts judged docs only.
	JudgedOnly bool
	// TieBreak orders equal scores (default TieDocIDDesc, trec_eval's).
	TieBreak TieBreak
	// RunTag is reported by the runid measure.
	RunTag string
	// Labels qualifies the labelled queries in warnings ("labelled" for
	// span labels: "1 labelled query missing from the run"); "" is
	// "qrels".
	Labels string
	// Workers is the number of goroutines evaluating queries (0 =
	// GOMAXPROCS). Results do not depend on it.
	Workers int
	// Context, when not nil, stops Evaluate early: once it is done no
	// further query is evaluated and Evaluate returns its error
	// (context.Canceled or DeadlineExceeded). Results do not depend on it.
	Context context.Context
}

// DefaultOptions are ragbench's defaults for its own report formats: a qrels
// query missing from the run scores 0 (CompleteQueries), unanswerable queries
// are reported apart and not averaged, relevance level 1, trec_eval's tie
// order, no result limit.
func DefaultOptions() Options {
	return Options{RelevanceLevel: 1, CompleteQueries: true}
}

// TrecEvalOptions are trec_eval's defaults: queries missing from the run are
// skipped (no -c), every evaluated query is averaged, relevance level 1.
func TrecEvalOptions() Options {
	return Options{RelevanceLevel: 1, AverageUnanswerable: true}
}

// CheckRelevanceLevel is the one rule for Options.RelevanceLevel (bench
// eval and bench compare check their -l flag with it): any level ≥ 0, as
// trec_eval 10 reads -l (form_res_rels.c: a judged doc is relevant when
// its grade ≥ the level, so -l 0 counts grade 0 too). A negative level is
// an error: trec_eval takes it, but then counts the retrieved docs it
// marks -1 (not in the qrels) and -2 (in the pool, unjudged) as relevant
// in P and the rank measures while R counts judged docs only, so P@k
// could exceed recall's ceiling — numbers with no meaning.
func CheckRelevanceLevel(level int) error {
	if level < 0 {
		return fmt.Errorf("relevance level %d: must be ≥ 0 (negative grades mean \"in the pool but not judged\")", level)
	}
	return nil
}

// check refuses options no measure can be computed with.
func (o Options) check() error {
	if err := CheckRelevanceLevel(o.RelevanceLevel); err != nil {
		return err
	}
	if o.MaxResults < 0 {
		return fmt.Errorf("max results %d: must be ≥ 0 (0: no limit)", o.MaxResults)
	}
	return nil
}

// MaxExpGrade is the largest grade ndcg_exp accepts: its gain 2^grade − 1 is
// +Inf in float64 past 2^1023, which would make nDCG NaN. The trec_eval
// measures accept any grade (their gain is the grade itself).
const MaxExpGrade = 1023

// checkGrades refuses judgements that a measure of measures cannot score
// as a finite number: a grade above MaxExpGrade with ndcg_exp.
func checkGrades(qrels Qrels, measures []Measure) error {
	if !slices.ContainsFunc(measures, func(m Measure) bool { return m.Kind == NDCGExp }) {
		return nil
	}
	for _, q := range slices.Sorted(maps.Keys(qrels)) {
		for _, d := range slices.Sorted(maps.Keys(qrels[q])) {
			if g := qrels[q][d]; g > MaxExpGrade {
				return fmt.Errorf("query %q doc %q: grade %d is above %d, where ndcg_exp's gain 2^grade − 1 overflows float64; use ndcg (gain = grade) or smaller grades", q, d, g, MaxExpGrade)
			}
		}
	}
	return nil
}

// Evaluation holds per-query values and their means.
type Evaluation struct {
	// Measures are the measures evaluated, in the order requested.
	Measures []Measure
	// Queries are the ids of the queries with a row, in byte order.
	Queries []string
	// Values[i][j] is Measures[j] for Queries[i].
	Values [][]float64
	// InMean[i] reports whether Queries[i] is averaged into Means (false only
	// for unanswerable queries when !Options.AverageUnanswerable).
	InMean []bool
	// Means[j] is the summary of Measures[j] over the queries averaged:
	// the sum for counts (Measure.Integer), the geometric mean for gm_map and
	// gm_bpref (trec_eval's), else the arithmetic mean. NaN when no query is
	// averaged.
	Means []float64
	// NumQ is the number of queries averaged.
	NumQ int
	// Unanswerable lists the qrels queries with no judged doc of positive
	// grade (ragbench's definition, independent of the relevance level)
	// that have a row, in byte order.
	Unanswerable []string
	// BelowLevel lists, in byte order, the queries with a row that have
	// positive grades but none ≥ Options.RelevanceLevel (only with -l > 1):
	// averaged, with R = 0 for binary measures (0, as in trec_eval) while
	// nDCG still gains from their grades.
	BelowLevel []string
	// NotInQrels lists run queries absent from the qrels; they are ignored,
	// as trec_eval does, and counted here.
	NotInQrels []string
	// NotInRun lists qrels queries with no result in the run; with
	// CompleteQueries they have rows of zeros, otherwise no row.
	// NotInRunUnanswerable lists those of them that are unanswerable (no
	// judged doc of positive grade): never scored, whatever
	// CompleteQueries (Warnings counts and exemplifies the others).
	NotInRun, NotInRunUnanswerable []string
	// TieReordered lists, in byte order, the queries whose run lists
	// results with equal scores in another order than trec_eval's tie-break
	// (doc id descending), which was applied (Options.TieBreak ==
	// TieDocIDDesc): their values can differ from what the file order
	// gives (--ties input). Empty with TieInputOrder.
	TieReordered []string
	// RelStrings holds trec_eval's relstring per query (only when the
	// relstring measure was requested).
	RelStrings map[string]string
	// RunNotes are what is suspect about the run file (RunInfo.Warnings:
	// tags differing from the first line's, no final newline), set by
	// EvaluateRunFile and included in Warnings.
	RunNotes []string
	// Options are the options used (after defaults).
	Options Options
	// Slices, when set by the caller (e.Slices = e.SliceMeans(meta)), are
	// printed by WriteTable and WriteJSON.
	Slices []SliceMean
}

// Index returns the position of the measure named name in e.Measures, or -1.
func (e *Evaluation) Index(name string) int {
	for j, m := range e.Measures {
		if m.Name == name {
			return j
		}
	}
	return -1
}

// Mean returns the summary value of the measure named name.
func (e *Evaluation) Mean(name string) (float64, bool) {
	j := e.Index(name)
	if j < 0 {
		return 0, false
	}
	return e.Means[j], true
}

// Column returns the per-query values of the measure named name, aligned
// with e.Queries, or nil if there is no such measure.
func (e *Evaluation) Column(name string) []float64 {
	j := e.Index(name)
	if j < 0 {
		return nil
	}
	col := make([]float64, len(e.Queries))
	for i := range e.Queries {
		col[i] = e.Values[i][j]
	}
	return col
}

// PerQuery returns query id → measure name → value for every query with a
// row.
func (e *Evaluation) PerQuery() map[string]map[string]float64 {
	out := make(map[string]map[string]float64, len(e.Queries))
	for i, q := range e.Queries {
		m := make(map[string]float64, len(e.Measures))
		for j, ms := range e.Measures {
			m[ms.Name] = e.Values[i][j]
		}
		out[q] = m
	}
	return out
}

// Warnings describes, in words, what is suspect about the run file
// (RunNotes) and the counted policies applied: run queries absent from the
// qrels, qrels queries missing from the run, ties reordered, queries
// relevant only below the relevance level, unanswerable queries left out
// of the means.
func (e *Evaluation) Warnings() []string {
	w := append([]string(nil), e.RunNotes...)
	if n := len(e.NotInQrels); n > 0 {
		w = append(w, fmt.Sprintf("%d run %s not in the qrels (ignored), e.g. %q", n, plural.Word(n, "query", "queries"), e.NotInQrels[0]))
	}
	if w1 := e.missingWarning(); w1 != "" {
		w = append(w, w1)
	}
	if n := len(e.TieReordered); n > 0 {
		w = append(w, fmt.Sprintf("%s with tied scores listed in another order than trec_eval's (doc id descending), e.g. %q: ranked as trec_eval does; --ties input keeps the run's order", plural.Count(n, "query", "queries"), e.TieReordered[0]))
	}
	if n := len(e.BelowLevel); n > 0 {
		w = append(w, fmt.Sprintf("%s with relevant docs only below grade %d (relevance level): averaged, binary measures score %s 0 as trec_eval does, e.g. %q", plural.Count(n, "query", "queries"), e.Options.RelevanceLevel, plural.Word(n, "it", "them"), e.BelowLevel[0]))
	}
	if n := len(e.Unanswerable); n > 0 {
		if e.Options.AverageUnanswerable {
			w = append(w, fmt.Sprintf("%d unanswerable %s (no relevant doc) averaged in", n, plural.Word(n, "query", "queries")))
		} else {
			w = append(w, fmt.Sprintf("%d unanswerable %s (no relevant doc) not averaged", n, plural.Word(n, "query", "queries")))
		}
	}
	return w
}

// missingWarning counts the labelled queries missing from the run: the
// answerable ones (scored 0 under CompleteQueries, else skipped), with one
// of them as the example, then the unanswerable ones, which are never
// scored: `1 qrels query missing from the run (scored 0), e.g. "q9"; also
// 1 unanswerable (not scored)`, "labelled query" for span labels
// (Options.Labels). "" when none is missing.
func (e *Evaluation) missingWarning() string {
	unans := map[string]bool{}
	for _, q := range e.NotInRunUnanswerable {
		unans[q] = true
	}
	var scored []string
	for _, q := range e.NotInRun {
		if !unans[q] {
			scored = append(scored, q)
		}
	}
	labels := e.Options.Labels
	if labels == "" {
		labels = "qrels"
	}
	u := len(e.NotInRunUnanswerable)
	if len(scored) == 0 {
		if u == 0 {
			return ""
		}
		return fmt.Sprintf("%d unanswerable %s %s missing from the run (not scored), e.g. %q", u, labels, plural.Word(u, "query", "queries"), e.NotInRunUnanswerable[0])
	}
	what := "scored 0"
	if !e.Options.CompleteQueries {
		what = "skipped: not averaged"
	}
	n := len(scored)
	s := fmt.Sprintf("%d %s %s missing from the run (%s), e.g. %q", n, labels, plural.Word(n, "query", "queries"), what, scored[0])
	if u > 0 {
		s += fmt.Sprintf("; also %d unanswerable (not scored)", u)
	}
	return s
}

// answerable reports whether judgments hold a doc of positive grade.
func answerable(judgments map[string]int) bool {
	for _, g := range judgments {
		if g > 0 {
			return true
		}
	}
	return false
}

// Evaluate scores run against qrels with the given measures. Each run query
// that is in the qrels is evaluated (results sorted as by Sort with
// opts.TieBreak, then cut at opts.MaxResults); qrels queries missing from the
// run are evaluated with no results when opts.CompleteQueries. Queries are
// evaluated in parallel (opts.Workers) into fixed slots, and means are summed
// in query id order, so the numbers do not depend on the number of workers.
// The run is not modified. Errors: no measure, no query to evaluate, a
// non-empty run sharing no query id with the qrels (even with
// opts.CompleteQueries: wrong qrels rather than a failed system), or a run
// query retrieving a doc twice or with a NaN or infinite score (what ReadRun
// rejects in a file; the first such query in id order is reported), or
// opts.Context's error when it was cancelled.
func Evaluate(qrels Qrels, run Run, measures []Measure, opts Options) (*Evaluation, error) {
	if len(measures) == 0 {
		return nil, fmt.Errorf("no measure given")
	}
	if err := opts.check(); err != nil {
		return nil, err
	}
	if err := checkGrades(qrels, measures); err != nil {
		return nil, err
	}
	e, err := newEvaluation(qrels, run, measures, opts)
	if err != nil {
		return nil, err
	}
	relStringLen := relStringLength(measures)
	rows := make([]queryRow, len(e.Queries))
	errs := make([]error, len(e.Queries))
	flat := make([]float64, len(e.Queries)*len(measures))
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, len(e.Queries)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r ranking
			var buf []Result
			seen := map[string]struct{}{}
			for {
				i := int(next.Add(1) - 1)
				if i >= len(e.Queries) || (opts.Context != nil && opts.Context.Err() != nil) {
					return
				}
				q := e.Queries[i]
				if errs[i] = checkResults(q, run[q], seen); errs[i] != nil {
					continue
				}
				buf = append(buf[:0], run[q]...)
				rows[i] = evaluateQuery(&r, q, qrels[q], run[q], buf, measures, flat[i*len(measures):(i+1)*len(measures)], relStringLen, opts)
			}
		}()
	}
	wg.Wait()
	if opts.Context != nil && opts.Context.Err() != nil {
		return nil, opts.Context.Err()
	}
	for _, err := range errs { // the first bad query in id order
		if err != nil {
			return nil, err
		}
	}
	e.finish(rows, relStringLen > 0)
	return e, nil
}

// newEvaluation starts Evaluate's Evaluation: the queries to evaluate (run
// queries in the qrels, and the qrels queries missing from the run under
// CompleteQueries) and those in only one of the two, sorted. Errors: a
// non-empty run sharing no query with the qrels, no query to evaluate.
func newEvaluation(qrels Qrels, run Run, measures []Measure, opts Options) (*Evaluation, error) {
	e := &Evaluation{Measures: measures, Options: opts}
	for q := range run {
		if _, ok := qrels[q]; ok {
			e.Queries = append(e.Queries, q)
		} else {
			e.NotInQrels = append(e.NotInQrels, q)
		}
	}
	for q := range qrels {
		if _, ok := run[q]; !ok {
			e.NotInRun = append(e.NotInRun, q)
			if !answerable(qrels[q]) {
				e.NotInRunUnanswerable = append(e.NotInRunUnanswerable, q)
			}
			if opts.CompleteQueries {
				e.Queries = append(e.Queries, q)
			}
		}
	}
	sort.Strings(e.Queries)
	sort.Strings(e.NotInQrels)
	sort.Strings(e.NotInRun)
	sort.Strings(e.NotInRunUnanswerable)
	if len(run) > 0 && len(e.NotInQrels) == len(run) {
		return nil, noCommonQuery(e.NotInQrels, e.NotInRun)
	}
	if len(e.Queries) == 0 {
		return nil, fmt.Errorf("no query has both qrels and results (run queries not in qrels: %d)", len(e.NotInQrels))
	}
	return e, nil
}

// evaluateQuery scores query q: its results (a copy in buf) sorted with
// opts.TieBreak and cut at opts.MaxResults, the measures written into vals.
func evaluateQuery(r *ranking, q string, judg map[string]int, results, buf []Result, measures []Measure, vals []float64, relStringLen int, opts Options) queryRow {
	Sort(buf, opts.TieBreak)
	reordered := opts.TieBreak == TieDocIDDesc && tiesReordered(results, buf)
	if opts.MaxResults > 0 && len(buf) > opts.MaxResults {
		buf = buf[:opts.MaxResults]
	}
	r.judgedOnly = opts.JudgedOnly
	r.prepare(judg, buf, opts.RelevanceLevel)
	row := r.row(q, measures, vals, relStringLen)
	row.tieReordered = reordered
	return row
}

// noCommonQuery is the error of a run that shares no query id with its
// qrels: almost always the wrong qrels file (another split, renumbered
// ids), so it is refused even when missing queries would score 0. runQ and
// qrelsQ are sorted and not empty.
func noCommonQuery(runQ, qrelsQ []string) error {
	return fmt.Errorf("no run query is in the qrels: the run's %s (e.g. %q) and the qrels' %d (e.g. %q) share no id; wrong qrels for this run?",
		plural.Count(len(runQ), "query", "queries"), runQ[0], len(qrelsQ), qrelsQ[0])
}

// checkResults rejects what ReadRun rejects in a file: a doc retrieved twice
// and a score that is NaN or infinite. seen is scratch space.
func checkResults(qid string, res []Result, seen map[string]struct{}) error {
	clear(seen)
	for _, x := range res {
		if math.IsNaN(x.Score) || math.IsInf(x.Score, 0) {
			return fmt.Errorf("run query %q doc %q: score %v is not finite", qid, x.DocID, x.Score)
		}
		if _, dup := seen[x.DocID]; dup {
			return fmt.Errorf("run query %q retrieves doc %q twice (trec_eval rejects duplicate docs)", qid, x.DocID)
		}
		seen[x.DocID] = struct{}{}
	}
	return nil
}

// queryRow is one evaluated query.
type queryRow struct {
	qid          string
	values       []float64
	numRel       int // R at the relevance level
	numPos       int // judged docs with a positive grade
	relString    string
	tieReordered bool // see Evaluation.TieReordered
}

// tiesReordered reports whether sorted (in, sorted by Sort with
// TieDocIDDesc) orders some equal scores differently from in's order.
func tiesReordered(in, sorted []Result) bool {
	tied := false
	for i := 1; i < len(sorted) && !tied; i++ {
		tied = sorted[i].Score == sorted[i-1].Score
	}
	if !tied {
		return false
	}
	stable := slices.Clone(in)
	Sort(stable, TieInputOrder)
	for i := range stable {
		if stable[i].DocID != sorted[i].DocID {
			return true
		}
	}
	return false
}

func relStringLength(ms []Measure) int {
	n := 0
	for _, m := range ms {
		if m.Kind == RelString {
			n = m.K
		}
	}
	return n
}

// row evaluates every measure on r into values.
func (r *ranking) row(qid string, ms []Measure, values []float64, relStringLen int) queryRow {
	for j, m := range ms {
		values[j] = r.value(m)
	}
	qr := queryRow{qid: qid, values: values, numRel: r.numRel, numPos: r.numPos}
	if relStringLen > 0 {
		qr.relString = r.relString(relStringLen)
	}
	return qr
}

// finish fills e from rows already sorted by query id: Queries, Values,
// InMean, Unanswerable, NumQ, Means and RelStrings.
func (e *Evaluation) finish(rows []queryRow, wantRelString bool) {
	e.Queries = make([]string, len(rows))
	e.Values = make([][]float64, len(rows))
	e.InMean = make([]bool, len(rows))
	if wantRelString {
		e.RelStrings = make(map[string]string, len(rows))
	}
	e.Unanswerable = nil
	e.BelowLevel = nil
	e.TieReordered = nil
	e.NumQ = 0
	for i, qr := range rows {
		if qr.tieReordered {
			e.TieReordered = append(e.TieReordered, qr.qid)
		}
		e.Queries[i] = qr.qid
		e.Values[i] = qr.values
		e.InMean[i] = true
		switch {
		case qr.numPos == 0:
			e.Unanswerable = append(e.Unanswerable, qr.qid)
			e.InMean[i] = e.Options.AverageUnanswerable
		case qr.numRel == 0:
			e.BelowLevel = append(e.BelowLevel, qr.qid)
		}
		if e.InMean[i] {
			e.NumQ++
		}
		if wantRelString {
			e.RelStrings[qr.qid] = qr.relString
		}
	}
	e.Means = summarize(e.Measures, e.Values, e.InMean, e.NumQ)
}

// summarize computes the means as documented at Evaluation.Means, summing in
// row order.
func summarize(ms []Measure, values [][]float64, in []bool, numQ int) []float64 {
	means := make([]float64, len(ms))
	for j, m := range ms {
		geo := m.Kind == GMAP || m.Kind == GMBpref
		s := 0.0
		for i, row := range values {
			if !in[i] {
				continue
			}
			if geo {
				s += math.Log(row[j])
			} else {
				s += row[j]
			}
		}
		switch {
		case m.Kind == NumQ:
			means[j] = float64(numQ)
		case m.Integer():
			means[j] = s
		case numQ == 0:
			means[j] = math.NaN()
		case geo:
			means[j] = math.Exp(s / float64(numQ))
		default:
			means[j] = s / float64(numQ)
		}
	}
	return means
}

// SliceMean summarises one slice of queries (QueryMeta.Slice): NumQ queries
// averaged, Rows queries with a row (averaged or not), and Means aligned with
// Evaluation.Measures, computed as Evaluation.Means are over the slice's
// averaged queries (NaN when none is averaged, e.g. a slice of unanswerable
// queries).
type SliceMean struct {
	Slice string
	NumQ  int
	Rows  int
	Means []float64
}

// SliceMeans groups the evaluated queries by their slice in meta (as
// returned by ReadQrels for labelled-query JSONL; queries absent from meta or
// with an empty slice go to slice "") and summarises each slice. Slices come
// in byte order of their names. It returns nil when no query has a slice.
func (e *Evaluation) SliceMeans(meta map[string]QueryMeta) []SliceMean {
	bySlice := map[string][]int{}
	hasSlice := false
	for i, q := range e.Queries {
		s := meta[q].Slice
		if s != "" {
			hasSlice = true
		}
		bySlice[s] = append(bySlice[s], i)
	}
	if !hasSlice {
		return nil
	}
	var out []SliceMean
	for _, s := range slices.Sorted(maps.Keys(bySlice)) {
		rows := bySlice[s]
		values := make([][]float64, len(rows))
		in := make([]bool, len(rows))
		n := 0
		for k, i := range rows {
			values[k], in[k] = e.Values[i], e.InMean[i]
			if in[k] {
				n++
			}
		}
		out = append(out, SliceMean{Slice: s, NumQ: n, Rows: len(rows), Means: summarize(e.Measures, values, in, n)})
	}
	return out
}
