package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/plural"
	"github.com/ragbench/ragbench/passages"
	"github.com/ragbench/ragbench/spans"
)

const evalUsage = `usage: bench eval [flags] QRELS RUN
       bench eval --corpus DIR [flags] LABELS RUN


Score a retrieval run against relevance judgements with trec_eval-exact
measures.

QRELS: TREC qrels ("qid iter docid grade"), BEIR qrels TSV (header
"query-id corpus-id score"), labelled-query JSONL ({"id","question","gold":[..]}
or {"qid","text","gold":{"doc":grade}}) or ranx qrels JSON {"q":{"doc":grade}};
gzip is decompressed (".gz" or not).
RUN: TREC run ("qid Q0 docid rank score tag") or ranx JSON {"q":{"doc":score}};
"-" reads it from stdin (as trec_eval 10; not gzip). Lines starting with "#"
are comments, as in trec_eval 10 (in qrels: "#" as the line's first byte).

Results are re-sorted by score, ties broken by doc id in descending byte order
as trec_eval does (--ties input keeps the run's order instead).

Defaults of the table, json and csv formats: a qrels query missing from the run
scores 0 (trec_eval -c), and unanswerable queries (no relevant doc) are counted
and listed but not averaged. --format trec follows trec_eval's defaults exactly
(missing queries skipped unless -c, every query averaged).

Span labels and pipelines' own passages (--corpus; docs/pipelines.md):
LABELS may be span labels (JSONL rows with "gold_spans", or Chroma's
questions.csv) and RUN a passage run (JSONL {"qid", "results": [{"doc",
"start", "end"} or {"text"}, ...]}) or a TREC run of a pipeline's own chunk
ids placed by --chunk-map (or of ragbench's chunking --chunking NAME). Text is
placed in the corpus exactly, then with white space normalised; text found
nowhere or at several places is unmapped (counted, listed, not relevant;
above --max-unmapped the command fails). Span labels give the span and token
measures (token_recall@k, token_precision@k, token_iou@k, span_recall@k,
span_hit_rate@k, span_mrr@k; default every one at k = 1, 5, 10) beside the
chunk-level measures, on judgements derived from the spans (a passage holding
half a gold span is relevant; R = the query's gold passages). Document labels
score a passage run's documents (each document at its best passage's rank).

A run whose ids are mostly unjudged (at most 1 query in 10 retrieved a
judged id: chunk ids against document labels) gets a warning naming the share.

Measures (-m, repeatable; trec_eval parameter syntax, comma lists):
  trec_eval: map gm_map Rprec bpref gm_bpref recip_rank infAP P.K recall.K
    ndcg ndcg_cut.K map_cut.K relative_P.K success.K iprec_at_recall.X
    Rprec_mult.X 11pt_avg utility binG G ndcg_rel Rndcg rbp rbp_resid unj.K
    set_P set_recall set_relative_P set_map set_F num_q num_ret num_rel
    num_rel_ret num_nonrel_judged_ret relstring runid; groups official and
    all_trec
  ragbench: recip_rank_cut.K (RR@K) ndcg_exp_cut.K (gain 2^g-1) judged.K
  ranx-style: ndcg@10 ndcg_burges@10 hit_rate@5 mrr@10 recall@100
    precision@5 map@100 judged@10 mrr
Default: map ndcg_cut.10 P.10 recall.100 recip_rank (trec format: official).

Examples:
  bench eval qrels.test results.test
  bench eval -m ndcg@10 -m hit_rate@5 -q data/qrels.tsv run.trec
  bench eval --format trec -m all_trec -q -c qrels.test results.test
  bench eval --format json -m map -m P.5,10 qrels.jsonl run.json > scores.json
  bench eval --corpus corpus/ labels.jsonl run.passages.jsonl
  bench eval --corpus corpus/ -m span_recall@5,10 -m ndcg@10 questions.csv run.passages.jsonl
  bench eval --corpus corpus/ --chunk-map chunks.jsonl labels.jsonl run.trec

Flags:
`

