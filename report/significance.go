package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/ragbench/ragbench/compare"
	"github.com/ragbench/ragbench/htmlreport"
	"github.com/ragbench/ragbench/internal/plural"
	"github.com/ragbench/ragbench/results"
	"github.com/ragbench/ragbench/stats"
)

// maxPlanRows is how many comparisons of one metric report.md lists under
// the all-pairs plan before it keeps only those with a verdict other than
// "no evidence either way" (results.json has them all): 36 cells make 630.
const maxPlanRows = 100

// superscriptSentence explains the main table's labels: letters, or
// numbers separated by commas past 26 cells (compare.Labels); when no
// cell beats another (some false), that no mean has a superscript.
func superscriptSentence(cells, queries int, some bool) string {
	if !some {
		return fmt.Sprintf("No cell beats another significantly on a tested metric (after correction), over the %d answerable %s: no mean has a superscript.", queries, plural.Word(queries, "query", "queries"))
	}
	what := "Superscript letters name"
	if cells > 26 {
		what = "Superscript numbers (separated by commas) name"
	}
	return fmt.Sprintf("%s the cells a cell beats significantly on that metric (after correction), over the %d answerable %s.", what, queries, plural.Word(queries, "query", "queries"))
}

// joinLabels joins the labels a cell beats: "ab" for letters, "1,12" for
// numbers, so that two labels are never read as one.
func joinLabels(ls []string) string {
	for _, l := range ls {
		if len(l) > 1 || (l >= "0" && l <= "9") {
			return strings.Join(ls, ",")
		}
	}
	return strings.Join(ls, "")
}

// significance writes the comparisons of the plan under the main table:
// the plan and its number of comparisons, how the baseline was chosen,
// one table per tested metric (each comparison with its difference, paired
// interval, corrected p and verdict in words), compare's sentences (test,
// correction, intervals, equivalence, ties, what the set can show) and
// the significance warnings (fewer than 20 queries, …). A results.json
// from before plans (no Plan) gets compare's sentences only.
func (r *reportWriter) significance() {
	sig := &r.res.Significance
	if sig.Plan == "" || len(sig.Pairs) == 0 {
		r.notesList(sig.Notes) // before plans, or nothing compared (one cell, no answerable query)
		r.warningList(sig.Warnings)
		return
	}
	notes := sig.Notes
	if len(notes) > 0 && strings.HasPrefix(notes[0], "Plan: ") {
		r.w("%s\n\n", mdEscape(notes[0]))
		notes = notes[1:]
	}
	if sig.Baseline != "" {
		r.w("The baseline, %s, is %s.\n\n", mdCode(sig.Baseline), mdEscape(sig.BaselineRule))
	}
	for _, m := range sig.Metrics {
		r.planTable(sig, m)
	}
	r.notesList(notes)
	r.warningList(sig.Warnings)
}

// warningList writes the significance warnings, if any, as a list.
func (r *reportWriter) warningList(ws []string) {
	if len(ws) > 0 {
		r.w("Warnings:\n\n")
		for _, w := range ws {
			r.w("- %s\n", mdEscape(w))
		}
		r.w("\n")
	}
}

// notesList writes compare's sentences as a list, but the superscript
// sentence, which the report words for cells above the table.
func (r *reportWriter) notesList(notes []string) {
	n := 0
	for _, s := range notes {
		if strings.HasPrefix(s, "A superscript ") {
			continue
		}
		r.w("- %s\n", mdEscape(s))
		n++
	}
	if n > 0 {
		r.w("\n")
	}
}

// planTable writes metric m's comparisons: a caption naming the plan and
// the number of comparisons, then one row per comparison in plan order.
func (r *reportWriter) planTable(sig *results.Significance, m string) {
	var pairs []results.PairTest
	counted, identical := 0, 0
	for _, p := range sig.Pairs {
		if p.Metric != m {
			continue
		}
		pairs = append(pairs, p)
		if p.Counted {
			counted++
		}
		if p.Identical {
			identical++
		}
	}
	what := "all pairs of cells"
	switch compare.PlanKind(sig.Plan) {
	case compare.VsBaseline:
		what = "each cell against the baseline " + mdCode(sig.Baseline)
	case compare.VsBest:
		what = "each cell against the best cell " + mdCode(sig.Reference[m])
	}
	r.w("**%s**: %s — %s, %d counted in the correction", m, what, plural.Count(len(pairs), "comparison", "comparisons"), counted)
	if identical > 0 {
		r.w(", %d identical (unchanged, not counted)", identical)
	}
	r.w(".\n\n")
	shown := pairs
	if compare.PlanKind(sig.Plan) == compare.AllPairs && len(pairs) > maxPlanRows {
		shown = nil
		for _, p := range pairs {
			if p.Verdict != string(compare.NoEvidence) && !p.Identical {
				shown = append(shown, p)
			}
		}
		r.w("The %d comparisons with a verdict other than \"no evidence either way\" or \"unchanged (identical)\" (results.json lists all %d):\n\n", len(shown), len(pairs))
	}
	var rows [][]string
	for _, p := range shown {
		rows = append(rows, []string{p.A, f4(p.MeanA), p.B, f4(p.MeanB), signedZero(p.MeanDiff), interval(p), pAdj(p.PAdjusted, p.Counted), p.Verdict})
	}
	if len(rows) > 0 {
		// The interval's [ ] are ours (Markup): not a link to escape.
		markupTable(&r.b, []string{"cell", m, "vs", "vs " + m, "Δ", "95% CI (" + intervalName(sig.Interval) + ")", "p (corrected)", "verdict"}, rows, 4)
		r.w("\n")
	}
}

