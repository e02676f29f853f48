package kinds

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ragbench/ragbench/encoder"
	"github.com/ragbench/ragbench/retrievers"
	"github.com/ragbench/ragbench/retrievers/dense"
	"github.com/ragbench/ragbench/retrievers/engine"
)

// Engine is a type elasticsearch or opensearch retriever: package engine,
// in mode managed (ragbench creates and loads one index per chunking,
// shared by the cells that query it) or existing (the user's index,
// queried as it is). Credentials are never part of a config: UserEnv,
// PasswordEnv and APIKeyEnv name environment variables, read only when
// the engine is dialled, and neither the config echo (results.json,
// manifest.json) nor the run-cache key holds their values. Values are
// validated by package engine's own Validate methods (Conn, Managed,
// QueryOptions, Existing), whose field names are the config's.
type Engine struct {
	// URLs are the cluster's node URLs (≥ 1, no credentials in them).
	URLs []string `yaml:"urls" json:"urls,omitempty"`
	// UserEnv and PasswordEnv name the variables of basic auth; APIKeyEnv
	// the variable of an API key.
	UserEnv     string `yaml:"user_env" json:"user_env,omitempty"`
	PasswordEnv string `yaml:"password_env" json:"password_env,omitempty"`
	APIKeyEnv   string `yaml:"api_key_env" json:"api_key_env,omitempty"`
	// CAFile is a PEM CA bundle for https URLs (relative to the config's folder).
	CAFile string `yaml:"ca_file" json:"ca_file,omitempty"`
	// Client is the timeout, backoff, concurrency and retries.
	Client `yaml:",inline"`
	// NoDFS turns off global term statistics (dfs_query_then_fetch).
	NoDFS bool `yaml:"no_dfs" json:"no_dfs,omitempty"`
	// OnQueryError is what a query that still fails after the retries
	// does: "fail" (the default; Check stores it as "", so configs
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

	// K1 and B are the managed index's BM25 similarity (both or neither:
	// the engine's defaults 1.2, 0.75); Analyzer its analyzer.
	K1       *float64 `yaml:"k1" json:"k1,omitempty"`
	B        *float64 `yaml:"b" json:"b,omitempty"`
	Analyzer string   `yaml:"analyzer" json:"analyzer,omitempty"`
	// ONNXModel embeds chunks and queries for knn and hybrid queries (and
	// an existing template holding the query vector).
	ONNXModel `yaml:",inline"`
	// Mode is managed (default) or existing.
	Mode string `yaml:"mode" json:"mode,omitempty"`

	dialect engine.Dialect // the type: elasticsearch or opensearch
}

// Modes and on_query_error values.
const (
	modeManaged    = "managed"
	modeExisting   = "existing"
	queryErrorFail = "fail"
	queryErrorMiss = "miss"
)

// engineConnKeys, engineManagedKeys and engineExistingKeys are the keys
// of every mode, of mode managed and of mode existing.
var (
	engineConnKeys     = []string{"urls", "user_env", "password_env", "api_key_env", "ca_file", "timeout", "backoff", "concurrency", "retries", "no_dfs", "on_query_error", "mode", "model", "fallback_models", "batch_size"}
	engineManagedKeys  = []string{"query", "analyzer", "k1", "b", "shards", "replicas", "prefix", "bulk_docs", "hnsw_m", "ef_construction", "k", "num_candidates", "bm25_boost", "knn_boost"}
	engineExistingKeys = []string{"index", "template", "id_field", "filters"}
)

// Check checks which keys apply to e's mode, the defaults, and the values
// through package engine's own Validate methods. The steps run in this
// order, so errors are listed as before the kinds had files of their own.
func (e *Engine) Check(c Checker) {
	if !e.checkKeys(c) {
		return
	}
	e.checkDefaults(c)
	engineErrs(c, e.Conn().Validate())
	if e.Mode == modeExisting {
		engineErrs(c, e.Existing().Validate())
		if e.Existing().NeedsEmbed() && e.Model == "" {
			c.Bad("model", "missing: the template holds %s, so the queries need an embedding model (the one that made the index's vectors)", engine.PlaceholderVector)
		}
		return
	}
	e.checkManagedQuery(c)
}

