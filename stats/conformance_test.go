package stats

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/ragbench/ragbench/internal/testenv"
)

// pairedCase is one case of shared/conformance/stats/paired_tests.json,
// whose expected values were computed with scipy 1.10.1.
type pairedCase struct {
	Name     string    `json:"name"`
	N        int       `json:"n"`
	X        []float64 `json:"x"`
	Y        []float64 `json:"y"`
	MeanDiff float64   `json:"mean_diff"`
	TTest    struct {
		T float64 `json:"t"`
		P float64 `json:"p_two_sided"`
	} `json:"ttest_rel"`
	Wilcoxon struct {
		Statistic float64 `json:"statistic"`
		P         float64 `json:"p_two_sided"`
	} `json:"wilcoxon_zero_method_wilcox"`
	Sign struct {
		P float64 `json:"p_two_sided"`
	} `json:"sign_test"`
	Exact *struct {
		P float64 `json:"p_two_sided"`
	} `json:"randomization_exact"`
	MonteCarlo *struct {
		P  float64 `json:"p_two_sided"`
		SE float64 `json:"mc_std_error"`
	} `json:"randomization_monte_carlo_200k"`
}

func loadPairedCases(t *testing.T) []pairedCase {
	t.Helper()
	path := testenv.Shared(t, "conformance/stats/paired_tests.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []pairedCase `json:"cases"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(f.Cases) == 0 {
		t.Fatalf("%s: no cases", path)
	}
	return f.Cases
}

func run(t *testing.T, test Test, c pairedCase, opt Options) Result {
	t.Helper()
	r, err := Paired(test, Sample{A: c.X, B: c.Y}, opt)
	if err != nil {
		t.Fatalf("%s %s: %v", c.Name, test, err)
	}
	if r.N != c.N || len(c.X) != c.N {
		t.Fatalf("%s: n = %d, want %d", c.Name, r.N, c.N)
	}
	return r
}

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// TestConformanceScipy checks every case against scipy 1.10.1: t-test
// statistic and p and Wilcoxon statistic and p to 1e-6, the sign test to
// 1e-9, the exact randomization p exactly.
func TestConformanceScipy(t *testing.T) {
	for _, c := range loadPairedCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			r := run(t, TTest, c, Options{})
			if !near(r.Effect.MeanDiff, c.MeanDiff, 1e-12) {
				t.Errorf("mean diff = %.15g, scipy %.15g", r.Effect.MeanDiff, c.MeanDiff)
			}
			if !near(r.Statistic, c.TTest.T, 1e-6) || !near(r.P, c.TTest.P, 1e-6) {
				t.Errorf("t-test: t = %.10g p = %.10g, scipy t = %.10g p = %.10g", r.Statistic, r.P, c.TTest.T, c.TTest.P)
			}
			r = run(t, Wilcoxon, c, Options{})
			if !near(r.Statistic, c.Wilcoxon.Statistic, 1e-6) || !near(r.P, c.Wilcoxon.P, 1e-6) {
				t.Errorf("wilcoxon: T = %.10g p = %.10g, scipy T = %.10g p = %.10g", r.Statistic, r.P, c.Wilcoxon.Statistic, c.Wilcoxon.P)
			}
			r = run(t, Sign, c, Options{})
			if !near(r.P, c.Sign.P, 1e-9) {
				t.Errorf("sign test: p = %.12g, scipy %.12g", r.P, c.Sign.P)
			}
			if c.Exact != nil {
				r = run(t, Randomization, c, Options{})
				if !r.Exact || r.P != c.Exact.P {
					t.Errorf("exact randomization: p = %.17g (exact=%v), want exactly %.17g", r.P, r.Exact, c.Exact.P)
				}
			}
		})
	}
}

// TestConformanceMonteCarlo checks the Monte Carlo randomization p-value
// against the 200,000-permutation reference: within 4 of the reference's
// standard errors. With 1,000,000 permutations our own standard error is
// ≤ 0.0005, so the allowance is ≥ 3.5 standard errors of the difference.
func TestConformanceMonteCarlo(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000,000 permutations per case")
	}
	for _, c := range loadPairedCases(t) {
		if c.MonteCarlo == nil {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			opt := Options{Permutations: 1000000, Seed: 1, Stream: Stream(1, c.Name)}
			r := run(t, Randomization, c, opt)
			if r.Exact || r.Samples != opt.Permutations {
				t.Fatalf("expected Monte Carlo with %d permutations, got exact=%v samples=%d", opt.Permutations, r.Exact, r.Samples)
			}
			if !near(r.P, c.MonteCarlo.P, 4*c.MonteCarlo.SE) {
				t.Errorf("p = %.6f, reference %.6f ± 4×%.6f", r.P, c.MonteCarlo.P, c.MonteCarlo.SE)
			}
		})
	}
}
