package stats

import (
	"math"
	"testing"
)

// TestSignFlipFloor: the floor is the exact test's own smallest p — the p
// of n differences all of one sign, by enumeration of the 2^n sign
// vectors (Paired) — and FewDifferNote says so only when that floor is
// above the level the comparison must reach.
func TestSignFlipFloor(t *testing.T) {
	for n := 1; n <= 8; n++ {
		s := Sample{A: make([]float64, n+3), B: make([]float64, n+3)}
		for i := range n {
			s.A[i] = 1 + float64(i)
		}
		r, err := Paired(Randomization, s, Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Exact || math.Abs(r.P-SignFlipFloor(n)) > 1e-12 {
			t.Errorf("n = %d: exact test's p %v (exact %v), floor %v", n, r.P, r.Exact, SignFlipFloor(n))
		}
	}
	cases := []struct {
		test Test
		n, m int
		c    Correction
		want string
	}{
		{Randomization, 4, 1, Holm, "only 4 queries differ: the smallest p the test can give is 0.125, above α = 0.05 (a correction only raises it)"},
		{Randomization, 5, 1, Holm, "only 5 queries differ: the smallest p the test can give is 0.0625, above α = 0.05 (a correction only raises it)"},
		{Randomization, 1, 1, None, "only 1 query differs: the smallest p the test can give is 1, above α = 0.05 (a correction only raises it)"},
		{Randomization, 6, 1, Holm, ""}, // 0.03125 ≤ 0.05
		{Randomization, 6, 2, Holm, ""}, // Holm can reach 0.03125 when it is ranked last
		{Randomization, 6, 2, Bonferroni, "only 6 queries differ: the smallest p the test can give is 0.03125, above 0.025 (α = 0.05 over 2 comparisons, Bonferroni)"},
		{Randomization, 30, 1, Holm, ""}, // Monte Carlo
		{TTest, 3, 1, Holm, ""},          // another test
		{Randomization, 0, 1, Holm, "no query differs: the test cannot give a p below 1"},
	}
	for _, c := range cases {
		if got := FewDifferNote(c.test, c.n, c.m, 0.05, c.c); got != c.want {
			t.Errorf("%s n=%d m=%d %s: %q, want %q", c.test, c.n, c.m, c.c, got, c.want)
		}
	}
}
