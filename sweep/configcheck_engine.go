package sweep

import (
	"fmt"
	"strings"
	"time"

	"github.com/ragbench/ragbench/retrievers/engine"
)

// engine checks a type elasticsearch or opensearch retriever: which
// fields apply to its mode, the defaults, and the values through
// package engine's own Validate methods (Conn, Managed, QueryOptions,
// Existing), whose field names are the config's. The steps run in this
// order, so errors are listed as before the split.
func (ck *configCheck) engine(f string, r *RetrieverConfig) {
	if !ck.engineFields(f, r) {
		return
	}
	ck.engineDefaults(f, r)
	ck.engineErrs(f, r.engineConn().Validate())
	if r.Mode == modeExisting {
		ck.engineErrs(f, r.engineExisting().Validate())
		if r.engineExisting().NeedsEmbed() && r.Model == "" {
			ck.bad(f+".model", "missing: the template holds %s, so the queries need an embedding model (the one that made the index's vectors)", engine.PlaceholderVector)
		}
		return
	}
	ck.engineManagedQuery(f, r)
}

// engineFields defaults the mode to managed and reports the fields that
// do not apply to r's mode (or to an engine retriever at all). It returns
// false for an unknown mode, after which no other check is meaningful.
func (ck *configCheck) engineFields(f string, r *RetrieverConfig) bool {
	conn := []string{"urls", "user_env", "password_env", "api_key_env", "ca_file", "timeout", "backoff", "concurrency", "retries", "no_dfs", "on_query_error", "mode", "model", "fallback_models", "batch_size"}
	if r.Mode == "" {
		r.Mode = modeManaged
	}
	managed := []string{"query", "analyzer", "k1", "b", "shards", "replicas", "prefix", "bulk_docs", "hnsw_m", "ef_construction", "k", "num_candidates", "bm25_boost", "knn_boost"}
	existing := []string{"index", "template", "id_field", "filters"}
	other := func(fields []string, mode string) {
		for _, k := range fields {
			if ck.has(f + "." + k) {
				ck.bad(f+"."+k, "applies to mode %s only (this retriever's mode is %s)", mode, r.Mode)
			}
		}
	}
	switch r.Mode {
	case modeManaged:
		other(existing, modeExisting)
		ck.only(f, r, append(conn, managed...)...)
	case modeExisting:
		other(managed, modeManaged)
		ck.only(f, r, append(conn, existing...)...)
	default:
		ck.bad(f+".mode", "unknown mode %q: managed (ragbench creates and loads the index) or existing (your index, queried as it is)", r.Mode)
		return false
	}
	return true
}

// engineDefaults rejects explicit zeros of the counts whose default is
// taken when the line is absent, fills in the defaults of retries,
// timeout and backoff (parsing the durations given), and checks
// on_query_error (its default "fail" is stored as "").
func (ck *configCheck) engineDefaults(f string, r *RetrieverConfig) {
	switch r.OnQueryError {
	case "", queryErrorFail:
		r.OnQueryError = ""
	case queryErrorMiss:
	default:
		ck.bad(f+".on_query_error", "unknown policy %q: fail (a query failing after the retries fails the run; the default) or miss (it scores as a miss, counted in the report)", r.OnQueryError)
	}
	ck.explicit(f+".concurrency", r.Concurrency == 0, "concurrency 0: must be ≥ 1; remove the line to use the default (%d)", engine.DefaultConcurrency)
	ck.explicit(f+".shards", r.Shards == 0, "shards 0: must be ≥ 1; remove the line to use the default (1)")
	ck.explicit(f+".bulk_docs", r.BulkDocs == 0, "bulk_docs 0: must be ≥ 1; remove the line to use the default (%d)", engine.DefaultBulkDocs)
	ck.explicit(f+".k", r.KNNK == 0, "k 0: must be ≥ 1; remove the line to use the search depth")
	ck.explicit(f+".num_candidates", r.NumCandidates == 0, "num_candidates 0: must be ≥ 1; remove the line to use the default (%d)", engine.DefaultNumCandidates)
	ck.explicit(f+".hnsw_m", r.HNSWM == 0, "hnsw_m 0: must be ≥ 1; remove hnsw_m and ef_construction to use the engine's defaults (16, 100)")
	ck.explicit(f+".ef_construction", r.EfConstruction == 0, "ef_construction 0: must be ≥ 1; remove hnsw_m and ef_construction to use the engine's defaults (16, 100)")
	if r.Retries == nil {
		r.Retries = ptr(engine.DefaultRetries)
	}
	for _, d := range []struct {
		field string
		val   *string
		def   time.Duration
	}{{"timeout", &r.Timeout, engine.DefaultTimeout}, {"backoff", &r.Backoff, engine.DefaultBackoff}} {
		if *d.val == "" {
			if ck.has(f+"."+d.field) && !isNull(ck.root, f+"."+d.field) {
				ck.bad(f+"."+d.field, "empty duration; remove the line to use the default (%v)", d.def)
			}
			*d.val = d.def.String()
			continue
		}
		v, err := time.ParseDuration(*d.val)
		switch {
		case err != nil:
			ck.bad(f+"."+d.field, "%q is not a duration (e.g. 30s, 500ms)", *d.val)
		case d.field == "timeout" && v <= 0:
			ck.bad(f+"."+d.field, "%v must be > 0", v)
		}
	}
}

