package stats

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Correction names a multiple-comparison correction of p-values; the string
// values are the ones accepted on the command line (--correction).
type Correction string

// The corrections of Adjust.
const (
	// Holm is the Holm–Bonferroni step-down method (Holm 1979); it controls
	// the family-wise error rate and is uniformly more powerful than
	// Bonferroni. ragbench's default.
	Holm Correction = "holm"
	// Bonferroni multiplies every p-value by the number of comparisons.
	Bonferroni Correction = "bonferroni"
	// BH is the Benjamini–Hochberg step-up method (1995); it controls the
	// false discovery rate, not the family-wise error rate.
	BH Correction = "bh"
	// None leaves p-values unchanged.
	None Correction = "none"
)

// ParseCorrection returns the Correction named s (case-insensitive;
// "fdr_bh" and "benjamini-hochberg" are accepted for BH), or an error
// listing the valid names.
func ParseCorrection(s string) (Correction, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "holm", "holm-bonferroni":
		return Holm, nil
	case "bonferroni":
		return Bonferroni, nil
	case "bh", "fdr_bh", "benjamini-hochberg":
		return BH, nil
	case "none", "":
		return None, nil
	}
	return "", fmt.Errorf("unknown correction %q (want one of %s)", s, strings.Join(CorrectionNames(), ", "))
}

// Description returns a short human name for reports, such as
// "Holm–Bonferroni".
func (c Correction) Description() string {
	switch c {
	case Holm:
		return "Holm–Bonferroni"
	case Bonferroni:
		return "Bonferroni"
	case BH:
		return "Benjamini–Hochberg (FDR)"
	case None:
		return "no correction"
	}
	return string(c)
}

// Adjust returns the adjusted p-values of p (same order) under correction c
// over the family of all len(p) comparisons, with the definitions of
// statsmodels.stats.multitest.multipletests (methods "holm", "bonferroni",
// "fdr_bh", and no change for None). With p_(1) ≤ … ≤ p_(m) sorted:
//
//	Bonferroni: min(1, m·p_i)
//	Holm:       adj_(i) = max_{j ≤ i} min(1, (m−j+1)·p_(j))
//	BH:         adj_(i) = min_{j ≥ i} min(1, m/j·p_(j))
//
// Errors: an unknown correction, or a p-value outside [0, 1] or NaN
// (naming its index).
func Adjust(p []float64, c Correction) ([]float64, error) {
	for i, v := range p {
		if !(v >= 0 && v <= 1) {
			return nil, fmt.Errorf("p-value #%d: %v is not in [0, 1]", i+1, v)
		}
	}
	m := len(p)
	out := make([]float64, m)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return p[order[a]] < p[order[b]] })
	mf := float64(m)
	switch c {
	case None:
		copy(out, p)
	case Bonferroni:
		for i, v := range p {
			out[i] = math.Min(1, mf*v)
		}
	case Holm:
		run := 0.0
		for j, i := range order {
			run = math.Max(run, math.Min(1, (mf-float64(j))*p[i]))
			out[i] = run
		}
	case BH:
		run := 1.0
		for j := m - 1; j >= 0; j-- {
			i := order[j]
			run = math.Min(run, math.Min(1, mf/float64(j+1)*p[i]))
			out[i] = run
		}
	default:
		return nil, fmt.Errorf("unknown correction %q", c)
	}
	return out, nil
}