// interval is p's interval, "[–, –]" when undefined (fewer than 2
// queries).
func interval(p results.PairTest) string {
	if p.CILow == nil || p.CIHigh == nil {
		return "[–, –]"
	}
	return "[" + signedZero(*p.CILow) + ", " + signedZero(*p.CIHigh) + "]"
}

// intervalName is an interval method's short name in a table header.
func intervalName(method string) string {
	switch stats.IntervalMethod(method) {
	case stats.BCa:
		return "bootstrap BCa"
	case stats.Percentile:
		return "bootstrap percentile"
	case stats.StudentT:
		return "Student t"
	}
	return method
}

// pAdj is a corrected p-value with 4 decimals ("< 0.0001" below), "–" for
// a comparison not counted in the correction.
func pAdj(p float64, counted bool) string {
	switch {
	case !counted:
		return "–"
	case p < 0.0001:
		return "< 0.0001"
	}
	return fmt.Sprintf("%.4f", p)
}

// signedZero writes a difference with 4 decimals and its sign: "+0.0500",
// "−0.0100" (the minus sign), "0.0000" when it rounds to zero.
func signedZero(d float64) string {
	switch s := f4(d); {
	case s == "0.0000" || s == "-0.0000":
		return "0.0000"
	case d < 0:
		return "−" + s[1:]
	default:
		return "+" + s
	}
}

// smallSample is the warning beside an estimate resting on n queries
// (stats.SmallSampleWarning: fewer than stats.SmallSample), as a sentence
// to append, or "".
func smallSample(n int, what string) string {
	if n == 0 {
		return ""
	}
	if w := stats.SmallSampleWarning(n, what); w != "" {
		return " **Warning**: " + w + "."
	}
	return ""
}

// bestCell is a chunking's best cell, with the cells tied with it on the
// tuning queries named ("doc/bm25 (tied: doc/rrf)"): a tie is not a win.
func bestCell(b results.Best) string {
	if len(b.Tied) == 0 {
		return b.Cell
	}
	return b.Cell + " (tied: " + strings.Join(b.Tied, ", ") + ")"
}

// htmlComparisons is report.html's significance view: the plan's
// comparisons on the first tested metric (each cell against the baseline,
// by default), with the plan sentence, how the baseline was chosen, the
// method sentences and the warnings; nil when nothing was compared.
func htmlComparisons(res *results.Results) *htmlreport.Comparisons {
	sig := &res.Significance
	if len(sig.Pairs) == 0 || len(sig.Metrics) == 0 {
		return nil
	}
	m := sig.Metrics[0]
	c := &htmlreport.Comparisons{Metric: m, Interval: intervalName(sig.Interval), Title: "Comparisons of the plan"}
	switch compare.PlanKind(sig.Plan) {
	case compare.VsBaseline:
		c.Title = "Each cell against the baseline " + sig.Baseline
	case compare.VsBest:
		c.Title = "Each cell against the best cell " + sig.Reference[m]
	case compare.AllPairs:
		c.Title = "All pairs of cells"
	}
	for i, n := range sig.Notes {
		if strings.HasPrefix(n, "A superscript ") {
			continue
		}
		c.Notes = append(c.Notes, n)
		if i == 0 && sig.Baseline != "" {
			c.Notes = append(c.Notes, "The baseline, "+sig.Baseline+", is "+sig.BaselineRule+".")
		}
	}
	for _, w := range sig.Warnings {
		c.Notes = append(c.Notes, "Warning: "+w)
	}
	for _, p := range sig.Pairs {
		if p.Metric != m {
			continue
		}
		row := htmlreport.Comparison{A: p.A, B: p.B, MeanA: p.MeanA, MeanB: p.MeanB, Diff: p.MeanDiff,
			Low: math.NaN(), High: math.NaN(), P: pAdj(p.PAdjusted, p.Counted), Verdict: p.Verdict}
		if p.CILow != nil && p.CIHigh != nil {
			row.Low, row.High = *p.CILow, *p.CIHigh
		}
		switch p.Verdict {
		case string(compare.Better):
			row.Class = "win"
		case string(compare.Worse):
			row.Class = "loss"
		}
		c.Rows = append(c.Rows, row)
	}
	return c
}

// smallGroups is report.html's warning on each group of queries whose bars
// rest on fewer than stats.SmallSample queries (a slice, the held-out
// split): their means and intervals are indicative only.
func smallGroups(charts []htmlreport.SliceChart) []string {
	var out []string
	for _, sc := range charts {
		if w := stats.SmallSampleWarning(sc.N, sc.Metric+", "+sc.Group); w != "" {
			out = append(out, "Warning: "+w+".")
		}
	}
	return out
}