// stdin is where 'bench eval QRELS -' reads the run (a variable so that
// tests can give one).
var stdin io.Reader = os.Stdin

// trecShortFlag matches trec_eval's glued short options (-M100, -l2,
// -mP.5) so that trec_eval command lines work unchanged.
var trecShortFlag = regexp.MustCompile(`^-([mMl])([^=-].*)$`)

type measureList []string

func (l *measureList) String() string     { return strings.Join(*l, " ") }
func (l *measureList) Set(s string) error { *l = append(*l, s); return nil }

// cmdEval implements 'bench eval'.
func cmdEval(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("eval")
	var (
		measures measureList
		perQuery = fs.Bool("q", false, "print per-query values as well as the summary")
		complete = fs.Bool("c", false, "average over every qrels query, missing ones scoring 0 (trec_eval -c; default of table/json/csv)")
		skipMiss = fs.Bool("skip-missing", false, "table/json/csv: skip qrels queries missing from the run instead of scoring them 0")
		avgUnans = fs.Bool("average-unanswerable", false, "table/json/csv: average queries with no relevant doc too (trec_eval does)")
		maxRes   = fs.Int("M", 0, "read at most `N` results per query after sorting (trec_eval -M; 0 = all)")
		level    = fs.Int("l", 1, "smallest grade counted relevant by binary measures (trec_eval -l; 0: grade 0 too)")
		judged   = fs.Bool("J", false, "drop retrieved docs not judged (absent from the qrels or graded < 0) before any measure, ranks closing up (trec_eval -J)")
		format   = fs.String("format", "table", "output `format`: table, trec, json or csv")
		ties     = fs.String("ties", "docid", "tie order of equal scores: docid (trec_eval) or input (run order)")
		workers  = fs.Int("workers", 0, "goroutines evaluating queries (0 = all CPUs; results do not depend on it)")
		pf       passageFlags
	)
	fs.Var(&measures, "m", "measure `name` (repeatable; see above)")
	pf.register(fs)
	pos, err := parseInterspersed(fs, normTrecFlags(args))
	if err != nil {
		return flagErr(fs, stdout, stderr, evalUsage, err)
	}
	if len(pos) != 2 {
		return usagef("need QRELS and RUN, got %d argument(s); see 'bench eval --help'", len(pos))
	}
	if err := eval.CheckRelevanceLevel(*level); err != nil {
		return usagef("-l: %v", err)
	}
	if pos[0] == "-" {
		return usagef("QRELS cannot be \"-\": only the run is read from stdin, as in trec_eval")
	}
	if *maxRes < 0 {
		return usagef("-M %d: must be ≥ 0", *maxRes)
	}
	if err := pf.check(); err != nil {
		return err
	}
	var opts eval.Options
	switch *format {
	case "trec":
		opts = eval.TrecEvalOptions()
		opts.CompleteQueries = *complete
	case "table", "json", "csv":
		opts = eval.DefaultOptions()
		opts.CompleteQueries = !*skipMiss
		opts.AverageUnanswerable = *avgUnans
	default:
		return usagef("--format %q: want table, trec, json or csv", *format)
	}
	if opts.TieBreak, err = parseTies(*ties); err != nil {
		return err
	}
	opts.RelevanceLevel = *level
	opts.JudgedOnly = *judged
	opts.MaxResults = *maxRes
	opts.Workers = *workers
	if pf.corpus != "" {
		return evalWithCorpus(stdout, stderr, pf, pos[0], pos[1], measures, *format, *perQuery, opts)
	}
	if err := needCorpus(pos[0], pos[1], measures); err != nil {
		return err
	}

	ms, err := evalMeasures(stderr, measures, *format)
	if err != nil {
		return err
	}
	return evalIDs(stdout, stderr, pos[0], pos[1], ms, *format, *perQuery, opts)
}

