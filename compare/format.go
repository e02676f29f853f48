package compare

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ragbench/ragbench/internal/jsonnum"
	"github.com/ragbench/ragbench/internal/plural"
	"github.com/ragbench/ragbench/internal/texttab"
	"github.com/ragbench/ragbench/stats"
)

// Format is an output format of Report.Write; the string values are the
// ones accepted by bench compare --format.
type Format string

// The formats of Report.Write.
const (
	// Table is an aligned plain-text table for terminals (Unicode
	// superscript letters), followed by the notes and the pairwise table.
	Table Format = "table"
	// Markdown renders the same content as GitHub-flavoured Markdown tables
	// (<sup> letters, best mean per metric in bold).
	Markdown Format = "md"
	// LaTeX renders a booktabs tabular with $^{ab}$ letters and the best mean
	// per metric in bold, preceded by the notes as % comments.
	LaTeX Format = "latex"
	// CSV writes one row per comparison with the JSON pair fields as header.
	CSV Format = "csv"
	// JSON writes the whole report; "pairs" holds one object per comparison
	// (a, b, metric, n, mean_a, mean_b, statistic, p, p_adjusted,
	// significant, ci_low, ci_high, …). Undefined numbers are null.
	JSON Format = "json"
)

// ParseFormat returns the Format named s ("markdown" and "tex" are aliases),
// or an error listing the valid names.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "table", "text", "":
		return Table, nil
	case "md", "markdown":
		return Markdown, nil
	case "latex", "tex":
		return LaTeX, nil
	case "csv":
		return CSV, nil
	case "json":
		return JSON, nil
	}
	return "", fmt.Errorf("unknown format %q (want one of table, md, latex, csv, json)", s)
}

// Write renders r to w in format f. Errors come from w or an unknown format.
func (r *Report) Write(w io.Writer, f Format) error {
	switch f {
	case Table, "":
		return r.writeText(w, false)
	case Markdown:
		return r.writeText(w, true)
	case LaTeX:
		return r.writeLaTeX(w)
	case CSV:
		return r.writeCSV(w)
	case JSON:
		return r.writeJSON(w)
	}
	return fmt.Errorf("unknown format %q", f)
}

var superscripts = map[rune]string{
	'a': "ᵃ", 'b': "ᵇ", 'c': "ᶜ", 'd': "ᵈ", 'e': "ᵉ", 'f': "ᶠ", 'g': "ᵍ", 'h': "ʰ", 'i': "ⁱ",
	'j': "ʲ", 'k': "ᵏ", 'l': "ˡ", 'm': "ᵐ", 'n': "ⁿ", 'o': "ᵒ", 'p': "ᵖ", 'r': "ʳ", 's': "ˢ",
	't': "ᵗ", 'u': "ᵘ", 'v': "ᵛ", 'w': "ʷ", 'x': "ˣ", 'y': "ʸ", 'z': "ᶻ",
	'0': "⁰", '1': "¹", '2': "²", '3': "³", '4': "⁴", '5': "⁵", '6': "⁶", '7': "⁷", '8': "⁸", '9': "⁹",
	',': "·",
}

// beatLetters returns the labels of the systems that system s beats on
// metric m, joined ("ab") when every label is one letter, else
// comma-separated ("1,12"; "¹·¹²" as superscript), so that a label is never
// read as two.
func (r *Report) beatLetters(s, m int) string {
	var ls []string
	long := false
	for _, j := range r.Beats[s][m] {
		ls = append(ls, r.Letters[j])
		long = long || len(r.Letters[j]) > 1
	}
	if long {
		return strings.Join(ls, ",")
	}
	return strings.Join(ls, "")
}

func superscript(s string) string {
	var b strings.Builder
	for _, c := range s {
		if sup, ok := superscripts[c]; ok {
			b.WriteString(sup)
		} else {
			b.WriteString("^" + string(c))
		}
	}
	return b.String()
}

// best returns, per metric, the index of the system with the highest mean
// (-1 when tied at the top).
func (r *Report) best() []int {
	out := make([]int, len(r.Metrics))
	for m := range r.Metrics {
		out[m] = -1
		top := math.Inf(-1)
		for s := range r.Systems {
			switch v := r.Means[s][m]; {
			case v > top:
				top, out[m] = v, s
			case v == top:
				out[m] = -1
			}
		}
	}
	return out
}

