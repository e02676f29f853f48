package compare

import (
	"fmt"
	"strings"

	"github.com/ragbench/ragbench/internal/plural"
	"github.com/ragbench/ragbench/stats"
)

// Summary returns the sentences printed with every table of the report:
// the plan and its number of comparisons, the test, the correction, the
// intervals and verdicts, the equivalence margin, how to read the labels,
// ties at the top, and per metric what the set can show under the plan
// (minimum detectable difference and queries needed).
func (r *Report) Summary() []string {
	o := r.Options
	out := []string{r.PlanSentence(), r.testSentence()}
	out = append(out, fmt.Sprintf("Correction: %s over the %d counted %s; significant when the adjusted p ≤ %g.",
		o.Correction.Description(), r.Comparisons, plural.Word(r.Comparisons, "comparison", "comparisons"), o.Alpha))
	iv := fmt.Sprintf("Intervals: %s %s", percent(stats.DefaultConfidence), o.Interval.Description())
	if o.Interval != stats.StudentT {
		iv += fmt.Sprintf(", %s resamples, seed %d", thousands(o.Resamples), o.Seed)
	}
	out = append(out, iv+". Verdict better/worse: the corrected test is significant and the interval excludes 0.")
	if o.Equivalence > 0 {
		out = append(out, fmt.Sprintf("Equivalence: two one-sided paired t-tests (TOST) within ±%g, corrected as the tests; \"equivalent\" when both reject and the interval lies within ±%g.", o.Equivalence, o.Equivalence))
	}
	out = append(out, r.labelSentence())
	for m, tie := range r.Ties {
		if tie == nil {
			continue
		}
		var names []string
		for _, s := range tie {
			names = append(names, r.Letters[s]+" "+r.Systems[s])
		}
		out = append(out, fmt.Sprintf("Tied for best on %s (%s): %s.", r.Metrics[m], fmtF(r.Means[tie[0]][m], 4), strings.Join(names, ", ")))
	}
	for _, p := range r.Power {
		out = append(out, r.powerSentence(p))
	}
	return out
}

// PlanSentence is the plan line: which comparisons, how many, and how many
// identical ones were left out of the correction.
func (r *Report) PlanSentence() string {
	per := 0
	if len(r.Metrics) > 0 {
		per = len(r.Pairs) / len(r.Metrics)
	}
	desc := r.Plan.describe(r.noun())
	if r.Plan.Kind == VsBest {
		var bests []string
		for m, ref := range r.Reference {
			if ref >= 0 {
				bests = append(bests, r.Metrics[m]+": "+r.Systems[ref])
			}
		}
		desc += " (" + strings.Join(bests, "; ") + ")"
	}
	s := fmt.Sprintf("Plan: %s: %s × %s = %d", desc, plural.Count(per, "comparison", "comparisons"), plural.Count(len(r.Metrics), "metric", "metrics"), len(r.Pairs))
	if r.Identical > 0 {
		s += fmt.Sprintf("; %d identical (same score on every query) reported as unchanged and not counted, %d counted", r.Identical, r.Comparisons)
	}
	return s + "."
}

// powerSentence says what one metric's queries can show under the plan.
func (r *Report) powerSentence(p PowerSummary) string {
	o := r.Options
	level := fmt.Sprintf("α = %g", p.Alpha)
	if p.Alpha != o.Alpha {
		level = fmt.Sprintf("α/m = %g/%d = %.4g", o.Alpha, r.Comparisons, p.Alpha)
	}
	head := fmt.Sprintf("What %s can show in %s (%s, 80%% power, paired t approximation): ", plural.Count(p.N, "query", "queries"), p.Metric, level)
	floor := ""
	switch {
	case p.Floor == "":
	case p.Counted == 1:
		floor = "; " + p.Floor
	default: // "only 3 queries differ: …" of the comparison with the most
		head, rest, _ := strings.Cut(strings.TrimPrefix(p.Floor, "only "), ":")
		floor = "; at most " + head + " in a comparison:" + rest
	}
	switch {
	case p.N < 2:
		return head + "nothing to estimate (a spread needs at least 2 queries)" + floor + "."
	case p.Counted == 0 || p.Counted == p.Flat:
		return head + "nothing to estimate (no counted comparison with per-query variance)" + floor + "."
	}
	s := head + fmt.Sprintf("minimum detectable difference %.3f", p.MDD)
	var extra []string
	if n := p.Counted - p.Flat; n > 1 {
		extra = append(extra, fmt.Sprintf("median over %d comparisons, range %.3f–%.3f", n, p.MDDMin, p.MDDMax))
	}
	if p.Flat > 0 {
		extra = append(extra, fmt.Sprintf("undefined for %s with no per-query variance", plural.Count(p.Flat, "comparison", "comparisons")))
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, "; ") + ")"
	}
	if p.Detect > 0 {
		if p.Needed > 0 {
			s += fmt.Sprintf("; detecting a true difference of %g needs about %s queries (sd of per-query differences %.3f)", p.Detect, thousands(p.Needed), p.SD)
		} else {
			s += fmt.Sprintf("; detecting a true difference of %g needs more than a million queries", p.Detect)
		}
	}
	return s + floor + "."
}

// noun is what the report compares: Options.Noun, else "system".
func (r *Report) noun() string {
	if r.Options.Noun != "" {
		return r.Options.Noun
	}
	return "system"
}

// percent formats a level such as 0.95 as "95%".
func percent(x float64) string { return fmt.Sprintf("%g%%", x*100) }

// VerdictText is p's verdict in words, with the equivalence margin
// ("equivalent within ±0.02").
func (r *Report) VerdictText(p Pair) string {
	if p.Verdict == Equivalent {
		return fmt.Sprintf("equivalent within ±%g", r.Options.Equivalence)
	}
	return string(p.Verdict)
}
