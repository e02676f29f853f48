package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestAdjust checks the corrections against values worked out by hand from
// the definitions (statsmodels multipletests conventions) for
// p = (0.01, 0.04, 0.03, 0.005), m = 4; sorted order 0.005 < 0.01 < 0.03 < 0.04.
func TestAdjust(t *testing.T) {
	p := []float64{0.01, 0.04, 0.03, 0.005}
	cases := []struct {
		c    Correction
		want []float64
	}{
		// m·p_i
		{Bonferroni, []float64{0.04, 0.16, 0.12, 0.02}},
		// 4×0.005=0.02, 3×0.01=0.03, 2×0.03=0.06, max(0.06, 1×0.04)=0.06
		{Holm, []float64{0.03, 0.06, 0.06, 0.02}},
		// from the top: 4/4×0.04=0.04, min(0.04, 4/3×0.03=0.04)=0.04,
		// 4/2×0.01=0.02, min(0.02, 4/1×0.005=0.02)=0.02
		{BH, []float64{0.02, 0.04, 0.04, 0.02}},
		{None, p},
	}
	for _, c := range cases {
		got, err := Adjust(p, c.c)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.c, diff)
		}
	}
	got, _ := Adjust([]float64{0.5, 0.6}, Bonferroni)
	if got[0] != 1 || got[1] != 1 {
		t.Errorf("bonferroni must clip at 1, got %v", got)
	}
	if _, err := Adjust([]float64{0.1, math.NaN()}, Holm); err == nil || !strings.Contains(err.Error(), "#2") {
		t.Errorf("NaN p-value: err = %v, want an error naming #2", err)
	}
	if _, err := Adjust(p, "sidak"); err == nil {
		t.Error("unknown correction: want error")
	}
}

// TestMDD checks the minimum detectable difference against scipy 1.10.1
// (stats.nct, root of power − 0.8 by brentq) for sd = 1, α = 0.05.
func TestMDD(t *testing.T) {
	for _, c := range []struct {
		n    int
		want float64
	}{{5, 1.6819969659555574}, {50, 0.4041830017583123}, {300, 0.1622712364859304}, {1000, 0.08867907559426375}} {
		if got := MDD(c.n, 1, 0.05, 0.8); math.Abs(got-c.want) > 1e-6*c.want {
			t.Errorf("n = %d: MDD = %.10g, scipy %.10g", c.n, got, c.want)
		}
		// Scales linearly with sd.
		if got := MDD(c.n, 0.25, 0.05, 0.8); math.Abs(got-c.want/4) > 1e-6*c.want {
			t.Errorf("n = %d, sd = 0.25: MDD = %.10g, want %.10g", c.n, got, c.want/4)
		}
	}
}

