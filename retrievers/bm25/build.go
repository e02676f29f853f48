package bm25

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/util"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/internal/hashkey"
)

// How a bleve-scored index (Scoring "bleve", layoutScorch) is built: each
// chunk is mapped and analysed once by bleve (TextField.Analyze) on
// ragbench's analysis workers, which record its length in tokens; the
// analysed document goes to scorch's offline Builder, which writes one zap
// segment per BatchSize documents and merges them all at the end, so that
// bleve's own search sees one scorch index. Lucene-scored indexes are built
// by buildSegments instead (segments.go).

// mergeMax is how many segments scorch's builder merges at a time (it
// merges until one is left): all, in one pass; the document order this
// gives is read back by inDocOrder.
const mergeMax = math.MaxInt32

// analyzedField is a field analysed by ragbench's workers: scorch's builder
// calls Analyze on every field of a document, which must not analyse again.
type analyzedField struct{ document.Field }

func (analyzedField) Analyze() {}

// Build is New for chunks streamed by an iterator instead of held in a
// slice, so that a caller never needs every chunk in memory: chunks yields
// the chunks in order (an error stops the build and is returned); only ids
// and lengths are kept, never the texts. With opts.Dir set, chunks is ranged
// over twice — once to hash the chunks (the cache key) and, unless the index
// is cached, once to build — so it must yield the same chunks each time
// (a reader that reopens its file, or a slice: see Chunks). Errors are New's.
func Build(ctx context.Context, chunks iter.Seq2[corpus.Chunk, error], opts Options) (*Retriever, error) {
	return build(ctx, chunks, opts)
}

// Chunks returns an iterator over a slice of chunks, for Build.
func Chunks(chunks []corpus.Chunk) iter.Seq2[corpus.Chunk, error] {
	return func(yield func(corpus.Chunk, error) bool) {
		for _, c := range chunks {
			if !yield(c, nil) {
				return
			}
		}
	}
}

// cacheKey hashes what decides the index: the format version, analyzer,
// field layout and every chunk's id and field texts, in order. It returns
// the number of chunks too.
func cacheKey(ctx context.Context, chunks iter.Seq2[corpus.Chunk, error], o Options) (string, int, error) {
	f := hashkey.NewFields()
	put := f.Put
	put(fmt.Sprintf("ragbench-bm25/%d", formatVersion))
	put(o.Analyzer)
	put(o.Fields)
	count := 0
	for c, err := range chunks {
		if err != nil {
			return "", 0, fmt.Errorf("bm25: %w", err)
		}
		if count%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return "", 0, err
			}
		}
		put(c.ID)
		for _, t := range fieldTexts(c, o.Fields) {
			put(t)
		}
		count++
	}
	return f.Hex(), count, nil
}

// analysed is one chunk after mapping and analysis.
type analysed struct {
	doc     *document.Document
	id      string
	lengths []int32 // per field, fieldNames order
	err     error
}

// analyse maps chunk c to a bleve document and analyses its fields.
func analyse(m *mapping.IndexMappingImpl, names []string, c corpus.Chunk, layout string) analysed {
	data := make(map[string]any, len(names))
	for f, t := range fieldTexts(c, layout) {
		data[names[f]] = t
	}
	doc := document.NewDocument(c.ID)
	if err := m.MapDocument(doc, data); err != nil {
		return analysed{err: fmt.Errorf("bm25: index chunk %q: %w", c.ID, err)}
	}
	a := analysed{doc: doc, id: c.ID, lengths: make([]int32, len(names))}
	for i, f := range doc.Fields {
		if f.Options().IsIndexed() {
			f.Analyze()
		}
		for k, name := range names {
			if f.Name() == name {
				a.lengths[k] += int32(f.AnalyzedLength())
			}
		}
		doc.Fields[i] = analyzedField{f}
	}
	return a
}

