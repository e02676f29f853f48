package sweep

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ragbench/ragbench/compare"
	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/kinds"
	"github.com/ragbench/ragbench/results"
	"github.com/ragbench/ragbench/spans"
	"gonum.org/v1/gonum/stat"
)

// This file scores prompts by their size in tokens (docs/spans.md "Prompt
// budgets"): each cell's prompt tokens at prompt_k, its span measures at
// each budget of budget_tokens and at the other cover shares of
// cover_shares, and the chunking verdict at prompt_budget.

// promptTokens counts one chunking's chunks in tokens of the prompt
// tokenizer: a chunk's text is its text in the document (what the span
// measures count), each chunk counted alone (no separator or template
// between chunks). It implements spans.PromptTokens.
type promptTokens struct {
	bpe    *corpus.BPE
	ds     *dataset
	chunks corpus.Chunks
	byID   *corpus.IDIndex  // chunk id → position in chunks (dataset.chunkIndex)
	ids    map[string][]int // chunk id → its tokens, encoded once
	// ctx stops an encoding between segments (corpus.BPE.EncodeContext):
	// the cell's, set by cellPrompts (spans.PromptTokens takes none); a
	// whole-document chunk of 50 MB is tens of seconds of tiktoken.
	ctx context.Context
	// encoded counts the bytes of text encoded (each chunk's once): the
	// work the prompt tokens cost, whatever the number of queries.
	encoded int
}

// newPromptTokens loads cfg's prompt tokenizer for chunks (of ds's
// documents), indexed by byID (dataset.chunkIndex). Texts are looked up
// when a chunk is counted, not copied into a map of every chunk (issue 27:
// a million chunks).
func newPromptTokens(cfg *Config, ds *dataset, chunks corpus.Chunks, byID *corpus.IDIndex) (*promptTokens, error) {
	bpe, err := corpus.LoadBPE(cfg.PromptTokenizerName())
	if err != nil {
		return nil, fmt.Errorf("prompt_tokenizer: %w", err)
	}
	return &promptTokens{bpe: bpe, ds: ds, chunks: chunks, byID: byID, ids: map[string][]int{}}, nil
}

// text is chunk id's text in its document ("" for an unknown id).
func (p *promptTokens) text(id string) string {
	i, ok := p.byID.Get(id)
	if !ok {
		return ""
	}
	c := p.chunks.At(i)
	t := c.Text
	if i, ok := p.ds.docByID.Get(c.DocID); ok {
		if d := p.ds.docs[i].Text; c.Start >= 0 && c.Start <= c.End && c.End <= len(d) {
			t = d[c.Start:c.End]
		}
	}
	return p.ds.texts.Detach(t) // read back by offset, as fullText says
}

// tokens is the chunk's tokens, encoded the first time it is asked for.
// When p.ctx is cancelled during the encoding they are the tokens of the
// segments done and are not remembered: the caller returns ctx's error.
func (p *promptTokens) tokens(id string) []int {
	ids, ok := p.ids[id]
	if !ok {
		ctx := p.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		t := p.text(id)
		var err error
		ids, err = p.bpe.EncodeContext(ctx, t)
		p.encoded += len(t)
		if err != nil {
			return ids
		}
		p.ids[id] = ids
	}
	return ids
}

// Tokens is the chunk's length in tokens.
func (p *promptTokens) Tokens(id string) int { return len(p.tokens(id)) }

// Prefix is the code points of the chunk's first n tokens, whole
// characters only (corpus.BPE.PrefixBytes).
func (p *promptTokens) Prefix(id string, n int) int {
	t := p.text(id)
	return utf8.RuneCountInString(t[:p.bpe.PrefixBytesOf(t, p.tokens(id), n)])
}

// cellPromptTokens is the size of cell's prompt at prompt_k: the tokens of
// the top prompt_k chunks of its chunk-level run, averaged over the
// answerable queries.
func cellPromptTokens(ctx context.Context, cfg *Config, ds *dataset, pt *promptTokens, chunkRun eval.Run) (*results.PromptTokens, error) {
	out := &results.PromptTokens{Tokenizer: pt.bpe.Name(), K: cfg.PromptK}
	pt.ctx = ctx
	if len(ds.answerable) == 0 {
		return out, nil
	}
	sum := 0
	for _, id := range ds.answerable {
		if err := ctx.Err(); err != nil { // a query's chunks may be a whole document each
			return nil, err
		}
		l := slices.Clone(chunkRun[id])
		kinds.SortResults(l)
		n := 0
		for _, r := range l[:min(cfg.PromptK, len(l))] {
			n += pt.Tokens(r.DocID)
		}
		sum += n
		out.Max = max(out.Max, n)
	}
	if err := ctx.Err(); err != nil { // the last query's tokens may be cut short
		return nil, err
	}
	out.Mean = float64(sum) / float64(len(ds.answerable))
	return out, nil
}