// evalIDs scores the run at runPath ("-": stdin) against the id labels
// (qrels) at labelsPath and writes the evaluation, warning on stderr when
// the run's ids are mostly unjudged (unjudgedWarning).
func evalIDs(stdout, stderr io.Writer, labelsPath, runPath string, ms []eval.Measure, format string, perQuery bool, opts eval.Options) error {
	qrels, meta, err := eval.ReadQrels(labelsPath)
	if err != nil {
		return err
	}
	all, nCounts := withJudgedCounts(ms)
	var e *eval.Evaluation
	if runPath == "-" {
		e, _, err = eval.EvaluateReader(qrels, stdin, "stdin", all, opts)
	} else {
		e, _, err = eval.EvaluateRunFile(qrels, runPath, all, opts)
	}
	if err != nil {
		return err
	}
	retrieved, judgedN := dropJudgedCounts(e, nCounts)
	if err := checkFinite(e); err != nil {
		return err
	}
	if w := unjudgedWarning(runPath, retrieved, judgedN, runSample(runPath), judgedIDs(qrels)); w != "" {
		fmt.Fprintf(stderr, "bench eval: warning: %s\n", w)
	}
	e.Slices = e.SliceMeans(meta) // labelled-query JSONL: per-slice means
	return writeEval(stdout, stderr, e, format, perQuery)
}

// needCorpus refuses, without --corpus, what only --corpus can score:
// span labels, a passage run, span measures. Errors: usage errors saying
// to pass --corpus.
func needCorpus(labels, run string, measures measureList) error {
	if span, _ := splitSpanMeasures(measures); len(span) > 0 {
		return usagef("-m %s: span measures need span labels and --corpus DIR (the documents they name)", span[0])
	}
	if ok, err := spanLabels(labels); err != nil {
		return err
	} else if ok {
		return usagef("%s holds span labels (\"gold_spans\" or Chroma's questions.csv): pass --corpus DIR, the documents their spans are in", labels)
	}
	if run != "-" && isPassageRun(run) {
		return usagef("%s is a passage run: pass --corpus DIR, the documents its passages are in (docs/pipelines.md)", run)
	}
	return nil
}

// judgedCountNames are the counts unjudgedWarning reads, evaluated beside
// the measures asked for and dropped before printing.
var judgedCountNames = []string{"num_ret", "num_rel_ret", "num_nonrel_judged_ret"}

// withJudgedCounts is ms followed by the counts of judgedCountNames
// (num_ret; num_rel_ret + num_nonrel_judged_ret: the judged results), and
// how many were added.
func withJudgedCounts(ms []eval.Measure) ([]eval.Measure, int) {
	counts, _ := eval.ParseMeasures(judgedCountNames)
	return append(slices.Clip(ms), counts...), len(counts)
}

// dropJudgedCounts removes the n counts withJudgedCounts added from e and
// returns, per query row, the results retrieved and judged.
func dropJudgedCounts(e *eval.Evaluation, n int) (retrieved, judged []int) {
	keep := len(e.Measures) - n
	for i, row := range e.Values {
		retrieved = append(retrieved, int(row[keep]))
		judged = append(judged, int(row[keep+1]+row[keep+2]))
		e.Values[i] = row[:keep:keep]
	}
	e.Measures, e.Means = e.Measures[:keep:keep], e.Means[:keep:keep]
	return retrieved, judged
}