// checkKeys defaults the mode to managed and reports the keys that do
// not apply to e's mode (or to an engine retriever at all). It returns
// false for an unknown mode, after which no other check is meaningful.
func (e *Engine) checkKeys(c Checker) bool {
	if e.Mode == "" {
		e.Mode = modeManaged
	}
	other := func(keys []string, mode string) {
		for _, k := range keys {
			if c.Has(k) {
				c.Bad(k, "applies to mode %s only (this retriever's mode is %s)", mode, e.Mode)
			}
		}
	}
	switch e.Mode {
	case modeManaged:
		other(engineExistingKeys, modeExisting)
		c.Only(append(append([]string(nil), engineConnKeys...), engineManagedKeys...)...)
	case modeExisting:
		other(engineManagedKeys, modeManaged)
		c.Only(append(append([]string(nil), engineConnKeys...), engineExistingKeys...)...)
	default:
		c.Bad("mode", "unknown mode %q: managed (ragbench creates and loads the index) or existing (your index, queried as it is)", e.Mode)
		return false
	}
	return true
}

// checkDefaults checks the client's settings (checkClient) and rejects
// explicit zeros of the counts whose default is taken when the key is
// absent.
func (e *Engine) checkDefaults(c Checker) {
	checkClient(c, &e.OnQueryError, &e.Client)
	c.Explicit("concurrency", e.Concurrency == 0, "concurrency 0: must be ≥ 1; remove the line to use the default (%d)", engine.DefaultConcurrency)
	c.Explicit("shards", e.Shards == 0, "shards 0: must be ≥ 1; remove the line to use the default (1)")
	c.Explicit("bulk_docs", e.BulkDocs == 0, "bulk_docs 0: must be ≥ 1; remove the line to use the default (%d)", engine.DefaultBulkDocs)
	c.Explicit("k", e.KNNK == 0, "k 0: must be ≥ 1; remove the line to use the search depth")
	c.Explicit("num_candidates", e.NumCandidates == 0, "num_candidates 0: must be ≥ 1; remove the line to use the default (%d)", engine.DefaultNumCandidates)
	c.Explicit("hnsw_m", e.HNSWM == 0, "hnsw_m 0: must be ≥ 1; remove hnsw_m and ef_construction to use the engine's defaults (16, 100)")
	c.Explicit("ef_construction", e.EfConstruction == 0, "ef_construction 0: must be ≥ 1; remove hnsw_m and ef_construction to use the engine's defaults (16, 100)")
}

// Client is the settings of the HTTP client the engines and http share,
// inlined in their config entries (same keys, same place in the JSON).
type Client struct {
	// Timeout per request and Backoff before the first retry, Go durations
	// ("60s", "500ms"); defaults engine.DefaultTimeout and DefaultBackoff.
	Timeout string `yaml:"timeout" json:"timeout,omitempty"`
	Backoff string `yaml:"backoff" json:"backoff,omitempty"`
	// Concurrency is the number of queries (requests) in flight (default
	// engine.DefaultConcurrency, 4).
	Concurrency int `yaml:"concurrency" json:"concurrency,omitempty"`
	// Retries after a retryable failure (default engine.DefaultRetries;
	// an explicit 0 means none).
	Retries *int `yaml:"retries" json:"retries,omitempty"`
}

// checkClient checks the settings an HTTP client kind (the engines,
// http) shares: on_query_error (its default "fail" is stored as "", so
// configs without the line keep their hash), and the defaults of retries,
// timeout and backoff (parsing the durations given).
func checkClient(c Checker, onQueryError *string, cl *Client) {
	retries, timeout, backoff := &cl.Retries, &cl.Timeout, &cl.Backoff
	switch *onQueryError {
	case "", queryErrorFail:
		*onQueryError = ""
	case queryErrorMiss:
	default:
		c.Bad("on_query_error", "unknown policy %q: fail (a query failing after the retries fails the run; the default) or miss (it scores as a miss, counted in the report)", *onQueryError)
	}
	if *retries == nil {
		*retries = ptr(engine.DefaultRetries)
	}
	for _, d := range []struct {
		key string
		val *string
		def time.Duration
	}{{"timeout", timeout, engine.DefaultTimeout}, {"backoff", backoff, engine.DefaultBackoff}} {
		if *d.val == "" {
			if c.Has(d.key) && !c.Null(d.key) {
				c.Bad(d.key, "empty duration; remove the line to use the default (%v)", d.def)
			}
			*d.val = d.def.String()
			continue
		}
		v, err := time.ParseDuration(*d.val)
		switch {
		case err != nil:
			c.Bad(d.key, "%q is not a duration (e.g. 30s, 500ms)", *d.val)
		case d.key == "timeout" && v <= 0:
			c.Bad(d.key, "%v must be > 0", v)
		}
	}
}

