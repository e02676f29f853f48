package diagnose

import (
	"fmt"
	"math"

	"github.com/ragbench/ragbench/eval"
)

// DefaultDepth is the number of top results searched for a gold doc id when
// an option leaves Depth at 0: the number of passages a typical RAG prompt
// holds.
const DefaultDepth = 6

// ranked returns a copy of results in trec_eval's order: score descending,
// ties by doc id in descending byte order (eval.Sort with TieDocIDDesc).
func ranked(results []eval.Result) []eval.Result {
	out := append([]eval.Result(nil), results...)
	eval.Sort(out, eval.TieDocIDDesc)
	return out
}

// top returns the first k results of results in trec_eval's order (the
// same as ranked(results)[:k]) in O(len(results)·k) time without sorting
// the whole list: depth is small next to a run's result count.
func top(results []eval.Result, k int) []eval.Result {
	if k <= 0 {
		return nil
	}
	out := make([]eval.Result, 0, min(k, len(results)))
	for _, r := range results {
		if len(out) == k && !before(r, out[k-1]) {
			continue
		}
		if len(out) < k {
			out = append(out, r)
		} else {
			out[k-1] = r
		}
		for i := len(out) - 1; i > 0 && before(out[i], out[i-1]); i-- {
			out[i], out[i-1] = out[i-1], out[i]
		}
	}
	return out
}

// before reports whether a ranks above b in trec_eval's order
// (eval.CompareRank).
func before(a, b eval.Result) bool { return eval.CompareRank(a, b) < 0 }

// hasGold reports whether qrels judges any doc id of q relevant (grade > 0).
func hasGold(judged map[string]int) bool {
	for _, g := range judged {
		if g > 0 {
			return true
		}
	}
	return false
}

// goldInTop reports whether one of the first depth results of the ranked
// list is relevant in judged.
func goldInTop(list []eval.Result, judged map[string]int, depth int) bool {
	for i, r := range list {
		if i >= depth {
			break
		}
		if judged[r.DocID] > 0 {
			return true
		}
	}
	return false
}

// checkScores returns an error naming the first non-finite score of query q.
func checkScores(q string, results []eval.Result) error {
	for _, r := range results {
		if math.IsNaN(r.Score) || math.IsInf(r.Score, 0) {
			return fmt.Errorf("run: query %q: doc %q: score %v is not finite", q, r.DocID, r.Score)
		}
	}
	return nil
}

// ratio returns num/den, or NaN when den is 0.
func ratio(num, den int) float64 {
	if den == 0 {
		return math.NaN()
	}
	return float64(num) / float64(den)
}
