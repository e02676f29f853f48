package sweep

import (
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/fileutil"
	"github.com/ragbench/ragbench/internal/plural"
	"github.com/ragbench/ragbench/results"
	"github.com/ragbench/ragbench/spans"
)

// This file holds the sweep's side of span labels (docs/spans.md): the
// config fields, the dataset read from span labels, the per-chunking
// derived judgements and span measures, and the span misses. The rules
// themselves are package spans' (labels, Covers, measures) and corpus'
// (chunkers with exact spans).

// readSpanLabels reads dataset.queries as span labels when spans.Detect
// says it holds them (ok false otherwise: eval reads the file). It fills
// ds.spanQueries, and ds.qrels with document-level judgements derived from
// the spans (a query's gold documents, at the highest grade of their spans)
// so the answerable split, held-out split and summary work as for other
// labels; each chunking replaces them by chunk judgements (spanCells).
// Span metrics in metrics: without span labels are an error (the metrics
// default, DefaultMetrics, was chosen by Load with spans.Detect too).
func (ds *dataset) readSpanLabels(cfg *Config, queriesPath, qrelsPath string) (ok bool, err error) {
	format := ""
	if queriesPath != "" && qrelsPath == "" {
		if format, err = spans.Detect(queriesPath); err != nil {
			return false, err
		}
	}
	if format == "" {
		for i, m := range cfg.Metrics {
			if slices.Contains(config.SpanMetricFamilies, m) {
				return false, cfg.Errf(fmt.Sprintf("metrics.%d", i), "metric %s needs span labels (dataset.queries with \"gold_spans\", or Chroma's questions.csv; docs/spans.md)", m)
			}
		}
		return false, spanOnlyKeys(cfg)
	}
	if cfg.Dataset.SliceField != "" {
		return false, cfg.Errf("dataset.slice_field", "span labels carry their slice in \"kind\" or \"slice\" (corpus_id for Chroma's questions.csv): remove slice_field")
	}
	qs, moved, err := ds.readCheckedSpans(queriesPath)
	if err != nil {
		return false, err
	}
	ds.spanQueries, ds.movedNote = qs, moved
	ds.files["queries"] = queriesPath
	ds.qrels = eval.Qrels{}
	ds.text = map[string]string{}
	ds.slice = map[string]string{}
	for _, q := range qs {
		m := map[string]int{}
		for _, g := range q.Gold {
			m[g.Doc] = max(m[g.Doc], g.Grade)
		}
		ds.qrels[q.ID] = m
		ds.text[q.ID] = q.Text
		ds.slice[q.ID] = q.Slice
	}
	return true, nil
}

// spanCells is one chunking's state for span labels: the chunks' places
// and the chunk judgements derived from the spans (judgements).
type spanCells struct {
	ch      *spans.Chunking
	queries []spans.Query
	// qrels are the chunk judgements when they do not depend on the run
	// (no query gives alternatives: spans.Judgements), else nil.
	qrels eval.Qrels
	// judged are the chunks overlapping a judged passage, per query
	// (spans.JudgedChunks): judged coverage's judgements (judged.go).
	judged      eval.Qrels
	share       float64
	uncoverable []spans.Uncoverable
	omega       float64 // mean precision Ω (spans.PrecisionOmega): the chunking's, independent of the run
	total       int     // gold spans of all queries
}

// newSpanCells derives chunking ch's chunk judgements from the span labels
// (nil, nil without span labels).
func (ds *dataset) newSpanCells(cfg *Config, chunks corpus.Chunks) (*spanCells, error) {
	if ds.spanQueries == nil {
		return nil, nil
	}
	ch, err := spans.NewChunking(ds.docs, chunks)
	if err != nil {
		return nil, err
	}
	share := cfg.Dataset.SpanCoverShare
	un, err := spans.UncoverablePassages(ds.spanQueries, ch, share)
	if err != nil {
		return nil, err
	}
	var qrels eval.Qrels
	if !hasAlternatives(ds.spanQueries) {
		if qrels, _, err = spans.Judgements(ds.spanQueries, ch, share); err != nil {
			return nil, err
		}
	}
	// Ω depends on the chunking only: Evaluate of an empty run gives it.
	ev, err := spans.Evaluate(ds.spanQueries, ch, eval.Run{}, spans.Options{Ks: []int{1}, CoverShare: cfg.Dataset.SpanCoverShare, TieBreak: eval.TieDocIDDesc})
	if err != nil {
		return nil, err
	}
	omega, _ := ev.Mean(spans.PrecisionOmegaName)
	return &spanCells{ch: ch, queries: ds.spanQueries, qrels: qrels, judged: spans.JudgedChunks(ds.spanQueries, ch), share: share, uncoverable: un, omega: omega, total: goldPassages(ds.spanQueries)}, nil
}

// goldPassages is the number of gold passages of queries, the total that
// the misses' "missed / total" counts against: a group of alternatives
// once, as misses count it (spans.Query.Passages).
func goldPassages(queries []spans.Query) int {
	total := 0
	for _, q := range queries {
		total += len(q.Passages())
	}
	return total
}

// hasAlternatives reports whether some query gives a group of
// alternatives (any_of), whose chunk judgements depend on the run.
func hasAlternatives(queries []spans.Query) bool {
	for _, q := range queries {
		for _, g := range q.Gold {
			if g.Group != 0 {
				return true
			}
		}
	}
	return false
}

