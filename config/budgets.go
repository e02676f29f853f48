package config

import (
	"fmt"
	"slices"

	"github.com/ragbench/ragbench/corpus"
)

// PromptTokenizerName is the tokenizer prompts are counted in:
// PromptTokenizer, or corpus.CL100kBase when the config names none.
func (c *Config) PromptTokenizerName() string {
	if c.PromptTokenizer == "" {
		return corpus.CL100kBase
	}
	return c.PromptTokenizer
}

// budgets checks budget_tokens, prompt_budget, prompt_tokenizer and
// cover_shares (docs/config.md), and fills prompt_budget's default (the
// largest budget).
func (ck *configCheck) budgets() {
	c := ck.c
	const noDefault = "; remove the line to use the default"
	ck.explicit("budget_tokens", len(c.BudgetTokens) == 0, "empty budget list: list the budgets in tokens, e.g. budget_tokens: [256, 512, 1024, 2048]; remove the line for none")
	ck.explicit("prompt_budget", c.PromptBudget == 0, "prompt_budget 0: must be one of budget_tokens"+noDefault+" (the largest budget)")
	ck.explicit("prompt_tokenizer", c.PromptTokenizer == "", "empty: %s"+noDefault+" (%s)", corpus.CL100kBase, corpus.CL100kBase)
	ck.explicit("cover_shares", len(c.CoverShares) == 0, "empty list: give shares in (0, 1], e.g. cover_shares: [0.25, 0.5, 0.75]; remove the line for none")
	if c.PromptTokenizer != "" && c.PromptTokenizer != corpus.CL100kBase {
		ck.bad("prompt_tokenizer", "unknown tokenizer %q: %s (tiktoken's, embedded)", c.PromptTokenizer, corpus.CL100kBase)
	}
	// Whether the labels are spans is the dataset's to say (sweep's
	// readSpanLabels refuses these keys without them, as it refuses the
	// span metric families); here only the values.
	if len(c.BudgetTokens) > 0 {
		for i, b := range c.BudgetTokens {
			if b < 1 {
				ck.bad(fmt.Sprintf("budget_tokens.%d", i), "budget %d must be ≥ 1 token", b)
			}
		}
		listedTwice(ck, "budget_tokens", "budget", c.BudgetTokens)
		if c.PromptBudget == 0 && !ck.has("prompt_budget") {
			c.PromptBudget = slices.Max(c.BudgetTokens)
		}
	}
	if ck.has("prompt_budget") && c.PromptBudget != 0 && !slices.Contains(c.BudgetTokens, c.PromptBudget) {
		if len(c.BudgetTokens) == 0 {
			ck.bad("prompt_budget", "prompt_budget %d needs budget_tokens: list the budgets, e.g. budget_tokens: [256, 512, %d]", c.PromptBudget, c.PromptBudget)
		} else {
			ck.bad("prompt_budget", "prompt_budget %d must be one of budget_tokens %v", c.PromptBudget, c.BudgetTokens)
		}
	}
	slices.Sort(c.BudgetTokens)
	if len(c.CoverShares) > 0 {
		for i, s := range c.CoverShares {
			if !(s > 0 && s <= 1) {
				ck.bad(fmt.Sprintf("cover_shares.%d", i), "share %v must be in (0, 1] (the share of a gold span a chunk must hold to cover it)", s)
			}
		}
		listedTwice(ck, "cover_shares", "share", c.CoverShares)
	}
}
