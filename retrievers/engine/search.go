package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/retrievers"
	"github.com/ragbench/ragbench/retrievers/dense"
)

// Query kinds of a managed index.
const (
	KindBM25   = "bm25"   // a match query on the text field
	KindKNN    = "knn"    // approximate kNN (HNSW) on the vector field
	KindHybrid = "hybrid" // both, summed by the engine with boosts
)

// DefaultNumCandidates is QueryOptions' zero-value NumCandidates.
const DefaultNumCandidates = 100

// maxWindow is the engines' default index.max_result_window: no search asks
// for more hits.
const maxWindow = 10000

// QueryOptions say how a managed index is queried.
type QueryOptions struct {
	// Kind is KindBM25, KindKNN or KindHybrid.
	Kind string
	// K is the number of nearest neighbours the kNN part asks for, > 0; 0
	// means the search depth (Search's k, widened past ties). Hybrid
	// scores documents outside both the match and the K neighbours by
	// match alone.
	K int
	// NumCandidates is the HNSW candidate list per shard (Elasticsearch
	// num_candidates, OpenSearch method_parameters.ef_search), > 0; 0 means
	// DefaultNumCandidates (100). It is raised to the kNN k when smaller
	// (both engines require num_candidates ≥ k).
	NumCandidates int
	// BM25Boost and KNNBoost weight the two parts of a hybrid query (the
	// engine adds boost·score of each), both > 0 for KindHybrid and
	// ignored otherwise (zero is refused there, not defaulted: a zero boost
	// would silently turn the hybrid into one of its parts).
	BM25Boost, KNNBoost float64
	// NoDFS turns off global term statistics. By default every search uses
	// search_type=dfs_query_then_fetch, so BM25 scores do not depend on how
	// documents fall into shards (Elasticsearch with a knn section refuses
	// the parameter and runs its DFS phase by itself; NoDFS cannot turn
	// that off).
	NoDFS bool
	// Embed embeds query texts (query = true) for KindKNN and KindHybrid,
	// with the model that made the index's vectors; the vectors must have
	// the index's dimension. It may be nil for KindBM25.
	Embed dense.EmbedFunc
}

// Retriever searches an engine index: a managed Index through
// Index.Retriever, or an existing index through Existing. It implements
// retrievers.Retriever; it is safe for concurrent use.
type Retriever struct {
	cl      *client
	index   string
	dfs     bool            // send search_type=dfs_query_then_fetch
	embed   dense.EmbedFunc // nil: queries are not embedded
	render  func(text string, vec []float32, size int) ([]byte, error)
	idField string // "_id" or a _source field
	build   time.Duration
	bytes   int64

	missOnError bool // a query failing after the retries is a miss, not an error (SetMissOnError)

	// warmLock, non-nil for an OpenSearch vector query (enableWarmUp),
	// whose first searches on each node go one at a time (warmUp): with
	// capacity 1, it lets one Search warm at a time and is waited for with
	// that Search's context, so a cancelled Search does not wait out
	// another's warm-up; warmed[ui] (guarded by warmLock) is set once node
	// ui answered a warm-up, so a warm-up cut short or a node down at the
	// time is warmed by a later Search.
	warmLock chan struct{}
	warmed   []bool

	mu        sync.Mutex // guards latencies and failed
	latencies []time.Duration
	failed    []QueryFailure
}

// QueryFailure is a query that still failed after the Conn's retries in
// a Search with SetMissOnError: its id and the error (the engine's, with
// the query id and index; never a credential).
type QueryFailure struct {
	ID, Err string
}

// SetMissOnError makes Search return an empty result list for a query that
// still fails after the Conn's retries (a miss: it scores 0 on every
// measure) instead of failing the whole search; Failed lists such queries.
// This is the explicit "counted miss" policy: by default (without this
// call) one failed query fails the Search. An interrupted Search, a bad k,
// a failed query embedding and an authentication failure (HTTP 401 or 403,
// AuthFailure: every query would fail alike and the cell would score 0
// without a word) still fail it. Call before the first Search.
func (r *Retriever) SetMissOnError() { r.missOnError = true }