// evalWithCorpus is bench eval --corpus: span labels scored on a run's
// passages (span, token and chunk-level measures in one table), or document
// labels on a passage run's documents; other runs and labels as without
// --corpus.
func evalWithCorpus(stdout, stderr io.Writer, pf passageFlags, labelsPath, runPath string, measures measureList, format string, perQuery bool, opts eval.Options) error {
	if runPath == "-" {
		return usagef("with --corpus the run is a file (a passage run or a TREC run), not stdin")
	}
	if opts.JudgedOnly {
		return usagef("-J drops unjudged results: with --corpus every passage is judged by the spans it covers; leave -J out")
	}
	spanned, err := spanLabels(labelsPath)
	if err != nil {
		return err
	}
	spanNames, rest := splitSpanMeasures(measures)
	if err := checkSpanNames(spanNames); err != nil {
		return err
	}
	if !spanned && len(spanNames) > 0 {
		return usagef("-m %s: span measures need span labels (\"gold_spans\" or Chroma's questions.csv); %s holds ids", spanNames[0], labelsPath)
	}
	var ms []eval.Measure
	if len(measures) == 0 || len(rest) > 0 {
		if ms, err = evalMeasures(stderr, rest, format); err != nil {
			return err
		}
	}
	if spanned && len(measures) == 0 {
		spanNames = defaultSpanMeasures()
	}
	ci, err := loadCorpus(pf.corpus)
	if err != nil {
		return err
	}
	run, ok, err := pf.readPassages(runPath, ci, opts.TieBreak)
	if err != nil {
		return err
	}
	if !ok {
		if spanned {
			return usagef("%s: span labels score passages: give a passage run, or a TREC run with --chunk-map FILE (the pipeline's chunk ids) or --chunking NAME (ragbench's)", runPath)
		}
		return evalIDs(stdout, stderr, labelsPath, runPath, ms, format, perQuery, opts)
	}
	run.Cut(opts.MaxResults)
	sc, err := run.Scored(ci.docs)
	if err != nil {
		return err
	}
	var e *eval.Evaluation
	var meta map[string]eval.QueryMeta
	if spanned {
		queries, err := spans.Read(labelsPath, ci.docs)
		if err != nil {
			return err
		}
		meta = spans.Meta(queries)
		if e, err = passages.Evaluate(queries, sc, ms, passages.Options{Span: spanNames, CoverShare: pf.coverShare, Eval: opts}); err != nil {
			return err
		}
	} else {
		var qrels eval.Qrels
		if qrels, meta, err = eval.ReadQrels(labelsPath); err != nil {
			return err
		}
		docRun := corpus.MaxP(sc.Run, sc.DocOf)
		all, n := withJudgedCounts(ms)
		if e, err = eval.Evaluate(qrels, docRun, all, opts); err != nil {
			return err
		}
		retrieved, judgedN := dropJudgedCounts(e, n)
		if w := unjudgedWarning(runPath, retrieved, judgedN, nil, nil); w != "" {
			fmt.Fprintf(stderr, "bench eval: warning: %s\n", w)
		}
	}
	if err := checkFinite(e); err != nil {
		return err
	}
	e.RunNotes = append(e.RunNotes, run.Notes()...)
	e.Slices = e.SliceMeans(meta)
	return writeEval(stdout, stderr, e, format, perQuery)
}

// isTextMeasure reports whether m has no numeric value (relstring, runid).
func isTextMeasure(m eval.Measure) bool {
	return m.Kind == eval.RelString || m.Kind == eval.RunID
}

// textMeasures checks the -m names for the table, json and csv formats,
// which show numbers only: relstring and runid named on their own are a
// usage error (they were dropped silently when mixed with other measures);
// brought in by the groups official or all_trec they are dropped, and their
// names (among ms) returned so that the caller says so.
func textMeasures(names []string, ms []eval.Measure, format string) (dropped []string, err error) {
	for _, raw := range names {
		for _, n := range strings.Fields(raw) {
			if n == "official" || n == "all_trec" {
				continue
			}
			got, _, err := eval.ParseMeasuresTrec([]string{n})
			if err != nil {
				continue // reported by the caller's parse
			}
			if slices.ContainsFunc(got, isTextMeasure) {
				return nil, usagef("-m %s: relstring and runid are printed by --format trec only (relstring per query, with -q); --format %s shows numbers only", n, format)
			}
		}
	}
	for _, m := range ms {
		if isTextMeasure(m) {
			dropped = append(dropped, m.Name)
		}
	}
	return dropped, nil
}

// checkFinite refuses per-query values that are not finite: parameters
// such as utility.1e308,-1e308,0,0 overflow, and a NaN would print as
// "n/a" (no query averaged) or break the JSON output.
func checkFinite(e *eval.Evaluation) error {
	for i, row := range e.Values {
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("measure %s: query %q: value %v is not finite (do the measure's parameters overflow?)", e.Measures[j].Name, e.Queries[i], v)
			}
		}
	}
	return nil
}

