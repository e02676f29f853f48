package engine

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/ragbench/ragbench/corpus"
)

// Dialect is the engine a cluster runs. The two differ in their vector field
// (dense_vector vs knn_vector with "engine": "lucene"), their kNN query (the
// top-level knn section vs a knn query clause) and the name of the index
// setting that enables vectors.
type Dialect string

// The dialects ragbench speaks: Elasticsearch 8.x and OpenSearch 2.x/3.x.
const (
	Elasticsearch Dialect = "elasticsearch"
	OpenSearch    Dialect = "opensearch"
)

func (d Dialect) check() error {
	if d != Elasticsearch && d != OpenSearch {
		return fmt.Errorf("engine: dialect %q: want %q or %q", string(d), Elasticsearch, OpenSearch)
	}
	return nil
}

// Field names of a managed index.
const (
	fieldID     = "id"     // keyword: the chunk id (also the document _id)
	fieldText   = "text"   // text: corpus.Chunk.IndexText()
	fieldVector = "vector" // dense_vector / knn_vector: the chunk's embedding
)

// DefaultPrefix and DefaultBulkDocs are Managed's zero-value Prefix and
// BulkDocs.
const (
	DefaultPrefix   = "ragbench"
	DefaultBulkDocs = 500
)

// BM25 are the similarity parameters of a managed index's text field (the
// engine's BM25 similarity: k1 ≥ 0, 0 ≤ b ≤ 1). Lucene's defaults are
// k1 = 1.2, b = 0.75; Pyserini's BEIR runs use k1 = 0.9, b = 0.4.
type BM25 struct {
	K1, B float64
}

// HNSW are the graph parameters of a managed index's vector field: M > 0
// links per node and EfConstruction > 0 candidates while building (both
// engines' defaults: 16 and 100).
type HNSW struct {
	M, EfConstruction int
}

// Managed configures an index ragbench creates and loads.
type Managed struct {
	// Analyzer is the text field's analyzer, a built-in name of the engine
	// ("english", "standard", ...) or one defined in Analysis; "" means
	// "standard" (the engines' own default).
	Analyzer string
	// Analysis is an optional index "analysis" settings object (custom
	// analyzers, filters), passed to the engine as is.
	Analysis json.RawMessage
	// BM25 sets the text field's similarity; nil keeps the engine's BM25
	// defaults (k1 1.2, b 0.75).
	BM25 *BM25
	// HNSW sets the vector field's graph; nil keeps the engine's defaults.
	HNSW *HNSW
	// Shards is the number of primary shards, ≥ 1; 0 means 1. Replicas is
	// the number of replicas per shard, ≥ 0 (0 means none).
	Shards, Replicas int
	// Prefix starts the index name, lowercase [a-z0-9_-], not starting with
	// '-' or '_'; "" means DefaultPrefix. The name is Prefix + "-" + the
	// first 16 hex digits of the content hash (see Load).
	Prefix string
	// BulkDocs is the most documents per _bulk request, > 0; 0 means
	// DefaultBulkDocs (500).
	BulkDocs int
}

// Index is a managed index: created and loaded by Load, or found complete
// and reused. Its Retriever method makes BM25, kNN and hybrid retrievers over
// it.
type Index struct {
	cl      *client
	dialect Dialect
	name    string
	docs    int
	dims    int // 0: no vector field
	build   time.Duration
	bytes   int64
	reused  bool
	resent  int // bulk items resent after a 429
}

// Resent is how many documents Load resent after the engine rejected them
// with HTTP 429 (a full write queue).
func (ix *Index) Resent() int { return ix.resent }

// Name is the index's name in the cluster.
func (ix *Index) Name() string { return ix.name }

// Reused reports whether Load found the index complete and loaded nothing.
func (ix *Index) Reused() bool { return ix.reused }

// Build is the time Load took (creating, bulk loading and refreshing, or only
// checking a reused index).
func (ix *Index) Build() time.Duration { return ix.build }

// Bytes is the primaries' store size from the engine's _stats after the
// load (bytes, replicas not counted).
func (ix *Index) Bytes() int64 { return ix.bytes }

// Docs is the number of documents (chunks) in the index.
func (ix *Index) Docs() int { return ix.docs }

