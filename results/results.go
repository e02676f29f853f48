// Package results is the contract of bench run's outputs: the Results a
// sweep measured and results.json, their JSON form (ResultsJSON); the
// rows of misses.jsonl (Miss, SpanMiss; MissesJSONL); manifest.json
// (Manifest, FileHash); and the readers of results.json and
// manifest.json (ReadResults, ReadManifest) for the tools that compare
// runs (package gate), which read files written by earlier versions too.
//
// The config recorded in results.json and each cell's retriever are
// package config's types, whose JSON shape (the retriever's flat object
// included) is part of this contract. Package sweep fills Results,
// package report renders report.md and report.html from them alone.
package results

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/ragbench/ragbench/config"
)

// Results is everything a sweep measured; results.json is its JSON form.
// All parts but Timings are deterministic: the same config and seed give
// byte-identical JSON.
type Results struct {
	// Config is the resolved config (output, cache and history paths
	// blanked: they do not change the numbers).
	Config config.Config `json:"config"`
	// Dataset summarises the queries evaluated.
	Dataset DatasetSummary `json:"dataset"`
	// Metrics are the metric names evaluated, "family@k", in report order.
	Metrics []string `json:"metrics"`
	// Cells are the chunking × retriever cells in grid order.
	Cells []CellResult `json:"cells"`
	// Significance is the paired tests of every pair of cells on
	// Significance.Metric over all answerable queries.
	Significance Significance `json:"significance"`
	// Best is, per chunking, the cell with the highest tuning mean of the
	// significance metric, with its held-out mean.
	Best []Best `json:"best_per_chunking"`
	// Warnings are counted, reported policies (empty documents, queries
	// without text, ...).
	Warnings []string `json:"warnings"`
	// Labels counts the labels' judgements, grade 0 ones and span labels
	// placed at new offsets (nil in files of earlier versions).
	Labels *LabelNotes `json:"labels,omitempty"`
	// BudgetVerdict is the chunking verdict at the prompt budget (config
	// prompt_budget, span labels, more than one chunking; nil otherwise).
	BudgetVerdict *BudgetVerdict `json:"budget_verdict,omitempty"`
	// Timings are wall times per cell: the only part that changes between
	// runs of the same config.
	Timings []Timing `json:"timings"`

	// Groups are the answerable queries' ids of each group of Means
	// (GroupAll, GroupTuning, GroupHeldOut, SliceGroup(s)), in query-id
	// order, as the sweep averaged them: report.html's confidence
	// intervals are over the same queries. Set by sweep.Run, not written
	// to results.json (ReadResults leaves it nil).
	Groups map[string][]string `json:"-"`
}

// DatasetSummary describes the evaluated queries.
type DatasetSummary struct {
	Name         string   `json:"name"`
	Documents    int      `json:"documents"`
	Queries      int      `json:"queries"`      // queries in the qrels
	Answerable   int      `json:"answerable"`   // with ≥ 1 relevant doc
	Unanswerable int      `json:"unanswerable"` // with none (reported apart)
	Tuning       int      `json:"tuning"`       // answerable, not held out
	HeldOut      int      `json:"held_out"`     // answerable, held out
	Slices       []string `json:"slices"`       // slice labels, sorted, with NoSlice when some queries have none; empty when no query has one
	Level        string   `json:"qrels_level"`  // "document" or "chunk"
	// Labels is LabelsSpans when the queries carry span labels (chunk
	// judgements derived per chunking), else empty.
	Labels string `json:"labels,omitempty"`
}

// LabelsSpans is DatasetSummary.Labels for span labels.
const LabelsSpans = "spans"

// Group names used in CellResult.Means: "all", "tuning", "heldout", and
// "slice:<label>" for each slice (DatasetSummary.Slices), NoSlice included.
const (
	GroupAll     = "all"
	GroupTuning  = "tuning"
	GroupHeldOut = "heldout"
)

// SliceGroup is the group name of slice label s in CellResult.Means and
// Counts: "slice:" + s (the one place that spelling is made).
func SliceGroup(s string) string { return "slice:" + s }

// NoSlice is the slice of the queries without a slice label when other
// queries have one: "(none)", the label bench eval uses. It sorts before
// any label starting with a letter or digit; a query labelled "(none)"
// itself falls in the same slice (with a warning).
const NoSlice = "(none)"

