package report

import (
	"fmt"

	"github.com/ragbench/ragbench/results"
)

// This file writes the quality-against-cost table of report.md (the chart
// is report.html's) and decides its Pareto front.

// ParetoFront marks the points no other point beats on both: a point i is
// on the front unless some j has quality[j] ≥ quality[i] and cost[j] ≤
// cost[i] with one of them strict. Equal points are all on it.
func ParetoFront(quality, cost []float64) []bool {
	out := make([]bool, len(quality))
	for i := range quality {
		out[i] = true
		for j := range quality {
			if quality[j] >= quality[i] && cost[j] <= cost[i] && (quality[j] > quality[i] || cost[j] < cost[i]) {
				out[i] = false
				break
			}
		}
	}
	return out
}

// costPoints are the cells with a prompt size, their primary metric (all
// answerable queries) and prompt tokens at prompt_k, and the front.
func costPoints(res *results.Results) (cells []*results.CellResult, quality, tokens []float64, front []bool) {
	m := res.Config.GateMetric()
	for i := range res.Cells {
		c := &res.Cells[i]
		if c.PromptTokens == nil {
			continue
		}
		cells = append(cells, c)
		quality = append(quality, c.Means[results.GroupAll][m])
		tokens = append(tokens, c.PromptTokens.Mean)
	}
	return cells, quality, tokens, ParetoFront(quality, tokens)
}

// costs writes the quality-against-cost table: per cell the primary
// metric and the prompt's tokens at prompt_k, the Pareto front on both
// marked (the latencies, which change between runs, are in the timings:
// queryCosts).
func (r *reportWriter) costs() {
	cells, quality, tokens, front := costPoints(r.res)
	if len(cells) == 0 {
		return
	}
	m := r.cfg.GateMetric()
	r.w("## Quality against cost\n\n")
	r.w("Per cell: %s and the prompt's size at prompt_k = %d (%s tokens of the top %d chunks, mean and largest per query). ★ marks the Pareto front: the cells no other cell beats on both %s and prompt size. Query latency and index size are under Timings.\n\n", m, r.pk, cells[0].PromptTokens.Tokenizer, r.pk, m)
	var rows [][]string
	for i, c := range cells {
		star := ""
		if front[i] {
			star = "★"
		}
		rows = append(rows, []string{c.Name, f4(quality[i]), fmt.Sprintf("%.1f", tokens[i]), GroupDigits(c.PromptTokens.Max), star})
	}
	table(&r.b, []string{"cell", m, fmt.Sprintf("prompt tokens@%d", r.pk), "largest", "front"}, rows)
	r.w("\n")
}

// queryCosts writes, under the timings, each cell's end-to-end query cost
// (results.QueryCost): latency p50/p95 and index size.
func (r *reportWriter) queryCosts() {
	var rows [][]string
	cached := false
	for _, t := range r.res.Timings {
		qc := t.QueryCost
		if qc == nil {
			continue
		}
		lat, idx := "", ""
		if qc.Source != results.CostUnknown {
			lat, idx = fmt.Sprintf("%.1f / %.1f", qc.P50ms, qc.P95ms), mb(qc.IndexBytes)
			if qc.Source == results.CostCached {
				lat += " (cached)"
				cached = true
			}
		}
		rows = append(rows, []string{t.Cell, lat, idx})
	}
	if len(rows) == 0 {
		return
	}
	r.w("\nEnd to end per query (also in report.html's quality-against-cost table): a hybrid's or rerank's latency adds its inputs' to its own stage's per query, a sum of percentiles (an upper bound of the percentile of the sum), and its index is its inputs'.")
	if cached {
		r.w(" (cached): measured when the cell's run was cached.")
	}
	r.w("\n\n")
	table(&r.b, []string{"cell", "query p50/p95 ms", "index MB"}, rows)
}