// Failed returns the queries Search turned into misses so far (with
// SetMissOnError), in the order of their Search calls and, within one,
// of the queries given; nil when none failed.
func (r *Retriever) Failed() []QueryFailure {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]QueryFailure(nil), r.failed...)
}

var _ retrievers.Retriever = (*Retriever)(nil)

// Retriever returns a retriever that queries the index per q. Errors name the
// bad option (QueryOptions.Validate), or a vector query on an index without
// vectors or without an embedder.
func (ix *Index) Retriever(q QueryOptions) (*Retriever, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	r := &Retriever{cl: ix.cl, index: ix.name, dfs: !q.NoDFS, idField: "_id", build: ix.build, bytes: ix.bytes}
	if q.Kind != KindBM25 {
		if ix.dims == 0 {
			return nil, fmt.Errorf("engine: %s query: index %s has no vector field (Load was given no vectors)", q.Kind, ix.name)
		}
		if q.Embed == nil {
			return nil, fmt.Errorf("engine: %s query: no query embedder", q.Kind)
		}
		r.embed = q.Embed
		if ix.dialect == OpenSearch {
			r.enableWarmUp()
		}
	}
	// Elasticsearch refuses search_type with a top-level knn section: it
	// runs the kNN search in its DFS phase, which also gathers global term
	// statistics for the query part, so dfs holds without the parameter.
	if ix.dialect == Elasticsearch && q.Kind != KindBM25 {
		r.dfs = false
	}
	r.render = ix.renderer(q)
	return r, nil
}

// renderer returns the function writing the search body of q for a query
// text, its vector (nil for KindBM25) and a size, in ix's dialect.
func (ix *Index) renderer(q QueryOptions) func(text string, vec []float32, size int) ([]byte, error) {
	nc := cmp.Or(q.NumCandidates, DefaultNumCandidates)
	dims, dialect, kind, name := ix.dims, ix.dialect, q.Kind, ix.name
	return func(text string, vec []float32, size int) ([]byte, error) {
		if vec != nil && len(vec) != dims {
			return nil, fmt.Errorf("engine: query vector of dimension %d, index %s has %d", len(vec), name, dims)
		}
		k := cmp.Or(q.K, size)
		match := func(boost float64) map[string]any {
			m := map[string]any{"query": text}
			if boost != 0 {
				m["boost"] = boost
			}
			return map[string]any{"match": map[string]any{fieldText: m}}
		}
		knn := func(boost float64) map[string]any {
			var m map[string]any
			if dialect == Elasticsearch {
				m = map[string]any{"field": fieldVector, "query_vector": vec, "k": k, "num_candidates": max(nc, k)}
			} else {
				m = map[string]any{"vector": vec, "k": k, "method_parameters": map[string]any{"ef_search": max(nc, k)}}
			}
			if boost != 0 {
				m["boost"] = boost
			}
			if dialect == Elasticsearch {
				return m
			}
			return map[string]any{"knn": map[string]any{fieldVector: m}}
		}
		body := map[string]any{"size": size, "_source": false}
		switch {
		case kind == KindBM25:
			body["query"] = match(0)
		case kind == KindKNN && dialect == Elasticsearch:
			body["knn"] = knn(0)
		case kind == KindKNN:
			body["query"] = knn(0)
		case dialect == Elasticsearch:
			body["query"] = match(q.BM25Boost)
			body["knn"] = knn(q.KNNBoost)
		default:
			body["query"] = map[string]any{"bool": map[string]any{"should": []any{match(q.BM25Boost), knn(q.KNNBoost)}}}
		}
		return json.Marshal(body)
	}
}