// engineManagedQuery checks a managed retriever's index settings and
// query: the fields that come in pairs (k1/b, hnsw_m/ef_construction,
// the hybrid boosts), package engine's Managed and QueryOptions
// validation, the model a vector query needs, and the query fields that
// do not apply to its kind.
func (ck *configCheck) engineManagedQuery(f string, r *RetrieverConfig) {
	if (r.K1 == nil) != (r.B == nil) {
		ck.bad(f+".k1", "give both k1 and b (the index's BM25 similarity), or neither for the engine's defaults (1.2, 0.75)")
	}
	if ck.has(f+".hnsw_m") != ck.has(f+".ef_construction") {
		ck.bad(f+".hnsw_m", "give both hnsw_m and ef_construction, or neither for the engine's defaults (16, 100)")
	}
	if r.Query == engine.KindHybrid {
		if r.BM25Boost == nil {
			ck.bad(f+".bm25_boost", "missing: query hybrid needs bm25_boost and knn_boost (the engine adds boost·score of each part), e.g. 1 and 1")
		}
		if r.KNNBoost == nil {
			ck.bad(f+".knn_boost", "missing: query hybrid needs bm25_boost and knn_boost (the engine adds boost·score of each part), e.g. 1 and 1")
		}
	}
	ck.engineErrs(f, r.engineManaged().Validate())
	ck.engineErrs(f, r.engineQuery().Validate())
	switch r.Query {
	case engine.KindKNN, engine.KindHybrid:
		if r.Model == "" {
			ck.bad(f+".model", "missing: query %s needs an embedding model folder (its vectors fill the index and embed the queries)", r.Query)
		}
	}
	if r.Query != engine.KindHybrid {
		for _, b := range []string{"bm25_boost", "knn_boost"} {
			if ck.has(f + "." + b) {
				ck.bad(f+"."+b, "applies to query hybrid only")
			}
		}
	}
	if r.Query == engine.KindBM25 {
		for _, k := range []string{"k", "num_candidates"} {
			if ck.has(f + "." + k) {
				ck.bad(f+"."+k, "applies to query knn and hybrid only")
			}
		}
	}
}

// engineErrs records engine's FieldErrors on the config's fields under f.
func (ck *configCheck) engineErrs(f string, err error) {
	if err == nil {
		return
	}
	fes := engine.FieldErrors(err)
	if len(fes) == 0 {
		ck.bad(f, "%s", strings.TrimPrefix(err.Error(), "engine: "))
		return
	}
	for _, fe := range fes {
		// "urls[1]" → "urls.1", the dotted form of the line table.
		field := strings.NewReplacer("[", ".", "]", "").Replace(fe.Field)
		ck.bad(fmt.Sprintf("%s.%s", f, field), "%s", fe.Msg)
	}
}
