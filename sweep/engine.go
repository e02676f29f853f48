package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/retrievers"
	"github.com/ragbench/ragbench/retrievers/dense"
	"github.com/ragbench/ragbench/retrievers/engine"
)

// This file wires package engine (Elasticsearch and OpenSearch) into the
// sweep: the config fields of type elasticsearch and opensearch
// retrievers, their conversion to engine's options (validated by engine's
// own Validate methods in configcheck_engine.go), the retriever builder
// (one managed index per chunking, connection and index settings, shared
// by the cells that query it) and the run-cache policy of existing-index
// cells.

// Engine retriever types and modes.
const (
	modeManaged  = "managed"
	modeExisting = "existing"
)

// The values of on_query_error (EngineConfig.OnQueryError).
const (
	queryErrorFail = "fail"
	queryErrorMiss = "miss"
)

// isEngine reports whether a retriever type is an engine's.
func isEngine(typ string) bool {
	return typ == string(engine.Elasticsearch) || typ == string(engine.OpenSearch)
}

// EngineConfig are the fields of a type elasticsearch or opensearch
// retriever (see docs/config.md). They are inlined into RetrieverConfig;
// the shared fields mode (managed or existing), analyzer, k1, b and model
// live there. Credentials are never part of a config: UserEnv,
// PasswordEnv and APIKeyEnv name environment variables, read only when
// the engine is dialled, and neither the config echo (results.json,
// manifest.json) nor the run-cache key holds their values.
type EngineConfig struct {
	// URLs are the cluster's node URLs (≥ 1, no credentials in them).
	URLs []string `yaml:"urls" json:"urls,omitempty"`
	// UserEnv and PasswordEnv name the variables of basic auth; APIKeyEnv
	// the variable of an API key.
	UserEnv     string `yaml:"user_env" json:"user_env,omitempty"`
	PasswordEnv string `yaml:"password_env" json:"password_env,omitempty"`
	APIKeyEnv   string `yaml:"api_key_env" json:"api_key_env,omitempty"`
	// CAFile is a PEM CA bundle for https URLs (relative to the config's folder).
	CAFile string `yaml:"ca_file" json:"ca_file,omitempty"`
	// Timeout per request and Backoff before the first retry, Go durations
	// ("60s", "500ms"); defaults engine.DefaultTimeout and DefaultBackoff.
	Timeout string `yaml:"timeout" json:"timeout,omitempty"`
	Backoff string `yaml:"backoff" json:"backoff,omitempty"`
	// Concurrency is the number of queries in flight (default 4).
	Concurrency int `yaml:"concurrency" json:"concurrency,omitempty"`
	// Retries after a retryable failure (default engine.DefaultRetries;
	// an explicit 0 means none).
	Retries *int `yaml:"retries" json:"retries,omitempty"`
	// NoDFS turns off global term statistics (dfs_query_then_fetch).
	NoDFS bool `yaml:"no_dfs" json:"no_dfs,omitempty"`
	// OnQueryError is what a query that still fails after the retries
	// does: "fail" (the default; check stores it as "", so configs
	// without the line keep their hash) fails the run; "miss" scores it
	// as a miss (an empty result list), counted in the cell's timing
	// (results.json query_errors, failed_queries) and listed in the
	// report, and the cell's run is not cached.
	OnQueryError string `yaml:"on_query_error" json:"on_query_error,omitempty"`

	// Managed mode: the query kind and the index settings.
	Query          string   `yaml:"query" json:"query,omitempty"`
	Shards         int      `yaml:"shards" json:"shards,omitempty"`
	Replicas       int      `yaml:"replicas" json:"replicas,omitempty"`
	Prefix         string   `yaml:"prefix" json:"prefix,omitempty"`
	BulkDocs       int      `yaml:"bulk_docs" json:"bulk_docs,omitempty"`
	HNSWM          int      `yaml:"hnsw_m" json:"hnsw_m,omitempty"`
	EfConstruction int      `yaml:"ef_construction" json:"ef_construction,omitempty"`
	KNNK           int      `yaml:"k" json:"k,omitempty"`
	NumCandidates  int      `yaml:"num_candidates" json:"num_candidates,omitempty"`
	BM25Boost      *float64 `yaml:"bm25_boost" json:"bm25_boost,omitempty"`
	KNNBoost       *float64 `yaml:"knn_boost" json:"knn_boost,omitempty"`

	// Existing mode: the user's index, queried as it is.
	Index    string           `yaml:"index" json:"index,omitempty"`
	Template string           `yaml:"template" json:"template,omitempty"`
	IDField  string           `yaml:"id_field" json:"id_field,omitempty"`
	Filters  []map[string]any `yaml:"filters" json:"filters,omitempty"`
}