// Search implements retrievers.Retriever: each query's top k by the engine's
// score, in trec_eval's order (score descending, then doc id descending;
// eval.Sort with eval.TieDocIDDesc). The engine breaks ties by its own
// internal order, so when a tie crosses the k-th place the search is re-run
// with a larger size (up to 10,000 hits) until it does not, and the cut
// keeps the ids trec_eval would keep. Queries run Conn.Concurrency at a time;
// one that still fails after the Conn's retries fails the whole Search with
// the query id and the engine's error (never an empty list in its place),
// unless SetMissOnError was called: then it gets an empty list, counted in
// Failed (but for an authentication failure, HTTP 401 or 403, which fails
// the Search: AuthFailure).
// Latency per query is the engine round trip(s), excluding query embedding.
// A Search of an OpenSearch retriever with vectors first sends its first
// query alone to each node that has not yet answered such a warm-up and is
// not known to be down (warmUp; its answer is not used and takes no part
// in the latencies); once every node answered one, Searches send none.
// Cancelling ctx during a warm-up, its own or another Search's, ends
// Search at once with ctx's error.
func (r *Retriever) Search(ctx context.Context, queries []retrievers.Query, k int) (eval.Run, error) {
	if k <= 0 {
		return nil, fmt.Errorf("engine: k must be > 0, got %d", k)
	}
	if k > maxWindow {
		return nil, fmt.Errorf("engine: k must be ≤ %d (the engines' max_result_window), got %d", maxWindow, k)
	}
	vecs, err := r.embedQueries(ctx, queries)
	if err != nil {
		return nil, err
	}
	if r.warmLock != nil && len(queries) > 0 {
		var vec []float32
		if vecs != nil {
			vec = vecs[0]
		}
		if err := r.warmUp(ctx, queries[0].Text, vec); err != nil {
			return nil, fmt.Errorf("engine: search on index %s interrupted: %w", r.index, err)
		}
	}
	results, failed, lat, err := r.searchAll(ctx, queries, vecs, k)
	if err != nil {
		return nil, err
	}
	run := make(eval.Run, len(queries))
	var misses []QueryFailure
	for i, q := range queries {
		if _, dup := run[q.ID]; dup {
			return nil, fmt.Errorf("engine: query id %q given twice", q.ID)
		}
		run[q.ID] = results[i]
		if failed[i] != nil {
			run[q.ID] = []eval.Result{}
			misses = append(misses, QueryFailure{ID: q.ID, Err: failed[i].Error()})
		}
	}
	r.mu.Lock()
	r.latencies = append(r.latencies, lat...)
	r.failed = append(r.failed, misses...)
	r.mu.Unlock()
	return run, nil
}

// embedQueries embeds the query texts when r has an embedder (nil
// otherwise): one vector per query.
func (r *Retriever) embedQueries(ctx context.Context, queries []retrievers.Query) ([][]float32, error) {
	if r.embed == nil || len(queries) == 0 {
		return nil, nil
	}
	texts := make([]string, len(queries))
	for i, q := range queries {
		texts[i] = q.Text
	}
	vecs, err := r.embed(ctx, texts, true)
	if err != nil {
		return nil, fmt.Errorf("engine: embedding queries: %w", err)
	}
	if len(vecs) != len(queries) {
		return nil, fmt.Errorf("engine: the embedder returned %d vectors for %d queries", len(vecs), len(queries))
	}
	return vecs, nil
}

// searchAll searches the queries Conn.Concurrency at a time: per query its
// results, its error when SetMissOnError turned it into a miss (nil
// otherwise) and its latency. The first query to fail otherwise (an
// authentication failure always: AuthFailure) cancels the rest and is the
// error; so is ctx's end.
func (r *Retriever) searchAll(ctx context.Context, queries []retrievers.Query, vecs [][]float32, k int) ([][]eval.Result, []error, []time.Duration, error) {
	results := make([][]eval.Result, len(queries))
	lat := make([]time.Duration, len(queries))
	failed := make([]error, len(queries))
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		errMu    sync.Mutex // guards firstErr
		firstErr error      // the first query to fail; the rest are cancelled
	)
	sem := make(chan struct{}, r.cl.concurrency)
	var wg sync.WaitGroup
	for i, q := range queries {
		sem <- struct{}{}
		if ctx.Err() != nil {
			<-sem
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			var vec []float32
			if vecs != nil {
				vec = vecs[i]
			}
			t := time.Now()
			res, err := r.one(ctx, q.Text, vec, k)
			lat[i] = time.Since(t)
			if err == nil {
				results[i] = res
				return
			}
			err = fmt.Errorf("engine: query %q on index %s: %w", q.ID, r.index, err)
			if r.missOnError && parent.Err() == nil {
				if !AuthFailure(err) {
					failed[i] = err
					return
				}
				err = fmt.Errorf("%w; not counted as a miss: every query would fail the same way", err)
			}
			errMu.Lock()
			if firstErr == nil {
				firstErr = err
			}
			errMu.Unlock()
			cancel()
		}()
	}
	wg.Wait()
	if err := parent.Err(); err != nil {
		return nil, nil, nil, fmt.Errorf("engine: search on index %s interrupted: %w", r.index, err)
	}
	return results, failed, lat, firstErr
}

