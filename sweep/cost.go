package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/encoder"
	"github.com/ragbench/ragbench/internal/fileutil"
	"github.com/ragbench/ragbench/kinds"
	"github.com/ragbench/ragbench/report"
	"github.com/ragbench/ragbench/results"
)

// This file measures what a cell costs besides its quality: the query
// latency and index size of results.QueryCost (recorded beside the run in
// the run cache, so a cached cell still has them) and what its models
// truncate (results.Truncation).

// ownCost is what a cell's own stage costs a query: a first stage's
// retriever latency percentiles and index size; a hybrid's or rerank's
// stage time per query (its fusion or reranking time over the queries, and
// over the settings tried for a tuned cell), the same for p50 and p95.
type ownCost struct {
	P50        float64 `json:"p50_ms"`
	P95        float64 `json:"p95_ms"`
	IndexBytes int64   `json:"index_bytes"`
	Source     string  `json:"-"`
}

// costPath is the run cache's record of the cost of the run cached at
// the cell's key (runs/<key>.cost, beside runs/<key>.json: JSON, not named .json so the runs stay the only .json files).
func (r *cellRunner) costPath(key string) string {
	return filepath.Join(r.env.CacheDir, "runs", key[:2], key+".cost")
}

// cellCosts fills the cell's query cost (into its timing) and what its
// models truncate (into result).
func (r *cellRunner) cellCosts(ctx context.Context, cc *chunkCells, cell config.Cell, cr *cellRun, result *results.CellResult) error {
	own, err := r.ownCost(cell, cr, result)
	if err != nil {
		return err
	}
	total := own
	for _, in := range cell.Retriever.InputNames() {
		c := cc.costs[in]
		total.P50 += c.P50
		total.P95 += c.P95
		total.IndexBytes += c.IndexBytes
		switch {
		case c.Source == results.CostUnknown || total.Source == results.CostUnknown:
			total.Source = results.CostUnknown
		case c.Source == results.CostCached:
			total.Source = results.CostCached
		}
	}
	if cc.costs == nil {
		cc.costs = map[string]ownCost{}
	}
	cc.costs[cell.Retriever.Name] = total
	cr.timing.QueryCost = &results.QueryCost{P50ms: total.P50, P95ms: total.P95, IndexBytes: total.IndexBytes, Source: total.Source}
	tr, err := r.truncation(ctx, cc, cell)
	if err != nil {
		return fmt.Errorf("truncation count: %w", err)
	}
	result.Truncation = tr
	return nil
}

// ownCost is the cell's own cost: measured now, or for a run read from
// the run cache what was recorded when it was cached (unknown when
// nothing was). A measured cost is recorded beside a cached run.
func (r *cellRunner) ownCost(cell config.Cell, cr *cellRun, result *results.CellResult) (ownCost, error) {
	path := r.costPath(cr.key)
	if cr.timing.Cached {
		var c ownCost
		data, err := os.ReadFile(path)
		if err != nil || json.Unmarshal(data, &c) != nil {
			return ownCost{Source: results.CostUnknown}, nil
		}
		c.Source = results.CostCached
		return c, nil
	}
	t := cr.timing
	c := ownCost{Source: results.CostMeasured}
	if len(cell.Retriever.InputNames()) == 0 {
		c.P50, c.P95, c.IndexBytes = t.LatencyP50, t.LatencyP95, t.IndexBytes
	} else if n := len(r.ds.queries); n > 0 {
		settings := 1
		if result.Tuning != nil {
			settings = max(1, len(result.Tuning.Settings))
		}
		c.P50 = (t.Fuse + t.Rerank) * 1000 / float64(n*settings)
		c.P95 = c.P50
	}
	// Recorded only beside a run the cache holds (a cacheable cell's).
	if _, err := os.Stat(strings.TrimSuffix(path, ".cost") + ".json"); err == nil {
		b, _ := json.Marshal(c)
		if err := fileutil.WriteAtomic(path, b); err != nil {
			return c, fmt.Errorf("run cache: %w", err)
		}
	}
	return c, nil
}

// truncCount is a model's cut tokens over a list of texts.
type truncCount struct {
	n, cut  int
	amounts []int
	maxCut  int
}

func countCuts(cuts []int) truncCount {
	t := truncCount{n: len(cuts)}
	for _, c := range cuts {
		if c > 0 {
			t.cut++
			t.amounts = append(t.amounts, c)
			t.maxCut = max(t.maxCut, c)
		}
	}
	slices.Sort(t.amounts)
	return t
}

// median is the lower median of sorted v (0 for none).
func median(v []int) int {
	if len(v) == 0 {
		return 0
	}
	return v[(len(v)-1)/2]
}