// engineFields are the YAML keys of EngineConfig, which only engine
// retrievers take (configCheck.only reports them on other types).
var engineFields = []string{"urls", "user_env", "password_env", "api_key_env", "ca_file", "timeout", "backoff", "concurrency", "retries", "no_dfs", "on_query_error",
	"query", "shards", "replicas", "prefix", "bulk_docs", "hnsw_m", "ef_construction", "k", "num_candidates", "bm25_boost", "knn_boost",
	"index", "template", "id_field", "filters"}

// engineConn is r's engine.Conn (durations parsed by check; bad ones are
// reported there and read as 0 here).
func (r RetrieverConfig) engineConn() engine.Conn {
	c := engine.Conn{URLs: r.URLs, UserEnv: r.UserEnv, PasswordEnv: r.PasswordEnv, APIKeyEnv: r.APIKeyEnv, CAFile: r.CAFile,
		Concurrency: r.Concurrency, Retries: engine.DefaultRetries, Backoff: engine.DefaultBackoff}
	if r.Retries != nil {
		c.Retries = *r.Retries
	}
	if d, err := time.ParseDuration(r.Timeout); err == nil {
		c.Timeout = d
	}
	if d, err := time.ParseDuration(r.Backoff); err == nil {
		c.Backoff = d
	}
	return c
}

// engineManaged is r's engine.Managed.
func (r RetrieverConfig) engineManaged() engine.Managed {
	m := engine.Managed{Analyzer: r.Analyzer, Shards: r.Shards, Replicas: r.Replicas, Prefix: r.Prefix, BulkDocs: r.BulkDocs}
	if r.K1 != nil && r.B != nil {
		m.BM25 = &engine.BM25{K1: *r.K1, B: *r.B}
	}
	if r.HNSWM != 0 || r.EfConstruction != 0 {
		m.HNSW = &engine.HNSW{M: r.HNSWM, EfConstruction: r.EfConstruction}
	}
	return m
}

// engineQuery is r's engine.QueryOptions without the embedder.
func (r RetrieverConfig) engineQuery() engine.QueryOptions {
	q := engine.QueryOptions{Kind: r.Query, K: r.KNNK, NumCandidates: r.NumCandidates, NoDFS: r.NoDFS}
	if r.BM25Boost != nil {
		q.BM25Boost = *r.BM25Boost
	}
	if r.KNNBoost != nil {
		q.KNNBoost = *r.KNNBoost
	}
	return q
}

// engineExisting is r's engine.Existing without the embedder.
func (r RetrieverConfig) engineExisting() engine.Existing {
	e := engine.Existing{Index: r.Index, Template: r.Template, IDField: r.IDField, NoDFS: r.NoDFS}
	for _, f := range r.Filters {
		b, err := json.Marshal(f)
		if err != nil {
			b = []byte("null") // reported by check through engine.Existing.Validate
		}
		e.Filters = append(e.Filters, b)
	}
	return e
}

// engineIndexes holds the managed indexes loaded in one sweep, keyed by
// chunk content, connection and index settings, so the cells querying one
// index (BM25, kNN, hybrid over the same settings) load it once.
type engineIndexes struct {
	mu sync.Mutex
	m  map[string]*engine.Index
}

// engineCell is an engine retriever built for one cell, with what the
// timing table shows besides retrievers.Stats.
type engineCell struct {
	*engine.Retriever
	loaded int // documents this cell's build loaded (0: index reused or shared)
}

// engineIndexKey is the key of the managed index r queries over chunks.
func engineIndexKey(chunks []corpus.Chunk, r RetrieverConfig, modelHash string) string {
	c := r.engineConn()
	return sha256Hex(mustJSON(map[string]any{"type": r.Type, "chunks": chunksKey(chunks), "urls": c.URLs, "managed": r.engineManaged(), "model": modelHash}))
}