// enableWarmUp makes r's Searches warm each node first (warmUp).
func (r *Retriever) enableWarmUp() {
	r.warmLock = make(chan struct{}, 1)
	r.warmed = make([]bool, len(r.cl.urls))
}

// warmUp sends one search (the first query's, size 1) to each node in
// turn, alone, before Search sends its queries concurrently. OpenSearch's
// k-NN plugin (3.5 included) fills the table of knn method_parameters
// (ef_search) lazily and without a lock, per JVM: concurrent first
// searches on a freshly started node can find it empty and are refused
// with HTTP 400 "unknown method parameter found [ef_search]" (CI saw this
// once on a fresh node). One search alone per node fills it. A node that
// answered 2xx or refused the query (4xx other than 429) is warm; one that
// answered busy (429, 502, 503, 504, the statuses the client retries: it
// ran no search) is asked again with the Conn's retries and backoff; one
// that did not answer (down, timed out), answered another 5xx or stayed
// busy is tried again by the next Search. Other errors are
// ignored here: the real searches that follow report them. Errors: ctx's,
// when it ends while waiting for another Search's warm-up or during this
// one.
func (r *Retriever) warmUp(ctx context.Context, text string, vec []float32) error {
	select {
	case r.warmLock <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-r.warmLock }()
	var body []byte
	for ui := range r.cl.urls {
		if r.warmed[ui] {
			continue
		}
		if r.cl.downUntil[ui].Load() > time.Now().UnixNano() {
			continue // known down: the searches will skip it too
		}
		if body == nil {
			var err error
			if body, err = r.render(text, vec, 1); err != nil {
				return nil // the searches report it
			}
		}
		// Busy (429, 502, 503, 504) ran no search: ask the same node again.
		// Down or timed out (now known down), another 5xx, or still busy
		// after the retries: the next Search tries it again.
		_, err := r.cl.withRetries(ctx, func() ([]byte, error) {
			return r.cl.onceAt(ctx, ui, http.MethodPost, "/"+r.index+"/_search", body)
		}, func(err error) bool { var busy *retryAfter; return errors.As(err, &busy) })
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var he *HTTPError
		if err == nil || errors.As(err, &he) && he.Status < 500 && he.Status != http.StatusTooManyRequests {
			r.warmed[ui] = true // the node ran the search (or refused the query itself)
		}
	}
	return nil
}

// one searches one query, widening the size while a tie crosses the cut.
// An answer from only some shards, or a 5xx saying a node left mid-search
// (nodeLeft), is retried with the Conn's backoff and retries, as the
// engine then answers from the replicas; still failing after that, it is
// an error.
func (r *Retriever) one(ctx context.Context, text string, vec []float32, k int) ([]eval.Result, error) {
	for attempt := 0; ; attempt++ {
		res, err := r.oneAttempt(ctx, text, vec, k)
		var pe *partialError
		if !errors.As(err, &pe) {
			return res, err
		}
		if attempt >= r.cl.retries {
			if attempt > 0 {
				return nil, fmt.Errorf("%w (after %d retries)", err, attempt)
			}
			return nil, err
		}
		if r.cl.backoffWait(ctx, attempt+1, nil) != nil {
			return nil, err
		}
	}
}

// nodeLeft reports whether err is a search the engine failed with a 5xx
// because a node it was reading shards from left (node_not_connected,
// node_disconnected or node_closed, in the reason or its caused_by): like a
// partial answer, it is asked again, and the engine answers from the
// replicas. OpenSearch answers so (HTTP 500, phase fetch) when a node
// stops mid-search; Elasticsearch returns a partial answer instead.
func nodeLeft(err error) bool {
	var he *HTTPError
	if !errors.As(err, &he) || he.Status < 500 {
		return false
	}
	for _, t := range []string{"node_not_connected_exception", "node_disconnected_exception", "node_closed_exception"} {
		if strings.Contains(he.Reason, t) {
			return true
		}
	}
	return false
}

