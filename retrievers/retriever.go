// Package retrievers defines what every ragbench retriever (BM25, dense,
// hybrid, rerank) offers: one Search call that turns queries into an
// eval.Run, and the timing/size statistics the sweep report prints.
package retrievers

import (
	"context"
	"time"

	"github.com/ragbench/ragbench/eval"
)

// Query is one query to retrieve for: its query id and raw text (never parsed
// as query syntax).
type Query struct {
	ID   string
	Text string
}

// Retriever ranks indexed items (documents or chunks) for queries.
type Retriever interface {
	// Search returns, for each query, at most k results sorted by score
	// descending (ties by id, deterministic). k ≤ 0 is an error. A query with
	// no match gets an empty (non-nil) list.
	Search(ctx context.Context, queries []Query, k int) (eval.Run, error)
	// Stats reports build time, index size and query latencies so far.
	Stats() Stats
}

// Stats are a retriever's costs, for the sweep's timing table.
type Stats struct {
	Build      time.Duration // time to build (or load) the index
	IndexBytes int64         // approximate index size in bytes (0 if unknown)
	Queries    int           // queries searched so far
	LatencyP50 time.Duration // per-query search latency, median
	LatencyP95 time.Duration // per-query search latency, 95th percentile
}
