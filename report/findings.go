package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/ragbench/ragbench/compare"
	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/kinds"
	"github.com/ragbench/ragbench/results"
	"github.com/ragbench/ragbench/stats"
)

// Findings are report.md's "Notes": short Markdown sentences on what a
// reader should not miss, on the primary metric at prompt_k over all
// answerable queries, with the significance already computed (Results.
// results.Significance, after its correction):
//   - each hybrid or rerank cell whose mean does not exceed that of its best
//     input cell (same chunking; for a rerank, its one input), grouped by
//     retriever, with both means, the difference and whether it is
//     significant;
//   - the best cell overall (highest mean) and, when it is a plain BM25
//     cell, how far the best cell of another type is behind it; when it is
//     not, how far it is ahead of the best BM25 cell; cells tied at the top
//     are named as a tie instead.
//
// Empty when there are no cells (or no primary metric).
func Findings(res *results.Results) []string {
	cfg := &res.Config
	if len(res.Cells) == 0 || cfg.PrimaryMetric == "" {
		return nil
	}
	m := config.MetricName(cfg.PrimaryMetric, cfg.PromptK)
	out := append(inputFindings(res, m), bestCellFinding(res, m))
	if f := chunkingFinding(res, m); f != "" {
		out = append(out, f)
	}
	if f := budgetFinding(res); f != "" {
		out = append(out, f)
	}
	return out
}

// meanOn is the mean of metric m over all answerable queries of c.
func meanOn(m string) func(c *results.CellResult) float64 {
	return func(c *results.CellResult) float64 { return c.Means[results.GroupAll][m] }
}

// inputFindings is one note per fusion or rerank retriever that does not
// beat its best input (its input, for rerank) on m in some chunking.
func inputFindings(res *results.Results, m string) []string {
	mean := meanOn(m)
	byName := map[string]*results.CellResult{}
	for i := range res.Cells {
		byName[res.Cells[i].Name] = &res.Cells[i]
	}
	var out []string
	for _, rc := range res.Config.Retrievers {
		inputs := rc.InputNames()
		if len(inputs) == 0 {
			continue
		}
		var lines []string
		n := 0
		for i := range res.Cells {
			c := &res.Cells[i]
			if c.Retriever.Name != rc.Name {
				continue
			}
			n++
			var best, worst *results.CellResult
			for _, in := range inputs {
				ic := byName[c.Chunking.Name+"/"+in]
				if ic == nil {
					continue
				}
				if best == nil || mean(ic) > mean(best) {
					best = ic
				}
				if worst == nil || mean(ic) < mean(worst) {
					worst = ic
				}
			}
			if best == nil || mean(c) > mean(best) {
				continue
			}
			line := fmt.Sprintf("%s: %s vs `%s` %s (%s), %s", c.Chunking.Name, f4(mean(c)), best.Name, f4(mean(best)),
				signed(mean(c)-mean(best)), verdict(&res.Significance, m, c.Name, best.Name, false))
			if len(inputs) > 1 && worst != nil && worst != best {
				line += fmt.Sprintf("; its weaker input `%s` scores %s", worst.Name, f4(mean(worst)))
			}
			lines = append(lines, line)
		}
		if len(lines) == 0 {
			continue
		}
		what := "its best input"
		if len(inputs) == 1 {
			what = "its input `" + inputs[0] + "`"
		}
		name := "`" + rc.Name + "`"
		if rc.Name != rc.Type {
			name += " (" + rc.Type + ")"
		}
		note := fmt.Sprintf("%s does not beat %s on %s in %d of %d chunkings%s:", name, what, m, len(lines), n, correctionSuffix(&res.Significance))
		for _, l := range lines {
			note += "\n  - " + l
		}
		out = append(out, note)
	}

	return out
}

// bestCellFinding names the best cell overall on m and the best cell of
// the other kind (plain BM25 or not), with the significance verdict.
func bestCellFinding(res *results.Results, m string) string {
	mean := meanOn(m)
	best := &res.Cells[0]
	for i := range res.Cells {
		if mean(&res.Cells[i]) > mean(best) {
			best = &res.Cells[i]
		}
	}
	var tied []string
	for i := range res.Cells {
		if mean(&res.Cells[i]) == mean(best) {
			tied = append(tied, "`"+res.Cells[i].Name+"`")
		}
	}
	if len(tied) > 1 {
		// Ties at the top are named as ties: the earlier cell is not "the
		// best" because of the grid's order.
		return fmt.Sprintf("%d cells tie for best on %s (%s, all %d answerable queries): %s.", len(tied), m, f4(mean(best)), res.Dataset.Answerable, strings.Join(tied, ", "))
	}
	var other *results.CellResult // best cell of the other kind (BM25 vs not)
	for i := range res.Cells {
		c := &res.Cells[i]
		if kinds.IsReference(c.Retriever.Type) != kinds.IsReference(best.Retriever.Type) && (other == nil || mean(c) > mean(other)) {
			other = c
		}
	}
	if kinds.IsReference(best.Retriever.Type) {
		note := fmt.Sprintf("The best cell overall on %s is a plain BM25 cell: `%s` (%s, all %d answerable queries).", m, best.Name, f4(mean(best)), res.Dataset.Answerable)
		if other != nil {
			note += fmt.Sprintf(" The best cell of another type, `%s` (%s), %s, %s.", other.Name, f4(mean(other)), below(mean(best)-mean(other)), verdict(&res.Significance, m, other.Name, best.Name, true))
		}
		return note
	}
	note := fmt.Sprintf("The best cell overall on %s is `%s` (%s, %s, all %d answerable queries).", m, best.Name, best.Retriever.Type, f4(mean(best)), res.Dataset.Answerable)
	if other != nil {
		note += fmt.Sprintf(" The best plain BM25 cell, `%s` (%s), %s, %s.", other.Name, f4(mean(other)), below(mean(best)-mean(other)), verdict(&res.Significance, m, other.Name, best.Name, true))
	}
	return note
}

