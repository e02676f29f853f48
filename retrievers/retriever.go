// Package retrievers defines what every ragbench retriever (BM25, dense,
// hybrid, rerank) offers: one Search call that turns queries into an
// eval.Run, and the timing/size statistics the sweep report prints.
package retrievers

import (
	"context"
	"fmt"
	"math"
	"slices"
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
	// Search returns, for each query, at most k results in rank order:
	// score descending, equal scores by doc id in descending byte order —
	// trec_eval's order, eval.Sort with eval.TieDocIDDesc (eval.CompareRank)
	// —, so that the retriever's own cut at k keeps exactly the results the
	// evaluation ranks in its top k, ties at the boundary included. k ≤ 0 is
	// an error. A query with no match gets an empty (non-nil) list.
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

// Percentile returns the nearest-rank p-quantile (0 < p ≤ 1) of the
// latencies d: the ⌈p·n⌉-th smallest of the n values (p = 0.50 for
// Stats.LatencyP50, 0.95 for LatencyP95), or 0 for an empty d. d is not
// modified. p ≤ 0 gives the smallest value, p > 1 the largest.
func Percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(math.Ceil(p*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// DefaultPositive is the rule of an option whose zero value selects its
// default and whose set value must be positive (a batch size, a depth):
// *v = def when *v is 0; a negative *v is the error "name: must be > 0,
// got v" (name as configs spell the field, so callers can point at it).
func DefaultPositive(name string, v *int, def int) error {
	if *v == 0 {
		*v = def
	}
	if *v < 0 {
		return fmt.Errorf("%s: must be > 0, got %d", name, *v)
	}
	return nil
}

// ByBetter is the comparison for slices.SortFunc that puts first what
// better ranks first (a strict order: better(a, b) means a ranks above b),
// the one rule by which the BM25 and dense heaps are read out in rank
// order.
func ByBetter[T any](better func(a, b T) bool) func(a, b T) int {
	return func(a, b T) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	}
}