// checkManagedQuery checks a managed retriever's index settings and
// query: the keys that come in pairs (k1/b, hnsw_m/ef_construction, the
// hybrid boosts), package engine's Managed and QueryOptions validation,
// the model a vector query needs, and the query keys that do not apply to
// its kind.
func (e *Engine) checkManagedQuery(c Checker) {
	if (e.K1 == nil) != (e.B == nil) {
		c.Bad("k1", "give both k1 and b (the index's BM25 similarity), or neither for the engine's defaults (1.2, 0.75)")
	}
	if c.Has("hnsw_m") != c.Has("ef_construction") {
		c.Bad("hnsw_m", "give both hnsw_m and ef_construction, or neither for the engine's defaults (16, 100)")
	}
	if e.Query == engine.KindHybrid {
		if e.BM25Boost == nil {
			c.Bad("bm25_boost", "missing: query hybrid needs bm25_boost and knn_boost (the engine adds boost·score of each part), e.g. 1 and 1")
		}
		if e.KNNBoost == nil {
			c.Bad("knn_boost", "missing: query hybrid needs bm25_boost and knn_boost (the engine adds boost·score of each part), e.g. 1 and 1")
		}
	}
	engineErrs(c, e.Managed().Validate())
	engineErrs(c, e.QueryOptions().Validate())
	switch e.Query {
	case engine.KindKNN, engine.KindHybrid:
		if e.Model == "" {
			c.Bad("model", "missing: query %s needs an embedding model folder (its vectors fill the index and embed the queries)", e.Query)
		}
	}
	if e.Query != engine.KindHybrid {
		for _, b := range []string{"bm25_boost", "knn_boost"} {
			if c.Has(b) {
				c.Bad(b, "applies to query hybrid only")
			}
		}
	}
	if e.Query == engine.KindBM25 {
		for _, k := range []string{"k", "num_candidates"} {
			if c.Has(k) {
				c.Bad(k, "applies to query knn and hybrid only")
			}
		}
	}
}

// engineErrs records engine's FieldErrors on the config's keys.
func engineErrs(c Checker, err error) {
	if err == nil {
		return
	}
	fes := engine.FieldErrors(err)
	if len(fes) == 0 {
		c.Bad("", "%s", strings.TrimPrefix(err.Error(), "engine: "))
		return
	}
	for _, fe := range fes {
		// "urls[1]" → "urls.1", the dotted form of the line table.
		c.Bad(strings.NewReplacer("[", ".", "]", "").Replace(fe.Field), "%s", fe.Msg)
	}
}

// Conn is e's engine.Conn (durations parsed by Check; bad ones are
// reported there and read as 0 here).
func (e *Engine) Conn() engine.Conn {
	c := engine.Conn{URLs: e.URLs, UserEnv: e.UserEnv, PasswordEnv: e.PasswordEnv, APIKeyEnv: e.APIKeyEnv, CAFile: e.CAFile,
		Concurrency: e.Concurrency, Retries: engine.DefaultRetries, Backoff: engine.DefaultBackoff}
	if e.Retries != nil {
		c.Retries = *e.Retries
	}
	if d, err := time.ParseDuration(e.Timeout); err == nil {
		c.Timeout = d
	}
	if d, err := time.ParseDuration(e.Backoff); err == nil {
		c.Backoff = d
	}
	return c
}

// Managed is e's engine.Managed.
func (e *Engine) Managed() engine.Managed {
	m := engine.Managed{Analyzer: e.Analyzer, Shards: e.Shards, Replicas: e.Replicas, Prefix: e.Prefix, BulkDocs: e.BulkDocs}
	if e.K1 != nil && e.B != nil {
		m.BM25 = &engine.BM25{K1: *e.K1, B: *e.B}
	}
	if e.HNSWM != 0 || e.EfConstruction != 0 {
		m.HNSW = &engine.HNSW{M: e.HNSWM, EfConstruction: e.EfConstruction}
	}
	return m
}

