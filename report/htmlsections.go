package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ragbench/ragbench/chart"
	"github.com/ragbench/ragbench/htmlreport"
	"github.com/ragbench/ragbench/results"
	"github.com/ragbench/ragbench/spans"
)

// htmlSections are report.html's parts after the history: the misses'
// causes, the prompt budgets and quality against cost (each when the
// results hold it).
func htmlSections(res *results.Results) []htmlreport.Section {
	var out []htmlreport.Section
	if s := htmlCauses(res); s != nil {
		out = append(out, *s)
	}
	if s := htmlBudgets(res); s != nil {
		out = append(out, *s)
	}
	if s := htmlCost(res); s != nil {
		out = append(out, *s)
	}
	return out
}

func text(s string) htmlreport.TableCell { return htmlreport.TableCell{Text: s, Sort: math.NaN()} }

func num(v float64, format string) htmlreport.TableCell {
	return htmlreport.TableCell{Text: fmt.Sprintf(format, v), Sort: v}
}

// plain is s without the Markdown code spans' backticks.
func plain(s string) string { return strings.ReplaceAll(s, "`", "") }

// htmlCauses is the table of the misses' causes per cell.
func htmlCauses(res *results.Results) *htmlreport.Section {
	var causes []string
	t := &htmlreport.Table{}
	for _, c := range res.Cells {
		mc := c.MissCauses
		if mc == nil {
			continue
		}
		if causes == nil {
			causes = causeList(mc)
			t.Head = append([]string{"cell", "missed"}, causes...)
		}
		row := []htmlreport.TableCell{text(c.Name), num(float64(mc.Missed), "%.0f")}
		for _, cause := range causes {
			row = append(row, num(float64(mc.All[cause]), "%.0f"))
		}
		t.Rows = append(t.Rows, row)
	}
	if causes == nil {
		return nil
	}
	note := fmt.Sprintf("Each miss at k = %d has one cause, the first that applies in this order: %s (docs/misses.md).", res.Config.PromptK, strings.Join(causes, ", "))
	for _, f := range causeFindings(res) {
		note += " " + plain(f)
	}
	return &htmlreport.Section{ID: "miss-causes", Title: "Why the misses were missed", Note: note, Table: t}
}

// htmlBudgets is the budget family across the budgets: a line per
// chunking (its best cell at the prompt budget), and a table of every
// cell.
func htmlBudgets(res *results.Results) *htmlreport.Section {
	cfg := &res.Config
	if len(cfg.BudgetTokens) == 0 {
		return nil
	}
	f := cfg.PrimaryMetric
	if !slices.Contains(spans.AtK, f) {
		f = spans.SpanRecall
	}
	at := cfg.PromptBudget
	best := map[string]*results.CellResult{}
	var order []string
	t := &htmlreport.Table{Head: []string{"cell"}}
	for _, b := range cfg.BudgetTokens {
		t.Head = append(t.Head, f+" @"+strconv.Itoa(b))
	}
	t.Head = append(t.Head, "chunks @"+strconv.Itoa(at))
	for i := range res.Cells {
		c := &res.Cells[i]
		if c.PromptBudgets == nil {
			continue
		}
		v, _ := atBudget(f, at)(c)
		if b := best[c.Chunking.Name]; b == nil {
			order = append(order, c.Chunking.Name)
			best[c.Chunking.Name] = c
		} else if bv, _ := atBudget(f, at)(b); v > bv {
			best[c.Chunking.Name] = c
		}
		row := []htmlreport.TableCell{text(c.Name)}
		for _, bm := range c.PromptBudgets.Budgets {
			row = append(row, num(bm.Means[results.GroupAll][f], "%.4f"))
		}
		if bm := c.PromptBudgets.At(at); bm != nil {
			row = append(row, num(bm.Chunks, "%.2f"))
		} else {
			row = append(row, text(""))
		}
		t.Rows = append(t.Rows, row)
	}
	if len(order) == 0 {
		return nil
	}
	l := chart.Line{Title: fmt.Sprintf("%s by prompt budget (%s tokens)", f, cfg.PromptTokenizerName()), XLabel: "budget (tokens)", YLabel: f, LogX: true, YMin: 0, YMax: 1}
	for _, b := range cfg.BudgetTokens {
		l.XTicks = append(l.XTicks, float64(b))
	}
	for _, ch := range order {
		c := best[ch]
		s := chart.Series{Name: c.Name}
		for _, bm := range c.PromptBudgets.Budgets {
			s.Points = append(s.Points, chart.Point{X: float64(bm.Tokens), Y: bm.Means[results.GroupAll][f]})
		}
		l.Series = append(l.Series, s)
	}
	note := fmt.Sprintf("Chunks are taken in rank order until the budget is full; the chunk that does not fit is cut to the tokens left. One line per chunking: its best cell at the prompt budget of %s tokens.", GroupDigits(at))
	if f := budgetFinding(res); f != "" {
		note += " " + plain(strings.ReplaceAll(strings.ReplaceAll(f, ":\n  - ", ": "), "\n  - ", "; "))
	}
	return &htmlreport.Section{ID: "budgets", Title: "Prompt budgets", Note: note, Chart: l.SVG, Table: t}
}

// htmlCost is the primary metric against the prompt's size at prompt_k,
// the Pareto front marked, and the cost table.
func htmlCost(res *results.Results) *htmlreport.Section {
	cells, quality, tokens, front := costPoints(res)
	if len(cells) == 0 {
		return nil
	}
	cfg := &res.Config
	m := cfg.GateMetric()
	timing := map[string]results.Timing{}
	for _, t := range res.Timings {
		timing[t.Cell] = t
	}
	sc := chart.Scatter{Title: fmt.Sprintf("%s against prompt size at k = %d", m, cfg.PromptK), XLabel: fmt.Sprintf("prompt tokens at k = %d (%s, mean per query)", cfg.PromptK, cells[0].PromptTokens.Tokenizer),
		YLabel: m, FrontName: "Pareto front", YMin: 0, YMax: 1}
	for _, r := range cfg.Retrievers {
		sc.Groups = append(sc.Groups, r.Name)
	}
	t := &htmlreport.Table{Head: []string{"cell", m, fmt.Sprintf("prompt tokens@%d", cfg.PromptK), "query p50 ms", "query p95 ms", "index MB", "front"}}
	for i, c := range cells {
		sc.Points = append(sc.Points, chart.ScatterPoint{X: tokens[i], Y: quality[i], Label: c.Name, Group: retrieverIndex(cfg, c.Retriever.Name), Front: front[i]})
		row := []htmlreport.TableCell{text(c.Name), num(quality[i], "%.4f"), num(tokens[i], "%.0f")}
		if qc := timing[c.Name].QueryCost; qc != nil && qc.Source != results.CostUnknown {
			row = append(row, num(qc.P50ms, "%.1f"), num(qc.P95ms, "%.1f"), num(float64(qc.IndexBytes)/1e6, "%.1f"))
		} else {
			row = append(row, text(""), text(""), text(""))
		}
		star := ""
		if front[i] {
			star = "★"
		}
		row = append(row, text(star))
		t.Rows = append(t.Rows, row)
	}
	note := fmt.Sprintf("Each cell's %s against the size of its prompt at prompt_k. Ringed and joined: the Pareto front, the cells no other cell beats on both (higher %s and fewer prompt tokens). Latency: a hybrid's or rerank's adds its inputs' to its own stage's.", m, m)
	return &htmlreport.Section{ID: "cost", Title: "Quality against cost", Note: note, Chart: sc.SVG, Table: t}
}
