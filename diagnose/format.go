package diagnose

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/ragbench/ragbench/internal/jsonnum"
	"github.com/ragbench/ragbench/internal/texttab"
)

// Format selects how Attribution.Write and ThresholdReport.Write render.
type Format int

const (
	// Text is aligned plain-text tables for a terminal.
	Text Format = iota
	// Markdown is GitHub-flavoured Markdown tables (for report.md).
	Markdown
)

// Write renders the attribution: the 2×2 table, the rates, the advice
// sentence, the per-slice table, the unanswerable verdicts and the warnings.
func (a *Attribution) Write(w io.Writer, f Format) error {
	var b strings.Builder
	d := a.Depth
	t := a.Overall
	head := func(s string) {
		if f == Markdown {
			fmt.Fprintf(&b, "### %s\n\n", s)
		} else {
			fmt.Fprintf(&b, "%s\n\n", s)
		}
	}
	head(fmt.Sprintf("Failure attribution: retrieved (a gold doc in the top %d) × answer correct", d))
	writeTable(&b, f, []string{"", "correct", "wrong", "total"}, [][]string{
		{fmt.Sprintf("retrieved@%d", d), itoa(t.RetrievedCorrect), itoa(t.RetrievedWrong), itoa(t.Retrieved())},
		{fmt.Sprintf("missed@%d", d), itoa(t.MissedCorrect), itoa(t.MissedWrong), itoa(t.Missed())},
		{"total", itoa(t.Correct()), itoa(t.Wrong()), itoa(t.N())},
	})
	b.WriteString("\n")
	writeTable(&b, f, []string{"measure", "value", "count"}, [][]string{
		{fmt.Sprintf("hit rate@%d", d), rate(t.HitRate()), frac(t.Retrieved(), t.N())},
		{"answer accuracy", rate(t.Accuracy()), frac(t.Correct(), t.N())},
		{"P(correct | retrieved)", rate(t.PCorrectGivenRetrieved()), frac(t.RetrievedCorrect, t.Retrieved())},
		{"P(correct | missed)", rate(t.PCorrectGivenMissed()), frac(t.MissedCorrect, t.Missed())},
	})
	fmt.Fprintf(&b, "\n%s\n", emph(f, a.Advice))
	if a.Slices != nil {
		b.WriteString("\n")
		head("Per slice")
		var rows [][]string
		for _, s := range a.Slices {
			st := s.Table
			dom := "-"
			if st.N() > 0 {
				dom = strings.ReplaceAll(st.Dominant().String(), "_", " ")
			}
			rows = append(rows, []string{s.Slice, itoa(st.N()), rate(st.HitRate()), rate(st.Accuracy()),
				rate(st.PCorrectGivenRetrieved()), rate(st.PCorrectGivenMissed()),
				itoa(st.RetrievedWrong), itoa(st.MissedWrong),
				abst(s.Unanswerable), dom})
		}
		writeTable(&b, f, []string{"slice", "n", fmt.Sprintf("hit@%d", d), "accuracy", "P(c|ret)", "P(c|miss)",
			"ret+wrong", "miss+wrong", "unanswerable ok", "dominant failure"}, rows)
	}
	u := a.Unanswerable
	if n := u.Correct + u.Wrong; n > 0 {
		fmt.Fprintf(&b, "\nUnanswerable queries (no gold in the qrels) with a verdict: %d, of which %d correct (%s) and %d wrong; they are not in the 2×2 table.\n",
			n, u.Correct, pct(u.Correct, n), u.Wrong)
	}
	if len(a.Warnings) > 0 {
		b.WriteString("\nWarnings:\n")
		for _, s := range a.Warnings {
			fmt.Fprintf(&b, "- %s\n", s)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Write renders the report: a quantile table of top-1 scores per group, a
// text histogram (shares within each group as bars) and the suggested
// threshold with its trade-off and the rule that picked it.
func (r *ThresholdReport) Write(w io.Writer, f Format) error {
	var b strings.Builder
	if f == Markdown {
		b.WriteString("### Top-1 scores: answerable vs unanswerable queries\n\n")
	} else {
		b.WriteString("Top-1 scores: answerable vs unanswerable queries\n\n")
	}
	row := func(name string, s ScoreSummary) []string {
		return []string{name, itoa(s.Queries), itoa(s.Scored), num(s.Min), num(s.P10), num(s.P25), num(s.Median), num(s.P75), num(s.P90), num(s.Max)}
	}
	writeTable(&b, f, []string{"queries", "n", "with results", "min", "p10", "p25", "median", "p75", "p90", "max"},
		[][]string{row("answerable", r.Answerable), row("unanswerable", r.Unanswerable)})
	if h := r.Histogram; len(h.Edges) > 1 {
		b.WriteString("\n")
		if f == Markdown {
			b.WriteString("```\n")
		}
		const width = 20
		bar := func(n, total int) string {
			if total == 0 {
				return strings.Repeat(" ", width) + fmt.Sprintf(" %4s %-7s", "-", "")
			}
			if n == 0 {
				return strings.Repeat(" ", width) + fmt.Sprintf(" %4s %-7s", ".", "")
			}
			l := max(1, int(math.Round(float64(width)*float64(n)/float64(total))))
			return strings.Repeat("#", l) + strings.Repeat(" ", width-l) +
				fmt.Sprintf(" %4d %-7s", n, fmt.Sprintf("(%.0f%%)", 100*float64(n)/float64(total)))
		}
		var labels []string
		lw := len("top-1 score")
		for i := 0; i+1 < len(h.Edges); i++ {
			closer := ")"
			if i+2 == len(h.Edges) {
				closer = "]"
			}
			l := fmt.Sprintf("[%s, %s%s", num(h.Edges[i]), num(h.Edges[i+1]), closer)
			labels = append(labels, l)
			lw = max(lw, len(l))
		}
		fmt.Fprintf(&b, "%-*s  %-*s  %s\n", lw, "top-1 score", width+13, fmt.Sprintf("answerable (%d)", r.Answerable.Scored), fmt.Sprintf("unanswerable (%d)", r.Unanswerable.Scored))
		for i, l := range labels {
			fmt.Fprintf(&b, "%-*s  %s  %s\n", lw, l, bar(h.Answerable[i], r.Answerable.Scored), strings.TrimRight(bar(h.Unanswerable[i], r.Unanswerable.Scored), " "))
		}
		if f == Markdown {
			b.WriteString("```\n")
		}
	}
	b.WriteString("\n")
	if s := r.Suggested; s != nil {
		nU, nA := r.Unanswerable.Queries, r.Answerable.Queries
		fmt.Fprintf(&b, "Suggested threshold: return nothing when the top-1 score is below %s. Then %s of unanswerable queries (%d/%d) correctly return nothing, and %s of answerable queries (%d/%d) lose a gold doc from their top %d (%s return nothing in all).\n",
			emph(f, num(s.Threshold)), pctf(s.UnanswerableAbstained), count(s.UnanswerableAbstained, nU), nU,
			pctf(s.AnswerableLostGold), count(s.AnswerableLostGold, nA), nA, r.Depth, pctf(s.AnswerableAbstained))
		b.WriteString("Rule: among the observed top-1 scores, the threshold maximising Youden's J = (share of unanswerable queries returning nothing) − (share of answerable queries losing their gold); ties go to the lower threshold.\n")
	}
	for _, s := range r.Warnings {
		fmt.Fprintf(&b, "Note: %s.\n", s)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// MarshalJSON writes the summary with null for undefined quantiles.
func (s ScoreSummary) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Queries int      `json:"queries"`
		Scored  int      `json:"with_results"`
		Min     *float64 `json:"min"`
		P10     *float64 `json:"p10"`
		P25     *float64 `json:"p25"`
		Median  *float64 `json:"median"`
		P75     *float64 `json:"p75"`
		P90     *float64 `json:"p90"`
		Max     *float64 `json:"max"`
	}{s.Queries, s.Scored, jsonnum.Finite(s.Min), jsonnum.Finite(s.P10), jsonnum.Finite(s.P25), jsonnum.Finite(s.Median), jsonnum.Finite(s.P75), jsonnum.Finite(s.P90), jsonnum.Finite(s.Max)})
}

// MarshalJSON writes the point with null for undefined shares.
func (p ThresholdPoint) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Threshold             float64  `json:"threshold"`
		UnanswerableAbstained *float64 `json:"unanswerable_abstained"`
		AnswerableLostGold    *float64 `json:"answerable_lost_gold"`
		AnswerableAbstained   *float64 `json:"answerable_abstained"`
		J                     *float64 `json:"youden_j"`
	}{p.Threshold, jsonnum.Finite(p.UnanswerableAbstained), jsonnum.Finite(p.AnswerableLostGold), jsonnum.Finite(p.AnswerableAbstained), jsonnum.Finite(p.J)})
}

