// Package eval holds ragbench's evaluation core: qrels and run readers and
// writers, and trec_eval-exact measures (see doc.go once written).
package eval

import "slices"

// Qrels maps query id → doc id → relevance grade. Grades are integers as in
// TREC qrels; grades ≤ 0 are judged non-relevant (trec_eval's convention).
// A query present with no positive grade is "unanswerable" in ragbench's
// reports.
type Qrels map[string]map[string]int

// Answerable reports whether query qid has a judged doc with a positive
// grade: the queries whose measures are averaged (Evaluation.InMean); the
// others present in q are unanswerable. It does not depend on
// Options.RelevanceLevel: a query relevant only below the level is
// answerable and scores 0 on binary measures, as in trec_eval.
func (q Qrels) Answerable(qid string) bool {
	for _, g := range q[qid] {
		if g > 0 {
			return true
		}
	}
	return false
}

// AnswerableIDs returns the ids of q's answerable queries in byte order.
func (q Qrels) AnswerableIDs() []string {
	var ids []string
	for qid := range q {
		if q.Answerable(qid) {
			ids = append(ids, qid)
		}
	}
	slices.Sort(ids)
	return ids
}

// Result is one retrieved item of a ranked list: a doc id (or chunk id) and
// its retrieval score (higher = more relevant; any finite float64).
type Result struct {
	DocID string
	Score float64
}

// Run maps query id → the results retrieved for it, in the order given by the
// producer. Measures re-sort by score as trec_eval does (see Sort).
type Run map[string][]Result
