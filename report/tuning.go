package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ragbench/ragbench/results"
)

// tuningTableRows is how many settings of a grid report.md lists (the best
// on the tuning queries, and the default); results.json has them all.
const tuningTableRows = 10

// tuning writes the Tuning section: per tuned cell, the setting chosen on
// the tuning queries, its held-out mean against the untuned default's with
// the paired test, and the best settings of the grid.
func (r *reportWriter) tuning() {
	tuned := r.cellsWith(func(c results.CellResult) bool { return c.Tuning != nil })
	if len(tuned) == 0 {
		return
	}
	t0 := tuned[0].Tuning
	r.w("## Tuning\n\n")
	r.w("Each tuned cell evaluated every setting of its grid on the %d tuning queries only and kept the best by %s (ties: the earlier setting); its numbers above are that setting's. ", t0.TuningQueries, t0.Metric)
	if why := emptySplit(t0); why != "" {
		r.w("%s\n\n", why)
	} else {
		r.w("The held-out columns (%d queries) are the honest estimate; the test is the chosen setting against the untuned default on the held-out queries (%s, one comparison per cell).\n\n",
			t0.HeldOutQueries, testName(r.cfg.Significance.Test))
	}
	var rows [][]string
	for _, c := range tuned {
		t := c.Tuning
		verdict := tuningVerdict(t)
		tun, held := tuningMeans(t)
		rows = append(rows, []string{c.Name, fmt.Sprint(len(t.Settings)), t.Chosen.Name, tun(t.Chosen), held(t.Chosen),
			t.Default.Name, held(t.Default), verdict})
	}
	table(&r.b, []string{"cell", "settings", "chosen", t0.Metric + " tuning", t0.Metric + " held-out", "default", "default held-out", "chosen − default (held-out)"}, rows)
	r.w("\n")
	if w := smallSample(t0.HeldOutQueries, "held-out means and tests"); w != "" {
		r.w("%s\n\n", strings.TrimSpace(w))
	}
	for _, c := range tuned {
		t := c.Tuning
		order := make([]int, len(t.Settings))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int {
			switch x, y := t.Settings[a].Tuning, t.Settings[b].Tuning; {
			case x > y:
				return -1
			case x < y:
				return 1
			}
			return 0
		})
		shown := order[:min(len(order), tuningTableRows)]
		r.w("`%s`: the %d best of %d settings on the tuning queries", c.Name, len(shown), len(t.Settings))
		r.w(" (all in results.json):\n\n")
		var srows [][]string
		hasDefault := false
		tun, held := tuningMeans(t)
		for rank, i := range shown {
			s := t.Settings[i]
			mark := ""
			if s.Name == t.Default.Name {
				mark, hasDefault = " (default)", true
			}
			srows = append(srows, []string{fmt.Sprint(rank + 1), s.Name + mark, tun(s), held(s)})
		}
		if !hasDefault {
			srows = append(srows, []string{"–", t.Default.Name + " (default)", tun(t.Default), held(t.Default)})
		}
		table(&r.b, []string{"rank", "setting", t.Metric + " tuning", t.Metric + " held-out"}, srows)
		r.w("\n")
	}
}

// testName is the significance test's name for prose.
func testName(test string) string {
	switch test {
	case "t":
		return "paired t-test"
	case "randomization":
		return "paired randomization test"
	case "bootstrap":
		return "paired bootstrap test"
	case "wilcoxon":
		return "Wilcoxon signed-rank test"
	case "sign":
		return "sign test"
	}
	return test
}

// tuningMeans format a setting's tuning and held-out means: meanOf's "—"
// for a group of no query (its 0 in results.json is no mean; emptySplit
// says why), else 4 decimals.
func tuningMeans(t *results.Tuning) (tuning, heldOut func(results.TuningSetting) string) {
	return func(s results.TuningSetting) string { return meanOf(s.Tuning, t.TuningQueries) },
		func(s results.TuningSetting) string { return meanOf(s.HeldOut, t.HeldOutQueries) }
}

// emptySplit is the sentence saying why a tuning or held-out column has
// no mean ("—"): heldout.fraction leaves that group without a query.
func emptySplit(t *results.Tuning) string {
	switch {
	case t.TuningQueries == 0:
		return "There is no tuning query (heldout.fraction holds every answerable query out), so the tuning columns have no mean (—) and nothing was chosen on them: each cell reports the first setting of its grid. Lower heldout.fraction to tune."
	case t.HeldOutQueries == 0:
		return "There is no held-out query (heldout.fraction gives none), so the held-out columns have no mean (—) and there is no honest estimate of the chosen settings: raise heldout.fraction for one."
	}
	return ""
}

// tuningVerdict is the chosen − default held-out difference and its
// test: with the interval and the verdict in words since comparison plans
// ("+0.0166 [−0.0100, +0.0400], p = 0.357: no evidence either way"), else
// "(significant)" or "(not significant)".
func tuningVerdict(t *results.Tuning) string {
	switch {
	case t.TuningQueries == 0:
		return "no tuning query"
	case t.Test != nil && t.Test.Verdict != "":
		return fmt.Sprintf("%s %s, p %s: %s", signed(t.Test.MeanDiff), interval(*t.Test), formatP(t.Test.P), t.Test.Verdict)
	case t.Test != nil:
		v := fmt.Sprintf("%s, p %s", signed(t.Test.MeanDiff), formatP(t.Test.P))
		if t.Test.Significant {
			return v + " (significant)"
		}
		return v + " (not significant)"
	case t.HeldOutQueries == 0:
		return "no held-out query"
	}
	return "default chosen"
}

// tuningSummary is one sentence per tuned cell, for report.html's summary.
func tuningSummary(res *results.Results) []string {
	var out []string
	for _, c := range res.Cells {
		if t := c.Tuning; t != nil {
			tun, held := tuningMeans(t)
			out = append(out, fmt.Sprintf("Tuned %s over %d settings on the tuning queries: chose %s (%s tuning %s, held-out %s); the default %s scores %s held out; chosen − default %s.",
				c.Name, len(t.Settings), t.Chosen.Name, t.Metric, tun(t.Chosen), held(t.Chosen), t.Default.Name, held(t.Default), tuningVerdict(t)))
		}
	}
	return out
}

// cellsWith is the cells of the results that have what a section shows
// (keep), in results order.
func (r *reportWriter) cellsWith(keep func(results.CellResult) bool) []results.CellResult {
	var out []results.CellResult
	for _, c := range r.res.Cells {
		if keep(c) {
			out = append(out, c)
		}
	}
	return out
}
