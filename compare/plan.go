package compare

import (
	"fmt"
	"slices"
	"strings"
)

// PlanKind names which comparisons a report makes; the string values are
// the ones accepted by bench compare --plan.
type PlanKind string

// The comparison plans. A plan answers a question: "did my change beat the
// baseline?" needs m − 1 comparisons, not the m(m − 1)/2 of all pairs,
// and every comparison in the correction's family costs power (issue 23).
const (
	// AllPairs compares every pair of systems: m(m − 1)/2 comparisons per
	// metric. A is the earlier system in Input.Systems.
	AllPairs PlanKind = "all-pairs"
	// VsBaseline compares every other system with Plan.Baseline: m − 1
	// comparisons per metric, A the system, B the baseline (A − B > 0:
	// better than the baseline).
	VsBaseline PlanKind = "baseline"
	// VsBest compares every other system with the best system of each
	// metric (highest mean; the first in Input.Systems among tied ones):
	// m − 1 comparisons per metric, A the system, B the best.
	VsBest PlanKind = "best"
	// Explicit compares the pairs listed in Plan.Pairs (A − B each), for
	// example each changed cell of a pull request with its baseline
	// counterpart (the gate).
	Explicit PlanKind = "pairs"
)

// PlanKinds lists the plans bench compare --plan accepts, in help order.
var PlanKinds = []PlanKind{VsBaseline, VsBest, AllPairs}

// ParsePlanKind returns the PlanKind named s ("all", "pairs" and "all-pairs"
// for AllPairs), or an error listing the valid names.
func ParsePlanKind(s string) (PlanKind, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "baseline":
		return VsBaseline, nil
	case "best":
		return VsBest, nil
	case "all-pairs", "all", "allpairs":
		return AllPairs, nil
	}
	return "", fmt.Errorf("unknown plan %q (want baseline, best or all-pairs)", s)
}

// Plan says which comparisons Compare makes. Comparisons whose per-query
// scores are identical on every query are reported (Verdict Identical) but
// not counted in the correction: they cannot be significant, and counting
// them only weakens the others.
//
// The zero Plan keeps the behaviour from before plans, for callers not yet
// naming one: all pairs, or baseline-vs-all when Options.Baseline is set
// (A the baseline), identical pairs counted in the correction.
type Plan struct {
	// Kind is the plan; empty: the behaviour from before plans (above).
	Kind PlanKind
	// Baseline names the reference system of VsBaseline.
	Baseline string
	// Pairs are the (A, B) system pairs of Explicit, compared as A − B.
	Pairs [][2]string
	// Description, for Explicit, says what the pairs are in the plan
	// sentence ("each cell against its baseline counterpart"); default
	// "the listed pairs".
	Description string
}

// Describe is the plan in words for the report's "Plan:" line, such as
// "each system against baseline bm25".
func (p Plan) Describe() string { return p.describe("system") }

// describe is Describe with noun for what is compared ("system", "cell").
func (p Plan) describe(noun string) string {
	switch p.Kind {
	case VsBaseline:
		return "each " + noun + " against baseline " + p.Baseline
	case VsBest:
		return "each " + noun + " against the best " + noun + " of each metric"
	case Explicit:
		if p.Description != "" {
			return p.Description
		}
		return "the listed pairs"
	}
	return "all pairs"
}

// task is one comparison of the report: metric m, systems a and b (A − B).
type task struct{ m, a, b int }

// tasks returns the comparisons of plan p over the systems, for every
// metric, in report order (metric by metric), and the index of each
// metric's reference system (-1 where the plan has none). means[s][m] is
// the mean of system s on metric m (the best plan's reference). legacyBase
// is Options.Baseline's index for the zero Plan (-1: all pairs).
// Errors: an unknown baseline or pair system, a pair given twice or
// comparing a system with itself.
func (p Plan) tasks(systems []string, nMetrics int, means [][]float64, legacyBase int) ([]task, []int, error) {
	ref := make([]int, nMetrics)
	for m := range ref {
		ref[m] = -1
	}
	var out []task
	switch p.Kind {
	case "", AllPairs:
		for m := range nMetrics {
			for a := range systems {
				for b := a + 1; b < len(systems); b++ {
					switch {
					case legacyBase < 0 || p.Kind == AllPairs:
						out = append(out, task{m, a, b})
					case a == legacyBase:
						out = append(out, task{m, a, b})
					case b == legacyBase:
						out = append(out, task{m, b, a})
					}
				}
			}
			if legacyBase >= 0 && p.Kind == "" {
				ref[m] = legacyBase
			}
		}
	case VsBaseline, VsBest:
		base := slices.Index(systems, p.Baseline)
		if p.Kind == VsBaseline && base < 0 {
			return nil, nil, fmt.Errorf("baseline %q is not among the systems (%s)", p.Baseline, strings.Join(systems, ", "))
		}
		for m := range nMetrics {
			if p.Kind == VsBest {
				base = best(means, m)
			}
			ref[m] = base
			for s := range systems {
				if s != base {
					out = append(out, task{m, s, base})
				}
			}
		}
	case Explicit:
		pairs, err := p.explicit(systems)
		if err != nil {
			return nil, nil, err
		}
		for m := range nMetrics {
			for _, ab := range pairs {
				out = append(out, task{m, ab[0], ab[1]})
			}
		}
	default:
		return nil, nil, fmt.Errorf("unknown plan %q", p.Kind)
	}
	return out, ref, nil
}

// explicit resolves Plan.Pairs to system indexes.
func (p Plan) explicit(systems []string) ([][2]int, error) {
	var out [][2]int
	seen := map[[2]int]bool{}
	for _, ab := range p.Pairs {
		a, b := slices.Index(systems, ab[0]), slices.Index(systems, ab[1])
		switch {
		case a < 0 || b < 0:
			return nil, fmt.Errorf("pair %s vs %s: not among the systems (%s)", ab[0], ab[1], strings.Join(systems, ", "))
		case a == b:
			return nil, fmt.Errorf("pair %s vs %s: a system compared with itself", ab[0], ab[1])
		case seen[[2]int{a, b}] || seen[[2]int{b, a}]:
			return nil, fmt.Errorf("pair %s vs %s: given twice", ab[0], ab[1])
		}
		seen[[2]int{a, b}] = true
		out = append(out, [2]int{a, b})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("plan %q lists no pairs", Explicit)
	}
	return out, nil
}

// best returns the system with the highest mean on metric m (the first of
// tied ones).
func best(means [][]float64, m int) int {
	b := 0
	for s := range means {
		if means[s][m] > means[b][m] {
			b = s
		}
	}
	return b
}

// topTies returns the systems tied at the highest mean on metric m when
// two or more are (nil otherwise), in input order.
func topTies(means [][]float64, m int) []int {
	top := means[best(means, m)][m]
	var out []int
	for s := range means {
		if means[s][m] == top {
			out = append(out, s)
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}