// spanOnlyKeys refuses, without span labels, the keys that measure spans:
// budget_tokens (prompt_budget with it) and cover_shares, each at its line.
func spanOnlyKeys(cfg *Config) error {
	var errs []error
	for _, k := range []struct {
		field string
		set   bool
	}{{"budget_tokens", len(cfg.BudgetTokens) > 0}, {"cover_shares", len(cfg.CoverShares) > 0}} {
		if k.set {
			errs = append(errs, cfg.Errf(k.field, "%s measures span labels: it needs dataset.queries with \"gold_spans\", or Chroma's questions.csv (docs/spans.md)", k.field))
		}
	}
	return errors.Join(errs...)
}

// cellPrompts fills cr's prompt size at prompt_k and, with span labels,
// its measures at the prompt budgets and other cover shares. A cancelled
// ctx stops it between queries or evaluations, with its error.
func cellPrompts(ctx context.Context, cfg *Config, ds *dataset, in cellInputs, cr *results.CellResult) error {
	if in.prompt == nil {
		return nil
	}
	in.prompt.ctx = ctx // cells are scored one after another (cellBudgets' encodings)
	if in.chunkRun != nil {
		pt, err := cellPromptTokens(ctx, cfg, ds, in.prompt, in.chunkRun)
		if err != nil {
			return err
		}
		cr.PromptTokens = pt
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return cellBudgets(ctx, cfg, ds, in, cr)
}

// groupMeans averages per-query values (query id → family → value) over
// each group of ds's answerable queries.
func groupMeans(ds *dataset, per map[string]map[string]float64, families []string) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	for g, ids := range ds.answerableGroups() {
		m := map[string]float64{}
		for _, f := range families {
			sum := 0.0
			for _, id := range ids {
				sum += per[id][f]
			}
			m[f] = sum / float64(len(ids))
		}
		out[g] = m
	}
	return out
}

// cellBudgets fills, with span labels, cr's measures at each prompt
// budget and at the other cover shares (nothing without them).
func cellBudgets(ctx context.Context, cfg *Config, ds *dataset, in cellInputs, cr *results.CellResult) error {
	sc := in.spans
	if sc == nil || in.prompt == nil {
		return nil
	}
	opt := spans.Options{CoverShare: cfg.Dataset.SpanCoverShare, TieBreak: eval.TieDocIDDesc}
	// A budget fills the prompt from the cell's whole ranking (its search
	// depth), not only the evaluation's depth: 2,048 tokens of 100-token
	// chunks need more than a depth of 10.
	ranking := in.run
	if in.chunkRun != nil {
		ranking = in.chunkRun
	}
	if len(cfg.BudgetTokens) > 0 {
		ev, err := spans.EvaluateBudgets(ds.spanQueries, sc.ch, ranking, cfg.BudgetTokens, in.prompt, opt)
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil { // a chunk's tokens may be cut short
			return err
		}
		pb := &results.PromptBudgets{Tokenizer: in.prompt.bpe.Name()}
		for b, tokens := range ev.Budgets {
			per := ev.PerQuery(b)
			chunks := 0
			for _, n := range ev.Chunks[b] {
				chunks += n
			}
			bm := results.BudgetMeans{Tokens: tokens, Means: groupMeans(ds, per, spans.AtK), PerQuery: per, RanOut: len(ev.RanOut[b])}
			if len(ev.Queries) > 0 {
				bm.Chunks = float64(chunks) / float64(len(ev.Queries))
			}
			pb.Budgets = append(pb.Budgets, bm)
		}
		cr.PromptBudgets = pb
	}
	for _, s := range cfg.CoverShares {
		if err := ctx.Err(); err != nil {
			return err
		}
		o := opt
		o.CoverShare, o.Ks = s, []int{cfg.PromptK}
		ev, err := spans.Evaluate(ds.spanQueries, sc.ch, in.run, o)
		if err != nil {
			return err
		}
		cs := results.CoverShareMeans{Share: s, Means: map[string]float64{}}
		for _, f := range []string{spans.SpanRecall, spans.SpanHitRate, spans.SpanMRR} {
			cs.Means[config.MetricName(f, cfg.PromptK)], _ = ev.Mean(spans.MeasureName(f, cfg.PromptK))
		}
		if cfg.PromptBudget > 0 {
			be, err := spans.EvaluateBudgets(ds.spanQueries, sc.ch, ranking, []int{cfg.PromptBudget}, in.prompt, o)
			if err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			for fi, f := range spans.AtK {
				if fi < 3 {
					continue // the token measures do not depend on the share
				}
				if v := be.Values[0][fi]; len(v) > 0 {
					cs.Means[results.BudgetMetricName(f, cfg.PromptBudget)] = stat.Mean(v, nil)
				}
			}
		}
		cr.CoverShares = append(cr.CoverShares, cs)
	}
	return nil
}

