package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ragbench/ragbench/results"
)

// This file words the misses' diagnoses (results.Diagnosis,
// docs/misses.md) for report.md and report.html, and counts them per
// retriever and slice.

// causeNouns are the causes in the plural, for sentences ("most misses of
// dense on slice plain are vocabulary mismatches").
var causeNouns = map[string]string{
	results.CauseDuplicate:     "duplicates elsewhere (label gaps?)",
	results.CauseBoundarySplit: "boundary splits",
	results.CauseVocabulary:    "vocabulary mismatches",
	results.CauseDiluted:       "diluted in long chunks",
	results.CauseRankedBelowK:  "ranked below k",
	results.CauseNotRetrieved:  "not retrieved",
}

// rankText is a rank in words ("rank 12", "not retrieved").
func rankText(r int) string {
	if r == 0 {
		return "not retrieved"
	}
	return fmt.Sprintf("rank %d", r)
}

// terms lists terms for a sentence ("none" when empty).
func terms(ts []string) string {
	if len(ts) == 0 {
		return "none"
	}
	return strings.Join(ts, " ")
}

// DiagnosisText words dg for a reader, plain text (callers escape it): the
// facts behind its cause (dg.Cause, which it does not repeat) and where
// the passage ranked. k is the cutoff of the misses (prompt_k).
func DiagnosisText(dg *results.Diagnosis, k int) string {
	if dg == nil {
		return ""
	}
	var b strings.Builder
	switch dg.Cause {
	case results.CauseDuplicate:
		d := dg.Duplicate
		fmt.Fprintf(&b, "%s at rank %d holds a passage %.0f%% similar to it (probably a label gap)", d.ID, d.Rank, 100*d.Similarity)
	case results.CauseBoundarySplit:
		var parts []string
		for _, c := range dg.Split {
			parts = append(parts, fmt.Sprintf("%s (%s, %.0f%%)", c.ID, rankText(c.Rank), 100*c.Share))
		}
		fmt.Fprintf(&b, "no chunk holds enough of it; adjacent chunks %s hold %.0f%% together", strings.Join(parts, " and "), 100*dg.SplitShare)
	case results.CauseVocabulary:
		fmt.Fprintf(&b, "no query term in the passage (query terms: %s; passage terms: %s", terms(dg.QueryTerms), terms(dg.PassageTerms))
		if dg.PassageTermCount > len(dg.PassageTerms) {
			fmt.Fprintf(&b, " … %d in all", dg.PassageTermCount)
		}
		b.WriteString(")")
	case results.CauseDiluted:
		fmt.Fprintf(&b, "its covering chunk %s (%s) is %.1f× longer than the passage", dg.Cover.ID, rankText(dg.Cover.Rank), dg.Dilution)
	case results.CauseRankedBelowK:
		fmt.Fprintf(&b, "found at rank %d, below k = %d", dg.BestRank, k)
	case results.CauseNotRetrieved:
		fmt.Fprintf(&b, "nothing covering it in the top %d", dg.Depth)
	}
	if dg.Cover != nil && dg.Cause != results.CauseDiluted {
		fmt.Fprintf(&b, "; the chunk holding most of it: %s (%s, %.0f%%)", dg.Cover.ID, rankText(dg.Cover.Rank), 100*dg.Cover.Share)
	}
	if dg.Cause != results.CauseRankedBelowK && dg.BestRank > 0 {
		fmt.Fprintf(&b, "; first found at rank %d", dg.BestRank)
	}
	return b.String()
}

// causeList is the causes counted in mc, in precedence order.
func causeList(mc *results.MissCauses) []string {
	var out []string
	for _, c := range results.Causes {
		if _, ok := mc.All[c]; ok {
			out = append(out, c)
		}
	}
	return out
}

// causeTotals sums the cause counts of the cells over a key: key(cell) ""
// leaves a cell out. It returns the keys in first-seen order, and per key
// the summed counts of the slice s ("" for all queries).
func causeTotals(res *results.Results, s string, key func(c *results.CellResult) string) ([]string, map[string]map[string]int) {
	var order []string
	out := map[string]map[string]int{}
	for i := range res.Cells {
		c := &res.Cells[i]
		k := key(c)
		if c.MissCauses == nil || k == "" {
			continue
		}
		counts := c.MissCauses.All
		if s != "" {
			counts = c.MissCauses.Slices[s]
		}
		if out[k] == nil {
			order = append(order, k)
			out[k] = map[string]int{}
		}
		for cause, n := range counts {
			out[k][cause] += n
		}
	}
	return order, out
}

// causeFindings are the sentences "Most misses of dense on slice plain
// are vocabulary mismatches: 31 of 52 (60%), over its 7 chunkings." — for
// each retriever (summed over its chunkings) on each slice (on all queries
// when there are no slices), when one cause holds more than half of at
// least two misses.
func causeFindings(res *results.Results) []string {
	var out []string
	nch := len(res.Config.Chunkings())
	over := ""
	if nch > 1 {
		over = fmt.Sprintf(", over its %d chunkings", nch)
	}
	// Per slice when the queries have slices (the table has the totals),
	// else over all queries.
	groups := []string{""}
	if len(res.Dataset.Slices) > 0 {
		groups = res.Dataset.Slices
	}
	for _, rc := range res.Config.Retrievers {
		for _, s := range groups {
			_, tot := causeTotals(res, s, func(c *results.CellResult) string {
				if c.Retriever.Name == rc.Name {
					return rc.Name
				}
				return ""
			})
			counts := tot[rc.Name]
			n := 0
			for _, v := range counts {
				n += v
			}
			if n < 2 {
				continue
			}
			top := ""
			for _, c := range results.Causes {
				if v, ok := counts[c]; ok && (top == "" || v > counts[top]) {
					top = c
				}
			}
			if 2*counts[top] <= n {
				continue
			}
			on := "all queries"
			if s != "" {
				on = "slice " + mdCode(s)
			}
			out = append(out, fmt.Sprintf("Most misses of %s on %s are %s: %d of %d (%s)%s.", mdCode(rc.Name), on, causeNouns[top], counts[top], n, pct(float64(counts[top])/float64(n)), over))
		}
	}
	return out
}

// slicesOf are the slices of the cells' cause counts, sorted.
func slicesOf(res *results.Results) []string {
	set := map[string]bool{}
	for _, c := range res.Cells {
		if c.MissCauses != nil {
			for s := range c.MissCauses.Slices {
				set[s] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}
