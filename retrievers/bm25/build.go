package bm25

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
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
)

// How an index is built (issue 27). Each chunk is mapped (bleve's mapping)
// and analysed once (bleve's analyzer, TextField.Analyze) by ragbench's
// analysis workers, which record its length in tokens; the analysed document
// goes to scorch's offline Builder (bleve's bulk-loading path, no online
// segment introduction or background merging), which writes one zap segment
// per BatchSize documents and merges them all at the end in a single pass,
// so the index is one segment whose document numbers are the chunks' ordinals
// (checked when the index is opened). Measured on the 1 M-document synthetic
// corpus (docs/benchmarks/bm25.md): the online index with 1,000-document
// batches spent 35 % of its time building segments and 18 % merging them.

// idsFile, lengthsFile are ragbench's records beside the bleve index in an
// index folder: the chunk ids in ordinal order (uvarint length + bytes each)
// and, per field in fieldNames order, the ordinal → token count table
// (little-endian int32).
const (
	idsFile     = "ids.bin"
	lengthsFile = "lengths.bin"
)

// mergeMax is how many segments scorch's builder merges at a time (it
// merges until one is left); the document order this gives is read back by
// inDocOrder, whatever it is. A variable for the scale benchmark.
var mergeMax = math.MaxInt32

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
	h := sha256.New()
	var n [8]byte
	put := func(s string) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		io.WriteString(h, s)
	}
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
	return hex.EncodeToString(h.Sum(nil)), count, nil
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

// buildIndex writes a one-segment bleve index of chunks into dir (which must
// not exist) and returns the record of its chunks. Duplicate ids are found
// after the build (sorting ordinals by id, no map of all ids).
func buildIndex(ctx context.Context, dir string, chunks iter.Seq2[corpus.Chunk, error], m *mapping.IndexMappingImpl, o Options) (*record, error) {
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
	return rec.inDocOrder(dir, sorted)
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

// meta is what an index folder records beside the bleve index (JSON):
// format, cache key, analysis, and the size and CRC-32 of the ids and
// lengths files.
type meta struct {
	Format   int    `json:"format"`
	Key      string `json:"key"`
	Analyzer string `json:"analyzer"`
	Fields   string `json:"fields"`
	Count    int    `json:"count"`
	IDsCRC   uint32 `json:"ids_crc32"`
	LensCRC  uint32 `json:"lengths_crc32"`
}

// writeRecord writes ids.bin, lengths.bin and the meta file into dir.
func writeRecord(dir string, rec *record, md meta) error {
	ids := rec.ids.encode()
	lens := make([]byte, 0, 4*len(rec.lengths)*rec.ids.len())
	for _, l := range rec.lengths {
		for _, x := range l {
			lens = binary.LittleEndian.AppendUint32(lens, uint32(x))
		}
	}
	md.Count, md.IDsCRC, md.LensCRC = rec.ids.len(), crc32.ChecksumIEEE(ids), crc32.ChecksumIEEE(lens)
	data, err := json.Marshal(md)
	if err != nil {
		return fmt.Errorf("bm25: %w", err)
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{idsFile, ids}, {lengthsFile, lens}, {metaFile, data}} {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			return fmt.Errorf("bm25: %w", err)
		}
	}
	return nil
}

// readRecord reads the record of the index folder dir and checks it against
// key (the folder's name is the key's prefix). A missing meta file is
// fs.ErrNotExist.
func readRecord(dir, key string, nfields int) (*record, error) {
	data, err := os.ReadFile(filepath.Join(dir, metaFile))
	if err != nil {
		return nil, err
	}
	var md meta
	if err := json.Unmarshal(data, &md); err != nil {
		return nil, fmt.Errorf("bm25: %s: %w", filepath.Join(dir, metaFile), err)
	}
	if md.Format != formatVersion || md.Key != key {
		return nil, fmt.Errorf("bm25: %s: cached index does not match its name (format %d, key %.12s…); delete the folder",
			dir, md.Format, md.Key)
	}
	bad := func(file, what string) error {
		return fmt.Errorf("bm25: %s: %s; delete the folder %s", filepath.Join(dir, file), what, dir)
	}
	ids, err := os.ReadFile(filepath.Join(dir, idsFile))
	if err != nil {
		return nil, fmt.Errorf("bm25: %w", err)
	}
	if crc32.ChecksumIEEE(ids) != md.IDsCRC {
		return nil, bad(idsFile, "checksum mismatch")
	}
	rec := &record{}
	if err := rec.ids.decode(ids); err != nil || rec.ids.len() != md.Count {
		return nil, bad(idsFile, fmt.Sprintf("does not hold %d ids", md.Count))
	}
	lens, err := os.ReadFile(filepath.Join(dir, lengthsFile))
	if err != nil {
		return nil, fmt.Errorf("bm25: %w", err)
	}
	if crc32.ChecksumIEEE(lens) != md.LensCRC || len(lens) != 4*nfields*md.Count {
		return nil, bad(lengthsFile, "checksum or size mismatch")
	}
	for f := range nfields {
		l := make([]int32, md.Count)
		for i := range l {
			l[i] = int32(binary.LittleEndian.Uint32(lens[4*(f*md.Count+i):]))
		}
		rec.lengths = append(rec.lengths, l)
	}
	return rec, nil
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

// encode returns the ids as uvarint length + bytes each.
func (p *packedIDs) encode() []byte {
	out := make([]byte, 0, len(p.buf)+2*p.len())
	for i := range p.len() {
		b := p.at(i)
		out = binary.AppendUvarint(out, uint64(len(b)))
		out = append(out, b...)
	}
	return out
}

func (p *packedIDs) decode(data []byte) error {
	*p = packedIDs{off: []uint64{0}}
	for len(data) > 0 {
		n, k := binary.Uvarint(data)
		if k <= 0 || uint64(len(data)-k) < n {
			return errors.New("truncated id")
		}
		p.buf = append(p.buf, data[k:k+int(n)]...)
		p.off = append(p.off, uint64(len(p.buf)))
		data = data[k+int(n):]
	}
	return nil
}
