package bm25

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
	zap "github.com/blevesearch/zapx/v17"

	"github.com/ragbench/ragbench/corpus"
)

// How a Lucene-scored index is built (issue 27; measurements in
// docs/benchmarks/bm25.md). The chunks stream through in order; every
// BatchSize of them become one zap segment — bleve's segment format, built
// by zap's own segment builder, the one scorch uses — holding them as
// documents 0…n−1 in chunk order, so chunk ordinal = the segment's first
// ordinal + document number. The segments are never merged: Search reads
// them one after the other (MaxScore stays exact: scores are summed per
// chunk, whatever segment its postings are in), so a build costs one pass
// over the postings and its memory is bounded by a batch, not by the corpus.
// Each batch is analysed once (analyze.go), its term frequencies kept as
// (term number, count) pairs, and handed to zap as documents whose fields
// answer zap's questions from those pairs (segDoc). Batches are built on
// Options.Workers goroutines; the segments do not depend on that number.

// Index layouts (meta.Layout).
const (
	layoutSegments = "segments" // zap segments read by ragbench (Lucene scoring)
	layoutScorch   = "scorch"   // one scorch index, for bleve's own scoring
)

// zapPlugin is the zap version scorch writes by default.
var zapPlugin = &zap.ZapPlugin{}

// layoutFor is the index layout Options o need.
func layoutFor(o Options) string {
	if o.Scoring == ScoringBleve {
		return layoutScorch
	}
	return layoutSegments
}

// fieldKind is how bleve's mapping indexes a text field: its indexing
// options and type byte, read from a document the mapping maps.
type fieldKind struct {
	opts index.FieldIndexingOptions
	typ  byte
}

func textFieldKinds(m *mapping.IndexMappingImpl, names []string) ([]fieldKind, error) {
	data := map[string]any{}
	for _, n := range names {
		data[n] = "x"
	}
	doc := document.NewDocument("x")
	if err := m.MapDocument(doc, data); err != nil {
		return nil, fmt.Errorf("bm25: %w", err)
	}
	kinds := make([]fieldKind, len(names))
	for i, n := range names {
		found := false
		for _, f := range doc.Fields {
			if f.Name() == n {
				kinds[i], found = fieldKind{opts: f.Options(), typ: f.EncodedFieldType()}, true
			}
		}
		if !found {
			return nil, fmt.Errorf("bm25: the mapping has no field %q", n)
		}
	}
	return kinds, nil
}

// segBatch is BatchSize consecutive chunks on their way to a segment.
type segBatch struct {
	seq   int      // segment number
	first int      // ordinal of its first chunk
	ids   []string // chunk ids
	texts []string // field texts, chunk-major (released once analysed)
	done  chan struct{}
	res   segResult
}

type segResult struct {
	lengths []int32 // tokens per chunk and field, chunk-major
	order   []int32 // the batch's chunks by id
	file    string
	err     error
}