// judgements are the chunk judgements of run: the chunking's own when no
// query gives alternatives, else spans.RunJudgements of the run (a group
// counts once: its representative is the member the run finds first).
func (sc *spanCells) judgements(run eval.Run) (eval.Qrels, error) {
	if sc.qrels != nil {
		return sc.qrels, nil
	}
	return spans.RunJudgements(sc.queries, sc.ch, run, sc.share, eval.TieDocIDDesc)
}

// uncoverableWarning says how many gold spans no chunk of chunking name
// covers ("" when none): no retriever can find them, and the chunk-level
// measures of a query all of whose spans are uncoverable are 0.
func (sc *spanCells) uncoverableWarning(name string, share float64) string {
	if sc == nil || len(sc.uncoverable) == 0 {
		return ""
	}
	qs := map[string]bool{}
	for _, u := range sc.uncoverable {
		qs[u.Query] = true
	}
	first := sc.uncoverable[0]
	return fmt.Sprintf("chunking %s: %s in %s covered by no chunk (none holds %v of it), e.g. query %q, doc %q [%d, %d); no retriever can find them and they count as misses",
		name, plural.Count(len(sc.uncoverable), "gold span", "gold spans"), plural.Count(len(qs), "query", "queries"), share, first.Query, first.Span.Doc, first.Span.Start, first.Span.End)
}

// cellScores evaluates a cell's run: without span labels, eval's measures
// on the dataset's qrels; with them, eval's measures on the chunking's
// derived chunk judgements (an answerable query whose spans no chunk covers
// scores 0) plus the span measures (spans.Evaluate). The result is metric
// name → query id → value for every answerable query. Cancelling ctx
// stops eval's measures, with ctx's error.
func cellScores(ctx context.Context, cfg *Config, ds *dataset, sc *spanCells, run eval.Run) (map[string]map[string]float64, error) {
	if sc == nil {
		return evaluateRunContext(ctx, cfg, ds.qrels, run)
	}
	scores := map[string]map[string]float64{}
	if ms, _, err := measures(cfg); err != nil {
		return nil, err
	} else if len(ms) > 0 { // else metrics: lists span families only
		qrels, err := sc.judgements(run)
		if err != nil {
			return nil, err
		}
		if scores, err = evaluateRunContext(ctx, cfg, qrels, run); err != nil {
			return nil, err
		}
	}
	for name, col := range scores {
		for _, id := range ds.answerable {
			if _, ok := col[id]; !ok {
				col[id] = 0
			}
		}
		scores[name] = col
	}
	ev, err := spans.Evaluate(ds.spanQueries, sc.ch, run, spans.Options{Ks: cfg.K, CoverShare: cfg.Dataset.SpanCoverShare, TieBreak: eval.TieDocIDDesc})
	if err != nil {
		return nil, err
	}
	per := ev.PerQuery()
	for _, f := range cfg.Metrics {
		if !slices.Contains(config.SpanMetricFamilies, f) {
			continue
		}
		for _, k := range cfg.K {
			name := config.MetricName(f, k)
			col := make(map[string]float64, len(per))
			for id, m := range per {
				col[id] = m[spans.MeasureName(f, k)]
			}
			scores[name] = col
		}
	}
	return scores, nil
}

// spanMisses are the misses.jsonl rows of cell name's final run with span
// labels (spans.Misses at prompt_k): per gold span no chunk of the top
// prompt_k covers, its text and what came back instead (Relevant: the
// chunk covers a gold span of the query), snippets of the chunking's own
// chunks.
func spanMisses(cfg *Config, ds *dataset, sc *spanCells, name string, run eval.Run, chunkByID *corpus.IDIndex, chunks corpus.Chunks) ([]results.SpanMiss, error) {
	ms, err := spans.Misses(ds.spanQueries, sc.ch, run, cfg.PromptK, spans.Options{CoverShare: cfg.Dataset.SpanCoverShare, TieBreak: eval.TieDocIDDesc})
	if err != nil {
		return nil, err
	}
	qrels, err := sc.judgements(run)
	if err != nil {
		return nil, err
	}
	var out []results.SpanMiss
	for _, m := range ms {
		row := results.SpanMiss{MissQuery: missQuery(cfg, ds, name, m.Query),
			Doc: m.Span.Doc, Start: m.Span.Start, End: m.Span.End, Text: m.Span.Text, Returned: []results.Hit{}}
		score := map[string]float64{}
		for _, r := range run[m.Query] {
			score[r.DocID] = r.Score
		}
		for i, id := range m.Retrieved {
			row.Returned = append(row.Returned, results.Hit{Rank: i + 1, ID: id, Score: score[id], Relevant: qrels[m.Query][id] >= 1, Snippet: ds.snippet(id, cfg.Snippet, chunkByID, chunks)})
		}
		out = append(out, row)
	}
	return out, nil
}

// pathHash is the sha256 of a file, or for a folder corpus the hash of its
// documents (corpus.Hash: ids and texts), so folders hash like files.
func pathHash(p string, ds *dataset) (string, int64, error) {
	st, err := os.Stat(p)
	if err != nil {
		return "", 0, err
	}
	if st.IsDir() {
		var n int64
		for _, d := range ds.docs {
			n += int64(len(d.Text))
		}
		return corpus.Hash(ds.docs), n, nil
	}
	h, err := fileutil.SHA256(p)
	return h, st.Size(), err
}