// prefixRE is the rule of Managed.Prefix (checked by Managed.Validate).
var prefixRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// Load returns the managed index for chunks, creating and loading it unless
// a complete one already exists. vectors, when non-nil, holds one embedding
// per chunk (same order, all of one dimension, finite, non-zero), from
// ragbench's own encoder so that engine kNN is comparable to the built-in
// dense retriever; nil makes an index without a vector field (BM25 only).
//
// The name is derived from a sha256 over the dialect, the settings and
// mapping Load would create, every chunk id and text, and every vector
// (float32 bits), so a rerun over the same content reuses the index. An index
// counts as complete when its mapping's _meta records that hash and its
// document count equals len(chunks); an index of that name that is not
// complete (an interrupted load) is deleted and rebuilt. No other index is
// touched.
//
// Documents are bulk-loaded BulkDocs at a time; items the engine rejects
// with 429 (a full write queue) are resent with the Conn's backoff and
// retries; any other rejected item (a mapping conflict, a bad vector) fails
// the load with the engine's reason for the first such item.
func Load(ctx context.Context, conn Conn, dialect Dialect, chunks []corpus.Chunk, vectors [][]float32, opts Managed) (*Index, error) {
	return LoadChunks(ctx, conn, dialect, corpus.ChunkList(chunks), vectors, opts)
}

// LoadChunks is Load for a chunking's corpus.Chunks (a whole-document view
// is read chunk by chunk, never copied into a list).
func LoadChunks(ctx context.Context, conn Conn, dialect Dialect, chunks corpus.Chunks, vectors [][]float32, opts Managed) (*Index, error) {
	start := time.Now()
	if err := dialect.check(); err != nil {
		return nil, err
	}
	cl, err := dial(conn)
	if err != nil {
		return nil, err
	}
	if chunks.Len() == 0 {
		return nil, errors.New("engine: no chunks to index")
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	dims, err := checkVectors(chunks, vectors)
	if err != nil {
		return nil, err
	}
	body, err := createBody(dialect, opts, dims, "")
	if err != nil {
		return nil, err
	}
	hash := contentHash(dialect, body, chunks, vectors)
	ix := &Index{cl: cl, dialect: dialect, name: opts.Prefix + "-" + hash[:16], docs: chunks.Len(), dims: dims}
	complete, err := ix.complete(ctx, hash)
	if err != nil {
		return nil, err
	}
	if complete {
		ix.reused = true
	} else if err := ix.load(ctx, opts, hash, chunks, vectors); err != nil {
		return nil, err
	}
	ix.build = time.Since(start)
	if ix.bytes, err = storeBytes(ctx, cl, ix.name, ix.name); err != nil {
		return nil, err
	}
	return ix, nil
}

// withDefaults is m with its zero Shards, BulkDocs and Prefix replaced by
// their defaults (1, DefaultBulkDocs, DefaultPrefix).
func (m Managed) withDefaults() Managed {
	if m.Shards == 0 {
		m.Shards = 1
	}
	if m.BulkDocs == 0 {
		m.BulkDocs = DefaultBulkDocs
	}
	if m.Prefix == "" {
		m.Prefix = DefaultPrefix
	}
	return m
}

// checkVectors checks Load's vectors against its chunks (nil, or one per
// chunk, all of one dimension > 0, finite, non-zero) and returns their
// dimension (0 for nil).
func checkVectors(chunks corpus.Chunks, vectors [][]float32) (int, error) {
	if vectors == nil {
		return 0, nil
	}
	if len(vectors) != chunks.Len() {
		return 0, fmt.Errorf("engine: %d vectors for %d chunks", len(vectors), chunks.Len())
	}
	dims := len(vectors[0])
	for i, v := range vectors {
		if len(v) != dims || dims == 0 {
			return 0, fmt.Errorf("engine: chunk %q: vector of dimension %d, want %d (as the first)", chunks.ID(i), len(v), dims)
		}
		var norm float64
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return 0, fmt.Errorf("engine: chunk %q: vector holds %v", chunks.ID(i), x)
			}
			norm += float64(x) * float64(x)
		}
		if norm == 0 {
			return 0, fmt.Errorf("engine: chunk %q: zero vector (cosine is undefined)", chunks.ID(i))
		}
	}
	return dims, nil
}

