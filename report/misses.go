package report

import (
	"fmt"
	"strings"

	"github.com/ragbench/ragbench/results"
)

// missCauses writes report.md's diagnosis of the misses: the causes per
// cell, per retriever and slice, the majority sentences, and one example
// of each cause.
func (r *reportWriter) missCauses() {
	first := firstOf(r.res.Cells, func(c *results.CellResult) *results.MissCauses { return c.MissCauses })
	if first == nil {
		return
	}
	causes := causeList(first)
	r.w("Each missed %s has one cause, the first that applies in this order: %s (ragbench's docs/misses.md defines them).\n\n", first.Unit, strings.Join(causes, ", "))
	head := append([]string{"cell", "missed"}, causes...)
	var rows [][]string
	for _, c := range r.res.Cells {
		if c.MissCauses == nil {
			continue
		}
		row := []string{c.Name, fmt.Sprint(c.MissCauses.Missed)}
		for _, cause := range causes {
			row = append(row, fmt.Sprint(c.MissCauses.All[cause]))
		}
		rows = append(rows, row)
	}
	table(&r.b, head, rows)
	r.w("\n")
	if sl := slicesOf(r.res); len(sl) > 0 {
		r.w("By slice, each retriever's misses summed over its chunkings:\n\n")
		head := append([]string{"slice", "retriever", "missed"}, causes...)
		var rows [][]string
		for _, s := range sl {
			order, tot := causeTotals(r.res, s, func(c *results.CellResult) string { return c.Retriever.Name })
			for _, name := range order {
				n := 0
				for _, v := range tot[name] {
					n += v
				}
				row := []string{s, name, fmt.Sprint(n)}
				for _, cause := range causes {
					row = append(row, fmt.Sprint(tot[name][cause]))
				}
				rows = append(rows, row)
			}
		}
		table(&r.b, head, rows)
		r.w("\n")
	}
	for _, f := range causeFindings(r.res) {
		r.w("- %s\n", f)
	}
	r.w("\nOne example of each cause (the first in cell order):\n\n")
	seen := map[string]string{} // cause → its example's line
	for _, c := range r.res.Cells {
		for _, m := range c.SpanMisses {
			if dg := m.Diagnosis; dg != nil && seen[dg.Cause] == "" {
				seen[dg.Cause] = fmt.Sprintf("- **%s**: %s, %s %s — passage %s [%d, %d) “%s”: %s\n", dg.Cause, mdCode(c.Name), mdCode(m.QueryID), mdEscape(m.Query),
					mdCode(m.Doc), m.Start, m.End, mdEscape(clip(m.Text, r.cfg.Snippet)), mdEscape(DiagnosisText(dg, r.pk)))
			}
		}
		for _, m := range c.Misses {
			for _, g := range m.Missing {
				if dg := g.Diagnosis; dg != nil && seen[dg.Cause] == "" {
					seen[dg.Cause] = fmt.Sprintf("- **%s**: %s, %s %s — gold %s: %s\n", dg.Cause, mdCode(c.Name), mdCode(m.QueryID), mdEscape(m.Query), mdCode(g.ID), mdEscape(DiagnosisText(dg, r.pk)))
				}
			}
		}
	}
	for _, cause := range results.Causes {
		r.w("%s", seen[cause])
	}
	if len(seen) == 0 {
		r.w("None: no miss.\n")
	}
	r.w("\n")
}

// clip is s cut to n code points ("…" added), white space collapsed.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if rs := []rune(s); len(rs) > n {
		return string(rs[:n]) + "…"
	}
	return s
}