// TestEffect checks effect sizes on a sample worked by hand:
// d = (0.3, −0.1, 0.2, 0, 0.1): mean 0.1, Σ(d−0.1)² = 0.04+0.04+0.01+0.01+0 = 0.1,
// sd = √(0.1/4) = 0.158113883, d_z = 0.632455532, wins 3, ties 1, losses 1,
// 95% CI = 0.1 ± t(0.975, 4)·sd/√5 with t(0.975, 4) = 2.776445105 (scipy).
func TestEffect(t *testing.T) {
	a := []float64{0.8, 0.4, 0.7, 0.5, 0.6}
	b := []float64{0.5, 0.5, 0.5, 0.5, 0.5}
	r, err := Paired(TTest, Sample{A: a, B: b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := r.Effect
	half := 2.776445105 * 0.158113883 / math.Sqrt(5)
	checks := []struct {
		name      string
		got, want float64
	}{
		{"mean diff", e.MeanDiff, 0.1}, {"sd", e.SD, 0.158113883}, {"d_z", e.DZ, 0.632455532},
		{"ci low", e.CILow, 0.1 - half}, {"ci high", e.CIHigh, 0.1 + half},
		{"mean a", r.MeanA, 0.6}, {"mean b", r.MeanB, 0.5},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > 1e-8 {
			t.Errorf("%s = %.10g, want %.10g", c.name, c.got, c.want)
		}
	}
	if e.Wins != 3 || e.Ties != 1 || e.Losses != 1 {
		t.Errorf("wins/ties/losses = %d/%d/%d, want 3/1/1", e.Wins, e.Ties, e.Losses)
	}
}

// TestEdgeCases: identical systems, n = 1, all differences zero, NaN scores,
// constant non-zero differences — no panic, p = 1 (or scipy's value) and a
// warning or an error naming the query.
func TestEdgeCases(t *testing.T) {
	all := []Test{TTest, Randomization, Bootstrap, Wilcoxon, Sign}
	same := []float64{0.1, 0.5, 0.9, 0.3, 0.3, 0.7}
	for _, test := range all {
		r, err := Paired(test, Sample{A: same, B: same}, Options{})
		if err != nil {
			t.Fatalf("%s identical: %v", test, err)
		}
		if r.P != 1 || len(r.Warnings) == 0 {
			t.Errorf("%s identical systems: p = %v warnings %q, want p = 1 with a warning", test, r.P, r.Warnings)
		}
		r, err = Paired(test, Sample{A: []float64{0.7}, B: []float64{0.2}}, Options{})
		if err != nil {
			t.Fatalf("%s n=1: %v", test, err)
		}
		if test != Sign && test != Wilcoxon && r.P != 1 {
			t.Errorf("%s n = 1: p = %v, want 1", test, r.P)
		}
		if len(r.Warnings) == 0 || !strings.Contains(r.Warnings[0], "n = 1") {
			t.Errorf("%s n = 1: warnings %q, want an n = 1 warning", test, r.Warnings)
		}
		// One query gives no interval (t with 0 degrees of freedom), not the
		// zero-width [0.5, 0.5] shown before.
		if r.Effect.CIDefined || r.Effect.CILow != 0 || r.Effect.CIHigh != 0 {
			t.Errorf("%s n = 1: CI [%v, %v] defined %v, want undefined (0, 0, false)", test, r.Effect.CILow, r.Effect.CIHigh, r.Effect.CIDefined)
		}
		_, err = Paired(test, Sample{QueryIDs: []string{"q1", "q2"}, A: []float64{0.5, math.NaN()}, B: []float64{0.2, 0.1}}, Options{})
		if err == nil || !strings.Contains(err.Error(), `"q2"`) {
			t.Errorf("%s NaN: err = %v, want an error naming query \"q2\"", test, err)
		}
	}
	// n = 1 exact randomization: both sign vectors reach |d|, p = 2/2.
	// Constant non-zero differences: scipy's ttest_rel gives t = inf, p = 0
	// (inf written as the largest float, so that JSON can hold it).
	r, _ := Paired(TTest, Sample{A: []float64{0.5, 0.6, 0.7}, B: []float64{0.4, 0.5, 0.6}}, Options{})
	if r.Statistic != math.MaxFloat64 || r.P != 0 || r.Effect.DZDefined {
		t.Errorf("constant differences: t = %v p = %v d_z defined %v, want MaxFloat64, 0, false", r.Statistic, r.P, r.Effect.DZDefined)
	}
	if _, err := Paired(TTest, Sample{A: []float64{1}, B: []float64{1, 2}}, Options{}); err == nil {
		t.Error("length mismatch: want error")
	}
	if r, err := Paired(TTest, Sample{}, Options{}); err != nil || r.P != 1 || r.N != 0 || len(r.Warnings) == 0 {
		t.Errorf("empty sample: %+v, %v; want p = 1, n = 0 and a warning", r, err)
	}
	if _, err := Paired(Randomization, Sample{A: same, B: same}, Options{Permutations: -1}); err == nil {
		t.Error("negative permutations: want error")
	}
	if _, err := Paired(Tukey, Sample{A: same, B: same}, Options{}); err == nil {
		t.Error("Paired(Tukey): want error pointing to TukeyHSD")
	}
}

// TestExactRandomizationByHand: d = (0.25, 0.5, 0.05) plus zeros; of the
// 2^3 sign vectors only (+,+,+) and (−,−,−) reach |Σ| = 0.8, so p = 2/8.
func TestExactRandomizationByHand(t *testing.T) {
	r, err := Paired(Randomization, Sample{A: []float64{0.5, 0.33, 1, 0, 0.25}, B: []float64{0.25, 0.33, 0.5, 0, 0.2}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Exact || r.P != 0.25 {
		t.Errorf("p = %v exact = %v, want 0.25 exact", r.P, r.Exact)
	}
}

// TestMonteCarloSeeded: same seed and stream give the same p; a different
// stream gives a (generally) different p; p is never 0.
func TestMonteCarloSeeded(t *testing.T) {
	a := make([]float64, 40)
	b := make([]float64, 40)
	for i := range a {
		a[i] = float64(i%7) / 7
		b[i] = float64((i*3)%5) / 5
	}
	opt := Options{Permutations: 2000, Seed: 42, Stream: Stream(42, "A", "B", "ndcg@10")}
	r1, _ := Paired(Randomization, Sample{A: a, B: b}, opt)
	r2, _ := Paired(Randomization, Sample{A: a, B: b}, opt)
	if r1.P != r2.P || r1.Exact {
		t.Fatalf("same seed: p = %v and %v (exact=%v)", r1.P, r2.P, r1.Exact)
	}
	opt.Stream = Stream(42, "A", "B", "recall@10")
	r3, _ := Paired(Randomization, Sample{A: a, B: b}, opt)
	if r3.P == r1.P {
		t.Logf("different streams gave the same p %v (possible but unlikely)", r1.P)
	}
	big := make([]float64, 40)
	for i := range big {
		big[i] = 1
	}
	r4, _ := Paired(Randomization, Sample{A: big, B: make([]float64, 40)}, Options{Permutations: 999})
	if r4.P != 1.0/1000 {
		t.Errorf("overwhelming difference: p = %v, want (0+1)/(999+1)", r4.P)
	}
}

// TestTukeyTwoSystems: with two systems, permuting the pair of scores of a
// query is a sign flip of its difference, and the range of the two means
// is |mean(d*)|; so the randomized Tukey HSD p must agree with the exact
// randomization p of the scipy conformance case n12_clear_win
// (0.0029296875) within 4 Monte Carlo standard errors.
func TestTukeyTwoSystems(t *testing.T) {
	var c pairedCase
	for _, k := range loadPairedCases(t) {
		if k.Name == "n12_clear_win" {
			c = k
		}
	}
	if c.Exact == nil {
		t.Fatal("case n12_clear_win with randomization_exact not found")
	}
	ids := make([]string, c.N)
	for i := range ids {
		ids[i] = string(rune('a' + i))
	}
	const B = 200000
	h, err := TukeyHSD([]string{"x", "y"}, ids, [][]float64{c.X, c.Y}, Options{Permutations: B, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	p := c.Exact.P
	se := math.Sqrt(p * (1 - p) / B)
	if math.Abs(h.P[0][1]-p) > 4*se+1.0/B || h.P[1][0] != h.P[0][1] {
		t.Errorf("HSD p = %v, exact randomization %v ± 4×%.2g", h.P[0][1], p, se)
	}
	if _, err := TukeyHSD([]string{"x"}, ids, [][]float64{c.X}, Options{}); err == nil {
		t.Error("one system: want error")
	}
	bad := append([]float64(nil), c.Y...)
	bad[3] = math.Inf(1)
	if _, err := TukeyHSD([]string{"x", "y"}, ids, [][]float64{c.X, bad}, Options{}); err == nil || !strings.Contains(err.Error(), `"d"`) {
		t.Errorf("Inf score: err = %v, want error naming query \"d\"", err)
	}
}

// TestTukeyIdentical: identical systems get p = 1; a clearly better system
// gets a small p against both.
func TestTukeyIdentical(t *testing.T) {
	n := 30
	ids := make([]string, n)
	x, y, z := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		ids[i] = string(rune('A' + i))
		x[i] = float64(i%5) / 10
		y[i] = x[i]
		z[i] = x[i] + 0.5
	}
	h, err := TukeyHSD([]string{"x", "y", "z"}, ids, [][]float64{x, y, z}, Options{Permutations: 999, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if h.P[0][1] != 1 {
		t.Errorf("identical systems: p = %v, want 1", h.P[0][1])
	}
	if h.P[0][2] != 1.0/1000 || h.P[1][2] != 1.0/1000 {
		t.Errorf("z beats x and y on every query by 0.5: p = %v, %v, want 0.001", h.P[0][2], h.P[1][2])
	}
}

func TestParse(t *testing.T) {
	for _, s := range []string{"t", "randomization", "bootstrap", "wilcoxon", "sign", "tukey"} {
		if got, err := ParseTest(s); err != nil || string(got) != s {
			t.Errorf("ParseTest(%q) = %q, %v", s, got, err)
		}
	}
	if _, err := ParseTest("anova"); err == nil {
		t.Error("ParseTest(anova): want error")
	}
	for _, s := range []string{"holm", "bonferroni", "bh", "none"} {
		if got, err := ParseCorrection(s); err != nil || string(got) != s {
			t.Errorf("ParseCorrection(%q) = %q, %v", s, got, err)
		}
	}
}

// TestTukeyWorkers: the HSD p-values depend on the seed only, not on the
// number of goroutines or GOMAXPROCS.
func TestTukeyWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	systems := []string{"a", "b", "c", "d"}
	ids := make([]string, 80)
	scores := make([][]float64, len(systems))
	for q := range ids {
		ids[q] = fmt.Sprintf("q%d", q)
	}
	for s := range scores {
		scores[s] = make([]float64, len(ids))
		for q := range ids {
			scores[s][q] = rng.Float64() + 0.05*float64(s)
		}
	}
	var want [][]float64
	for _, c := range []struct{ procs, workers int }{{1, 1}, {2, 2}, {4, 16}, {3, 0}} {
		prev := runtime.GOMAXPROCS(c.procs)
		h, err := TukeyHSD(systems, ids, scores, Options{Permutations: 1000, Seed: 8, Stream: 3, Workers: c.workers})
		runtime.GOMAXPROCS(prev)
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = h.P
			continue
		}
		if diff := cmp.Diff(want, h.P); diff != "" {
			t.Errorf("GOMAXPROCS %d, workers %d: p-values differ (-first +now):\n%s", c.procs, c.workers, diff)
		}
	}
}
