package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/internal/plural"
	"github.com/ragbench/ragbench/results"
	"github.com/ragbench/ragbench/spans"
)

// This file writes report.md's prompt budgets and cover shares (config
// budget_tokens, prompt_budget, cover_shares; docs/spans.md) and the
// chunking verdict at the prompt budget.

// bestAt is the best cell of the winning chunking on value: per
// chunking (in cell order) the cell of the highest value, ties to the
// earlier, and of those the highest, ties to the earlier chunking; nil
// when no cell has a value.
func bestAt(res *results.Results, value func(c *results.CellResult) (float64, bool)) *results.CellResult {
	var winner *results.CellResult
	wv := 0.0
	for i := range res.Cells {
		c := &res.Cells[i]
		if v, ok := value(c); ok && (winner == nil || v > wv) {
			winner, wv = c, v
		}
	}
	return winner
}

// atK is the mean of family f at prompt_k over all answerable queries (ok
// false when f is not evaluated).
func atK(f string, k int) func(c *results.CellResult) (float64, bool) {
	return func(c *results.CellResult) (float64, bool) {
		v, ok := c.Means[results.GroupAll][config.MetricName(f, k)]
		return v, ok
	}
}

// atBudget is the mean of family f at a prompt budget of tokens.
func atBudget(f string, tokens int) func(c *results.CellResult) (float64, bool) {
	return func(c *results.CellResult) (float64, bool) {
		bm := c.PromptBudgets.At(tokens)
		if bm == nil {
			return 0, false
		}
		v, ok := bm.Means[results.GroupAll][f]
		return v, ok
	}
}

// budgetFinding is the chunking verdict at the prompt budget beside the one
// at prompt_k ("" without a verdict): the winner at each, and each other
// chunking's best cell at the budget against the winner.
func budgetFinding(res *results.Results) string {
	v := res.BudgetVerdict
	if v == nil {
		return ""
	}
	pk := res.Config.PromptK
	note := fmt.Sprintf("At a %s-token prompt budget (%s) the winning chunking on %s is `%s`: its best cell `%s` scores %s",
		GroupDigits(v.Budget), v.Tokenizer, v.Metric, chunkingOf(res, v.Winner), v.Winner, f4(bestMean(v, v.Winner)))
	if w := bestAt(res, atK(v.Metric, pk)); w != nil {
		m, _ := atK(v.Metric, pk)(w)
		if w.Chunking.Name == chunkingOf(res, v.Winner) {
			note += fmt.Sprintf("; at prompt_k = %d it wins too (`%s`, %s)", pk, w.Name, f4(m))
		} else {
			note += fmt.Sprintf("; at prompt_k = %d the winner is `%s` instead (`%s`, %s)", pk, w.Chunking.Name, w.Name, f4(m))
		}
	}
	sig := &results.Significance{Pairs: v.Tests, Correction: v.Correction}
	metric := results.BudgetMetricName(v.Metric, v.Budget)
	// The correction covers the counted comparisons: the list also holds
	// the identical ones (same score on every query), which are not.
	listed, identical := 0, 0
	for _, b := range v.Best {
		if b.Cell == v.Winner {
			continue
		}
		listed++
		for _, t := range v.Tests {
			if t.Metric == metric && t.Identical && (t.A == b.Cell && t.B == v.Winner || t.B == b.Cell && t.A == v.Winner) {
				identical++
				break
			}
		}
	}
	over := fmt.Sprintf("over these %d comparisons", v.Comparisons)
	if identical > 0 || v.Comparisons != listed {
		over = fmt.Sprintf("over the %d counted %s", v.Comparisons, plural.Word(v.Comparisons, "comparison", "comparisons"))
		if identical > 0 {
			over += fmt.Sprintf("; %d identical, not counted", identical)
		}
	} else if v.Comparisons == 1 {
		over = "over this one comparison"
	}
	note += fmt.Sprintf(". The best cell of each other chunking at the budget (%s %s):", correctionPhrase(v.Correction), over)
	for _, b := range v.Best {
		if b.Cell == v.Winner {
			continue
		}
		note += fmt.Sprintf("\n  - `%s` %s (%s), %s", b.Cell, f4(b.Mean), signed(b.Mean-bestMean(v, v.Winner)), verdict(sig, metric, b.Cell, v.Winner, false))
	}
	return note
}

// correctionPhrase is "Holm–Bonferroni correction" or "no correction".
func correctionPhrase(c string) string {
	if n := correctionName(c); n != "" {
		return n + " correction"
	}
	return "no correction"
}

func bestMean(v *results.BudgetVerdict, cell string) float64 {
	for _, b := range v.Best {
		if b.Cell == cell {
			return b.Mean
		}
	}
	return 0
}

func chunkingOf(res *results.Results, cell string) string {
	for _, c := range res.Cells {
		if c.Name == cell {
			return c.Chunking.Name
		}
	}
	return ""
}

// budgets writes the prompt-budget and cover-share sections (span labels
// with budget_tokens or cover_shares).
func (r *reportWriter) budgets() {
	if pb := firstOf(r.res.Cells, func(c *results.CellResult) *results.PromptBudgets { return c.PromptBudgets }); pb != nil {
		r.promptBudgets(pb)
	}
	r.coverShares()
}

