package stats

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ragbench/ragbench/internal/testenv"
)

// referenceCase is one input of testdata/reference.py.
type referenceCase struct {
	Name       string    `json:"name"`
	A          []float64 `json:"a"`
	B          []float64 `json:"b"`
	Margin     float64   `json:"margin"`
	Detect     float64   `json:"detect"`
	Alpha      float64   `json:"alpha"`
	Power      float64   `json:"power"`
	Resamples  int       `json:"resamples"`
	Confidence float64   `json:"confidence"`
	MDD        float64   `json:"mdd"`
}

// referenceResult is one output of testdata/reference.py.
type referenceResult struct {
	BCa        [2]float64 `json:"bca"`
	Percentile [2]float64 `json:"percentile"`
	TOST       struct {
		P      float64 `json:"p"`
		PLower float64 `json:"p_lower"`
		PUpper float64 `json:"p_upper"`
	} `json:"tost"`
	SD      float64 `json:"sd"`
	NObs    float64 `json:"nobs"`
	PowerAt float64 `json:"power_at"`
}

// heldOutPairs returns per-query score pairs the implementation never saw:
// the scipy conformance cases of ../shared (n = 12 … 300) and two graded,
// nDCG-like samples of 30 and 35 queries drawn here (ties, zeros, a real
// but small improvement).
func heldOutPairs(t *testing.T) []referenceCase {
	var out []referenceCase
	for _, c := range loadPairedCases(t) {
		if c.N >= 12 {
			out = append(out, referenceCase{Name: c.Name, A: c.X, B: c.Y})
		}
	}
	rng := rand.New(rand.NewPCG(23, 30))
	for _, n := range []int{30, 35} {
		c := referenceCase{Name: "graded", A: make([]float64, n), B: make([]float64, n)}
		for i := range n {
			base := math.Round(rng.Float64()*8) / 8
			c.B[i] = base
			c.A[i] = math.Min(1, math.Max(0, base+math.Round((rng.NormFloat64()*0.15+0.04)*16)/16))
		}
		out = append(out, c)
	}
	return out
}

// TestReferences checks, on held-out per-query score pairs, the paired
// bootstrap intervals against scipy.stats.bootstrap (BCa and percentile,
// within Monte Carlo error), TOST against statsmodels' ttost_paired (1e-6),
// SampleSize against statsmodels' TTestPower().solve_power (within one
// query) and MDD against statsmodels' power (the MDD has the stated 80 %
// power, 1e-6) — each reference computed in the test by
// testdata/reference.py.
func TestReferences(t *testing.T) {
	py := testenv.Python(t)
	const resamples = 50000
	cases := heldOutPairs(t)
	for i := range cases {
		c := &cases[i]
		c.Margin, c.Detect, c.Alpha, c.Power, c.Resamples, c.Confidence = 0.05, 0.05, 0.05/3, 0.8, resamples, 0.95
		d, _ := Sample{A: c.A, B: c.B}.diffs()
		c.MDD = MDD(len(d), stdDev(d, mean(d)), c.Alpha, c.Power)
	}
	in, _ := json.Marshal(map[string]any{"cases": cases})
	cmd := exec.Command(py, filepath.Join("testdata", "reference.py"))
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("reference.py: %v", err)
	}
	var refs []referenceResult
	if err := json.Unmarshal(out, &refs); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		checkReference(t, c, refs[i], resamples)
	}
}

// checkReference compares one case with its references.
func checkReference(t *testing.T, c referenceCase, ref referenceResult, resamples int) {
	t.Helper()
	s := Sample{A: c.A, B: c.B}
	n := float64(len(c.A))
	// Monte Carlo error of a 2.5 % quantile of B resampled means:
	// √(p(1−p)/B)/φ(z_p) · sd/√n ≈ 2.67 · sd/√(nB), twice as large for a
	// difference of two independent estimates; 5 standard errors.
	// Resampled means of lattice-valued differences (hits: −1, 0, 1) lie on
	// a lattice of step g/n, g the smallest gap between distinct
	// differences, so a quantile may also move by one step.
	tol := 5*math.Sqrt2*2.67*ref.SD/math.Sqrt(n*float64(resamples)) + latticeStep(c.A, c.B)/n
	for m, want := range map[IntervalMethod][2]float64{BCa: ref.BCa, Percentile: ref.Percentile} {
		iv, err := BootstrapInterval(s, m, Options{Seed: 7, Resamples: resamples})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(iv.Low-want[0]) > tol || math.Abs(iv.High-want[1]) > tol {
			t.Errorf("%s n = %d %s: [%.5f, %.5f], scipy [%.5f, %.5f] (tolerance %.5f)", c.Name, len(c.A), m, iv.Low, iv.High, want[0], want[1], tol)
		}
	}
	e, err := TOST(s, c.Margin)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range [][2]float64{{e.P, ref.TOST.P}, {e.PLower, ref.TOST.PLower}, {e.PUpper, ref.TOST.PUpper}} {
		if math.Abs(p[0]-p[1]) > 1e-6 {
			t.Errorf("%s n = %d TOST: p %.9g, statsmodels %.9g", c.Name, len(c.A), p[0], p[1])
		}
	}
	k, ok := SampleSize(c.Detect, ref.SD, c.Alpha, c.Power)
	if !ok || math.Abs(float64(k)-ref.NObs) > 1 || float64(k) < ref.NObs {
		t.Errorf("%s: sample size %d (ok %v), statsmodels %.3f", c.Name, k, ok, ref.NObs)
	}
	if math.Abs(ref.PowerAt-c.Power) > 1e-6 {
		t.Errorf("%s n = %d: MDD %.6f has power %.9f by statsmodels, want %g", c.Name, len(c.A), c.MDD, ref.PowerAt, c.Power)
	}
}

// latticeStep returns the smallest positive gap between distinct values of
// a − b.
func latticeStep(a, b []float64) float64 {
	d, _ := Sample{A: a, B: b}.diffs()
	slices.Sort(d)
	step := math.Inf(1)
	for i := 1; i < len(d); i++ {
		if g := d[i] - d[i-1]; g > 1e-12 {
			step = math.Min(step, g)
		}
	}
	return step
}
