// Package rerank re-orders the top of any first-stage retriever with a
// cross-encoder: a model that reads query and passage together and returns a
// relevance score (Nogueira & Cho, "Passage Re-ranking with BERT", 2019).
//
// Two modes: ModeCE orders the top Depth by the cross-encoder's score alone;
// ModeInterpolate orders them by α·z(CE) + (1−α)·z(first stage), with z the
// per-query z-score over those Depth results. With ../shared/models/
// ce-scifact-tiny over a BM25 top 100 on SciFact test its SOURCE.md reports
// nDCG@10 0.661 (BM25), 0.334 (ModeCE) and 0.721 (ModeInterpolate, α = 0.4).
package rerank

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/retrievers"
	"github.com/ragbench/ragbench/retrievers/hybrid"
)

// ScoreFunc scores passages against one query with a cross-encoder: one
// finite score per passage, in passage order, higher = more relevant (for
// example encoder.CrossEncoder.Score, which returns logits).
type ScoreFunc func(ctx context.Context, query string, passages []string) ([]float32, error)

// Mode selects how the reranked score is formed.
type Mode string

const (
	// ModeCE ranks the top Depth by the cross-encoder score alone; the result
	// score is the cross-encoder's (e.g. a logit).
	ModeCE Mode = "ce"
	// ModeInterpolate ranks the top Depth by α·z(CE) + (1−α)·z(first stage),
	// z computed per query over the Depth results with the population
	// standard deviation (hybrid.ZScores); the result score is that sum.
	ModeInterpolate Mode = "interpolate"
)

// Defaults for Options' zero values (Depth, BatchSize, Mode) and for
// DefaultOptions' Alpha.
const (
	DefaultDepth     = 100
	DefaultBatchSize = 32
	DefaultAlpha     = 0.4 // ce-scifact-tiny's weight, chosen on held-out train queries
)

// Options configure a reranker. The zero value reranks the top 100 by the
// cross-encoder alone, 32 passages per ScoreFunc call. Alpha is the one
// field for which 0 is a meaningful value (the first stage's order), so its
// zero value is 0, never a default: start from DefaultOptions for α = 0.4.
type Options struct {
	// Depth is how many first-stage results per query are rescored, > 0;
	// 0 means DefaultDepth (100).
	Depth int
	// BatchSize is the most passages per ScoreFunc call, > 0; 0 means
	// DefaultBatchSize (32).
	BatchSize int
	// Mode is ModeCE or ModeInterpolate; "" means ModeCE.
	Mode Mode
	// Alpha is the cross-encoder's weight in ModeInterpolate, in [0, 1]:
	// α = 1 orders like ModeCE, α = 0 keeps the first stage's order of the
	// top Depth (its z-scores alone). Ignored in ModeCE.
	Alpha float64
}

// DefaultOptions returns the defaults as data: Depth 100, BatchSize 32,
// ModeCE, Alpha 0.4 (the weight used when ModeInterpolate is chosen).
func DefaultOptions() Options {
	return Options{Depth: DefaultDepth, BatchSize: DefaultBatchSize, Mode: ModeCE, Alpha: DefaultAlpha}
}

// Validate reports the first invalid field of o, or nil. Each error starts
// with the field's snake_case name as configs spell it ("depth: ...",
// "batch_size: ...", "mode: ...", "alpha: ...").
func (o Options) Validate() error {
	_, err := o.resolve()
	return err
}

func (o Options) resolve() (Options, error) {
	if err := retrievers.DefaultPositive("depth", &o.Depth, DefaultDepth); err != nil {
		return o, err
	}
	if err := retrievers.DefaultPositive("batch_size", &o.BatchSize, DefaultBatchSize); err != nil {
		return o, err
	}
	switch o.Mode {
	case "":
		o.Mode = ModeCE
	case ModeCE, ModeInterpolate:
	default:
		return o, fmt.Errorf("mode: unknown mode %q (want ce or interpolate)", o.Mode)
	}
	if !(o.Alpha >= 0 && o.Alpha <= 1) {
		return o, fmt.Errorf("alpha: must be in [0, 1], got %v", o.Alpha)
	}
	return o, nil
}

// Retriever reranks a first-stage retriever's results; it is itself a
// retrievers.Retriever.
type Retriever struct {
	first    retrievers.Retriever
	score    ScoreFunc
	passages func(id string) string
	opts     Options

	mu            sync.Mutex      // guards latencies, emptyQueries, emptyPassages
	latencies     []time.Duration // per query: first-stage share + rescoring
	emptyQueries  int             // queries left in first-stage order (empty text)
	emptyPassages int             // results not rescored (empty passage text)
}

// Warnings describes the input the cross-encoder could not read, for
// reports: queries with empty text (kept in first-stage order) and results
// whose passage text is empty (placed after the rescored results, in
// first-stage order). Empty when none.
func (r *Retriever) Warnings() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var w []string
	if r.emptyQueries > 0 {
		w = append(w, fmt.Sprintf("rerank: %d queries with empty text kept in first-stage order", r.emptyQueries))
	}
	if r.emptyPassages > 0 {
		w = append(w, fmt.Sprintf("rerank: %d results with empty passage text not rescored (placed after the rescored ones)", r.emptyPassages))
	}
	return w
}

// New returns a Retriever that asks first for max(k, Depth) results per
// query and rescores the top Depth with score, reading each result's passage
// text with passages(id) (the text the cross-encoder should see, e.g.
// title + " " + text; see PassagesFromMap). Errors: nil first, score or
// passages; bad options.
func New(first retrievers.Retriever, score ScoreFunc, passages func(id string) string, opts Options) (*Retriever, error) {
	if first == nil || score == nil || passages == nil {
		return nil, errors.New("rerank: first-stage retriever, score function and passage lookup are all required")
	}
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	return &Retriever{first: first, score: score, passages: passages, opts: o}, nil
}

