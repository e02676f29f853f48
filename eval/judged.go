package eval

// JudgedShare is judged@k of one ranking, given its first min(k, n)
// results top (best first) and whether each is judged: the share of them
// that is, ir_measures' Judged@k (judged_provider.py, after OpenNIR: the
// judged results of the top k over the number of results there, so a
// ranking shorter than k is not penalised for its length). An empty top
// scores 0. Every judged@k of ragbench is this rule: bench eval's judged.k
// (judged = a grade ≥ 0 in the qrels) and the sweep's judged coverage
// (span labels: a chunk overlapping a judged passage, spans.JudgedChunks).
func JudgedShare[T any](top []T, judged func(T) bool) float64 {
	if len(top) == 0 {
		return 0
	}
	c := 0
	for _, x := range top {
		if judged(x) {
			c++
		}
	}
	return float64(c) / float64(len(top))
}

// Condense is trec_eval -J's rule (Options.JudgedOnly) applied to a run:
// each query's results without a judgement of grade ≥ 0 in qrels are
// removed, the ones below moving up (their scores, hence their order, are
// kept). Queries not in qrels keep no result. The run is not modified.
// Scoring the condensed run is scoring "judged items only" (Sakai's
// condensed lists); the sweep's judged_only option does it with the
// judgements of its labels.
func Condense(qrels Qrels, run Run) Run {
	out := make(Run, len(run))
	for q, res := range run {
		judg := qrels[q]
		kept := make([]Result, 0, len(res))
		for _, r := range res {
			if g, ok := judg[r.DocID]; ok && g >= 0 {
				kept = append(kept, r)
			}
		}
		out[q] = kept
	}
	return out
}