// QueryOptions is e's engine.QueryOptions without the embedder.
func (e *Engine) QueryOptions() engine.QueryOptions {
	q := engine.QueryOptions{Kind: e.Query, K: e.KNNK, NumCandidates: e.NumCandidates, NoDFS: e.NoDFS}
	if e.BM25Boost != nil {
		q.BM25Boost = *e.BM25Boost
	}
	if e.KNNBoost != nil {
		q.KNNBoost = *e.KNNBoost
	}
	return q
}

// Existing is e's engine.Existing without the embedder.
func (e *Engine) Existing() engine.Existing {
	x := engine.Existing{Index: e.Index, Template: e.Template, IDField: e.IDField, NoDFS: e.NoDFS}
	for _, f := range e.Filters {
		b, err := json.Marshal(f)
		if err != nil {
			b = []byte("null") // reported by Check through engine.Existing.Validate
		}
		x.Filters = append(x.Filters, b)
	}
	return x
}

// Describe is the report's one-line summary (no URL: the report says what
// was measured, not where).
func (e *Engine) Describe() string {
	var parts []string
	if e.Mode == modeExisting {
		parts = append(parts, "existing index "+e.Index, "id field "+e.IDField)
		if len(e.Filters) > 0 {
			parts = append(parts, fmt.Sprintf("%d filters", len(e.Filters)))
		}
	} else {
		q := "managed, " + e.Query
		switch e.Query {
		case engine.KindKNN:
			q += fmt.Sprintf(" (num_candidates %d)", orDefault(e.NumCandidates, engine.DefaultNumCandidates))
		case engine.KindHybrid:
			q += fmt.Sprintf(" (%g·match + %g·knn, num_candidates %d)", *e.BM25Boost, *e.KNNBoost, orDefault(e.NumCandidates, engine.DefaultNumCandidates))
		}
		parts = append(parts, q, cmp.Or(e.Analyzer, "standard")+" analyzer")
		if e.K1 != nil && e.B != nil {
			parts = append(parts, fmt.Sprintf("k1=%g b=%g", *e.K1, *e.B))
		}
		parts = append(parts, fmt.Sprintf("%d shards × %d replicas", orDefault(e.Shards, 1), e.Replicas))
	}
	if e.Model != "" {
		parts = append(parts, "model "+filepath.Base(e.Model))
	}
	if e.NoDFS {
		parts = append(parts, "per-shard statistics")
	}
	return strings.Join(parts, ", ")
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// TimingNote explains the engine cells' timings.
func (e *Engine) TimingNote() string {
	return "Engine cells (elasticsearch, opensearch): build is creating and bulk-loading the managed index (embedding excluded), counted once: the cells querying the same index after the first show only its look-up, and an index reused from an earlier run shows no docs/s. Query p50/p95 is the engine round trip; index MB is the primaries' store size from the engine's _stats."
}

// NeedsRuntime is true when e embeds with a model.
func (e *Engine) NeedsRuntime() bool { return e.Model != "" }

// Cacheable is false for an existing-index cell: the index is the user's
// and can change under the same config (documents added, an analyzer
// changed), so every run queries it again; its run's key is then a hash
// of the run it got, so hybrid and rerank cells over it are cached only
// for the same input run.
func (e *Engine) Cacheable() bool { return e.Mode != modeExisting }

// ModelRef is e's model (Model "" when its queries embed nothing).
func (e *Engine) ModelRef() *ONNXModel { return &e.ONNXModel }

// ModelKind is encoder.KindEmbedder.
func (e *Engine) ModelKind() string { return encoder.KindEmbedder }

// RelativePaths is the CA file, relative to the config's folder.
func (e *Engine) RelativePaths() []*string { return []*string{&e.CAFile} }

// Preflight reports a credential variable that is unset, empty or holds a
// control character (naming the variable, never its value; only when
// credentials) and a missing CA file.
func (e *Engine) Preflight(name string, credentials bool) []FieldError {
	var errs []FieldError
	for _, v := range []struct{ key, name string }{{"user_env", e.UserEnv}, {"password_env", e.PasswordEnv}, {"api_key_env", e.APIKeyEnv}} {
		if v.name == "" || !credentials {
			continue
		}
		if fe, ok := credentialVar(name, v.key, v.name, os.Getenv); !ok {
			errs = append(errs, fe)
		}
	}
	if e.CAFile != "" {
		if _, err := os.Stat(e.CAFile); err != nil {
			errs = append(errs, FieldError{"ca_file", fmt.Sprintf("retriever %q: CA file %s not found", name, e.CAFile)})
		}
	}
	return errs
}

// Connection is what bench run --check dials for one or more retrievers:
// the same URLs, credential variables and CA file are one connection.
type Connection struct {
	// Key identifies the connection (never a credential's value).
	Key string
	// URLs are the nodes' URLs as configured; Key the config key naming
	// them ("urls"), for errors.
	URLs   []string
	URLKey string
	// Ping asks each node for its health, with the configured
	// credentials, at most timeout per node (0: the kind's default).
	Ping func(ctx context.Context, timeout time.Duration) ([]engine.NodeHealth, error)
}

// Dialer is implemented by kinds that query a cluster over the network
// (the engines): bench run --check dials each connection once.
type Dialer interface {
	Connection() Connection
}

// Connection is e's cluster connection.
func (e *Engine) Connection() Connection {
	key := strings.Join([]string{strings.Join(e.URLs, ","), e.UserEnv, e.PasswordEnv, e.APIKeyEnv, e.CAFile}, "\x00")
	conn := e.Conn()
	return Connection{Key: key, URLs: e.URLs, URLKey: "urls", Ping: func(ctx context.Context, timeout time.Duration) ([]engine.NodeHealth, error) {
		return engine.Ping(ctx, conn, timeout)
	}}
}

// Run loads (or looks up) the chunking's managed index, or opens the
// existing one, and searches every query (stage "index", counted in
// chunks; the vectors, when e has a model, from the sweep's cached
// embedder).
func (e *Engine) Run(ctx context.Context, c *Cell) error {
	return searchCell(ctx, c, e, StageIndex, "", func() (retrievers.Retriever, error) {
		return e.retriever(ctx, c)
	})
}

// engineCell is an engine retriever built for one cell, with what the
// timing table shows besides retrievers.Stats.
type engineCell struct {
	*engine.Retriever
	loaded int // documents this cell's build loaded (0: index reused or shared)
}

// LoadedDocs is the documents this cell's build loaded (Loading).
func (e *engineCell) LoadedDocs() int { return e.loaded }

// FailedQueries are the queries scored as misses after their retries
// (Failing).
func (e *engineCell) FailedQueries() (ids []string, first string) {
	for _, f := range e.Failed() {
		if len(ids) == 0 {
			first = f.Err
		}
		ids = append(ids, f.ID)
	}
	return ids, first
}

// retriever builds the retriever of an engine cell: in managed mode, the
// chunking's index (loaded by the first cell that needs it, with vectors
// from the sweep's cached embedder when e has a model) and a retriever
// querying it; in existing mode, engine.Open.
func (e *Engine) retriever(ctx context.Context, c *Cell) (retrievers.Retriever, error) {
	var emb dense.EmbedFunc
	if e.Model != "" {
		m, err := c.Env.embedder(c.Retriever, &e.ONNXModel)
		if err != nil {
			return nil, err
		}
		emb = func(ctx context.Context, texts []string, query bool) ([][]float32, error) {
			t0 := time.Now()
			v, err := m.Embed(ctx, texts, query)
			c.AddEmbedTime(time.Since(t0))
			return v, err
		}
	}
	if e.Mode == modeExisting {
		x := e.Existing()
		x.Embed = emb
		ret, err := engine.Open(ctx, e.Conn(), e.dialect, x)
		if err != nil {
			return nil, wrapName(c.Retriever, err)
		}
		if e.OnQueryError == queryErrorMiss {
			ret.SetMissOnError()
		}
		return &engineCell{Retriever: ret}, nil
	}
	ix, loaded, err := c.Env.engines.load(ctx, c, e, emb)
	if err != nil {
		return nil, wrapName(c.Retriever, err)
	}
	q := e.QueryOptions()
	q.Embed = emb
	ret, err := ix.Retriever(q)
	if err != nil {
		return nil, wrapName(c.Retriever, err)
	}
	if e.OnQueryError == queryErrorMiss {
		ret.SetMissOnError()
	}
	return &engineCell{Retriever: ret, loaded: loaded}, nil
}