// buildSegments writes the segments and side files of chunks into dir (an
// empty folder) and returns the index's meta, Key left for the caller.
func buildSegments(ctx context.Context, dir string, chunks iter.Seq2[corpus.Chunk, error], a *textAnalyzer, kinds []fieldKind, o Options) (*meta, error) {
	names := fieldNames(o.Fields)
	rw, err := newRecordWriter(dir, len(names))
	if err != nil {
		return nil, err
	}
	runs, err := newRunsWriter(filepath.Join(dir, "ids.runs"))
	if err != nil {
		rw.abort()
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	md := &meta{Layout: layoutSegments}
	// collect records a built batch, in batch order.
	collect := func(b *segBatch) error {
		if b.res.err != nil {
			return b.res.err
		}
		if err := rw.addLengths(b.res.lengths); err != nil {
			return err
		}
		if err := runs.addRun(b.ids, b.first, b.res.order); err != nil {
			return err
		}
		md.Segments = append(md.Segments, segMeta{File: b.res.file, Docs: len(b.ids)})
		return nil
	}
	newBatch := func(seq, first int) *segBatch {
		b := &segBatch{seq: seq, first: first, done: make(chan struct{}), ids: make([]string, 0, o.BatchSize)}
		if o.Workers > 1 {
			b.texts = make([]string, 0, o.BatchSize*len(names))
		}
		return b
	}

	// With one worker, each chunk is analysed as it arrives (no batch of
	// texts is held) and its segment written on this goroutine. With more,
	// batches of texts go to o.Workers goroutines and a collector takes
	// the results in order.
	var (
		inline    *segWorker
		jobs      chan *segBatch
		queue     chan *segBatch
		wg        sync.WaitGroup
		collected = make(chan error, 1)
	)
	if o.Workers <= 1 {
		inline = newSegWorker(a, names, kinds)
		inline.reset()
		collected <- nil
	} else {
		jobs = make(chan *segBatch)
		queue = make(chan *segBatch, o.Workers)
		for range o.Workers {
			wg.Go(func() {
				w := newSegWorker(a, names, kinds)
				for b := range jobs {
					b.res = w.build(ctx, dir, b)
					close(b.done)
				}
			})
		}
		go func() {
			var err error
			for b := range queue {
				<-b.done
				if err == nil {
					if err = collect(b); err != nil {
						cancel()
					}
				}
			}
			collected <- err
		}()
	}
	var perr error
	send := func(b *segBatch) bool {
		if inline != nil {
			b.res = inline.write(ctx, dir, b)
			inline.reset()
			perr = collect(b)
			return perr == nil
		}
		select {
		case queue <- b:
		case <-ctx.Done():
			return false
		}
		select {
		case jobs <- b:
			return true
		case <-ctx.Done():
			b.res.err = ctx.Err()
			close(b.done)
			return false
		}
	}
	b := newBatch(0, 0)
	n := 0
	for c, err := range chunks {
		if err != nil {
			perr = fmt.Errorf("bm25: %w", err)
			break
		}
		if n%1024 == 0 {
			if perr = ctx.Err(); perr != nil {
				break
			}
		}
		if c.ID == "" {
			perr = fmt.Errorf("bm25: chunk %d: empty id", n)
			break
		}
		if perr = rw.addID(c.ID); perr != nil {
			perr = fmt.Errorf("bm25: %w", perr)
			break
		}
		b.ids = append(b.ids, c.ID)
		if inline != nil {
			inline.add(fieldTexts(c, o.Fields))
		} else {
			b.texts = append(b.texts, fieldTexts(c, o.Fields)...)
		}
		n++
		if len(b.ids) == o.BatchSize {
			if !send(b) {
				break
			}
			b = newBatch(b.seq+1, n)
		}
	}
	if perr == nil && len(b.ids) > 0 {
		send(b)
	}
	if jobs != nil {
		close(jobs)
		wg.Wait()
		close(queue)
	}
	cerr := <-collected
	if perr == nil && n == 0 {
		perr = errors.New("bm25: no chunks to index (empty corpus)")
	}
	if err := firstErr(perr, cerr); err != nil {
		rw.abort()
		runs.duplicate() // closes and removes the runs file
		return nil, err
	}
	if err := rw.finish(md); err != nil {
		runs.duplicate()
		return nil, err
	}
	id, i, j, dup, err := runs.duplicate()
	if err != nil {
		return nil, err
	}
	if dup {
		return nil, fmt.Errorf("bm25: duplicate chunk id %q (chunks %d and %d)", id, i, j)
	}
	if len(md.Segments) > 1 {
		// The batches' buffers are garbage now: hand their memory back to
		// the system rather than keep it for a heap the search will not
		// need (the runtime would return it only after later collections).
		debug.FreeOSMemory()
	}
	return md, nil
}

// firstErr is the build's error: the producer's or the collector's, a
// cancellation only when neither has another.
func firstErr(producer, collector error) error {
	switch {
	case producer != nil && !errors.Is(producer, context.Canceled):
		return producer
	case collector != nil && !errors.Is(collector, context.Canceled):
		return collector
	case producer != nil:
		return producer
	case collector != nil:
		return collector
	}
	return nil
}

// segWorker analyses batches and builds their segments; one per build
// goroutine (its memo and buffers are its own).
type segWorker struct {
	a     *textAnalyzer
	memo  *termMemo
	names []string

	// The current segment's vocabulary: term number → term; a memoTerm of
	// generation gen carries its number.
	gen   uint32
	terms []string

	// Per chunk and field while analysing: counts by term number, the
	// numbers seen; then the batch's (term number << 32 | count) pairs,
	// off[i] … off[i+1] for text i (chunk-major), and lengths.
	counts  []uint32
	touched []uint32
	pairs   []uint64
	off     []int
	lengths []int32

	kinds []fieldKind
	zs    zapScratch
}

func newSegWorker(a *textAnalyzer, names []string, kinds []fieldKind) *segWorker {
	return &segWorker{a: a, memo: newTermMemo(), names: names, kinds: kinds}
}

// build analyses batch b and writes its segment into dir.
func (w *segWorker) build(ctx context.Context, dir string, b *segBatch) segResult {
	w.reset()
	nf := len(w.names)
	for i := 0; i < len(b.texts); i += nf {
		w.add(b.texts[i : i+nf])
		if i%(1024*nf) == 0 && ctx.Err() != nil {
			return segResult{err: ctx.Err()}
		}
	}
	b.texts = nil
	return w.write(ctx, dir, b)
}

// write writes the segment of batch b, whose chunks' texts were added.
func (w *segWorker) write(ctx context.Context, dir string, b *segBatch) segResult {
	if err := ctx.Err(); err != nil {
		return segResult{err: err}
	}
	order, err := sortedIDs(b)
	if err != nil {
		return segResult{err: err}
	}
	file := fmt.Sprintf("seg-%06d.zap", b.seq)
	in := &segInput{ids: b.ids, order: order, names: w.names, kinds: w.kinds, terms: w.terms,
		pairs: w.pairs, off: w.off, lengths: w.lengths}
	if err := writeSegment(filepath.Join(dir, file), in, &w.zs); err != nil {
		return segResult{err: fmt.Errorf("bm25: write segment %d: %w", b.seq, err)}
	}
	return segResult{lengths: w.lengths, order: order, file: file}
}

// reset starts a segment: a new vocabulary, no texts.
func (w *segWorker) reset() {
	w.gen++
	w.terms = w.terms[:0]
	w.memo.segment()
	w.pairs, w.off = w.pairs[:0], append(w.off[:0], 0)
	w.lengths = nil // handed to the collector with the result
}

// add analyses one chunk's field texts (fieldNames order): its term
// counts go to pairs, its lengths to lengths.
func (w *segWorker) add(texts []string) {
	for _, text := range texts {
		n := int32(0)
		w.a.analyze(text, w.memo, func(e *memoTerm) {
			if e.gen != w.gen {
				e.gen, e.id = w.gen, uint32(len(w.terms))
				w.terms = append(w.terms, e.term)
				if len(w.counts) < len(w.terms) {
					w.counts = append(w.counts, 0)
				}
			}
			if w.counts[e.id] == 0 {
				w.touched = append(w.touched, e.id)
			}
			w.counts[e.id]++
			n++
		})
		for _, id := range w.touched {
			w.pairs = append(w.pairs, uint64(id)<<32|uint64(w.counts[id]))
			w.counts[id] = 0
		}
		w.touched = w.touched[:0]
		w.off = append(w.off, len(w.pairs))
		w.lengths = append(w.lengths, n)
	}
}

// sortedIDs returns b's documents by id; two equal ids are the error the
// whole build would report.
func sortedIDs(b *segBatch) ([]int32, error) {
	ord := make([]int32, len(b.ids))
	for i := range ord {
		ord[i] = int32(i)
	}
	slices.SortFunc(ord, func(x, y int32) int {
		if c := strings.Compare(b.ids[x], b.ids[y]); c != 0 {
			return c
		}
		return int(x - y)
	})
	for k := 1; k < len(ord); k++ {
		if b.ids[ord[k-1]] == b.ids[ord[k]] {
			return nil, fmt.Errorf("bm25: duplicate chunk id %q (chunks %d and %d)", b.ids[ord[k]], b.first+int(ord[k-1]), b.first+int(ord[k]))
		}
	}
	return ord, nil
}
