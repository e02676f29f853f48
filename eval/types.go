// Package eval holds ragbench's evaluation core: qrels and run readers and
// writers, and trec_eval-exact measures (see doc.go once written).
package eval

// Qrels maps query id → doc id → relevance grade. Grades are integers as in
// TREC qrels; grades ≤ 0 are judged non-relevant (trec_eval's convention).
// A query present with no positive grade is "unanswerable" in ragbench's
// reports.
type Qrels map[string]map[string]int

// Result is one retrieved item of a ranked list: a doc id (or chunk id) and
// its retrieval score (higher = more relevant; any finite float64).
type Result struct {
	DocID string
	Score float64
}

// Run maps query id → the results retrieved for it, in the order given by the
// producer. Measures re-sort by score as trec_eval does (see Sort).
type Run map[string][]Result
