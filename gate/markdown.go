package gate

import (
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/ragbench/ragbench/internal/plural"
	"github.com/ragbench/ragbench/internal/texttab"
)

// Markdown writes the gate's summary as GitHub-flavoured Markdown, fit for
// a pull-request comment or $GITHUB_STEP_SUMMARY: a heading with the
// outcome ("1 of 3 cells regressed"), the runs compared, the plan and its
// number of comparisons (identical ones reported, not counted), the test,
// correction and interval, a table with one row per (cell, metric) —
// the baseline cell when it has another name (a mapped chunking), baseline
// → now, the difference with its interval, the corrected p ("–" when not
// counted) and the verdict in words (bold when regressed) — what the set
// can show, the cells present in one run only, the notes, and per cell a
// collapsed <details> list of the queries that got most worse and most
// better, with their text: on each metric the cell regressed on (said so),
// else on the first metric. Numbers have 4 decimals. Tables are texttab's
// (every user string escaped by texttab.Escape, the one rule).
func (r *Result) Markdown(w io.Writer) error {
	var b strings.Builder
	reg := map[string]bool{}
	mapped := false
	for _, c := range r.Comparisons {
		if c.Verdict == Regressed {
			reg[c.Cell] = true
		}
		// A cell compared with another baseline cell than its own name (a
		// mapped chunking) gets a column naming it, unless that is the
		// baseline the heading names (bench compare --gate's runs).
		mapped = mapped || c.From != c.Cell && c.From != r.Input.Baseline
	}
	cells := len(r.Input.Cells)
	unit := r.Input.Unit
	if unit == "" {
		unit = "cell"
	}
	if len(reg) > 0 {
		fmt.Fprintf(&b, "## ❌ ragbench gate: %d of %d %s regressed\n\n", len(reg), cells, plural.Word(cells, unit, unit+"s"))
	} else if un := r.Input.Uncompared(); un != "" {
		// Not a pass: what changed was not compared (exit 0 with this
		// warning, docs/ci.md).
		what := plural.Word(cells, unit, unit+"s") + " compared"
		if same := r.allSame(); same != "" {
			what += " " + same
		}
		fmt.Fprintf(&b, "## ⚠️ ragbench gate: no regression in the %d %s, but %s\n\n", cells, what, esc(un))
	} else {
		fmt.Fprintf(&b, "## ✅ ragbench gate: no regression (%d %s compared)\n\n", cells, plural.Word(cells, unit, unit+"s"))
	}
	if un := r.Input.Uncompared(); un != "" && len(reg) > 0 {
		fmt.Fprintf(&b, "Warning: %s.  \n", esc(un))
	}
	if r.Input.Baseline != "" || r.Input.Current != "" {
		fmt.Fprintf(&b, "Baseline %s → now %s.  \n", orDash(esc(r.Input.Baseline)), orDash(esc(r.Input.Current)))
	}
	var power []string
	for i, s := range r.Sentences {
		switch {
		case strings.HasPrefix(s, "What "):
			power = append(power, s)
		case i == 0: // the plan
			fmt.Fprintf(&b, "%s  \n", esc(s))
			o := r.Options
			fmt.Fprintf(&b, "%d shared queries · %s test, %s over %d counted %s, α = %g", r.Queries, o.Test, o.Correction.Description(), r.Counted, plural.Word(r.Counted, "comparison", "comparisons"), o.Alpha)
			if o.UseMaxDrop {
				fmt.Fprintf(&b, " · a drop larger than %g fails", o.MaxDrop)
			}
			b.WriteString(".  \n")
		default:
			fmt.Fprintf(&b, "%s  \n", esc(s))
		}
	}
	b.WriteString("\n")
	t := texttab.Table{Header: []string{unit}}
	if mapped {
		t.Header = append(t.Header, "baseline "+unit)
	}
	t.Header = append(t.Header, "metric", "baseline", "now", "Δ (95% CI)", "p (corrected)", "verdict")
	n := len(t.Header)
	t.Align, t.Markup = make([]texttab.Align, n), make([]bool, n)
	t.Align[n-5], t.Align[n-4], t.Align[n-2] = texttab.Right, texttab.Right, texttab.Right
	t.Markup[n-3], t.Markup[n-2], t.Markup[n-1] = true, true, true // ours: the interval's [ ], "< 0.0001", **regressed**
	for _, c := range r.Comparisons {
		v := r.VerdictText(c)
		if c.Verdict == Regressed {
			v = "**regressed**"
		}
		if c.Reason != "" && c.Reason != "significant" {
			v += " (" + c.Reason + ")" // ours: no user string
		}
		row := []string{c.Cell}
		if mapped {
			row = append(row, c.From)
		}
		ci := "[–, –]"
		if c.CIDefined {
			ci = "[" + signed(c.CILow) + ", " + signed(c.CIHigh) + "]"
		}
		p := "–"
		if c.Counted {
			p = pValue(c.PAdjusted)
		}
		t.AddRow(append(row, c.Metric, fmt.Sprintf("%.4f", c.Baseline), fmt.Sprintf("%.4f", c.Current), signed(c.Diff)+" "+ci, p, v)...)
	}
	t.WriteMarkdown(&b) // a strings.Builder does not fail
	b.WriteString("\n")
	for _, c := range r.Comparisons {
		if c.Floor != "" { // why "no evidence either way" though the interval may exclude 0
			fmt.Fprintf(&b, "%s, %s: %s.  \n", esc(c.Cell), esc(c.Metric), c.Floor)
		}
	}
	for _, s := range power {
		fmt.Fprintf(&b, "%s  \n", esc(s))
	}
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
		qt := texttab.Table{Header: []string{"", "query", "text", "baseline", "now", "Δ"}, Align: []texttab.Align{texttab.Left, texttab.Left, texttab.Left, texttab.Right, texttab.Right, texttab.Right}}
		for _, q := range ch.Worse {
			qt.AddRow("worse", q.QueryID, clip(q.Text, 120), fmt.Sprintf("%.4f", q.Baseline), fmt.Sprintf("%.4f", q.Current), signed(q.Delta()))
		}
		for _, q := range ch.Better {
			qt.AddRow("better", q.QueryID, clip(q.Text, 120), fmt.Sprintf("%.4f", q.Baseline), fmt.Sprintf("%.4f", q.Current), signed(q.Delta()))
		}
		qt.WriteMarkdown(&b)
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
// for negative, as the report prints). An undefined interval is not a
// NaN: callers check Comparison.CIDefined and print "[–, –]".
func signed(x float64) string {
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

// allSame is "(all identical)" when every comparison found the same score
// on every query (nothing that changed was compared), else "".
func (r *Result) allSame() string {
	if len(r.Comparisons) == 0 || r.Counted > 0 {
		return ""
	}
	return "(all identical)"
}