// verdict says how cell a compares with cell b on metric m, from the
// pair's comparison. With the plan's verdict (results.json since
// comparison plans): the verdict in words as a − b ("better", "worse",
// "equivalent within ±0.02", "no evidence either way", "unchanged
// (identical)"), then the interval and the corrected p: "no evidence either
// way (95% CI [−0.0100, +0.0300], adjusted p = 0.41)". Before plans:
// "significantly better", "significantly worse" or "not significant", then
// (with withCorr) " after Holm–Bonferroni correction", then the p-value:
// " (adjusted p = 0.004)" or " (adjusted p < 0.001)". A pair the plan
// does not compare: "not compared (outside the comparison plan)", or "not
// tested for significance" before plans.
func verdict(s *results.Significance, m, a, b string, withCorr bool) string {
	for _, p := range s.Pairs {
		if p.Metric != m || !(p.A == a && p.B == b || p.A == b && p.B == a) {
			continue
		}
		diff := p.MeanA - p.MeanB
		if p.A != a {
			diff = -diff
		}
		corr := ""
		if withCorr {
			corr = " without correction"
			if c := correctionName(s.Correction); c != "" {
				corr = " after " + c + " correction"
			}
		}
		pv := "adjusted p"
		if correctionName(s.Correction) == "" {
			pv = "p"
		}
		if p.Verdict != "" {
			return planVerdict(p, a, pv)
		}
		switch {
		case p.Significant && diff > 0:
			return fmt.Sprintf("significantly better%s (%s %s)", corr, pv, formatP(p.PAdjusted))
		case p.Significant && diff < 0:
			return fmt.Sprintf("significantly worse%s (%s %s)", corr, pv, formatP(p.PAdjusted))
		}
		return fmt.Sprintf("not significant%s (%s %s)", corr, pv, formatP(p.PAdjusted))
	}
	if s.Plan != "" {
		return "not compared (outside the comparison plan)"
	}
	return "not tested for significance"
}

// planVerdict is the plan's verdict on pair p read as a − b (p compares a
// with the other cell in either order: a swapped pair's verdict and
// interval are turned round), with its interval and corrected p.
func planVerdict(p results.PairTest, a, pv string) string {
	v, lo, hi := p.Verdict, p.CILow, p.CIHigh
	if p.A != a {
		switch v {
		case string(compare.Better):
			v = string(compare.Worse)
		case string(compare.Worse):
			v = string(compare.Better)
		}
		if lo != nil && hi != nil {
			nlo, nhi := -*hi, -*lo
			lo, hi = &nlo, &nhi
		}
	}
	if p.Identical {
		return v
	}
	ci := "[–, –]"
	if lo != nil && hi != nil {
		ci = "[" + signedZero(*lo) + ", " + signedZero(*hi) + "]"
	}
	return fmt.Sprintf("%s (95%% CI %s, %s %s)", v, ci, pv, formatP(p.PAdjusted))
}

// correctionSuffix is " (significance after Holm–Bonferroni correction)"
// or, without a correction, " (significance without correction)".
func correctionSuffix(s *results.Significance) string {
	if c := correctionName(s.Correction); c != "" {
		return " (significance after " + c + " correction)"
	}
	return " (significance without correction)"
}

// correctionName is the display name of a significance.correction value
// (stats.Correction.Description, its one owner; "" for none).
func correctionName(c string) string {
	corr, err := stats.ParseCorrection(c)
	if c == "" || err == nil && corr == stats.None {
		return ""
	}
	if err != nil {
		return c
	}
	return corr.Description()
}

// formatP writes a p-value's relation and value with 3 significant digits:
// "= 0.0123", or "< 0.001" below that.
func formatP(p float64) string {
	if p < 0.001 {
		return "< 0.001"
	}
	return fmt.Sprintf("= %.3g", p)
}

// signed writes a difference with its sign (− for negative) and 4
// decimals; "±0" when it rounds to zero.
func signed(d float64) string {
	switch s := f4(math.Abs(d)); {
	case s == "0.0000":
		return "±0"
	case d < 0:
		return "−" + s
	default:
		return "+" + s
	}
}

// below says how far (d ≥ 0) a cell is below the best: "is 0.0500 below
// it", or "ties with it" when d rounds to zero.
func below(d float64) string {
	if s := f4(d); s != "0.0000" {
		return "is " + s + " below it"
	}
	return "ties with it"
}
