// Package engine evaluates the search cluster a team runs — Elasticsearch
// 8.x or OpenSearch 2.x/3.x — behind retrievers.Retriever, so an engine cell
// sits in the same sweep, report and paired tests as ragbench's built-in
// BM25 and dense retrievers.
//
// # Two modes
//
// Managed (Load, then Index.Retriever): ragbench creates one index per
// chunking, named Prefix + "-" + the first 16 hex digits of a sha256 over
// the dialect, the settings and mapping, every chunk id and text and every
// vector, so a rerun reuses the index (Index.Reused). The mapping is strict:
//
//	id      keyword       the chunk id (also the document _id)
//	text    text          corpus.Chunk.IndexText(), with Managed.Analyzer and,
//	                      when Managed.BM25 is set, a BM25 similarity with its k1 and b
//	vector  dense_vector (Elasticsearch: cosine, index_options type hnsw, never quantised)
//	        knn_vector   (OpenSearch: cosinesimil, method hnsw, "engine": "lucene")
//
// The vectors are the caller's ([][]float32 from ragbench's own encoder), so
// an engine kNN cell differs from the built-in exact dense cell only by HNSW's
// approximation. QueryOptions.Kind picks the query: KindBM25 (match on text),
// KindKNN (Elasticsearch's top-level knn section with k and num_candidates;
// OpenSearch's knn query with k and method_parameters.ef_search) or
// KindHybrid as each engine does it (Elasticsearch: query + knn, each with a
// boost, scores added; OpenSearch: bool should of match and knn with boosts).
// Fusion by ragbench (RRF, CombSUM) over engine inputs is package hybrid's
// job, with two engine retrievers as its inputs.
//
// Existing (Open): the user's production index as it is, with a query
// template holding "{{query}}" (and "{{vector}}" for kNN, "{{k}}" for the
// depth), the field holding the qrels' ids, and optional filter clauses.
// Nothing is created or written.
//
// # Scores and order
//
// Every search uses search_type=dfs_query_then_fetch unless NoDFS is set:
// per-shard term statistics change BM25 scores (measured on Elasticsearch
// 8.19: a top score of 7.8916 on one shard, 7.7663 on two, 7.8916 again with
// dfs). Results come back in trec_eval's order (score descending, then doc id
// descending: eval.Sort with eval.TieDocIDDesc); when a tie crosses the k-th
// place the search is re-run deeper so the cut keeps the ids trec_eval keeps.
// A search answered by only some shards, or timed out, is retried with the
// Conn's backoff (the engine answers from the replicas once it knows a node
// left) and then an error, never a shorter list.
//
// # Connections and secrets
//
// Conn lists the nodes' URLs (round-robin; an unreachable node is skipped for
// the next), a CA file for https, a per-request timeout, the query
// concurrency and the retry policy: HTTP 429/502/503/504 and unreachable
// nodes are retried with exponential backoff (and bulk items rejected with
// 429 are resent); a query still failing after the retries fails the whole
// Search, naming the query. Credentials come from environment variables only
// (Conn names the variables: basic auth or an API key); a URL carrying
// userinfo is refused, and no error, log line or Stats value holds a
// credential: errors name the method, path and node host, never the
// Authorization header or a URL's userinfo. Text the engine sends back (an
// error's reason, a raw body, a shard failure, a rejected bulk item, a
// health answer), which a proxy may fill with the request's headers, is
// redacted before it enters an error (client.engineText, the one path):
// the configured user, password and API key, in every form text can show
// them (as they are, JSON-escaped by any encoder, quoted with %q,
// URL-encoded: redaction.Redact) and in their base64 Authorization forms,
// and any Authorization header value become "[REDACTED]"; a message that
// quotes engine text is redacted after the quoting. HTTP 401 and 403 (AuthFailure) fail a Search even
// under SetMissOnError: every query would fail alike.
//
// # Why net/http and not the official clients
//
// ragbench needs eight endpoints (index create/delete, _mapping, _bulk,
// _refresh, _count, _search, _stats) with the same JSON bodies in both
// dialects apart from the vector field and the kNN clause. One small client
// speaks both; go-elasticsearch v8 and opensearch-go v4 would be two
// dependency trees with two retry and TLS configurations to keep equal, and
// their typed APIs cover neither the other engine's kNN syntax nor the
// template substitution of existing-index mode.
//
// # Engines for tests
//
// scripts/engines/fetch.sh installs Elasticsearch 8.19.21 and OpenSearch
// 3.5.0 (+ the k-NN plugin) from Maven Central; scripts/engines/ctl.sh starts
// a single node or a two-node cluster of either on 127.0.0.1;
// scripts/engines/test.sh runs this package's end-to-end tests (build tag
// e2e) against both.
package engine