// newEngineRetriever builds the retriever of an engine cell: in managed
// mode, the chunking's index (loaded by the first cell that needs it,
// with vectors from the sweep's cached embedder when r has a model) and a
// retriever querying it; in existing mode, engine.Open.
func newEngineRetriever(ctx context.Context, chunks []corpus.Chunk, r RetrieverConfig, env buildEnv) (retrievers.Retriever, error) {
	dialect := engine.Dialect(r.Type)
	var emb dense.EmbedFunc
	if r.Model != "" {
		e, err := env.models.embedder(r)
		if err != nil {
			return nil, err
		}
		emb = func(ctx context.Context, texts []string, query bool) ([][]float32, error) {
			t0 := time.Now()
			v, err := e.Embed(ctx, texts, query)
			if env.embedded != nil {
				env.embedded(time.Since(t0))
			}
			return v, err
		}
	}
	if r.Mode == modeExisting {
		e := r.engineExisting()
		e.Embed = emb
		ret, err := engine.Open(ctx, r.engineConn(), dialect, e)
		if err != nil {
			return nil, fmt.Errorf("retriever %q: %w", r.Name, err)
		}
		if r.OnQueryError == queryErrorMiss {
			ret.SetMissOnError()
		}
		return &engineCell{Retriever: ret}, nil
	}
	ix, loaded, err := env.engines.load(ctx, chunks, r, env, emb)
	if err != nil {
		return nil, fmt.Errorf("retriever %q: %w", r.Name, err)
	}
	q := r.engineQuery()
	q.Embed = emb
	ret, err := ix.Retriever(q)
	if err != nil {
		return nil, fmt.Errorf("retriever %q: %w", r.Name, err)
	}
	if r.OnQueryError == queryErrorMiss {
		ret.SetMissOnError()
	}
	return &engineCell{Retriever: ret, loaded: loaded}, nil
}

// load returns the managed index of r over chunks, loading it unless an
// earlier cell of this sweep did, and how many documents this call loaded.
func (x *engineIndexes) load(ctx context.Context, chunks []corpus.Chunk, r RetrieverConfig, env buildEnv, emb dense.EmbedFunc) (*engine.Index, int, error) {
	mh := ""
	if r.Model != "" {
		h, err := folderHash(r.Model)
		if err != nil {
			return nil, 0, err
		}
		mh = h
	}
	key := engineIndexKey(chunks, r, mh)
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.m == nil {
		x.m = map[string]*engine.Index{}
	}
	if ix := x.m[key]; ix != nil {
		return ix, 0, nil
	}
	var vecs [][]float32
	if emb != nil {
		texts := make([]string, len(chunks))
		for i, c := range chunks {
			texts[i] = c.IndexText()
		}
		var err error
		if env.progress != nil {
			env.progress("embed", 0, len(chunks))
		}
		if vecs, err = emb(ctx, texts, false); err != nil {
			return nil, 0, err
		}
		if env.progress != nil {
			env.progress("embed", len(chunks), len(chunks))
		}
	}
	ix, err := engine.Load(ctx, r.engineConn(), engine.Dialect(r.Type), chunks, vecs, r.engineManaged())
	if err != nil {
		return nil, 0, err
	}
	x.m[key] = ix
	loaded := 0
	if !ix.Reused() {
		loaded = ix.Docs()
	}
	return ix, loaded, nil
}

// engineCacheable reports whether rc's run may be read from and written to
// the run cache. An existing-index cell never is: the index is the user's
// and can change under the same config (documents added, an analyzer
// changed), so every run queries it again; its run's key is then a hash of
// the run it got, so hybrid and rerank cells over it are cached only for
// the same input run.
func engineCacheable(rc RetrieverConfig) bool {
	return !(isEngine(rc.Type) && rc.Mode == modeExisting)
}