// writeTable writes an aligned text table or a Markdown table (texttab):
// the first column left-aligned, the others right-aligned.
func writeTable(b *strings.Builder, f Format, header []string, rows [][]string) {
	align := make([]texttab.Align, len(header))
	for i := 1; i < len(align); i++ {
		align[i] = texttab.Right
	}
	t := &texttab.Table{Header: header, Rows: rows, Align: align}
	if f == Markdown {
		t.WriteMarkdown(b)
		return
	}
	t.WriteText(b)
}

// abst formats correct/total verdicts on unanswerable queries, "-" if none.
func abst(a Abstention) string {
	if a.Correct+a.Wrong == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d", a.Correct, a.Correct+a.Wrong)
}

func itoa(n int) string { return fmt.Sprint(n) }

// rate formats a share in [0, 1] with three decimals, "-" when undefined.
func rate(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.3f", v)
}

// num formats a score with four significant digits, "-" when undefined.
func num(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.4g", v)
}

func frac(num, den int) string { return fmt.Sprintf("%d/%d", num, den) }

func pctf(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

// count recovers the integer count behind a share of n.
func count(share float64, n int) int { return int(math.Round(share * float64(n))) }

func emph(f Format, s string) string {
	if f == Markdown {
		return "**" + s + "**"
	}
	return s
}