// partialError is a search answered by only some shards, or timed out.
type partialError struct{ msg string }

func (e *partialError) Error() string { return e.msg }

func (r *Retriever) oneAttempt(ctx context.Context, text string, vec []float32, k int) ([]eval.Result, error) {
	size := min(k+1, maxWindow)
	for {
		body, err := r.render(text, vec, size)
		if err != nil {
			return nil, err
		}
		path := "/" + r.index + "/_search"
		if r.dfs {
			path += "?search_type=dfs_query_then_fetch"
		}
		var resp struct {
			TimedOut bool `json:"timed_out"`
			Shards   struct {
				Total, Successful, Failed int
				Failures                  []struct {
					Reason struct {
						Type, Reason string
					} `json:"reason"`
				} `json:"failures"`
			} `json:"_shards"`
			Hits struct {
				Hits []struct {
					ID     string                     `json:"_id"`
					Score  *float64                   `json:"_score"`
					Source map[string]json.RawMessage `json:"_source"`
					Fields map[string]json.RawMessage `json:"fields"`
				} `json:"hits"`
			} `json:"hits"`
		}
		if _, err := r.cl.do(ctx, http.MethodPost, path, body, &resp); err != nil {
			if nodeLeft(err) {
				return nil, &partialError{err.Error()}
			}
			return nil, err
		}
		// A partial answer (a shard failed or timed out) would silently
		// drop documents: it is an error of the run.
		if resp.TimedOut {
			return nil, &partialError{"the engine timed out (partial results)"}
		}
		if resp.Shards.Failed > 0 || resp.Shards.Successful < resp.Shards.Total {
			msg := fmt.Sprintf("%d of %d shards failed", resp.Shards.Total-resp.Shards.Successful, resp.Shards.Total)
			if len(resp.Shards.Failures) > 0 {
				msg += ": " + r.cl.engineText(resp.Shards.Failures[0].Reason.Type+": "+resp.Shards.Failures[0].Reason.Reason, 0)
			}
			return nil, &partialError{msg}
		}
		res := make([]eval.Result, 0, len(resp.Hits.Hits))
		for _, h := range resp.Hits.Hits {
			if h.Score == nil {
				// The engine's text, quoted, then redacted: an _id can echo
				// anything.
				return nil, fmt.Errorf("hit %s has no score (a sorted query template?)", r.cl.engineText(fmt.Sprintf("%q", h.ID), 0))
			}
			id := h.ID
			if r.idField != "_id" {
				var err error
				if id, err = sourceID(h.Source, r.idField); err != nil {
					return nil, fmt.Errorf("hit %s", r.cl.engineText(fmt.Sprintf("%q: %s", h.ID, err), 0))
				}
			}
			res = append(res, eval.Result{DocID: id, Score: *h.Score})
		}
		eval.Sort(res, eval.TieDocIDDesc)
		if len(res) <= k {
			return res, nil
		}
		// Fewer hits than asked for: every match is in res.
		if res[k-1].Score != res[k].Score || len(res) < size || size >= maxWindow {
			return res[:k], nil
		}
		size = min(2*size, maxWindow)
	}
}

// sourceID reads the id field of a hit's _source: a string or a number.
func sourceID(src map[string]json.RawMessage, field string) (string, error) {
	raw, ok := src[field]
	if !ok {
		return "", fmt.Errorf("no field %q in _source (the id field)", field)
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "" {
			return "", fmt.Errorf("field %q is empty", field)
		}
		return s, nil
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), nil
	}
	return "", fmt.Errorf("field %q is %s, want a string or a number", field, raw)
}

// Stats implements retrievers.Retriever: Build and IndexBytes from the
// index's load (0 for an existing index: nothing was built; its size comes
// from _stats), latencies of every query searched so far.
func (r *Retriever) Stats() retrievers.Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return retrievers.Stats{Build: r.build, IndexBytes: r.bytes, Queries: len(r.latencies),
		LatencyP50: retrievers.Percentile(r.latencies, 0.50), LatencyP95: retrievers.Percentile(r.latencies, 0.95)}
}
