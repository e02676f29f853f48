package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ragbench/ragbench/chart"
	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/htmlreport"
	"github.com/ragbench/ragbench/results"
	"github.com/ragbench/ragbench/spans"
)

// JudgedGap is the difference in judged@prompt_k between two cells the
// sweep compares at which report.md warns that the comparison favours the
// better-judged cell. Every unjudged result counts as not relevant: if
// unjudged results were relevant as often as judged ones, a cell judged on
// a tenth fewer of its top k loses up to a tenth of its precision@k to the
// labels, not to its ranking — the size of the differences a sweep is run
// to find (docs/labelling.md works the arithmetic).
const JudgedGap = 0.10

// maxHolesShown is how many holes report.md names.
const maxHolesShown = 10

// judged writes the judged coverage section (results.CellResult.Judged):
// judged@k per cell at every k with holes@prompt_k, judged@prompt_k per
// slice, the warning when cells compared at prompt_k differ by JudgedGap
// or more, the measures on judged results only (dataset.judged_only) and
// the worst holes.
func (r *reportWriter) judged() {
	cells := r.cellsWith(func(c results.CellResult) bool { return c.Judged != nil })
	if len(cells) == 0 {
		return
	}
	pk := config.MetricName("judged", r.pk)
	r.w("## Judged coverage\n\n")
	what := "a judged id (any grade, 0 included)"
	if r.ds.Labels == results.LabelsSpans {
		what = "a chunk overlapping a labelled passage, relevant or judged not relevant (grade 0)"
	}
	r.w("judged@k is the share of a cell's top k that the labels judge — %s — over the results there (ir_measures' Judged@k), averaged over the answerable queries. Every unjudged result counts as not relevant, so a cell returning what the labeller never looked at scores lower than it may deserve. A hole is an unjudged result holding a near-copy of a gold passage (at least %.0f%% similar): probably relevant, counted as not.", what, 100*spans.HoleThreshold)
	if n := r.res.Labels; n != nil {
		r.w(" The labels hold %d judgements, %d of them judged not relevant (grade 0).", n.Judgements, n.NotRelevant)
	}
	r.w("\n\n")
	head := []string{"cell"}
	for _, k := range r.cfg.K {
		head = append(head, config.MetricName("judged", k))
	}
	head = append(head, config.MetricName("holes", r.pk))
	var rows [][]string
	for _, c := range cells {
		row := []string{c.Name}
		for _, k := range r.cfg.K {
			row = append(row, f4(c.Judged.Judged[results.GroupAll][config.MetricName("judged", k)]))
		}
		rows = append(rows, append(row, fmt.Sprint(c.Judged.Holes[results.GroupAll][config.MetricName("holes", r.pk)])))
	}
	table(&r.b, head, rows)
	r.w("\n")
	r.judgedSlices(cells, pk)
	if w := judgedWarning(r.res, mdCode); w != "" {
		first, rest, _ := strings.Cut(w, ", so")
		r.w("**Warning: %s**, so%s\n\n", first, rest)
	}
	r.judgedOnly(cells)
	r.holes(cells)
}

// judgedSlices writes judged@prompt_k per slice when there are slices.
func (r *reportWriter) judgedSlices(cells []results.CellResult, pk string) {
	if len(r.ds.Slices) == 0 {
		return
	}
	r.w("%s per slice:\n\n", pk)
	head := append([]string{"cell"}, r.ds.Slices...) // the table escapes its cells
	var rows [][]string
	for _, c := range cells {
		row := []string{c.Name}
		for _, s := range r.ds.Slices {
			v, ok := c.Judged.Judged[results.SliceGroup(s)][pk]
			row = append(row, map[bool]string{true: f4(v), false: "–"}[ok])
		}
		rows = append(rows, row)
	}
	table(&r.b, head, rows)
	r.w("\n")
}

// judgedGap is a pair of compared cells and their judged@prompt_k, the
// better-judged first.
type judgedGap struct {
	a, b   string
	va, vb float64
}

// judgedGaps are the pairs of cells the sweep compares (its significance
// pairs) whose judged@prompt_k differ by JudgedGap or more, widest first.
func judgedGaps(res *results.Results, pk string) []judgedGap {
	of := map[string]float64{}
	for _, c := range res.Cells {
		if c.Judged != nil {
			of[c.Name] = c.Judged.Judged[results.GroupAll][pk]
		}
	}
	var gaps []judgedGap
	seen := map[[2]string]bool{}
	for _, p := range res.Significance.Pairs {
		va, okA := of[p.A]
		vb, okB := of[p.B]
		if !okA || !okB || seen[[2]string{p.A, p.B}] {
			continue
		}
		seen[[2]string{p.A, p.B}] = true
		switch {
		case va-vb >= JudgedGap:
			gaps = append(gaps, judgedGap{p.A, p.B, va, vb})
		case vb-va >= JudgedGap:
			gaps = append(gaps, judgedGap{p.B, p.A, vb, va})
		}
	}
	slices.SortStableFunc(gaps, func(x, y judgedGap) int { return cmp.Compare(y.va-y.vb, x.va-x.vb) })
	return gaps
}

