// Package dense is ragbench's dense (bi-encoder) retriever: chunk texts are
// embedded once by an EmbedFunc (the ONNX layer, cached), stored in a
// chromem-go v0.7.0 collection, and searched exhaustively by cosine
// similarity (exact, no approximate index).
//
// chromem-go is used with precomputed embeddings only (documents are added
// with Embedding set, so chromem never calls an embedder). The normalised
// vectors live in one contiguous row-major []float32 (n × dim) and each
// chromem document's Embedding is its row of that array — one copy of the
// vectors, owned by the chromem collection (which holds every document, id
// and vector, and answers GetByID, Count and QueryEmbedding on them) and laid
// out so that Search can scan it as a plain contiguous loop on all cores
// (chromem's own QueryEmbedding walks a map of documents, about twice as slow
// as that loop). The scan computes each similarity exactly as chromem does
// (float32 dot product of normalised vectors, summed in component order), so
// scores are chromem's, bit for bit; results are sorted by score, then id
// descending (eval.Sort's TieDocIDDesc order), the cut at k included, never
// chromem's nondeterministic order of equal similarities.
//
// Save and Load stream the rows (no whole-collection encoding in memory):
// the index file is a header line and then, per document, its id and
// vector, with a CRC-32 at the end (format v2). Files of format v1 (chromem's
// gob Export, written before issue 27) are still loaded.
package dense

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	chromem "github.com/philippgille/chromem-go"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/retrievers"
)

// EmbedFunc embeds texts with a bi-encoder: one vector per text, in order,
// all of the same dimension. query tells whether the texts are queries (true)
// or passages (false), for models that embed them differently (e5's
// "query: "/"passage: " prefixes, bge's query instruction). Vectors need not
// be normalised (they are L2-normalised before cosine search) but must be
// finite and non-zero.
type EmbedFunc func(ctx context.Context, texts []string, query bool) ([][]float32, error)

// Defaults for Options' zero values.
const (
	DefaultBatchSize   = 64
	DefaultConcurrency = 4
	collectionName     = "ragbench"
)

// Options configure a dense retriever. The zero value is usable.
type Options struct {
	// BatchSize is the most texts per EmbedFunc call (chunks when building,
	// queries when searching), > 0; 0 means DefaultBatchSize (64).
	BatchSize int
	// Concurrency, > 0 (0 means DefaultConcurrency, 4), is kept so that
	// existing callers and configs stay valid; it no longer changes
	// anything: documents are added to the chromem collection in row order
	// (each one's embedding is its row of the contiguous array), and a
	// search uses runtime.GOMAXPROCS(0) goroutines.
	Concurrency int
	// Model identifies the embedding model (e.g. "use-lite" or a model
	// folder's hash). It is recorded by Save and, when both are non-empty,
	// Load refuses an index saved with another model.
	Model string
}

// DefaultOptions returns the defaults as data: BatchSize 64, Concurrency 4,
// no Model. Neither field has a meaningful zero, so the zero value of each
// also selects its default.
func DefaultOptions() Options {
	return Options{BatchSize: DefaultBatchSize, Concurrency: DefaultConcurrency}
}

// Validate reports the first invalid field of o, or nil. Each error starts
// with the field's snake_case name as configs spell it ("batch_size: ...",
// "concurrency: ...").
func (o Options) Validate() error {
	_, err := o.resolve()
	return err
}

func (o Options) resolve() (Options, error) {
	if err := retrievers.DefaultPositive("batch_size", &o.BatchSize, DefaultBatchSize); err != nil {
		return o, err
	}
	return o, retrievers.DefaultPositive("concurrency", &o.Concurrency, DefaultConcurrency)
}

// withEmbed resolves o for New, Build and Load, which also need an embed
// function.
func (o Options) withEmbed(embed EmbedFunc) (Options, error) {
	r, err := o.resolve()
	if err == nil && embed == nil {
		err = errors.New("dense: embed function is nil")
	}
	return r, err
}

// Retriever is a dense retriever over a chromem-go collection; it implements
// retrievers.Retriever. Search is safe for concurrent use.
//
// Memory: the vectors once (4·dim bytes per indexed chunk, in mat, shared
// with chromem's documents), chromem's document records (about 200 bytes
// each) and the ids; never the chunk texts.
type Retriever struct {
	db      *chromem.DB
	coll    *chromem.Collection
	mat     []float32 // n × dim, row-major, L2-normalised rows: chromem's documents' embeddings
	ids     []string  // row → chunk id
	embed   EmbedFunc
	opts    Options
	dim     int
	n       int
	skipped []string // ids of chunks with empty text, not indexed
	bytes   int64
	build   time.Duration

	mu        sync.Mutex      // guards latencies
	latencies []time.Duration // per query: embedding share + search
}

