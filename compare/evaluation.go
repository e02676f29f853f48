package compare

import (
	"fmt"

	"github.com/ragbench/ragbench/eval"
)

// FromEvaluation is the one seam from evaluation to comparison: one
// system's entry of Scores (metric label → query id → value) from an
// eval.Evaluation, labels[j] naming e.Measures[j] (for example "ndcg@10";
// the label is the caller's, since bench compare and the sweep name
// measures differently). Only the queries averaged into e's means
// (e.InMean) are kept: those are the queries a paired test pairs, and a
// query outside them (unanswerable, or dropped by -l) would otherwise be
// compared as a score of 0. Error: len(labels) differs from len(e.Measures).
func FromEvaluation(e *eval.Evaluation, labels []string) (map[string]map[string]float64, error) {
	if len(labels) != len(e.Measures) {
		return nil, fmt.Errorf("%d labels for %d measures", len(labels), len(e.Measures))
	}
	out := make(map[string]map[string]float64, len(labels))
	for j, label := range labels {
		col := make(map[string]float64, len(e.Queries))
		for i, q := range e.Queries {
			if e.InMean[i] {
				col[q] = e.Values[i][j]
			}
		}
		out[label] = col
	}
	return out, nil
}