// truncation is what cell's model truncates (nil when it runs none): an
// embedder's cut chunks (every chunk with text, as the dense index embeds
// them) and queries, counted once per model and chunking; a
// cross-encoder's cut (query, chunk) pairs over its input's top depth.
func (r *cellRunner) truncation(ctx context.Context, cc *chunkCells, cell config.Cell) ([]results.Truncation, error) {
	rc := cell.Retriever
	m, ok := rc.Settings.(kinds.Modeled)
	if !ok || m.ModelRef() == nil || m.ModelRef().Model == "" {
		return nil, nil
	}
	ref := m.ModelRef()
	if r.truncMemo == nil {
		r.truncMemo = map[string]results.Truncation{}
	}
	switch m.ModelKind() {
	case encoder.KindEmbedder:
		key := ref.Model + "\x00" + cell.Chunking.Name
		t, ok := r.truncMemo[key]
		if !ok {
			e, err := r.env.Embedder(rc.Name, ref)
			if err != nil {
				return nil, err
			}
			var texts []string
			for _, c := range cc.chunks.All() {
				if strings.TrimSpace(c.IndexText()) != "" {
					texts = append(texts, c.IndexText())
				}
			}
			cuts, err := e.TokensCut(ctx, texts, false)
			if err != nil {
				return nil, err
			}
			var qs []string
			for _, q := range r.ds.queries {
				if strings.TrimSpace(q.Text) != "" {
					qs = append(qs, q.Text)
				}
			}
			qcuts, err := e.TokensCut(ctx, qs, true)
			if err != nil {
				return nil, err
			}
			ch, qc := countCuts(cuts), countCuts(qcuts)
			t = results.Truncation{Model: filepath.Base(ref.Model), Kind: encoder.KindEmbedder, MaxLength: e.Config().MaxLength,
				Chunks: ch.n, ChunksTruncated: ch.cut, ChunkTokensCutMedian: median(ch.amounts), ChunkTokensCutMax: ch.maxCut,
				Queries: qc.n, QueriesTruncated: qc.cut, QueryTokensCutMax: qc.maxCut}
			r.truncMemo[key] = t
			if w := truncationWarning(cell.Chunking.Name, rc.Name, t); w != "" {
				r.res.Warnings = append(r.res.Warnings, w)
			}
		}
		t.Retriever = rc.Name
		return []results.Truncation{t}, nil
	case encoder.KindCrossEncoder:
		ro, ok := rc.Settings.(kinds.Reorderer)
		if !ok {
			return nil, nil
		}
		input, depth := ro.Reorders()
		in := cc.runs[input]
		if in == nil {
			return nil, nil
		}
		ce, err := r.env.CrossEncoder(rc.Name, ref)
		if err != nil {
			return nil, err
		}
		// A chunk's text by position (the chunking's index), made for
		// the pairs counted only, not a map of every chunk's text.
		text := cc.chunks.Passages(cc.chunkByID)
		var pairCuts, qcuts []int
		chunkCut := map[string]int{} // chunk → most tokens cut from it in a pair
		seen := map[string]bool{}
		for _, q := range r.ds.queries {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if strings.TrimSpace(q.Text) == "" {
				continue
			}
			l := slices.Clone(in.run[q.ID])
			kinds.SortResults(l)
			l = l[:min(depth, len(l))]
			if len(l) == 0 {
				continue
			}
			ps := make([]string, len(l))
			for i, res := range l {
				ps[i] = text(res.DocID)
				seen[res.DocID] = true
			}
			qc, pc, err := ce.PairTokensCut(q.Text, ps)
			if err != nil {
				return nil, fmt.Errorf("query %q: %w", q.ID, err)
			}
			qcuts = append(qcuts, qc)
			pairCuts = append(pairCuts, pc...)
			for i, res := range l {
				if pc[i] > 0 {
					chunkCut[res.DocID] = max(chunkCut[res.DocID], pc[i])
				}
			}
		}
		pcnt, qcnt := countCuts(pairCuts), countCuts(qcuts)
		t := results.Truncation{Retriever: rc.Name, Model: filepath.Base(ref.Model), Kind: encoder.KindCrossEncoder, MaxLength: ce.Config().MaxLength,
			Chunks: len(seen), ChunksTruncated: len(chunkCut), ChunkTokensCutMedian: median(pcnt.amounts), ChunkTokensCutMax: pcnt.maxCut,
			Pairs: pcnt.n, PairsTruncated: pcnt.cut, Queries: qcnt.n, QueriesTruncated: qcnt.cut, QueryTokensCutMax: qcnt.maxCut}
		if w := truncationWarning(cell.Chunking.Name, rc.Name, t); w != "" {
			r.res.Warnings = append(r.res.Warnings, w)
		}
		return []results.Truncation{t}, nil
	}
	return nil, nil
}

// truncationWarning says what a model cuts ("" when nothing): the report's
// warning beside results.json's counts.
func truncationWarning(chunking, retriever string, t results.Truncation) string {
	if t.ChunksTruncated == 0 && t.QueriesTruncated == 0 {
		return ""
	}
	g := report.GroupDigits
	var what string
	if t.Kind == encoder.KindCrossEncoder {
		what = fmt.Sprintf("cross-encoder %s of retriever %s reads at most %d tokens per (query, chunk) pair: %s of %s pairs are cut (%s of %s chunks; median %s tokens cut, at most %s)",
			t.Model, retriever, t.MaxLength, g(t.PairsTruncated), g(t.Pairs), g(t.ChunksTruncated), g(t.Chunks), g(t.ChunkTokensCutMedian), g(t.ChunkTokensCutMax))
	} else {
		what = fmt.Sprintf("embedder %s (retriever %s and any other using it) reads at most %d tokens: %s of %s chunks are longer and embedded cut (median %s tokens cut, at most %s)",
			t.Model, retriever, t.MaxLength, g(t.ChunksTruncated), g(t.Chunks), g(t.ChunkTokensCutMedian), g(t.ChunkTokensCutMax))
	}
	if t.QueriesTruncated > 0 {
		what += fmt.Sprintf("; %s of %s queries are cut (at most %s tokens)", g(t.QueriesTruncated), g(t.Queries), g(t.QueryTokensCutMax))
	}
	return fmt.Sprintf("chunking %s: %s; results.json truncation counts them per cell", chunking, what)
}