// firstOf is the first cell's section get(c) that is not nil (nil when no
// cell has one): a section whose settings are the run's (the budgets, the
// cause names) takes them from there.
func firstOf[T any](cells []results.CellResult, get func(*results.CellResult) *T) *T {
	for i := range cells {
		if v := get(&cells[i]); v != nil {
			return v
		}
	}
	return nil
}

func (r *reportWriter) promptBudgets(pb *results.PromptBudgets) {
	r.w("## Prompt budgets\n\n")
	r.w("Chunkings compared at the same prompt size rather than the same k: each query's chunks are taken in rank order until the budget (%s tokens of each chunk's text, counted alone) is full, and the chunk that does not fit is cut to the tokens left. At a fixed k, larger chunks put more text into the prompt and win by construction.\n\n", pb.Tokenizer)
	if r.res.BudgetVerdict != nil {
		r.w("The chunking verdict at the prompt budget of %s tokens is in the Notes above.\n\n", GroupDigits(r.res.BudgetVerdict.Budget))
	}
	f := r.cfg.PrimaryMetric
	if !slices.Contains(spans.AtK, f) {
		f = spans.SpanRecall
	}
	head := []string{"cell"}
	for _, b := range pb.Budgets {
		head = append(head, "@"+strconv.Itoa(b.Tokens))
	}
	hasK := slices.Contains(r.cfg.Metrics, f)
	if hasK {
		head = append(head, fmt.Sprintf("@k=%d", r.pk))
	}
	var rows [][]string
	for _, c := range r.res.Cells {
		if c.PromptBudgets == nil {
			continue
		}
		row := []string{c.Name}
		for _, b := range c.PromptBudgets.Budgets {
			row = append(row, f4(b.Means[results.GroupAll][f]))
		}
		if hasK {
			row = append(row, f4(c.Means[results.GroupAll][config.MetricName(f, r.pk)]))
		}
		rows = append(rows, row)
	}
	r.w("%s at each budget (tokens), and at prompt_k:\n\n", f)
	table(&r.b, head, rows)
	r.w("\n")
	at := r.cfg.PromptBudget
	head = append([]string{"cell", "chunks", "prompt tokens@k"}, spans.AtK...)
	rows = nil
	for _, c := range r.res.Cells {
		bm := c.PromptBudgets.At(at)
		if bm == nil {
			continue
		}
		tok := ""
		if c.PromptTokens != nil {
			tok = fmt.Sprintf("%.0f", c.PromptTokens.Mean)
		}
		row := []string{c.Name, fmt.Sprintf("%.2f", bm.Chunks), tok}
		for _, fam := range spans.AtK {
			row = append(row, f4(bm.Means[results.GroupAll][fam]))
		}
		rows = append(rows, row)
	}
	r.w("Every span measure at the prompt budget of %s tokens (chunks: mean chunks in the prompt, the cut one counted; prompt tokens@k: the mean size of the prompt at prompt_k = %d, for comparison):\n\n", GroupDigits(at), r.pk)
	table(&r.b, head, rows)
	r.w("\n")
}

// coverShares writes the passage measures at the other cover shares, and
// the winning chunking at each.
func (r *reportWriter) coverShares() {
	if len(r.cfg.CoverShares) == 0 || len(r.res.Cells) == 0 || r.res.Cells[0].CoverShares == nil {
		return
	}
	r.w("## Cover share\n\n")
	r.w("A chunk finds a gold passage when it holds at least the cover share of it (dataset.span_cover_share, here %v). The passage measures recomputed at other shares show whether a chunking's lead depends on that rule.\n\n", r.cfg.Dataset.SpanCoverShare)
	names := []string{config.MetricName(spans.SpanRecall, r.pk)}
	if r.cfg.PromptBudget > 0 {
		names = append(names, results.BudgetMetricName(spans.SpanRecall, r.cfg.PromptBudget))
	}
	for _, name := range names {
		head := []string{"cell"}
		for _, cs := range r.res.Cells[0].CoverShares {
			head = append(head, fmt.Sprintf("share %v", cs.Share))
		}
		var rows [][]string
		for _, c := range r.res.Cells {
			row := []string{c.Name}
			for _, cs := range c.CoverShares {
				row = append(row, f4(cs.Means[name]))
			}
			rows = append(rows, row)
		}
		r.w("%s:\n\n", name)
		table(&r.b, head, rows)
		var wins []string
		for i, cs := range r.res.Cells[0].CoverShares {
			w := bestAt(r.res, func(c *results.CellResult) (float64, bool) {
				if i >= len(c.CoverShares) {
					return 0, false
				}
				v, ok := c.CoverShares[i].Means[name]
				return v, ok
			})
			if w != nil {
				v := w.CoverShares[i].Means[name]
				wins = append(wins, fmt.Sprintf("share %v: `%s` (%s)", cs.Share, w.Chunking.Name, f4(v)))
			}
		}
		r.w("\nWinning chunking on %s: %s.\n\n", name, strings.Join(wins, "; "))
	}
}
