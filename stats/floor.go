package stats

import (
	"fmt"

	"github.com/ragbench/ragbench/internal/plural"
)

// SignFlipFloor is the smallest two-sided p-value the paired randomization
// test can give when n queries differ, by exact enumeration (n ≤
// DefaultExactMaxN): 2/2^n — only the all-plus and all-minus sign vectors
// reach the observed |mean| when every difference has the same sign — and
// 1 when no query differs.
func SignFlipFloor(n int) float64 {
	if n <= 0 {
		return 1
	}
	return 2 / float64(uint64(1)<<min(n, 62))
}

// FewDifferNote says, when the paired randomization test cannot reach
// significance because only n queries differ, why a difference whose
// interval excludes 0 is still "no evidence either way": "only 5 queries
// differ: the smallest p the test can give is 0.0625, above 0.05 after
// correction". m is the number of counted comparisons, corrected by c at
// family level alpha: the test cannot reach significance when its floor
// (SignFlipFloor) exceeds alpha/m under Bonferroni and alpha otherwise
// (Holm and Benjamini–Hochberg adjust a p by at least ×1: the comparison
// ranked last), so the note is never said of a comparison that could be
// significant. "" when significance is reachable, for another test than
// Randomization, or past exact enumeration (n > DefaultExactMaxN: the Monte
// Carlo floor 1/(B+1) is far below any α). The sweep's report, bench
// compare and the gate print it beside the verdicts and where the minimum
// detectable difference is printed (compare.Report).
func FewDifferNote(test Test, n, m int, alpha float64, c Correction) string {
	if test != Randomization || n > DefaultExactMaxN {
		return ""
	}
	floor, level := SignFlipFloor(n), alpha
	if c == Bonferroni && m > 1 {
		level = alpha / float64(m)
	}
	if floor <= level {
		return ""
	}
	if n == 0 {
		return "no query differs: the test cannot give a p below 1"
	}
	head := fmt.Sprintf("only %s: the smallest p the test can give is %.4g", plural.Count(n, "query differs", "queries differ"), floor)
	if floor > alpha {
		return fmt.Sprintf("%s, above α = %g (a correction only raises it)", head, alpha)
	}
	return fmt.Sprintf("%s, above %.4g (α = %g over %d comparisons, Bonferroni)", head, level, alpha, m)
}
