package results

import "strconv"

// PromptBudgets are a cell's span measures with the prompt filled to token
// budgets (results.json "prompt_budgets"; config budget_tokens, docs/spans.md
// "Prompt budgets"): chunks are taken in rank order until a budget is full,
// the last one cut to the tokens left.
type PromptBudgets struct {
	// Tokenizer counts the tokens (config prompt_tokenizer).
	Tokenizer string `json:"tokenizer"`
	// Budgets are one entry per budget, in increasing order.
	Budgets []BudgetMeans `json:"budgets"`
}

// BudgetMeans are the span measures at one budget.
type BudgetMeans struct {
	// Tokens is the budget.
	Tokens int `json:"tokens"`
	// Chunks is the mean number of chunks in the prompt (the cut one
	// counted) over the answerable queries.
	Chunks float64 `json:"chunks"`
	// RanOut is the number of answerable queries whose ranking ran out
	// before the budget was full (the cell's chunk ranking, searched to its
	// chunk depth, holds fewer tokens than the budget): their prompt is the
	// whole ranking, smaller than the budget (docs/spans.md "Prompt
	// budgets"). 0: every prompt holds the budget.
	RanOut int `json:"ran_out"`
	// Means maps group (GroupAll, …, SliceGroup) → family (token_recall,
	// token_precision, token_iou, span_recall, span_hit_rate, span_mrr) →
	// mean over the group's answerable queries.
	Means map[string]map[string]float64 `json:"means"`
	// PerQuery maps query id → family → value (answerable queries). Not
	// in results.json (the sweep's tests and the verdict read it).
	PerQuery map[string]map[string]float64 `json:"-"`
}

// At returns the budget's measures, or nil when b is not one of them.
func (p *PromptBudgets) At(tokens int) *BudgetMeans {
	if p == nil {
		return nil
	}
	for i := range p.Budgets {
		if p.Budgets[i].Tokens == tokens {
			return &p.Budgets[i]
		}
	}
	return nil
}

// BudgetVerdict is the chunking verdict at the prompt budget (results.json
// "budget_verdict"): the best cell of each chunking on Metric at Budget
// tokens (highest mean over all answerable queries, ties to the earlier
// cell), the winner among them, and each other chunking's best cell tested
// against the winner (the config's significance test; one correction over
// these comparisons only).
type BudgetVerdict struct {
	Budget    int    `json:"budget"`
	Tokenizer string `json:"tokenizer"`
	// Metric is the family compared: the primary metric when it is a span
	// family, else span_recall.
	Metric string `json:"metric"`
	// Best is each chunking's best cell, in config order; Winner the cell
	// of the highest mean.
	Best   []BudgetBest `json:"best"`
	Winner string       `json:"winner"`
	// Tests are each other chunking's best cell (A) against the winner
	// (B), with the correction over Comparisons.
	Tests       []PairTest `json:"tests"`
	Comparisons int        `json:"comparisons"`
	Correction  string     `json:"correction"`
}

// BudgetBest is one chunking's best cell at the budget.
type BudgetBest struct {
	Chunking string  `json:"chunking"`
	Cell     string  `json:"cell"`
	Mean     float64 `json:"mean"`
}

// CoverShareMeans are a cell's passage measures recomputed at another
// cover share (results.json "cover_shares"; config cover_shares).
type CoverShareMeans struct {
	Share float64 `json:"share"`
	// Means maps "span_recall@k", "span_hit_rate@k", "span_mrr@k" (k =
	// prompt_k) and, with a prompt budget, "span_recall@<budget> tokens"
	// and so on, to the mean over all answerable queries.
	Means map[string]float64 `json:"means"`
}

// BudgetMetricName is the name of family at a prompt budget of tokens in
// CoverShareMeans.Means: "span_recall@1024 tokens".
func BudgetMetricName(family string, tokens int) string {
	return family + "@" + strconv.Itoa(tokens) + " tokens"
}