// contentHash is the sha256 (hex) naming a managed index: over the
// dialect, the create body (without _meta), and every chunk's id and index
// text and vector (float32 bits).
func contentHash(dialect Dialect, body []byte, chunks corpus.Chunks, vectors [][]float32) string {
	h := sha256.New()
	fmt.Fprintf(h, "ragbench-engine-index-v1\x00%s\x00%s\x00%d\x00", dialect, body, chunks.Len())
	for i, c := range chunks.All() {
		fmt.Fprintf(h, "%d\x00%s\x00%d\x00%s\x00", len(c.ID), c.ID, len(c.IndexText()), c.IndexText())
		if vectors != nil {
			var buf [4]byte
			for _, x := range vectors[i] {
				binary.LittleEndian.PutUint32(buf[:], math.Float32bits(x))
				h.Write(buf[:])
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// load creates the index (its _meta marked incomplete), bulk-loads the
// chunks, refreshes, checks the count and marks the index complete.
func (ix *Index) load(ctx context.Context, opts Managed, hash string, chunks corpus.Chunks, vectors [][]float32) error {
	body, err := createBody(ix.dialect, opts, ix.dims, hash)
	if err != nil {
		return err
	}
	if err := ix.create(ctx, body); err != nil {
		return err
	}
	if err := ix.bulk(ctx, chunks, vectors, opts.BulkDocs); err != nil {
		return err
	}
	if _, err := ix.cl.do(ctx, http.MethodPost, "/"+ix.name+"/_refresh", nil, nil); err != nil {
		return err
	}
	var cnt struct {
		Count int `json:"count"`
	}
	if _, err := ix.cl.do(ctx, http.MethodGet, "/"+ix.name+"/_count", nil, &cnt); err != nil {
		return err
	}
	if cnt.Count != chunks.Len() {
		return fmt.Errorf("engine: index %s holds %d documents after loading %d chunks (duplicate chunk ids?)", ix.name, cnt.Count, chunks.Len())
	}
	meta := fmt.Sprintf(`{"_meta":{"ragbench":{"hash":%q,"docs":%d,"complete":true}}}`, hash, chunks.Len())
	_, err = ix.cl.do(ctx, http.MethodPut, "/"+ix.name+"/_mapping", []byte(meta), nil)
	return err
}

// storeBytes is the primaries' store size (bytes) of target (an index,
// alias or list) from GET target/_stats/store, read from the entry key of
// its "indices" (an index's own name) or "_all" when key is "_all".
func storeBytes(ctx context.Context, cl *client, target, key string) (int64, error) {
	type store struct {
		Primaries struct {
			Store struct {
				Bytes int64 `json:"size_in_bytes"`
			} `json:"store"`
		} `json:"primaries"`
	}
	var st struct {
		All     store            `json:"_all"`
		Indices map[string]store `json:"indices"`
	}
	if _, err := cl.do(ctx, http.MethodGet, "/"+target+"/_stats/store", nil, &st); err != nil {
		return 0, err
	}
	if key == "_all" {
		return st.All.Primaries.Store.Bytes, nil
	}
	return st.Indices[key].Primaries.Store.Bytes, nil
}

// complete reports whether the index exists, made by Load for this hash,
// completely loaded. An index of this name that Load began for this hash
// and did not finish is deleted; one that Load did not make (no
// _meta.ragbench.hash, or another) is left alone and is an error.
func (ix *Index) complete(ctx context.Context, hash string) (bool, error) {
	var m map[string]struct {
		Mappings struct {
			Meta struct {
				Ragbench struct {
					Hash     string `json:"hash"`
					Docs     int    `json:"docs"`
					Complete bool   `json:"complete"`
				} `json:"ragbench"`
			} `json:"_meta"`
		} `json:"mappings"`
	}
	_, err := ix.cl.do(ctx, http.MethodGet, "/"+ix.name+"/_mapping", nil, &m)
	var he *HTTPError
	if errors.As(err, &he) && he.Status == http.StatusNotFound {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	meta := m[ix.name].Mappings.Meta.Ragbench
	if meta.Hash != hash {
		return false, fmt.Errorf("engine: index %s exists and was not made by ragbench for this content (its mapping's _meta.ragbench.hash is %q): mapping conflict; delete it or choose another prefix", ix.name, meta.Hash)
	}
	if meta.Complete && meta.Docs == ix.docs {
		var cnt struct {
			Count int `json:"count"`
		}
		if _, err := ix.cl.do(ctx, http.MethodGet, "/"+ix.name+"/_count", nil, &cnt); err != nil {
			return false, err
		}
		if cnt.Count == ix.docs {
			return true, nil
		}
	}
	if _, err := ix.cl.do(ctx, http.MethodDelete, "/"+ix.name, nil, nil); err != nil {
		return false, fmt.Errorf("engine: deleting the incomplete index %s: %w", ix.name, err)
	}
	return false, nil
}

// createBody is the create-index request: settings (shards, replicas, BM25
// similarity, analysis, knn for OpenSearch) and the strict mapping, with
// _meta.ragbench {hash, docs, complete: false} when hash is not "" (the
// content hash covers the body without it).
func createBody(d Dialect, o Managed, dims int, hash string) ([]byte, error) {
	index := map[string]any{"number_of_shards": o.Shards, "number_of_replicas": o.Replicas}
	if o.BM25 != nil {
		index["similarity"] = map[string]any{"ragbench_bm25": map[string]any{"type": "BM25", "k1": o.BM25.K1, "b": o.BM25.B}}
	}
	if len(o.Analysis) > 0 {
		if !json.Valid(o.Analysis) {
			return nil, errors.New("engine: analysis settings: not valid JSON")
		}
		index["analysis"] = o.Analysis
	}
	text := map[string]any{"type": "text", "analyzer": cmp.Or(o.Analyzer, "standard")}
	if o.BM25 != nil {
		text["similarity"] = "ragbench_bm25"
	}
	props := map[string]any{fieldID: map[string]any{"type": "keyword"}, fieldText: text}
	if dims > 0 {
		m, ef := 16, 100
		if o.HNSW != nil {
			m, ef = o.HNSW.M, o.HNSW.EfConstruction
		}
		if d == Elasticsearch {
			// type hnsw: ES 8.19 would otherwise quantise (int8_hnsw or
			// bbq_hnsw), and the cell would not be comparable to exact
			// float search.
			props[fieldVector] = map[string]any{"type": "dense_vector", "dims": dims, "index": true, "similarity": "cosine",
				"index_options": map[string]any{"type": "hnsw", "m": m, "ef_construction": ef}}
		} else {
			index["knn"] = true
			// engine lucene: the plugin zip on Maven Central has no native
			// libraries (faiss kills the node on the first document).
			props[fieldVector] = map[string]any{"type": "knn_vector", "dimension": dims, "space_type": "cosinesimil",
				"method": map[string]any{"name": "hnsw", "engine": "lucene", "parameters": map[string]any{"m": m, "ef_construction": ef}}}
		}
	}
	mappings := map[string]any{"dynamic": "strict", "properties": props}
	if hash != "" {
		mappings["_meta"] = map[string]any{"ragbench": map[string]any{"hash": hash, "complete": false}}
	}
	return json.Marshal(map[string]any{"settings": map[string]any{"index": index}, "mappings": mappings})
}

func (ix *Index) create(ctx context.Context, body []byte) error {
	_, err := ix.cl.do(ctx, http.MethodPut, "/"+ix.name, body, nil)
	if err != nil {
		return fmt.Errorf("engine: creating index %s: %w", ix.name, err)
	}
	return nil
}

// bulk loads the chunks per batch, resending items rejected with 429.
func (ix *Index) bulk(ctx context.Context, chunks corpus.Chunks, vectors [][]float32, per int) error {
	for lo := 0; lo < chunks.Len(); lo += per {
		hi := min(lo+per, chunks.Len())
		pending := make([]int, 0, hi-lo)
		for i := lo; i < hi; i++ {
			pending = append(pending, i)
		}
		for attempt := 0; len(pending) > 0; attempt++ {
			if attempt > 0 {
				if attempt > ix.cl.retries {
					return fmt.Errorf("engine: bulk load into %s: %d documents still rejected with HTTP 429 after %d retries (the write queue is full; lower bulk_docs or raise retries)", ix.name, len(pending), ix.cl.retries)
				}
				if err := ix.cl.backoffWait(ctx, attempt, nil); err != nil {
					return err
				}
			}
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			for _, i := range pending {
				c := chunks.At(i)
				enc.Encode(map[string]any{"index": map[string]any{"_index": ix.name, "_id": c.ID}})
				doc := map[string]any{fieldID: c.ID, fieldText: c.IndexText()}
				if vectors != nil {
					doc[fieldVector] = vectors[i]
				}
				if err := enc.Encode(doc); err != nil {
					return fmt.Errorf("engine: chunk %q: %v", c.ID, err)
				}
			}
			var resp struct {
				Errors bool `json:"errors"`
				Items  []map[string]struct {
					ID     string `json:"_id"`
					Status int    `json:"status"`
					Error  struct {
						Type   string `json:"type"`
						Reason string `json:"reason"`
					} `json:"error"`
				} `json:"items"`
			}
			if _, err := ix.cl.do(ctx, http.MethodPost, "/_bulk", buf.Bytes(), &resp); err != nil {
				return fmt.Errorf("engine: bulk load into %s: %w", ix.name, err)
			}
			if len(resp.Items) != len(pending) {
				return fmt.Errorf("engine: bulk load into %s: %d items answered for %d sent", ix.name, len(resp.Items), len(pending))
			}
			var again []int
			for j, it := range resp.Items {
				for _, r := range it {
					switch {
					case r.Status < 300:
					case r.Status == http.StatusTooManyRequests:
						again = append(again, pending[j])
					default:
						return fmt.Errorf("engine: bulk load into %s: chunk %q rejected: HTTP %d: %s", ix.name, chunks.ID(pending[j]), r.Status,
							ix.cl.engineText(strings.TrimPrefix(r.Error.Type+": "+r.Error.Reason, ": "), 0))
					}
				}
			}
			ix.resent += len(again)
			pending = again
		}
	}
	return nil
}