// analysedStream maps and analyses chunks on workers goroutines (inline for
// one) and yields the results in chunk order; at most about 64 per worker
// are in flight.
func analysedStream(ctx context.Context, chunks iter.Seq2[corpus.Chunk, error], m *mapping.IndexMappingImpl, o Options) iter.Seq[analysed] {
	names := fieldNames(o.Fields)
	return func(yield func(analysed) bool) {
		if o.Workers <= 1 {
			for c, err := range chunks {
				if err != nil {
					yield(analysed{err: fmt.Errorf("bm25: %w", err)})
					return
				}
				if !yield(analyse(m, names, c, o.Fields)) {
					return
				}
			}
			return
		}
		// Each chunk gets a one-slot result channel, queued in order; the
		// workers fill them in any order and the consumer reads the queue.
		type job struct {
			c   corpus.Chunk
			out chan analysed
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		jobs := make(chan job, 64*o.Workers)
		queue := make(chan chan analysed, 64*o.Workers)
		var wg sync.WaitGroup
		for range o.Workers {
			wg.Go(func() {
				for j := range jobs {
					j.out <- analyse(m, names, j.c, o.Fields)
				}
			})
		}
		go func() {
			defer close(queue)
			defer close(jobs)
			for c, err := range chunks {
				out := make(chan analysed, 1)
				if err != nil {
					out <- analysed{err: fmt.Errorf("bm25: %w", err)}
					select {
					case queue <- out:
					case <-ctx.Done():
					}
					return
				}
				select {
				case jobs <- job{c, out}:
				case <-ctx.Done():
					return
				}
				select {
				case queue <- out:
				case <-ctx.Done():
					return
				}
			}
		}()
		defer func() {
			cancel()
			for range queue { // let the producer finish
			}
			wg.Wait()
		}()
		for out := range queue {
			if !yield(<-out) {
				return
			}
		}
	}
}

// record is what ragbench keeps beside the bleve index: ids and lengths.
type record struct {
	ids     packedIDs
	lengths [][]int32 // per field, fieldNames order
}

// buildScorch writes a one-segment scorch index of chunks into dir/index
// and the side files into dir, and returns the index's meta (Key left for
// the caller). Duplicate ids are found after the build (sorting ordinals by
// id, no map of all ids).
func buildScorch(ctx context.Context, dir string, chunks iter.Seq2[corpus.Chunk, error], m *mapping.IndexMappingImpl, o Options) (*meta, error) {
	top := dir
	dir = filepath.Join(dir, "index")
	if err := writeIndexMeta(dir); err != nil {
		return nil, err
	}
	mappingJSON, err := util.MarshalJSON(m)
	if err != nil {
		return nil, fmt.Errorf("bm25: %w", err)
	}
	b, err := scorch.NewBuilder(map[string]any{
		"path":            filepath.Join(dir, "store"),
		"buildPathPrefix": dir,
		"batchSize":       o.BatchSize,
		"mergeMax":        mergeMax,
		"internal":        map[string][]byte{string(util.MappingInternalKey): mappingJSON},
	})
	if err != nil {
		return nil, fmt.Errorf("bm25: create index builder in %s: %w", dir, err)
	}
	names := fieldNames(o.Fields)
	rec := &record{lengths: make([][]int32, len(names))}
	n := 0
	for a := range analysedStream(ctx, chunks, m, o) {
		if a.err != nil {
			return nil, a.err
		}
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if a.id == "" {
			return nil, fmt.Errorf("bm25: chunk %d: empty id", n)
		}
		rec.ids.add(a.id)
		for f, l := range a.lengths {
			rec.lengths[f] = append(rec.lengths[f], l)
		}
		if err := b.Index(a.doc); err != nil {
			return nil, fmt.Errorf("bm25: index chunk %q: %w", a.id, err)
		}
		n++
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errors.New("bm25: no chunks to index (empty corpus)")
	}
	sorted := rec.ids.sorted()
	if i, j, ok := rec.ids.duplicate(sorted); ok {
		return nil, fmt.Errorf("bm25: duplicate chunk id %q (chunks %d and %d)", rec.ids.get(i), i, j)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := b.Close(); err != nil {
		return nil, fmt.Errorf("bm25: build index in %s: %w", dir, err)
	}
	rec, err = rec.inDocOrder(dir, sorted)
	if err != nil {
		return nil, err
	}
	return rec.write(top)
}

// write writes rec's side files into dir and returns the meta of a
// layoutScorch index.
func (rec *record) write(dir string) (*meta, error) {
	rw, err := newRecordWriter(dir, len(rec.lengths))
	if err != nil {
		return nil, err
	}
	ls := make([]int32, len(rec.lengths))
	for o := range rec.ids.len() {
		if err := rw.addID(rec.ids.get(o)); err != nil {
			rw.abort()
			return nil, fmt.Errorf("bm25: %w", err)
		}
		for f, l := range rec.lengths {
			ls[f] = l[o]
		}
		if err := rw.addLengths(ls); err != nil {
			rw.abort()
			return nil, fmt.Errorf("bm25: %w", err)
		}
	}
	md := &meta{Layout: layoutScorch}
	return md, rw.finish(md)
}

// inDocOrder returns rec reordered by the built index's document numbers
// (scorch's builder does not keep the chunks' order: a batch is a map),
// read back from the stored _id of every document; sorted is the
// ordinals in id order.
func (rec *record) inDocOrder(dir string, sorted []int32) (*record, error) {
	idx, err := bleve.OpenUsing(dir, map[string]any{"read_only": true})
	if err != nil {
		return nil, fmt.Errorf("bm25: open index %s: %w", dir, err)
	}
	defer idx.Close()
	seg, err := oneSegment(idx, dir)
	if err != nil {
		return nil, err
	}
	n := rec.ids.len()
	if got := int(seg.Count()); got != n {
		return nil, fmt.Errorf("bm25: %s: index holds %d documents, want %d", dir, got, n)
	}
	out := &record{lengths: make([][]int32, len(rec.lengths))}
	for f := range out.lengths {
		out.lengths[f] = make([]int32, n)
	}
	out.ids.buf = make([]byte, 0, len(rec.ids.buf))
	for d := range n {
		id, err := seg.DocID(uint64(d))
		if err != nil {
			return nil, fmt.Errorf("bm25: %s: %w", dir, err)
		}
		k, found := slices.BinarySearchFunc(sorted, id, func(o int32, id []byte) int { return bytes.Compare(rec.ids.at(int(o)), id) })
		if !found {
			return nil, fmt.Errorf("bm25: %s: document %d has unknown id %q", dir, d, id)
		}
		o := sorted[k]
		out.ids.add(string(id))
		for f, l := range rec.lengths {
			out.lengths[f][d] = l[o]
		}
	}
	return out, nil
}

// writeIndexMeta writes the index_meta.json bleve.Open reads: a scorch index
// (what bleve.NewBuilder writes before handing over to scorch's builder).
func writeIndexMeta(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("bm25: %w", err)
	}
	data, err := json.Marshal(map[string]string{"storage": scorch.Name, "index_type": scorch.Name})
	if err != nil {
		return fmt.Errorf("bm25: %w", err)
	}
	return os.WriteFile(filepath.Join(dir, "index_meta.json"), data, 0o644)
}

// packedIDs holds chunk ids in one byte slice: id i is
// buf[off[i]:off[i+1]] (16 bytes less per id than a []string, and no
// allocation per id).
type packedIDs struct {
	buf []byte
	off []uint64 // len = count + 1 once the first id is added
}

func (p *packedIDs) add(id string) {
	if len(p.off) == 0 {
		p.off = append(p.off, 0)
	}
	p.buf = append(p.buf, id...)
	p.off = append(p.off, uint64(len(p.buf)))
}

func (p *packedIDs) len() int {
	if len(p.off) == 0 {
		return 0
	}
	return len(p.off) - 1
}

// at returns id i without copying (callers must not modify it).
func (p *packedIDs) at(i int) []byte { return p.buf[p.off[i]:p.off[i+1]] }

func (p *packedIDs) get(i int) string { return string(p.at(i)) }

// sorted returns the ordinals sorted by id (equal ids by ordinal).
func (p *packedIDs) sorted() []int32 {
	ord := make([]int32, p.len())
	for k := range ord {
		ord[k] = int32(k)
	}
	slices.SortFunc(ord, func(a, b int32) int {
		if c := bytes.Compare(p.at(int(a)), p.at(int(b))); c != 0 {
			return c
		}
		return int(a - b)
	})
	return ord
}

// duplicate returns two ordinals i < j holding the same id (the first pair
// in id order), or ok = false; ord is p.sorted().
func (p *packedIDs) duplicate(ord []int32) (i, j int, ok bool) {
	for k := 1; k < len(ord); k++ {
		if bytes.Equal(p.at(int(ord[k-1])), p.at(int(ord[k]))) {
			return int(ord[k-1]), int(ord[k]), true
		}
	}
	return 0, 0, false
}
