package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ragbench/ragbench/config"
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
	var cells []results.CellResult
	for _, c := range r.res.Cells {
		if c.Judged != nil {
			cells = append(cells, c)
		}
	}
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
	r.judgedWarning(cells, pk)
	r.judgedOnly(cells)
	r.holes(cells)
}

// judgedSlices writes judged@prompt_k per slice when there are slices.
func (r *reportWriter) judgedSlices(cells []results.CellResult, pk string) {
	if len(r.ds.Slices) == 0 {
		return
	}
	r.w("%s per slice:\n\n", pk)
	head := []string{"cell"}
	for _, s := range r.ds.Slices {
		head = append(head, mdEscape(s))
	}
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

// judgedWarning warns when two cells the sweep compares (its
// significance pairs) differ by JudgedGap or more in judged@prompt_k,
// naming the widest gaps.
func (r *reportWriter) judgedWarning(cells []results.CellResult, pk string) {
	of := map[string]float64{}
	for _, c := range cells {
		of[c.Name] = c.Judged.Judged[results.GroupAll][pk]
	}
	type gap struct {
		a, b string
		d    float64
	}
	var gaps []gap
	seen := map[[2]string]bool{}
	for _, p := range r.res.Significance.Pairs {
		va, okA := of[p.A]
		vb, okB := of[p.B]
		if !okA || !okB || seen[[2]string{p.A, p.B}] {
			continue
		}
		seen[[2]string{p.A, p.B}] = true
		if d := va - vb; d >= JudgedGap || -d >= JudgedGap {
			if d < 0 {
				gaps = append(gaps, gap{p.B, p.A, -d})
			} else {
				gaps = append(gaps, gap{p.A, p.B, d})
			}
		}
	}
	if len(gaps) == 0 {
		return
	}
	slices.SortStableFunc(gaps, func(x, y gap) int { return cmp.Compare(y.d, x.d) })
	var parts []string
	for i, g := range gaps {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(gaps)-5))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %s vs %s %s (%s)", mdCode(g.a), f4(of[g.a]), mdCode(g.b), f4(of[g.b]), signed(g.d)))
	}
	r.w("**Warning: cells compared at prompt_k = %d differ by %.2f or more in %s**, so those comparisons favour the better-judged cell: %s. Judge what the less-judged cells return (the holes below first), or compare their measures on judged results only (`dataset.judged_only`).\n\n",
		r.pk, JudgedGap, pk, strings.Join(parts, "; "))
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
	table(&r.b, []string{"cell", "query", "rank", "returned", "similar", "gold passage", "text"}, rows)
	if len(all) > maxHolesShown {
		r.w("\n… and %d more.\n", len(all)-maxHolesShown)
	}
	r.w("\n")
}