func fmtP(p float64) string {
	if p < 1e-4 {
		return strconv.FormatFloat(p, 'e', 1, 64)
	}
	return strconv.FormatFloat(p, 'f', 4, 64)
}

func fmtF(v float64, prec int) string {
	if math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Notes returns the explanatory sentences of a report made with the zero
// Plan, as before plans: the test, the correction and how many comparisons
// it covered, how to read the letters, one minimum-detectable-difference
// sentence per metric at the uncorrected α. The sweep's report shows them
// until it states a plan. Deprecated: use Summary, which states the plan,
// the intervals and what the set can show under the plan.
func (r *Report) Notes() []string {
	o := r.Options
	notes := []string{r.testSentence()}
	mode := "all pairs"
	if o.Baseline != "" {
		mode = "each system against baseline " + o.Baseline
	}
	pairs := 0
	if len(r.Metrics) > 0 {
		pairs = r.Comparisons / len(r.Metrics)
	}
	notes = append(notes, fmt.Sprintf("Correction: %s over %s (%s: %s × %s); significant when the adjusted p ≤ %g.",
		o.Correction.Description(), plural.Count(r.Comparisons, "comparison", "comparisons"), mode, plural.Count(pairs, "pair", "pairs"), plural.Count(len(r.Metrics), "metric", "metrics"), o.Alpha))
	notes = append(notes, r.labelSentence())
	for _, m := range r.MDD {
		if m.Pairs == 0 {
			continue
		}
		notes = append(notes, r.mddNote(m))
	}
	return notes
}

// testSentence names the test, its samples and seed.
func (r *Report) testSentence() string {
	o := r.Options
	test := "Test: " + o.Test.Description()
	switch o.Test {
	case stats.Randomization:
		test += fmt.Sprintf(", exact enumeration when ≤ %d queries differ, else %s random sign flips (p = (b+1)/(B+1))", stats.DefaultExactMaxN, thousands(o.Permutations))
	case stats.Tukey:
		test += fmt.Sprintf(", %s permutations", thousands(o.Permutations))
	case stats.Bootstrap:
		test += fmt.Sprintf(", %s resamples", thousands(o.Resamples))
	}
	if o.Test == stats.Randomization || o.Test == stats.Tukey || o.Test == stats.Bootstrap {
		test += fmt.Sprintf(", seed %d", o.Seed)
	}
	return test + "."
}

// labelSentence says how to read the superscripts.
func (r *Report) labelSentence() string {
	n := r.noun()
	if len(r.Systems) > 26 {
		return "A superscript number marks a " + n + " that is significantly better than the " + n + " with that number (numbers separated by commas, · in plain text)."
	}
	return "A superscript letter marks a " + n + " that is significantly better than the " + n + " with that letter."
}

// mddNote is the minimum-detectable-difference sentence of one metric.
// The MDD scales with the standard deviation of the per-query differences,
// so a pair whose differences are all equal (no per-query variance: two
// identical runs, or one run shifted by a constant) has no MDD to speak of
// (stats gives 0; a standard deviation up to flatSD, float rounding of a
// constant shift, counts as none): instead of "the minimum detectable difference is 0.000" the
// sentence says the MDD is undefined, for the metric when every pair is so,
// else the median and range are over the other pairs and the rest are
// counted.
func (r *Report) mddNote(m MDDSummary) string {
	var v []float64
	flat := 0
	for _, p := range r.Pairs {
		switch {
		case p.Metric != m.Metric || p.N < 2:
		case p.Effect.MDD == 0 || p.Effect.SD <= flatSD:
			flat++
		default:
			v = append(v, p.Effect.MDD)
		}
	}
	power := fmt.Sprintf("at 80%% power (paired t, α = %g)", r.Options.Alpha)
	if len(v) == 0 {
		what := "the pair's"
		if flat > 1 {
			what = fmt.Sprintf("all %d pairs'", flat)
		}
		return fmt.Sprintf("With %d queries, the minimum detectable difference in %s is undefined (no per-query variance: %s per-query differences are all equal, as between identical runs).", m.N, m.Metric, what)
	}
	slices.Sort(v)
	med := v[len(v)/2]
	if len(v)%2 == 0 {
		med = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	// The MDD is the true difference the test finds 80 % of the time, not
	// a floor below which differences are noise: a smaller observed
	// difference can still be significant.
	s := fmt.Sprintf("With %d queries, the minimum detectable difference in %s %s is %.3f", m.N, m.Metric, power, med)
	var extra []string
	if len(v) > 1 {
		extra = append(extra, fmt.Sprintf("median over %d pairs, range %.3f–%.3f", len(v), v[0], v[len(v)-1]))
	}
	if flat > 0 {
		extra = append(extra, fmt.Sprintf("undefined for %d other %s with no per-query variance", flat, plural.Word(flat, "pair", "pairs")))
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, "; ") + ")"
	}
	return s + ": smaller true differences are likely to be missed."
}

// AllWarnings returns the report's warnings, then the distinct warnings
// of the pairs, each with the number of comparisons it applies to ("… (1
// of 3 comparisons)"): the warnings every format prints.
func (r *Report) AllWarnings() []string { return r.allWarnings() }

func (r *Report) allWarnings() []string {
	out := append([]string(nil), r.Warnings...)
	count := map[string]int{}
	var order []string
	for _, p := range r.Pairs {
		for _, w := range p.Warnings {
			if count[w] == 0 {
				order = append(order, w)
			}
			count[w]++
		}
	}
	for _, w := range order {
		out = append(out, fmt.Sprintf("%s (%d of %s)", w, count[w], plural.Count(len(r.Pairs), "comparison", "comparisons")))
	}
	return out
}

func (r *Report) writeText(w io.Writer, md bool) error {
	var buf bytes.Buffer
	best := r.best()
	cell := func(s, m int) string {
		v := fmtF(r.Means[s][m], 4)
		l := r.beatLetters(s, m)
		if md {
			if best[m] == s {
				v = "**" + v + "**"
			}
			if l != "" {
				v += "<sup>" + l + "</sup>"
			}
			return v
		}
		return v + superscript(l)
	}
	// Systems named by their own letters ("a", "b") get one column: "a a"
	// would say the same twice.
	own := true
	for s, name := range r.Systems {
		own = own && name == r.Letters[s]
	}
	systems := &texttab.Table{Header: append([]string{"", "System"}, r.Metrics...)}
	if own {
		systems.Header = systems.Header[1:]
	}
	for s, name := range r.Systems {
		row := []string{r.Letters[s], name}
		if own {
			row = row[1:]
		}
		for m := range r.Metrics {
			row = append(row, cell(s, m))
		}
		systems.AddRow(row...)
	}
	pairs := &texttab.Table{Header: []string{"Metric", "A", "B", "Mean A", "Mean B", "A − B", "95% CI", "d_z", "W/T/L", "p", "p adj.", "Sig.", "Verdict"}}
	for _, p := range r.Pairs {
		pairs.AddRow(append(pairCells(p), r.VerdictText(p))...)
	}
	// The two layouts differ only in spacing: Markdown separates paragraphs
	// and list items by blank lines, text indents its list.
	sep, item, warnHead := "\n", "  - ", "\nWarnings:\n"
	if md {
		sep, item, warnHead = "\n\n", "- ", "Warnings:\n\n"
		systems.Align = make([]texttab.Align, len(systems.Header))
		systems.Markup = make([]bool, len(systems.Header))
		for i := len(systems.Header) - len(r.Metrics); i < len(systems.Align); i++ {
			systems.Align[i], systems.Markup[i] = texttab.Right, true // **best**<sup>ab</sup>
		}
		systems.WriteMarkdown(&buf)
	} else {
		systems.WriteText(&buf)
	}
	buf.WriteString("\n")
	for _, n := range r.Summary() {
		buf.WriteString(n + sep)
	}
	if ws := r.allWarnings(); len(ws) > 0 {
		buf.WriteString(warnHead)
		for _, x := range ws {
			buf.WriteString(item + x + "\n")
		}
		if md {
			buf.WriteString("\n")
		}
	}
	switch {
	case len(r.Pairs) == 0:
	case md:
		R, L := texttab.Right, texttab.Left
		pairs.Align = []texttab.Align{L, L, L, R, R, R, L, R, L, R, R, L, L}
		pairs.Markup = []bool{6: true} // the interval's [ ], ours: not a link to escape
		pairs.WriteMarkdown(&buf)
	default:
		buf.WriteString("\n")
		pairs.WriteText(&buf)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func pairCells(p Pair) []string {
	e := p.Effect
	sig := ""
	if p.Significant {
		sig = "yes"
	}
	return []string{
		p.Metric, p.A, p.B, fmtF(p.MeanA, 4), fmtF(p.MeanB, 4), fmtSigned(e.MeanDiff),
		fmtInterval(p.CI), dz(e),
		fmt.Sprintf("%d/%d/%d", e.Wins, e.Ties, e.Losses), fmtP(p.P), fmtP(p.PAdjusted), sig,
	}
}

// fmtInterval formats an interval as "[low, high]", "[–, –]" when it is
// undefined.
func fmtInterval(iv stats.Interval) string {
	if !iv.Defined {
		return "[–, –]"
	}
	return "[" + fmtSigned(iv.Low) + ", " + fmtSigned(iv.High) + "]"
}

// fmtSigned formats a difference with 4 decimals and, when negative, the
// minus sign "−" (U+2212) of every other table (report.md's, the gate's);
// "0.0000" when it rounds to zero.
func fmtSigned(v float64) string {
	return minus(fmtF(v, 4))
}

// minus replaces the leading ASCII hyphen of a formatted number with the
// minus sign "−"; a value rounding to zero ("-0.0000") loses its sign.
func minus(s string) string {
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		if strings.Trim(rest, "0.") == "" {
			return rest
		}
		return "−" + rest
	}
	return s
}

func latexEscape(s string) string {
	r := strings.NewReplacer(`\`, `\textbackslash{}`, "&", `\&`, "%", `\%`, "$", `\$`, "#", `\#`, "_", `\_`, "{", `\{`, "}", `\}`, "~", `\textasciitilde{}`, "^", `\textasciicircum{}`)
	return r.Replace(s)
}

func (r *Report) writeLaTeX(w io.Writer) error {
	var b bytes.Buffer
	for _, n := range r.Summary() {
		b.WriteString("% " + n + "\n")
	}
	for _, x := range r.allWarnings() {
		b.WriteString("% Warning: " + x + "\n")
	}
	best := r.best()
	b.WriteString("\\begin{tabular}{ll" + strings.Repeat("r", len(r.Metrics)) + "}\n\\toprule\n & System")
	for _, m := range r.Metrics {
		b.WriteString(" & " + latexEscape(m))
	}
	b.WriteString(" \\\\\n\\midrule\n")
	for s, name := range r.Systems {
		fmt.Fprintf(&b, "%s & %s", r.Letters[s], latexEscape(name))
		for m := range r.Metrics {
			v := fmtF(r.Means[s][m], 4)
			if best[m] == s {
				v = "\\textbf{" + v + "}"
			}
			if l := r.beatLetters(s, m); l != "" {
				v += "$^{" + l + "}$"
			}
			b.WriteString(" & " + v)
		}
		b.WriteString(" \\\\\n")
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n")
	_, err := w.Write(b.Bytes())
	return err
}

// jsonPair is the JSON (and CSV) form of a Pair; NaN and ±Inf become null.
type jsonPair struct {
	A           string   `json:"a"`
	B           string   `json:"b"`
	Metric      string   `json:"metric"`
	N           int      `json:"n"`
	MeanA       *float64 `json:"mean_a"`
	MeanB       *float64 `json:"mean_b"`
	MeanDiff    *float64 `json:"mean_diff"`
	Statistic   *float64 `json:"statistic"`
	P           *float64 `json:"p"`
	PAdjusted   *float64 `json:"p_adjusted"`
	Significant bool     `json:"significant"`
	CILow       *float64 `json:"ci_low"`
	CIHigh      *float64 `json:"ci_high"`
	CIMethod    string   `json:"ci_method"`
	DZ          *float64 `json:"d_z"`
	Wins        int      `json:"wins"`
	Ties        int      `json:"ties"`
	Losses      int      `json:"losses"`
	MDD         *float64 `json:"mdd"`
	Exact       bool     `json:"exact"`
	Samples     int      `json:"samples"`
	Verdict     string   `json:"verdict"`
	Identical   bool     `json:"identical"`
	Counted     bool     `json:"counted"`
	PEquiv      *float64 `json:"p_equivalence"`
	PEquivAdj   *float64 `json:"p_equivalence_adjusted"`
	Needed      *int     `json:"queries_needed"`
	Warnings    []string `json:"warnings,omitempty"`
}

// num is a number for JSON: null when NaN or infinite (jsonnum.Finite).
func num(v float64) *float64 { return jsonnum.Finite(v) }

// toJSONPair is p's JSON form: the interval is the comparison's bootstrap
// interval (null when undefined), mdd the plan-level MDD (null when
// undefined), p_equivalence null without a margin, queries_needed null
// when not computed.
func (r *Report) toJSONPair(p Pair) jsonPair {
	e := p.Effect
	j := jsonPair{
		A: p.A, B: p.B, Metric: p.Metric, N: p.N, MeanA: num(p.MeanA), MeanB: num(p.MeanB),
		MeanDiff: num(e.MeanDiff), Statistic: num(p.Statistic), P: num(p.P), PAdjusted: num(p.PAdjusted),
		Significant: p.Significant, CIMethod: string(p.CI.Method), Wins: e.Wins, Ties: e.Ties, Losses: e.Losses,
		Exact: p.Exact, Samples: p.Samples, Verdict: r.VerdictText(p), Identical: p.Identical, Counted: p.Counted,
		Warnings: p.Warnings,
	}
	if p.CI.Defined {
		j.CILow, j.CIHigh = num(p.CI.Low), num(p.CI.High)
	}
	if e.DZDefined {
		j.DZ = num(e.DZ)
	}
	if p.N >= 2 && e.SD > flatSD {
		j.MDD = num(p.MDD)
	}
	if r.Options.Equivalence > 0 {
		j.PEquiv, j.PEquivAdj = num(p.Equivalence.P), num(p.PEquivalenceAdjusted)
	}
	if p.Needed > 0 {
		j.Needed = &p.Needed
	}
	return j
}

func (r *Report) writeJSON(w io.Writer) error {
	type system struct {
		Name   string              `json:"name"`
		Letter string              `json:"letter"`
		Means  map[string]*float64 `json:"means"`
		Beats  map[string][]string `json:"beats"`
	}
	doc := struct {
		Test         stats.Test          `json:"test"`
		Correction   stats.Correction    `json:"correction"`
		Alpha        float64             `json:"alpha"`
		Permutations int                 `json:"permutations"`
		Resamples    int                 `json:"resamples"`
		Seed         uint64              `json:"seed"`
		Plan         PlanKind            `json:"plan"`
		Baseline     string              `json:"baseline,omitempty"`
		Reference    map[string]string   `json:"reference,omitempty"`
		Interval     string              `json:"interval"`
		Equivalence  float64             `json:"equivalence_margin"`
		Detect       float64             `json:"detect"`
		Comparisons  int                 `json:"comparisons"`
		Identical    int                 `json:"identical"`
		Ties         map[string][]string `json:"ties_for_best"`
		Metrics      []string            `json:"metrics"`
		Queries      map[string]int      `json:"queries"`
		Systems      []system            `json:"systems"`
		Pairs        []jsonPair          `json:"pairs"`
		Notes        []string            `json:"notes"`
		Warnings     []string            `json:"warnings"`
	}{
		Test: r.Options.Test, Correction: r.Options.Correction, Alpha: r.Options.Alpha,
		Permutations: r.Options.Permutations, Resamples: r.Options.Resamples, Seed: r.Options.Seed,
		Plan: r.Plan.Kind, Baseline: r.Plan.Baseline, Interval: string(r.Options.Interval), Equivalence: r.Options.Equivalence,
		Detect: r.Options.Detect, Comparisons: r.Comparisons, Identical: r.Identical, Metrics: r.Metrics,
		Queries: map[string]int{}, Ties: map[string][]string{}, Pairs: []jsonPair{}, Notes: r.Summary(), Warnings: r.allWarnings(),
	}
	if doc.Plan == "" {
		doc.Plan = AllPairs
	}
	doc.Reference = r.ReferenceNames()
	maps.Copy(doc.Ties, r.TieNames())
	if doc.Warnings == nil {
		doc.Warnings = []string{}
	}
	for m, name := range r.Metrics {
		doc.Queries[name] = r.Queries[m]
	}
	for s, name := range r.Systems {
		sys := system{Name: name, Letter: r.Letters[s], Means: map[string]*float64{}, Beats: map[string][]string{}}
		for m, metric := range r.Metrics {
			sys.Means[metric] = num(r.Means[s][m])
			beats := []string{}
			for _, j := range r.Beats[s][m] {
				beats = append(beats, r.Systems[j])
			}
			sys.Beats[metric] = beats
		}
		doc.Systems = append(doc.Systems, sys)
	}
	for _, p := range r.Pairs {
		doc.Pairs = append(doc.Pairs, r.toJSONPair(p))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// ReferenceNames maps each metric to its reference system's name (the
// baseline, or the best system of the metric); nil for all pairs.
func (r *Report) ReferenceNames() map[string]string {
	var out map[string]string
	for m, ref := range r.Reference {
		if ref >= 0 {
			if out == nil {
				out = map[string]string{}
			}
			out[r.Metrics[m]] = r.Systems[ref]
		}
	}
	return out
}

// TieNames maps each metric with systems tied at the highest mean to their
// names, in input order; nil when no metric has a tie.
func (r *Report) TieNames() map[string][]string {
	var out map[string][]string
	for m, tie := range r.Ties {
		for _, s := range tie {
			if out == nil {
				out = map[string][]string{}
			}
			out[r.Metrics[m]] = append(out[r.Metrics[m]], r.Systems[s])
		}
	}
	return out
}

// csvHeader lists the CSV columns, named as the JSON pair fields.
var csvHeader = []string{"a", "b", "metric", "n", "mean_a", "mean_b", "mean_diff", "statistic", "p", "p_adjusted",
	"significant", "ci_low", "ci_high", "ci_method", "d_z", "wins", "ties", "losses", "mdd", "exact", "samples", "test", "correction", "warnings",
	"verdict", "identical", "counted", "p_equivalence", "p_equivalence_adjusted", "queries_needed"}

func (r *Report) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	f := func(v *float64) string {
		if v == nil {
			return ""
		}
		return strconv.FormatFloat(*v, 'g', -1, 64)
	}
	for _, p := range r.Pairs {
		j := r.toJSONPair(p)
		rec := []string{j.A, j.B, j.Metric, strconv.Itoa(j.N), f(j.MeanA), f(j.MeanB), f(j.MeanDiff), f(j.Statistic),
			f(j.P), f(j.PAdjusted), strconv.FormatBool(j.Significant), f(j.CILow), f(j.CIHigh), j.CIMethod, f(j.DZ),
			strconv.Itoa(j.Wins), strconv.Itoa(j.Ties), strconv.Itoa(j.Losses), f(j.MDD), strconv.FormatBool(j.Exact),
			strconv.Itoa(j.Samples), string(r.Options.Test), string(r.Options.Correction), strings.Join(j.Warnings, "; "),
			j.Verdict, strconv.FormatBool(j.Identical), strconv.FormatBool(j.Counted), f(j.PEquiv), f(j.PEquivAdj), needed(j.Needed)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// dz formats Cohen's d_z, "–" when it is undefined (n < 2, or constant
// non-zero differences).
func dz(e stats.Effect) string {
	if !e.DZDefined {
		return "–"
	}
	return minus(fmtF(e.DZ, 2))
}

// needed formats an optional query count for CSV ("" when nil).
func needed(n *int) string {
	if n == nil {
		return ""
	}
	return strconv.Itoa(*n)
}
