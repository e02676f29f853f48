package gate

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"

	"github.com/ragbench/ragbench/internal/texttab"
)

// Markdown writes the gate's summary as GitHub-flavoured Markdown, fit for
// a pull-request comment or $GITHUB_STEP_SUMMARY: a heading with the
// outcome ("1 of 3 cells regressed"), the runs compared and the test, a
// table with one row per (cell, metric) — baseline → now, the difference
// with its confidence interval, the corrected p-value and the verdict word
// (bold when regressed) — the cells present in one run only, the notes, and
// per cell a collapsed <details> list of the queries that got most worse
// and most better, with their text: on each metric the cell regressed on
// (said so), else on the first metric. Numbers have 4 decimals; every user
// string (cell names, query texts, labels) is escaped for Markdown tables
// and HTML.
func (r *Result) Markdown(w io.Writer) error {
	var b strings.Builder
	reg := map[string]bool{}
	for _, c := range r.Comparisons {
		if c.Verdict == Regressed {
			reg[c.Cell] = true
		}
	}
	cells := len(r.Input.Cells)
	unit := r.Input.Unit
	if unit == "" {
		unit = "cell"
	}
	if len(reg) > 0 {
		fmt.Fprintf(&b, "## ❌ ragbench gate: %d of %d %s regressed\n\n", len(reg), cells, plural(cells, unit, unit+"s"))
	} else {
		fmt.Fprintf(&b, "## ✅ ragbench gate: no regression (%d %s compared)\n\n", cells, plural(cells, unit, unit+"s"))
	}
	if r.Input.Baseline != "" || r.Input.Current != "" {
		fmt.Fprintf(&b, "Baseline %s → now %s.  \n", orDash(esc(r.Input.Baseline)), orDash(esc(r.Input.Current)))
	}
	o := r.Options
	fmt.Fprintf(&b, "%d shared queries · %s test, %s over %d %s, α = %g", r.Queries, o.Test, o.Correction.Description(), len(r.Comparisons), plural(len(r.Comparisons), "comparison", "comparisons"), o.Alpha)
	if o.UseMaxDrop {
		fmt.Fprintf(&b, " · a drop larger than %g fails", o.MaxDrop)
	}
	b.WriteString(".\n\n")
	fmt.Fprintf(&b, "| %s | metric | baseline | now | Δ (95%% CI) | p (corrected) | verdict |\n", unit)
	b.WriteString("|---|---|---:|---:|---|---:|---|\n")
	for _, c := range r.Comparisons {
		v := string(c.Verdict)
		if c.Verdict == Regressed {
			v = "**regressed**"
		}
		if c.Reason != "" && c.Reason != "significant" {
			v += " (" + c.Reason + ")" // ours: no user string
		}
		fmt.Fprintf(&b, "| %s | %s | %.4f | %.4f | %s [%s, %s] | %s | %s |\n", esc(c.Cell), esc(c.Metric), c.Baseline, c.Current,
			signed(c.Diff), signed(c.CILow), signed(c.CIHigh), pValue(c.PAdjusted), v)
	}
	b.WriteString("\n")
	if len(r.Input.OnlyBaseline) > 0 {
		fmt.Fprintf(&b, "Not gated, in the baseline only: %s.  \n", escList(r.Input.OnlyBaseline))
	}
	if len(r.Input.OnlyCurrent) > 0 {
		fmt.Fprintf(&b, "Not gated, new in this run: %s.  \n", escList(r.Input.OnlyCurrent))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "%s  \n", esc(n))
	}
	for _, ch := range r.shownChanges() {
		if len(ch.Worse) == 0 && len(ch.Better) == 0 {
			continue
		}
		what := html.EscapeString(ch.Metric)
		if ch.regressed {
			what += " (regressed)"
		}
		fmt.Fprintf(&b, "\n<details><summary>%s: the queries that changed most on %s</summary>\n\n", html.EscapeString(ch.Cell), what)
		b.WriteString("| | query | text | baseline | now | Δ |\n|---|---|---|---:|---:|---:|\n")
		for _, q := range ch.Worse {
			fmt.Fprintf(&b, "| worse | %s | %s | %.4f | %.4f | %s |\n", esc(q.QueryID), esc(clip(q.Text, 120)), q.Baseline, q.Current, signed(q.Delta()))
		}
		for _, q := range ch.Better {
			fmt.Fprintf(&b, "| better | %s | %s | %.4f | %.4f | %s |\n", esc(q.QueryID), esc(clip(q.Text, 120)), q.Baseline, q.Current, signed(q.Delta()))
		}
		b.WriteString("\n</details>\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// shownChange is a CellChanges the summary lists, and whether its
// metric regressed.
type shownChange struct {
	CellChanges
	regressed bool
}

// shownChanges picks, per cell, the changes on each metric that regressed,
// or on the first metric when none did.
func (r *Result) shownChanges() []shownChange {
	reg := map[[2]string]bool{}
	for _, c := range r.Comparisons {
		if c.Verdict == Regressed {
			reg[[2]string{c.Cell, c.Metric}] = true
		}
	}
	var out []shownChange
	byCell := map[string][]CellChanges{}
	var order []string
	for _, ch := range r.Changes {
		if _, ok := byCell[ch.Cell]; !ok {
			order = append(order, ch.Cell)
		}
		byCell[ch.Cell] = append(byCell[ch.Cell], ch)
	}
	for _, cell := range order {
		n := len(out)
		for _, ch := range byCell[cell] {
			if reg[[2]string{cell, ch.Metric}] {
				out = append(out, shownChange{ch, true})
			}
		}
		if len(out) == n {
			out = append(out, shownChange{CellChanges: byCell[cell][0]})
		}
	}
	return out
}

// signed formats a difference with an explicit sign and 4 decimals ("−"
// for negative, as the report prints); NaN (an undefined interval) is "–".
func signed(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	if x < 0 {
		return fmt.Sprintf("−%.4f", -x)
	}
	return fmt.Sprintf("+%.4f", x)
}

// pValue prints a p-value with 4 significant digits ("< 0.0001" below).
func pValue(p float64) string {
	if p < 0.0001 {
		return "< 0.0001"
	}
	return fmt.Sprintf("%.4f", p)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// clip shortens s to at most n runes, with "…".
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// esc escapes a user string for the summary: texttab.Escape, the one
// Markdown escape rule (a table cell's | \ and line breaks, and the markup
// a pull-request comment must not read: ` * [ ] _ & < >).
func esc(s string) string { return texttab.Escape(s) }

func escList(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = esc(n)
	}
	return strings.Join(out, ", ")
}
