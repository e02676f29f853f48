package sweep

import (
	"fmt"
	"slices"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/kinds"
)

// This file is the sweep's side of the kinds that bring a pipeline's own
// passages (type run, http; kinds.PassageKind, docs/pipelines.md): their
// cell is scored on the passages it returned (kinds.Cell.Passages) instead
// of the row's chunks — the token measures with the pipeline's own chunk
// lengths, chunk-level judgements derived from the span labels by
// passages.Judgements (R = the query's gold passages), document-level
// labels through each passage's document (MaxP) — and joins the report,
// the significance tests, misses, history and the gate as any cell.
// Precision Ω needs the pipeline's whole chunking and is not reported.

// passageInputs are the scoring inputs of cell, whose run cr names
// passages of its own (cr.passages): its final run (MaxP'd by the
// passages' documents for document-level labels, cut to the config's
// depth), its passages as the chunks of its snippets, and, with span
// labels, its span state. The run's notes (unmapped results, results out
// of score order) join the report's warnings once. Errors: chunk-id
// labels, which name chunks of one chunking and cannot judge a
// pipeline's passages.
func (r *cellRunner) passageInputs(cell config.Cell, cr *cellRun, level corpus.Level) (cellInputs, error) {
	ps := cr.passages
	if level == corpus.ChunkLevel && r.ds.spanQueries == nil {
		return cellInputs{}, fmt.Errorf("retriever %q scores a pipeline's own passages, which chunk-id labels (chunks of one chunking) cannot judge: convert them to span labels (bench labels convert) or label documents", cell.Retriever.Name)
	}
	run := cr.run
	if level == corpus.DocLevel {
		run = corpus.MaxP(run, ps.DocOf)
	}
	in := cellInputs{cell: cell, run: kinds.Truncate(run, r.cfg.Depth), chunks: corpus.ChunkList(ps.Chunks), chunkByID: r.ds.chunkIndex(corpus.ChunkList(ps.Chunks))}
	if r.ds.spanQueries != nil {
		qrels, err := ps.Judgements(r.ds.spanQueries, r.cfg.Dataset.SpanCoverShare)
		if err != nil {
			return cellInputs{}, err
		}
		in.spans = &spanCells{ch: ps.Chunking, qrels: qrels, total: goldPassages(r.ds.spanQueries)}
	}
	for _, n := range cr.passageNotes {
		w := fmt.Sprintf("retriever %s: %s", cell.Retriever.Name, n)
		if !slices.Contains(r.res.Warnings, w) {
			r.res.Warnings = append(r.res.Warnings, w)
		}
	}
	return in, nil
}

// checkPassageInputs refuses a hybrid or rerank retriever that takes a
// run or http retriever as input: their runs name a pipeline's own
// passages, not the row's chunks that fusion and reranking read.
func checkPassageInputs(c *Config) []error {
	kind := map[string]string{}
	for _, r := range c.Retrievers {
		if p, ok := r.Settings.(kinds.PassageKind); ok && p.OwnPassages() {
			kind[r.Name] = r.Type
		}
	}
	var errs []error
	for i, r := range c.Retrievers {
		st, ok := r.Settings.(kinds.Staged)
		if !ok {
			continue
		}
		for _, in := range st.InputNames() {
			if t := kind[in]; t != "" {
				errs = append(errs, c.Errf(fmt.Sprintf("retrievers.%d.%s", i, st.InputKey()), "retriever %q is of type %s: its results are a pipeline's own passages, not this chunking's chunks, which %s reads; fuse or rerank inside the pipeline", in, t, r.Type))
			}
		}
	}
	return errs
}