// PassagesFromMap returns a passage lookup over texts (id → passage text)
// for New. An id missing from texts yields "", which the cross-encoder then
// scores as an empty passage; build texts from the same corpus and chunking
// as the first stage so that this cannot happen.
func PassagesFromMap(texts map[string]string) func(id string) string {
	return func(id string) string { return texts[id] }
}

// Search implements retrievers.Retriever. For each query, the first stage's
// top Depth results are rescored and sorted by the new score (descending,
// ties by id descending: eval.Sort, TieDocIDDesc); results beyond Depth keep their first-stage order below them,
// with synthetic scores min(reranked) − 1, − 2, … so that sorting by score
// (as trec_eval does) keeps that order. At most k results are returned.
// Input the cross-encoder cannot read is handled by a counted policy (see
// Warnings): a query with empty text keeps its first-stage list; results
// with empty passage text are placed right after the rescored ones.
//
// Errors: k ≤ 0; first-stage or ScoreFunc errors; a ScoreFunc returning the
// wrong number of scores or a NaN/infinite score (naming query and doc id).
func (r *Retriever) Search(ctx context.Context, queries []retrievers.Query, k int) (eval.Run, error) {
	if k <= 0 {
		return nil, fmt.Errorf("rerank: k must be > 0, got %d", k)
	}
	start := time.Now()
	run, err := r.first.Search(ctx, queries, max(k, r.opts.Depth))
	if err != nil {
		return nil, fmt.Errorf("rerank: first stage: %w", err)
	}
	var firstShare time.Duration
	if len(queries) > 0 {
		firstShare = time.Since(start) / time.Duration(len(queries))
	}
	out := make(eval.Run, len(queries))
	lat := make([]time.Duration, 0, len(queries))
	for _, q := range queries {
		t0 := time.Now()
		l, err := r.rerankQuery(ctx, q, run[q.ID])
		if err != nil {
			return nil, err
		}
		if len(l) > k {
			l = l[:k:k]
		}
		out[q.ID] = l
		lat = append(lat, firstShare+time.Since(t0))
	}
	r.mu.Lock()
	r.latencies = append(r.latencies, lat...)
	r.mu.Unlock()
	return out, nil
}

// rerankQuery rescores one query's first-stage list.
func (r *Retriever) rerankQuery(ctx context.Context, q retrievers.Query, first []eval.Result) ([]eval.Result, error) {
	l := slices.Clone(first)
	eval.Sort(l, eval.TieDocIDDesc)
	if len(l) == 0 {
		return []eval.Result{}, nil
	}
	if strings.TrimSpace(q.Text) == "" {
		// A cross-encoder cannot read an empty query: keep the first stage.
		r.mu.Lock()
		r.emptyQueries++
		r.mu.Unlock()
		return l, nil
	}
	// Results whose passage is empty cannot be scored (encoders refuse empty
	// input): they go after the rescored ones, in first-stage order.
	top := l[:min(r.opts.Depth, len(l))]
	head := make([]eval.Result, 0, len(top))
	texts := make([]string, 0, len(top))
	var unscored []eval.Result
	for _, res := range top {
		p := r.passages(res.DocID)
		if strings.TrimSpace(p) == "" {
			unscored = append(unscored, res)
			continue
		}
		head = append(head, res)
		texts = append(texts, p)
	}
	if len(unscored) > 0 {
		r.mu.Lock()
		r.emptyPassages += len(unscored)
		r.mu.Unlock()
	}
	rest := append(unscored, l[len(top):]...)
	if len(head) == 0 {
		return l, nil
	}
	ce := make([]float64, 0, len(head))
	for b := 0; b < len(texts); b += r.opts.BatchSize {
		batch := texts[b:min(b+r.opts.BatchSize, len(texts))]
		s, err := r.score(ctx, q.Text, batch)
		if err != nil {
			return nil, fmt.Errorf("rerank: query %q: %w", q.ID, err)
		}
		if len(s) != len(batch) {
			return nil, fmt.Errorf("rerank: query %q: score function returned %d scores for %d passages", q.ID, len(s), len(batch))
		}
		for i, x := range s {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("rerank: query %q: doc %q: cross-encoder score is %v", q.ID, head[b+i].DocID, x)
			}
			ce = append(ce, float64(x))
		}
	}
	if r.opts.Mode == ModeInterpolate {
		fs := make([]float64, len(head))
		for i, res := range head {
			fs[i] = res.Score
		}
		hybrid.ZScores(ce)
		hybrid.ZScores(fs)
		a := r.opts.Alpha
		for i := range ce {
			ce[i] = a*ce[i] + (1-a)*fs[i]
		}
	}
	out := make([]eval.Result, 0, len(l))
	for i, res := range head {
		out = append(out, eval.Result{DocID: res.DocID, Score: ce[i]})
	}
	eval.Sort(out, eval.TieDocIDDesc)
	low := out[len(out)-1].Score
	for j, res := range rest {
		out = append(out, eval.Result{DocID: res.DocID, Score: low - float64(j+1)})
	}
	return out, nil
}

// Stats implements retrievers.Retriever: the first stage's build time and
// index size; latencies per query are the first stage's batch time divided
// by the number of queries plus that query's rescoring time (nearest-rank
// percentiles).
func (r *Retriever) Stats() retrievers.Stats {
	s := r.first.Stats()
	r.mu.Lock()
	defer r.mu.Unlock()
	s.Queries = len(r.latencies)
	s.LatencyP50 = retrievers.Percentile(r.latencies, 0.50)
	s.LatencyP95 = retrievers.Percentile(r.latencies, 0.95)
	return s
}