// CellResult is one cell's numbers. Metric names are "family@k" (see
// Config.Metrics), values in [0, 1].
type CellResult struct {
	Name      string                 `json:"name"`      // "<chunking>/<retriever>"
	Chunking  config.Chunking        `json:"chunking"`  // the cell's chunking
	Retriever config.RetrieverConfig `json:"retriever"` // the cell's retriever, defaults filled in
	Chunks    int                    `json:"chunks"`    // chunks indexed
	// Means maps group → metric → mean over the group's answerable queries
	// (a query missing from the run scores 0).
	Means map[string]map[string]float64 `json:"means"`
	// Counts maps group → number of answerable queries averaged.
	Counts map[string]int `json:"counts"`
	// PerQuery maps query id → metric → value (answerable queries only).
	PerQuery map[string]map[string]float64 `json:"per_query"`
	// Unanswerable lists, per unanswerable query, what came back.
	Unanswerable []UnanswerableHits `json:"unanswerable"`
	// PrecisionOmega is, with span labels, the mean of Chroma's precision
	// Ω over the answerable queries: the precision of retrieving exactly
	// the chunks holding gold text, a property of the chunking (the same
	// for every retriever); nil without span labels.
	PrecisionOmega *float64 `json:"precision_omega,omitempty"`
	// SpansMissed is, with span labels, the number of gold spans no chunk
	// of the top prompt_k covers (misses.jsonl's rows for the cell).
	SpansMissed *int `json:"spans_missed,omitempty"`
	// Threshold is the top-1 score threshold analysis (nil without
	// unanswerable queries).
	Threshold *Threshold `json:"threshold,omitempty"`
	// Tuning is a tuned retriever's grid search (nil for a retriever
	// without grids): the cell's numbers are the chosen setting's.
	Tuning *Tuning `json:"tuning,omitempty"`
	// Judged is the cell's judged coverage: judged@k, holes and, with
	// dataset.judged_only, its measures on judged results only (nil in
	// files of earlier versions).
	Judged *JudgedCoverage `json:"judged,omitempty"`
	// MissCauses counts the cell's misses at prompt_k by cause (package
	// results' Causes; docs/misses.md).
	MissCauses *MissCauses `json:"miss_causes,omitempty"`
	// PromptTokens is the size of the cell's prompt at prompt_k.
	PromptTokens *PromptTokens `json:"prompt_tokens,omitempty"`
	// PromptBudgets are the span measures at each token budget (config
	// budget_tokens; nil without).
	PromptBudgets *PromptBudgets `json:"prompt_budgets,omitempty"`
	// CoverShares are the passage measures at the config's cover_shares
	// (nil without).
	CoverShares []CoverShareMeans `json:"cover_shares,omitempty"`
	// Truncation is what the cell's models cut (nil when it runs none).
	Truncation []Truncation `json:"truncation,omitempty"`

	// Misses are the cell's rows of misses.jsonl: per answerable query
	// whose gold ids are not all in the top prompt_k, and with span
	// labels (SpanMisses) per gold span no chunk of the top prompt_k
	// covers; SpansTotal is then the number of gold spans of the
	// answerable queries. Set by sweep.Run, not written to results.json
	// (ReadResults leaves them empty): report.md and report.html read them.
	Misses     []Miss     `json:"-"`
	SpanMisses []SpanMiss `json:"-"`
	SpansTotal int        `json:"-"`
}

// UnanswerableHits is what a cell returned for a query with no relevant
// document.
type UnanswerableHits struct {
	QueryID string `json:"query_id"`
	Query   string `json:"query"`
	Slice   string `json:"slice,omitempty"`
	Top     []Hit  `json:"top"`
}

// Hit is one retrieved item with a snippet of its text.
type Hit struct {
	Rank     int     `json:"rank"`
	ID       string  `json:"id"`
	Score    float64 `json:"score"`
	Relevant bool    `json:"relevant,omitempty"`
	Snippet  string  `json:"snippet"`
	// Marks highlight the snippet's text of the missed gold passage and
	// the words carrying the query's terms (misses only).
	Marks []Mark `json:"marks,omitempty"`
}

// Best is the best cell of one chunking, chosen on tuning queries only
// (highest tuning mean of Metric, the primary metric at prompt_k; ties to
// the earlier cell), with its held-out mean: the honest estimate.
type Best struct {
	Chunking string  `json:"chunking"`
	Cell     string  `json:"cell"`
	Metric   string  `json:"metric"`
	Tuning   float64 `json:"tuning"`
	HeldOut  float64 `json:"heldout"`
	// Tied are the other cells of the chunking with the same tuning mean
	// (ties at the top are named as ties, not one winner); empty when
	// none.
	Tied []string `json:"tied,omitempty"`
}

// Timing is one cell's wall times in seconds. Cached says the cell's run
// came from the run cache (nothing was built or searched).
type Timing struct {
	Cell   string  `json:"cell"`
	Cached bool    `json:"cached"`
	Chunk  float64 `json:"chunk_s"`
	Build  float64 `json:"build_s"` // index build (or cache load), embedding excluded
	Embed  float64 `json:"embed_s"` // embedding the chunks (dense; 0 when the index came from the cache)
	Search float64 `json:"search_s"`
	// QueryEmbed is the part of Search spent embedding queries (dense).
	QueryEmbed float64 `json:"query_embed_s"`
	// IndexBytes, LatencyP50 and LatencyP95 (milliseconds per query) are
	// the first-stage retriever's retrievers.Stats (0 for cached runs,
	// hybrid and rerank).
	IndexBytes int64 `json:"index_bytes"`
	// IndexDocs is the number of documents the cell loaded into an engine
	// index (0 when the index was reused or loaded by an earlier cell):
	// with Build, the index throughput.
	IndexDocs  int     `json:"index_docs,omitempty"`
	LatencyP50 float64 `json:"latency_p50_ms"`
	LatencyP95 float64 `json:"latency_p95_ms"`
	// QueryErrors is the number of queries of an engine cell with
	// on_query_error: miss that still failed after the retries and were
	// scored as misses (empty result lists); FailedQueries are their ids,
	// in query order. Such a cell's run is never cached.
	QueryErrors   int      `json:"query_errors,omitempty"`
	FailedQueries []string `json:"failed_queries,omitempty"`
	Fuse          float64  `json:"fuse_s"`
	Rerank        float64  `json:"rerank_s"`
	Score         float64  `json:"score_s"`
	// QueryCost is the quality-against-cost chart's cost of a query
	// (latency and index), for every cell (QueryCost's doc).
	QueryCost *QueryCost `json:"query_cost,omitempty"`
}

// ResultsJSON is results.json: indented JSON of res, ending in a newline.
// Every number of res is meant to be finite (undefined values are null or
// flagged, as PairTest's interval); one that is not (NaN, ±Inf, which JSON
// cannot hold) is an error naming results.json, never a panic that loses
// the run's outputs.
func ResultsJSON(res *Results) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		return nil, fmt.Errorf("results.json: %w (a number that is not finite: a bug of ragbench; please report it)", err)
	}
	return buf.Bytes(), nil
}