// parseInterspersed parses fs's flags wherever they stand among the
// positional arguments (bench eval qrels run -m map), which it returns in
// order; everything after "--" is positional.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// normTrecFlags rewrites trec_eval's glued short options (trecShortFlag:
// "-mP.10", "-M100") as "-m=P.10", "-M=100" for the flag package; other
// arguments are kept.
func normTrecFlags(args []string) []string {
	norm := make([]string, len(args))
	for i, a := range args {
		if m := trecShortFlag.FindStringSubmatch(a); m != nil {
			a = "-" + m[1] + "=" + m[2]
		}
		norm[i] = a
	}
	return norm
}

// parseTies is --ties: docid (trec_eval's order: equal scores by doc id,
// descending) or input (the run's order). Errors: a usage error for any
// other value.
func parseTies(ties string) (eval.TieBreak, error) {
	switch ties {
	case "docid":
		return eval.TieDocIDDesc, nil
	case "input":
		return eval.TieInputOrder, nil
	}
	return 0, usagef("--ties %q: want docid or input", ties)
}

// evalMeasures parses the -m names (default: trec_eval's official set for
// --format trec, else map, ndcg_cut.10, P.10, recall.100 and recip_rank)
// as trec_eval reads them, warning on stderr of each truncated cutoff; for
// the other formats the text-only measure groups are dropped with a note
// (textMeasures). Errors: a usage error for a name that does not parse.
func evalMeasures(stderr io.Writer, measures measureList, format string) ([]eval.Measure, error) {
	names := []string(measures)
	if len(names) == 0 {
		if format == "trec" {
			names = []string{"official"}
		} else {
			names = []string{"map", "ndcg_cut.10", "P.10", "recall.100", "recip_rank"}
		}
	}
	// trec_eval's reading of parameters: a fractional cutoff is truncated
	// (ndcg_cut.23.4 → ndcg_cut_23), each one reported on stderr.
	ms, truncated, err := eval.ParseMeasuresTrec(names)
	if err != nil {
		return nil, usagef("%v", err)
	}
	for _, w := range truncated {
		fmt.Fprintf(stderr, "bench eval: warning: %s\n", w)
	}
	if format == "trec" {
		ms = eval.TrecOrder(ms)
	} else if dropped, err := textMeasures(names, ms, format); err != nil {
		return nil, err
	} else if len(dropped) > 0 {
		fmt.Fprintf(stderr, "bench eval: note: %s of the measure %s printed by --format trec only, not in this output\n", strings.Join(dropped, " and "), plural.Word(len(dropped), "group is", "groups are"))
		ms = slices.DeleteFunc(ms, isTextMeasure)
	}

	return ms, nil
}

// writeEval writes evaluation e in format (trec, json, csv or table), with
// per-query values when perQuery, then its notes on stderr: for trec only
// the run file's own (trec_eval's policies apply silently), for json and
// csv all of e's warnings, for the table none.
func writeEval(stdout, stderr io.Writer, e *eval.Evaluation, format string, perQuery bool) error {
	var err error
	switch format {
	case "trec":
		// trec_eval's policies apply silently, as in trec_eval; what is
		// suspect about the run file itself is still said.
		if err := eval.WriteTrec(stdout, e, perQuery); err != nil {
			return err
		}
		for _, w := range e.RunNotes {
			fmt.Fprintf(stderr, "bench eval: note: %s\n", w)
		}
		return nil
	case "json":
		err = eval.WriteJSON(stdout, e, perQuery)
	case "csv":
		err = eval.WriteCSV(stdout, e, perQuery)
	default:
		err = eval.WriteTable(stdout, e, perQuery)
	}
	if err != nil {
		return err
	}
	if format != "table" {
		for _, w := range e.Warnings() {
			fmt.Fprintf(stderr, "bench eval: note: %s\n", w)
		}
	}
	return nil
}