// enginePreflight reports, before any work, an engine retriever whose
// credential variables are unset, empty or hold a control character
// (naming the variables, never their values; only when credentials) or
// whose CA file is missing.
func enginePreflight(c *Config, credentials bool) []error {
	var errs []error
	for i, r := range c.Retrievers {
		if !isEngine(r.Type) {
			continue
		}
		for _, v := range []struct{ field, name string }{{"user_env", r.UserEnv}, {"password_env", r.PasswordEnv}, {"api_key_env", r.APIKeyEnv}} {
			if v.name == "" || !credentials {
				continue
			}
			if val := os.Getenv(v.name); val == "" {
				errs = append(errs, c.errf(fmt.Sprintf("retrievers.%d.%s", i, v.field), "retriever %q: environment variable %s is unset or empty", r.Name, v.name))
			} else if strings.ContainsFunc(val, unicode.IsControl) {
				errs = append(errs, c.errf(fmt.Sprintf("retrievers.%d.%s", i, v.field), "retriever %q: environment variable %s holds a control character (a trailing \\r or \\n read from a file?); its value is not shown", r.Name, v.name))
			}
		}
		if r.CAFile != "" {
			if _, err := os.Stat(r.CAFile); err != nil {
				errs = append(errs, c.errf(fmt.Sprintf("retrievers.%d.ca_file", i), "retriever %q: CA file %s not found", r.Name, r.CAFile))
			}
		}
	}
	return errs
}

// docsPerSec is an engine cell's index throughput (documents loaded per
// second of build), "" for cells that loaded nothing.
func docsPerSec(t Timing) string {
	if t.IndexDocs == 0 || t.Build <= 0 {
		return ""
	}
	return fmt.Sprintf("%.0f", float64(t.IndexDocs)/t.Build)
}

// engineTimingNote explains the engine cells' timings, when there are any,
// and lists the queries that on_query_error: miss scored as misses.
func (r *reportWriter) engineTimingNote() {
	for _, c := range r.res.Config.Retrievers {
		if isEngine(c.Type) {
			r.w("\nEngine cells (elasticsearch, opensearch): build is creating and bulk-loading the managed index (embedding excluded), counted once: the cells querying the same index after the first show only its look-up, and an index reused from an earlier run shows no docs/s. Query p50/p95 is the engine round trip; index MB is the primaries' store size from the engine's _stats.\n")
			break
		}
	}
	for _, t := range r.res.Timings {
		if t.QueryErrors == 0 {
			continue
		}
		ids := t.FailedQueries
		more := ""
		if len(ids) > 20 {
			ids, more = ids[:20], fmt.Sprintf(" and %d more (results.json failed_queries)", len(t.FailedQueries)-20)
		}
		noun := "queries"
		if t.QueryErrors == 1 {
			noun = "query"
		}
		r.w("\n**%s: %d %s failed after the retries and scored as misses** (on_query_error: miss): %s%s. Its measures count them as retrieving nothing.\n",
			mdEscape(t.Cell), t.QueryErrors, noun, mdEscape(strings.Join(ids, ", ")), more)
	}
}

// describeEngine is the report's one-line summary of an engine retriever
// (no URL: the report says what was measured, not where).
func describeEngine(r RetrieverConfig) string {
	var parts []string
	if r.Mode == modeExisting {
		parts = append(parts, "existing index "+r.Index, "id field "+r.IDField)
		if len(r.Filters) > 0 {
			parts = append(parts, fmt.Sprintf("%d filters", len(r.Filters)))
		}
	} else {
		q := "managed, " + r.Query
		switch r.Query {
		case engine.KindKNN:
			q += fmt.Sprintf(" (num_candidates %d)", cmpOrInt(r.NumCandidates, engine.DefaultNumCandidates))
		case engine.KindHybrid:
			q += fmt.Sprintf(" (%g·match + %g·knn, num_candidates %d)", *r.BM25Boost, *r.KNNBoost, cmpOrInt(r.NumCandidates, engine.DefaultNumCandidates))
		}
		parts = append(parts, q, firstNonEmpty(r.Analyzer, "standard")+" analyzer")
		if r.K1 != nil && r.B != nil {
			parts = append(parts, fmt.Sprintf("k1=%g b=%g", *r.K1, *r.B))
		}
		parts = append(parts, fmt.Sprintf("%d shards × %d replicas", cmpOrInt(r.Shards, 1), r.Replicas))
	}
	if r.Model != "" {
		parts = append(parts, "model "+filepath.Base(r.Model))
	}
	if r.NoDFS {
		parts = append(parts, "per-shard statistics")
	}
	return strings.Join(parts, ", ")
}

func cmpOrInt(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}