// New embeds every chunk's IndexText (title prepended or not, as the chunk
// says) with embed(…, false) in batches of opts.BatchSize and builds the
// collection, keyed by chunk id. Chunks whose IndexText is empty or white
// space (Cranfield has two such documents) are not embedded: they are left
// out of the index and listed by Skipped and Warnings.
//
// Errors: no chunks, or none with text ("empty corpus"); two chunks with one id (naming both
// positions); an EmbedFunc error, wrong vector count, a vector of another
// dimension, or a zero, NaN or infinite vector (naming the chunk id).
func New(ctx context.Context, chunks []corpus.Chunk, embed EmbedFunc, opts Options) (*Retriever, error) {
	return NewChunks(ctx, corpus.ChunkList(chunks), embed, opts)
}

// NewChunks is New for a chunking's corpus.Chunks: a whole-document view
// is read chunk by chunk, never copied into a list, and the ids are
// checked through an IDIndex (positions, not a map of every id) before
// anything is embedded. Errors are New's.
func NewChunks(ctx context.Context, chunks corpus.Chunks, embed EmbedFunc, opts Options) (*Retriever, error) {
	start := time.Now()
	o, err := opts.withEmbed(embed)
	if err != nil {
		return nil, err
	}
	n := chunks.Len()
	if n == 0 {
		return nil, errors.New("dense: empty corpus: no chunks to index")
	}
	pos := corpus.NewIDIndex(chunks.ID, n)
	for i := range n {
		if chunks.ID(i) == "" {
			return nil, fmt.Errorf("dense: chunk %d: empty id", i)
		}
		if j, dup := pos.Add(i); dup {
			return nil, fmt.Errorf("dense: chunks %d and %d: duplicate id %q", j, i, chunks.ID(i))
		}
	}
	r, err := build(ctx, chunks.Stream(), n, embed, o)
	if err != nil {
		return nil, err
	}
	r.build = time.Since(start)
	return r, nil
}

