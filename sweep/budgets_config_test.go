package sweep

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBudgetConfig: budget_tokens, prompt_budget, prompt_tokenizer and
// cover_shares are checked at their lines (all the faults of a file at
// once), and refused by the preflight without span labels; prompt_budget defaults to the largest
// budget, the budgets are sorted, and a config without them records none
// (its results.json config, and hash, unchanged).
func TestBudgetConfig(t *testing.T) {
	data, err := filepath.Abs("testdata/misses")
	if err != nil {
		t.Fatal(err)
	}
	spanHead := "dataset: {corpus: " + filepath.Join(data, "corpus") + ", queries: " + filepath.Join(data, "labels.jsonl") + "}\nretrievers: [{name: a, type: bm25}]\n"
	ok := writeConfig(t, spanHead+"budget_tokens: [1024, 256]\ncover_shares: [0.25, 0.75]\n")
	cfg, err := Load(ok, LoadOptions{DataDir: "/d"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.BudgetTokens, []int{256, 1024}) || cfg.PromptBudget != 1024 || cfg.PromptTokenizerName() != "cl100k_base" || cfg.PromptTokenizer != "" {
		t.Errorf("budgets %v, prompt budget %d, tokenizer %q (%q)", cfg.BudgetTokens, cfg.PromptBudget, cfg.PromptTokenizerName(), cfg.PromptTokenizer)
	}
	cases := []struct {
		name, yaml string
		want       []string
	}{
		{"values", spanHead + "budget_tokens: [256, 0, 256]\nprompt_budget: 512\nprompt_tokenizer: gpt2\ncover_shares: [0, 1.5, 0.5, 0.5]\n", []string{
			":3: budget_tokens[1]: budget 0 must be ≥ 1 token", ":3: budget_tokens[2]: budget 256 listed twice",
			":4: prompt_budget: prompt_budget 512 must be one of budget_tokens [256 0 256]",
			":5: prompt_tokenizer: unknown tokenizer \"gpt2\": cl100k_base",
			":6: cover_shares[0]: share 0 must be in (0, 1]", ":6: cover_shares[1]: share 1.5 must be in (0, 1]", ":6: cover_shares[3]: share 0.5 listed twice"}},
		{"empty", spanHead + "budget_tokens: []\nprompt_budget: 0\ncover_shares: []\n", []string{
			":3: budget_tokens: empty budget list", ":4: prompt_budget: prompt_budget 0: must be one of budget_tokens", ":5: cover_shares: empty list"}},
		{"budget without budgets", spanHead + "prompt_budget: 512\n", []string{":3: prompt_budget: prompt_budget 512 needs budget_tokens"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(writeConfig(t, tc.yaml), LoadOptions{DataDir: "/d"})
			if err == nil {
				t.Fatalf("no error; want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
	// Whether the labels are spans, the dataset says (Check, as Run).
	small, err := filepath.Abs("testdata/small")
	if err != nil {
		t.Fatal(err)
	}
	idCfg, err := Load(writeConfig(t, "dataset: {corpus: "+filepath.Join(small, "corpus.jsonl")+", queries: "+filepath.Join(small, "queries.jsonl")+"}\nretrievers: [{name: a, type: bm25}]\nbudget_tokens: [256]\ncover_shares: [0.25]\n"),
		LoadOptions{DataDir: "/d", Output: filepath.Join(t.TempDir(), "out"), CacheDir: filepath.Join(t.TempDir(), "cache"), History: filepath.Join(t.TempDir(), "h.csv")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Check(t.Context(), idCfg, CheckOptions{})
	for _, w := range []string{":3: budget_tokens: budget_tokens measures span labels", ":4: cover_shares: cover_shares measures span labels"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("id labels: error %v, want %q", err, w)
		}
	}
	plain, err := Load(writeConfig(t, minimal), LoadOptions{DataDir: "/d"})
	if err != nil {
		t.Fatal(err)
	}
	if plain.PromptBudget != 0 || plain.BudgetTokens != nil || plain.CoverShares != nil || plain.PromptTokenizer != "" {
		t.Errorf("a config without budgets records %v %d %v %q", plain.BudgetTokens, plain.PromptBudget, plain.CoverShares, plain.PromptTokenizer)
	}
}

// TestBudgetsRanOut: with k: [1] a cell searches one chunk deep, so a
// 100,000-token budget held one chunk and its span_recall read as if the
// budget were full (the tester's finding: 0.5 with k [1], 1 with k [1, 2]).
// The queries whose ranking ran out before each budget was full are now
// counted (results.json prompt_budgets[].ran_out) and named in a warning
// (report.md's warnings).
func TestBudgetsRanOut(t *testing.T) {
	data, err := filepath.Abs("testdata/misses")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfgPath := writeConfig(t, "dataset: {corpus: "+filepath.Join(data, "corpus")+", queries: "+filepath.Join(data, "labels.jsonl")+", title: false}\n"+
		"chunking: [{strategy: fixed, sizes: [20]}]\nretrievers: [{name: bm25, type: bm25}]\nk: [1]\nprompt_k: 1\nbudget_tokens: [1, 100000]\nsignificance: {permutations: 100}\nheldout: {fraction: 0}\n")
	cfg, err := Load(cfgPath, LoadOptions{Output: filepath.Join(dir, "out"), CacheDir: filepath.Join(dir, "cache"), History: filepath.Join(dir, "h.csv")})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(t.Context(), cfg, Options{NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Cells[0]
	one, all := c.PromptBudgets.At(1), c.PromptBudgets.At(100000)
	n := len(one.PerQuery)
	// At 1 token only the queries BM25 returns nothing for (no word in
	// common with any chunk) run out.
	if one.RanOut >= n || all.RanOut != n || n == 0 {
		t.Errorf("ran out: %d at 1 token, %d at 100,000 of %d queries; want fewer than %d and %d", one.RanOut, all.RanOut, n, n, n)
	}
	want := fmt.Sprintf("%d of %d queries at 100000 tokens (their prompt holds every chunk searched, 2 deep", n, n)
	if !slices.ContainsFunc(res.Warnings, func(w string) bool {
		return strings.HasPrefix(w, "cell "+c.Name+": prompt budgets not filled: the ranking ran out before the budget was full for ") && strings.Contains(w, want)
	}) {
		t.Errorf("warnings %q lack %q", res.Warnings, want)
	}
}

// TestConfigErrorsOnePass: a config with type errors (a string for a
// number, "maybe" for a boolean) and value errors listed only the type
// errors; the values came on the next try (the tester's finding). Now
// both come in one pass, in file order, and a value whose type failed is
// not reported twice.
func TestConfigErrorsOnePass(t *testing.T) {
	data, err := filepath.Abs("testdata/misses")
	if err != nil {
		t.Fatal(err)
	}
	yml := "dataset: {corpus: " + filepath.Join(data, "corpus") + ", queries: " + filepath.Join(data, "labels.jsonl") + "}\n" + // 1
		"retrievers: [{name: a, type: bm25}]\n" + // 2
		"k: [1, 3]\n" + // 3
		"budget_tokens: [0, 5, 5]\n" + // 4
		"prompt_budget: 7\n" + // 5
		"cover_shares: [0, 1.5]\n" + // 6
		"significance:\n" + // 7
		"  plan: bestest\n" + // 8
		"  detect: NaN\n" + // 9
		"  matrix: maybe\n" + // 10
		"  alpha: x\n" // 11
	_, err = Load(writeConfig(t, yml), LoadOptions{DataDir: "/d"})
	if err == nil {
		t.Fatal("no error")
	}
	want := []string{
		":4: budget_tokens[0]: budget 0 must be ≥ 1 token", ":4: budget_tokens[2]: budget 5 listed twice",
		":5: prompt_budget: prompt_budget 7 must be one of budget_tokens",
		":6: cover_shares[0]: share 0 must be in (0, 1]", ":6: cover_shares[1]: share 1.5 must be in (0, 1]",
		":8: significance.plan: unknown plan \"bestest\"",
		":9: significance.detect: not a number: NaN", ":10: significance.matrix: not true or false: maybe",
		":11: significance.alpha: not a number: x",
	}
	last := -1
	for _, w := range want {
		i := strings.Index(err.Error(), w)
		if i < 0 {
			t.Errorf("error lacks %q:\n%v", w, err)
			continue
		}
		if i < last {
			t.Errorf("%q out of file order:\n%v", w, err)
		}
		last = i
	}
	if n := strings.Count(err.Error(), ":11: "); n != 1 {
		t.Errorf("alpha reported %d times (its zero checked too?):\n%v", n, err)
	}
}
