package spans

import (
	"fmt"
	"slices"

	"github.com/ragbench/ragbench/eval"
)

// PromptTokens measures chunks for a prompt budget: a chunk's length in
// tokens, and how much of it (in code points from its start) its first n
// tokens hold, whole characters only. Package sweep's counts the chunk's
// text in the document with a tiktoken encoding.
type PromptTokens interface {
	// Tokens is the chunk's length in tokens.
	Tokens(chunkID string) int
	// Prefix is the length in code points of the chunk's longest prefix
	// of whole characters within its first n tokens (0 < n < Tokens).
	Prefix(chunkID string, n int) int
}

// Prompt is the prompt a budget of tokens holds: the run's chunks taken in
// rank order while they fit; the first one that does not fit is cut to the
// tokens left (its longest prefix of whole characters within them) and
// ends the prompt. A budget filled exactly ends it too. ranked are the
// chunks' intervals best first, ids their chunk ids. The result is the
// taken intervals, the cut one shortened (and left out when its prefix
// holds no whole character).
//
// Cutting rather than dropping the last chunk fills every budget whatever
// the chunk size, so chunkings are compared on the same amount of prompt:
// dropping it would leave a 256-token budget empty under 400-token chunks.
func Prompt(ids []string, ranked []Interval, budget int, pt PromptTokens) []Interval {
	out, _ := PromptFill(ids, ranked, budget, pt)
	return out
}

// PromptFill is Prompt, and whether the budget was filled: false when the
// ranking ran out first (every chunk of ids taken, tokens left over) — the
// prompt is then shorter than the budget, its measures those of a smaller
// prompt.
func PromptFill(ids []string, ranked []Interval, budget int, pt PromptTokens) (out []Interval, full bool) {
	left := budget
	for i, id := range ids {
		if left <= 0 {
			break
		}
		t := pt.Tokens(id)
		if t <= left {
			out = append(out, ranked[i])
			left -= t
			continue
		}
		if n := pt.Prefix(id, left); n > 0 {
			iv := ranked[i]
			iv.End = min(iv.Start+n, iv.End)
			out = append(out, iv)
		}
		left = 0
		break
	}
	return out, left <= 0
}

// BudgetEvaluation holds the AtK families of one run at each prompt
// budget (EvaluateBudgets).
type BudgetEvaluation struct {
	// Budgets are the budgets, in tokens, as given.
	Budgets []int
	// Queries are the ids of the queries with a gold passage, in label
	// order.
	Queries []string
	// Values[b][f][i] is family AtK[f] of query Queries[i] at Budgets[b].
	Values [][][]float64
	// Chunks[b][i] is the number of chunks in query Queries[i]'s prompt at
	// Budgets[b] (the cut one counted).
	Chunks [][]int
	// RanOut[b] are the queries (of Queries, in their order) whose ranking
	// ran out before Budgets[b] was full (PromptFill): their prompt holds
	// every chunk ranked, fewer tokens than the budget.
	RanOut [][]string
}

// PerQuery returns, for budget index b, query id → family → value.
func (e *BudgetEvaluation) PerQuery(b int) map[string]map[string]float64 {
	out := make(map[string]map[string]float64, len(e.Queries))
	for i, q := range e.Queries {
		m := make(map[string]float64, len(AtK))
		for f, name := range AtK {
			m[name] = e.Values[b][f][i]
		}
		out[q] = m
	}
	return out
}

// EvaluateBudgets computes the AtK families (token recall, precision and
// IoU, span recall, hit rate and MRR) of run with each query's prompt
// filled to each budget (Prompt): Evaluate's definitions with the top k
// replaced by the budget's prompt, the cut chunk counting with its cut
// interval (it covers a passage when its kept part holds opt.CoverShare of
// it). A query whose ranking runs out before a budget is full is counted
// (RanOut), its prompt the whole ranking. opt.Ks is ignored. Errors: a budget < 1, opt's cover share, a run
// naming a chunk not in ch.
func EvaluateBudgets(queries []Query, ch *Chunking, run eval.Run, budgets []int, pt PromptTokens, opt Options) (*BudgetEvaluation, error) {
	opt.Ks = []int{1}
	if err := opt.check(); err != nil {
		return nil, err
	}
	for _, b := range budgets {
		if b < 1 {
			return nil, fmt.Errorf("prompt budgets: a budget must be ≥ 1 token, got %d", b)
		}
	}
	e := &BudgetEvaluation{Budgets: slices.Clone(budgets), Values: make([][][]float64, len(budgets)), Chunks: make([][]int, len(budgets)), RanOut: make([][]string, len(budgets))}
	for b := range budgets {
		e.Values[b] = make([][]float64, len(AtK))
	}
	err := eachAnswerable(queries, ch, run, opt.TieBreak, func(q Query, ids []string, ranked []Interval) {
		e.Queries = append(e.Queries, q.ID)
		passages := q.Passages()
		for b, budget := range budgets {
			top, full := PromptFill(ids, ranked, budget, pt)
			if !full {
				e.RanOut[b] = append(e.RanOut[b], q.ID)
			}
			for f, v := range promptValues(passages, top, opt.CoverShare) {
				e.Values[b][f] = append(e.Values[b][f], v)
			}
			e.Chunks[b] = append(e.Chunks[b], len(top))
		}
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}
