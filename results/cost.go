package results

// PromptTokens is the size of a cell's prompt at prompt_k (results.json
// "prompt_tokens"): the tokens (of Tokenizer) of the top K chunks of the
// cell's chunk-level run, each chunk's text counted alone, averaged over
// the answerable queries. With the primary metric it places the cell on
// the report's quality-against-cost chart.
type PromptTokens struct {
	Tokenizer string  `json:"tokenizer"`
	K         int     `json:"k"`
	Mean      float64 `json:"mean"`
	Max       int     `json:"max"`
}

// QueryCost is what a query costs a cell end to end (results.json
// timings[].query_cost; it is measured, so it changes between runs):
// latency in milliseconds and the index it needs.
//
// A first-stage cell's latency is its retriever's (retrievers.Stats,
// nearest-rank p50 and p95 over the queries). A hybrid or rerank cell's is
// the sum of its inputs' percentiles plus its own stage's mean time per
// query (fusion, or reranking): a sum of percentiles bounds the percentile
// of the sums from above. Its index is its inputs' (bytes summed; a model
// is not an index). A cell read from the run cache reports what was
// measured when its run was cached (Source "cache"; 0 when an older
// version cached it).
type QueryCost struct {
	P50ms      float64 `json:"p50_ms"`
	P95ms      float64 `json:"p95_ms"`
	IndexBytes int64   `json:"index_bytes"`
	// Source is "measured" (this run), "cache" (the run cache's record of
	// the run that made it) or "unknown".
	Source string `json:"source"`
}

// The sources of QueryCost.
const (
	CostMeasured = "measured"
	CostCached   = "cache"
	CostUnknown  = "unknown"
)

// Truncation is what a cell's model cut from its inputs (results.json
// "truncation"): an embedder (dense, or an engine's vectors) reads at most
// MaxLength tokens of each chunk and query, special tokens included, and
// silently drops the rest; a cross-encoder reads the query (at most
// MaxQueryTokens) and then as much of the passage as MaxLength leaves. The
// counts come from the model's own tokenizer, without running the model.
type Truncation struct {
	// Retriever is the retriever whose model it is (a rerank names
	// itself), Model its folder's base name, Kind "embedder" or
	// "cross-encoder".
	Retriever string `json:"retriever"`
	Model     string `json:"model"`
	Kind      string `json:"kind"`
	MaxLength int    `json:"max_length"`
	// Chunks is the number of chunks the model reads (every chunk of the
	// chunking for an embedder; the distinct chunks reranked for a
	// cross-encoder), ChunksTruncated those cut.
	Chunks          int `json:"chunks"`
	ChunksTruncated int `json:"chunks_truncated"`
	// ChunkTokensCut are the tokens cut from the truncated chunks: median
	// and largest (for a cross-encoder, per pair).
	ChunkTokensCutMedian int `json:"chunk_tokens_cut_median"`
	ChunkTokensCutMax    int `json:"chunk_tokens_cut_max"`
	// Pairs are the (query, chunk) pairs a cross-encoder scored and
	// PairsTruncated those cut (0 for an embedder).
	Pairs          int `json:"pairs,omitempty"`
	PairsTruncated int `json:"pairs_truncated,omitempty"`
	// Queries is the number of queries read; QueriesTruncated those cut
	// (an embedder's MaxLength, a cross-encoder's MaxQueryTokens), with
	// the most tokens cut from one.
	Queries           int `json:"queries"`
	QueriesTruncated  int `json:"queries_truncated"`
	QueryTokensCutMax int `json:"query_tokens_cut_max"`
}