// judgedWarning is the warning about judgedGaps (code marks cell names:
// mdCode for report.md, or none), "" when there is none.
func judgedWarning(res *results.Results, code func(string) string) string {
	pk := config.MetricName("judged", res.Config.PromptK)
	gaps := judgedGaps(res, pk)
	if len(gaps) == 0 {
		return ""
	}
	var parts []string
	for i, g := range gaps {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(gaps)-5))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %s vs %s %s (%s)", code(g.a), f4(g.va), code(g.b), f4(g.vb), signed(g.va-g.vb)))
	}
	return fmt.Sprintf("cells compared at prompt_k = %d differ by %.2f or more in %s, so those comparisons favour the better-judged cell: %s. Judge what the less-judged cells return (the holes first), or compare their measures on judged results only (dataset.judged_only).",
		res.Config.PromptK, JudgedGap, pk, strings.Join(parts, "; "))
}

// judgedSection is report.html's judged coverage: the warning (for the
// summary, "" when none) and a bar chart of judged@prompt_k per cell;
// ok is false when no cell has judged coverage.
func judgedSection(res *results.Results) (warning string, sec htmlreport.Section, ok bool) {
	pk := config.MetricName("judged", res.Config.PromptK)
	bars := chart.Bars{Title: pk + " per cell", XLabel: "share of the top " + fmt.Sprint(res.Config.PromptK) + " the labels judge", XMin: 0, XMax: 1}
	for _, c := range res.Cells {
		if c.Judged != nil {
			v := c.Judged.Judged[results.GroupAll][pk]
			bars.Bars = append(bars.Bars, chart.Bar{Label: c.Name, Value: v, Low: v, High: v})
		}
	}
	if len(bars.Bars) == 0 {
		return "", sec, false
	}
	if w := judgedWarning(res, func(s string) string { return s }); w != "" {
		warning = "Warning: " + w
	}
	return warning, htmlreport.Section{ID: "judged", Title: "Judged coverage",
		Note:  "judged@k: the share of a cell's top k that the labels judge (ir_measures' Judged@k); unjudged results count as not relevant. report.md lists the holes: unjudged results holding a near-copy of a gold passage.",
		Chart: bars.SVG}, true
}

// judgedOnly writes the primary metric at prompt_k on all results and on
// judged results only, when dataset.judged_only is set.
func (r *reportWriter) judgedOnly(cells []results.CellResult) {
	if cells[0].Judged.JudgedOnly == nil {
		return
	}
	m := config.MetricName(r.cfg.PrimaryMetric, r.pk)
	r.w("%s on judged results only (trec_eval -J: unjudged results removed, those below moving up; `dataset.judged_only`), beside the cell's own; a cell that gains much more than the others was held back by unjudged results:\n\n", m)
	var rows [][]string
	for _, c := range cells {
		all, judged := c.Means[results.GroupAll][m], c.Judged.JudgedOnly[results.GroupAll][m]
		rows = append(rows, []string{c.Name, f4(all), f4(judged), signed(judged - all)})
	}
	table(&r.b, []string{"cell", m, m + " judged only", "difference"}, rows)
	r.w("\n")
}

// holes names the worst holes over all cells: the most similar first,
// each once per cell.
func (r *reportWriter) holes(cells []results.CellResult) {
	type cellHole struct {
		cell string
		results.Hole
	}
	var all []cellHole
	for _, c := range cells {
		for _, h := range c.Judged.HoleList {
			if h.Rank <= r.pk {
				all = append(all, cellHole{c.Name, h})
			}
		}
	}
	if len(all) == 0 {
		r.w("No hole in any cell's top %d.\n\n", r.pk)
		return
	}
	slices.SortStableFunc(all, func(a, b cellHole) int { return cmp.Compare(b.Similarity, a.Similarity) })
	r.w("The worst holes in the top %d (results.json lists each cell's, `judged.hole_list`): unjudged results holding a near-copy of a gold passage. Label them (relevant, or grade 0) and the comparisons stop counting them as misses.\n\n", r.pk)
	var rows [][]string
	for i, h := range all {
		if i == maxHolesShown {
			break
		}
		rows = append(rows, []string{h.cell, mdCode(h.QueryID), fmt.Sprint(h.Rank), mdCode(h.ID), pct(h.Similarity), mdEscape(h.Gold), mdEscape(h.Snippet)})
	}
	// From "query" on the cells are Markdown (code spans, escaped text).
	markupTable(&r.b, []string{"cell", "query", "rank", "returned", "similar", "gold passage", "text"}, rows, 1)
	if len(all) > maxHolesShown {
		r.w("\n… and %d more.\n", len(all)-maxHolesShown)
	}
	r.w("\n")
}