// budgetRanOutWarning is the warning of cell cr whose ranking ran out
// before some prompt budgets were full (results.BudgetMeans.RanOut), ""
// when none did: at those budgets its measures are those of a smaller
// prompt, and the chunking verdict at prompt_budget compares unequal
// prompts. depth is the cell's search depth in chunks.
func budgetRanOutWarning(cr *results.CellResult, depth, queries int) string {
	if cr.PromptBudgets == nil {
		return ""
	}
	var short []string
	for _, b := range cr.PromptBudgets.Budgets {
		if b.RanOut > 0 {
			short = append(short, fmt.Sprintf("%d of %d queries at %d tokens", b.RanOut, queries, b.Tokens))
		}
	}
	if len(short) == 0 {
		return ""
	}
	return fmt.Sprintf("cell %s: prompt budgets not filled: the ranking ran out before the budget was full for %s (their prompt holds every chunk searched, %d deep, fewer tokens than the budget; results.json prompt_budgets[].ran_out): raise depth so that the budgets fill, unless the retriever returned fewer chunks than that (BM25 returns only chunks sharing a query word; a corpus may hold fewer), which no depth fills: then compare at a smaller budget (docs/spans.md \"Prompt budgets\")",
		cr.Name, strings.Join(short, ", "), depth)
}

// budgetFamily is the family the chunking verdict at the prompt budget
// compares: the primary metric when it is a span family, else
// span_recall.
func budgetFamily(cfg *Config) string {
	if slices.Contains(spans.AtK, cfg.PrimaryMetric) {
		return cfg.PrimaryMetric
	}
	return spans.SpanRecall
}

// budgetVerdict is the chunking verdict at cfg.PromptBudget (nil without
// a budget or with fewer than two chunkings): each chunking's best cell on
// budgetFamily at the budget (all answerable queries; ties to the earlier
// cell), the winner, and each other best cell tested against the winner
// with the config's test, one correction over those comparisons
// (compare's plan "best").
func budgetVerdict(ctx context.Context, cfg *Config, ds *dataset, res *results.Results) (*results.BudgetVerdict, error) {
	if cfg.PromptBudget == 0 || len(ds.answerable) == 0 {
		return nil, nil
	}
	f := budgetFamily(cfg)
	v := &results.BudgetVerdict{Budget: cfg.PromptBudget, Tokenizer: cfg.PromptTokenizerName(), Metric: f, Correction: cfg.Significance.Correction}
	best := map[string]int{}
	var per = map[string]map[string]float64{} // cell → query → value
	for i := range res.Cells {
		c := &res.Cells[i]
		bm := c.PromptBudgets.At(cfg.PromptBudget)
		if bm == nil {
			continue
		}
		m := bm.Means[results.GroupAll][f]
		j, ok := best[c.Chunking.Name]
		if !ok {
			best[c.Chunking.Name] = len(v.Best)
			v.Best = append(v.Best, results.BudgetBest{Chunking: c.Chunking.Name, Cell: c.Name, Mean: m})
		} else if m > v.Best[j].Mean {
			v.Best[j] = results.BudgetBest{Chunking: c.Chunking.Name, Cell: c.Name, Mean: m}
		}
		col := map[string]float64{}
		for q, vals := range bm.PerQuery {
			col[q] = vals[f]
		}
		per[c.Name] = col
	}
	if len(v.Best) < 2 {
		return nil, nil
	}
	w := 0
	for i, b := range v.Best {
		if b.Mean > v.Best[w].Mean {
			w = i
		}
	}
	v.Winner = v.Best[w].Cell
	metric := results.BudgetMetricName(f, cfg.PromptBudget)
	in := compare.Input{Metrics: []string{metric}, Scores: compare.Scores{}, Queries: ds.answerable}
	for _, b := range v.Best {
		in.Systems = append(in.Systems, b.Cell)
		in.Scores[b.Cell] = map[string]map[string]float64{metric: per[b.Cell]}
	}
	opts, err := cfg.Significance.CompareOptions()
	if err != nil {
		return nil, err
	}
	opts.Plan = compare.Plan{Kind: compare.VsBaseline, Baseline: v.Winner}
	opts.Context = ctx
	rep, err := compare.Compare(in, opts)
	if err != nil {
		return nil, fmt.Errorf("budget verdict: %w", err)
	}
	v.Comparisons = rep.Comparisons
	for _, p := range rep.Pairs {
		v.Tests = append(v.Tests, pairTest(rep, p))
	}
	return v, nil
}