// Build is New for chunks streamed by an iterator instead of held in a
// slice (see bm25.Build): each batch of BatchSize texts is embedded as it
// arrives and only ids and vectors are kept, never the texts. An error
// from chunks stops the build and is returned. Duplicate ids are found
// after embedding (New finds them before). Errors are otherwise New's.
func Build(ctx context.Context, chunks iter.Seq2[corpus.Chunk, error], embed EmbedFunc, opts Options) (*Retriever, error) {
	start := time.Now()
	o, err := opts.withEmbed(embed)
	if err != nil {
		return nil, err
	}
	r, err := build(ctx, chunks, 0, embed, o)
	if err != nil {
		return nil, err
	}
	r.build = time.Since(start)
	return r, nil
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

// build embeds the chunks batch by batch into rows; n, when known (New,
// which has checked the ids), sizes the vector array once; else (Build)
// duplicate ids are looked for at the end. Chunks without text cannot be embedded (encoders
// refuse empty input) and could never be found by similarity: they are left
// out, counted and reported by Warnings.
func build(ctx context.Context, chunks iter.Seq2[corpus.Chunk, error], n int, embed EmbedFunc, o Options) (*Retriever, error) {
	var skipped, ids, texts []string
	var order []string // every id in stream order (Build only: for the duplicate check)
	var mat []float32
	dim, total := 0, 0
	flush := func() error {
		if len(texts) == 0 {
			return nil
		}
		b := len(ids) - len(texts) // the batch is ids[b:]
		vecs, err := embed(ctx, texts, false)
		if err != nil {
			return fmt.Errorf("dense: embedding chunks %d–%d: %w", b, b+len(texts)-1, err)
		}
		if len(vecs) != len(texts) {
			return fmt.Errorf("dense: embedding chunks %d–%d: got %d vectors for %d texts", b, b+len(texts)-1, len(vecs), len(texts))
		}
		for i, v := range vecs {
			if dim == 0 {
				dim = len(v)
				mat = make([]float32, 0, n*dim)
			}
			if err := checkVector(v, dim); err != nil {
				return fmt.Errorf("dense: chunk %q: %w", ids[b+i], err)
			}
			mat = appendNormalized(mat, v)
		}
		texts = texts[:0]
		return nil
	}
	for c, err := range chunks {
		if err != nil {
			return nil, fmt.Errorf("dense: %w", err)
		}
		if c.ID == "" {
			return nil, fmt.Errorf("dense: chunk %d: empty id", total)
		}
		total++
		if n == 0 {
			order = append(order, c.ID)
		}
		if strings.TrimSpace(c.IndexText()) == "" {
			skipped = append(skipped, c.ID)
			continue
		}
		ids = append(ids, c.ID)
		texts = append(texts, c.IndexText())
		if len(texts) == o.BatchSize {
			if err := flush(); err != nil {
				return nil, err
			}
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if total == 0 {
		return nil, errors.New("dense: empty corpus: no chunks to index")
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("dense: empty corpus: all %d chunks have empty text", total)
	}
	if n == 0 {
		if i, j, ok := duplicateID(order); ok {
			return nil, fmt.Errorf("dense: chunks %d and %d: duplicate id %q", i, j, order[i])
		}
	}
	r, err := fromRows(ctx, ids, mat, dim, embed, o)
	if err != nil {
		return nil, err
	}
	r.skipped = skipped
	return r, nil
}

// duplicateID returns two positions i < j of ids holding the same id, or
// ok = false (sorting positions, no map of all ids).
func duplicateID(ids []string) (i, j int, ok bool) {
	ord := make([]int32, len(ids))
	for k := range ord {
		ord[k] = int32(k)
	}
	slices.SortFunc(ord, func(a, b int32) int {
		if c := strings.Compare(ids[a], ids[b]); c != 0 {
			return c
		}
		return int(a - b)
	})
	for k := 1; k < len(ord); k++ {
		if ids[ord[k-1]] == ids[ord[k]] {
			return int(ord[k-1]), int(ord[k]), true
		}
	}
	return 0, 0, false
}

// Skipped returns the ids of the chunks left out of the index because their
// IndexText is empty or only white space (in corpus order; nil when none).
// Such chunks are never retrieved. The list is not saved by Save: after
// Load it is nil.
func (r *Retriever) Skipped() []string { return slices.Clone(r.skipped) }

// Warnings describes what the retriever left out, for reports: one line
// per policy applied (empty when none).
func (r *Retriever) Warnings() []string {
	if len(r.skipped) == 0 {
		return nil
	}
	ex := r.skipped[:min(5, len(r.skipped))]
	return []string{fmt.Sprintf("dense: %d chunks with empty text not indexed (never retrieved): %s", len(r.skipped), strings.Join(ex, ", "))}
}

// fromRows builds the chromem collection over ids and the row-major
// normalised vectors mat (len(ids) × dim): each document's Embedding is its
// row of mat (chromem keeps a normalised embedding as given), so the
// collection and the contiguous scan share one copy of the vectors.
func fromRows(ctx context.Context, ids []string, mat []float32, dim int, embed EmbedFunc, o Options) (*Retriever, error) {
	db := chromem.NewDB()
	meta := map[string]string{"ragbench.model": o.Model, "ragbench.dim": strconv.Itoa(dim)}
	coll, err := db.CreateCollection(collectionName, meta, refuseEmbedding)
	if err != nil {
		return nil, fmt.Errorf("dense: %w", err)
	}
	for i, id := range ids {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if err := coll.AddDocument(ctx, chromem.Document{ID: id, Embedding: mat[i*dim : (i+1)*dim : (i+1)*dim]}); err != nil {
			return nil, fmt.Errorf("dense: %w", err)
		}
	}
	if coll.Count() != len(ids) {
		return nil, fmt.Errorf("dense: %d documents in the collection for %d ids (duplicate ids?)", coll.Count(), len(ids))
	}
	r := &Retriever{db: db, coll: coll, mat: mat, ids: ids, embed: embed, opts: o, dim: dim, n: len(ids)}
	r.bytes = int64(4 * len(mat))
	for _, id := range ids {
		r.bytes += int64(len(id))
	}
	return r, nil
}

// refuseEmbedding is the collection's chromem.EmbeddingFunc: every document
// and query arrives with its embedding, so a call means a bug.
func refuseEmbedding(context.Context, string) ([]float32, error) {
	return nil, errors.New("dense: chromem asked to embed text; ragbench passes precomputed embeddings only")
}

// checkVector reports a vector chromem cannot search with: wrong dimension,
// NaN or infinite components, or zero length.
func checkVector(v []float32, dim int) error {
	if len(v) != dim {
		return fmt.Errorf("embedding has dimension %d, want %d", len(v), dim)
	}
	var ss float64
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("embedding component %d is %v", i, x)
		}
		ss += float64(x) * float64(x)
	}
	if ss == 0 {
		return errors.New("embedding is the zero vector (no direction for cosine)")
	}
	return nil
}

// normalized returns v / ‖v‖₂, computed in float64 (v unchanged).
func normalized(v []float32) []float32 { return appendNormalized(make([]float32, 0, len(v)), v) }

// appendNormalized appends v / ‖v‖₂ (computed in float64) to dst.
func appendNormalized(dst, v []float32) []float32 {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	n := math.Sqrt(ss)
	for _, x := range v {
		dst = append(dst, float32(float64(x)/n))
	}
	return dst
}

// Search implements retrievers.Retriever: queries are embedded with
// embed(…, true) in batches of BatchSize, and each gets the min(k, N) chunks
// of highest cosine similarity (in [−1, 1], as float64), sorted by score
// descending, ties by chunk id descending (eval.Sort, TieDocIDDesc) — the same whatever chromem's
// internal order. A query whose text is empty or white space, or whose
// embedding is the zero vector, gets an empty list (nothing to compare). k ≤ 0 is an error, as are EmbedFunc errors and
// NaN, infinite or wrong-dimension query vectors (naming the query id).
func (r *Retriever) Search(ctx context.Context, queries []retrievers.Query, k int) (eval.Run, error) {
	if k <= 0 {
		return nil, fmt.Errorf("dense: k must be > 0, got %d", k)
	}
	out := make(eval.Run, len(queries))
	lat := make([]time.Duration, 0, len(queries))
	texts := make([]string, 0, r.opts.BatchSize)
	for b := 0; b < len(queries); b += r.opts.BatchSize {
		batch := queries[b:min(b+r.opts.BatchSize, len(queries))]
		texts = texts[:0]
		var nonEmpty []retrievers.Query
		for _, q := range batch {
			if strings.TrimSpace(q.Text) == "" {
				out[q.ID] = []eval.Result{} // nothing to embed: no result, like BM25 on stop words
				lat = append(lat, 0)
				continue
			}
			nonEmpty = append(nonEmpty, q)
			texts = append(texts, q.Text)
		}
		if len(nonEmpty) == 0 {
			continue
		}
		batch = nonEmpty
		t0 := time.Now()
		vecs, err := r.embed(ctx, texts, true)
		if err != nil {
			return nil, fmt.Errorf("dense: embedding queries %q–%q: %w", batch[0].ID, batch[len(batch)-1].ID, err)
		}
		if len(vecs) != len(batch) {
			return nil, fmt.Errorf("dense: embedding queries %q–%q: got %d vectors for %d texts", batch[0].ID, batch[len(batch)-1].ID, len(vecs), len(batch))
		}
		share := time.Since(t0) / time.Duration(len(batch))
		for i, q := range batch {
			t1 := time.Now()
			l, err := r.searchVector(ctx, vecs[i], k)
			if err != nil {
				return nil, fmt.Errorf("dense: query %q: %w", q.ID, err)
			}
			out[q.ID] = l
			lat = append(lat, share+time.Since(t1))
		}
	}
	r.mu.Lock()
	r.latencies = append(r.latencies, lat...)
	r.mu.Unlock()
	return out, nil
}

// searchVector returns the top min(k, N) chunks for one query vector.
func (r *Retriever) searchVector(ctx context.Context, v []float32, k int) ([]eval.Result, error) {
	if len(v) == r.dim {
		allZero := true
		for _, x := range v {
			if x != 0 {
				allZero = false
				break
			}
		}
		if allZero {
			return []eval.Result{}, nil
		}
	}
	if err := checkVector(v, r.dim); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return r.scan(normalized(v), min(k, r.n)), nil
}

// Stats implements retrievers.Retriever. IndexBytes is the vectors (4 bytes
// per component) plus ids; latencies are per query: that query's share of
// its batch's embedding time plus its search time (nearest-rank
// percentiles).
func (r *Retriever) Stats() retrievers.Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return retrievers.Stats{
		Build:      r.build,
		IndexBytes: r.bytes,
		Queries:    len(r.latencies),
		LatencyP50: retrievers.Percentile(r.latencies, 0.50),
		LatencyP95: retrievers.Percentile(r.latencies, 0.95),
	}
}

// Len returns the number of indexed chunks; Dim their embedding dimension.
func (r *Retriever) Len() int { return r.n }

// Dim returns the embedding dimension.
func (r *Retriever) Dim() int { return r.dim }
