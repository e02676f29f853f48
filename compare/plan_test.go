package compare

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// newcomer rebuilds issue 23's case: 36 cells on 35 queries, 18 of them
// identical to the baseline (served from the cache), 16 others that differ
// by noise, and one changed cell that gains +0.257 on average.
func newcomer() Input {
	rng := rand.New(rand.NewPCG(23, 35))
	const n = 35
	base := make([]float64, n)
	for q := range base {
		base[q] = math.Round(rng.Float64()*0.7*8) / 8
	}
	in := Input{Metrics: []string{"span_recall@5"}, Scores: Scores{}}
	add := func(name string, f func(q int) float64) {
		col := map[string]float64{}
		for q := range n {
			col[fmt.Sprintf("q%02d", q)] = f(q)
		}
		in.Systems = append(in.Systems, name)
		in.Scores[name] = map[string]map[string]float64{"span_recall@5": col}
	}
	add("base", func(q int) float64 { return base[q] })
	for i := range 18 {
		add(fmt.Sprintf("same%02d", i), func(q int) float64 { return base[q] })
	}
	for i := range 16 {
		add(fmt.Sprintf("noise%02d", i), func(q int) float64 {
			return math.Max(0, math.Min(1, base[q]+float64(rng.IntN(5)-2)/8))
		})
	}
	add("changed", func(q int) float64 { return math.Min(1, base[q]+[]float64{0, 0.25, 0.5}[q%3]+0.02) })
	return in
}

// TestBaselinePlanNewcomer: under the baseline plan the changed cell is
// better (its interval excludes 0), the 18 identical cells are "unchanged
// (identical)" and left out of the correction (17 counted, not 35), and a
// revert (the changed cell as baseline) is worse; under all pairs (630
// comparisons) the same change is not significant.
func TestBaselinePlanNewcomer(t *testing.T) {
	in := newcomer()
	r, err := Compare(in, Options{Plan: Plan{Kind: VsBaseline, Baseline: "base"}, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Pairs) != 35 || r.Comparisons != 17 || r.Identical != 18 {
		t.Fatalf("pairs %d, counted %d, identical %d; want 35, 17, 18", len(r.Pairs), r.Comparisons, r.Identical)
	}
	for _, p := range r.Pairs {
		switch {
		case p.B != "base":
			t.Errorf("pair %s vs %s: want the baseline as B", p.A, p.B)
		case strings.HasPrefix(p.A, "same") && (p.Verdict != Identical || p.Counted || p.PAdjusted != 1):
			t.Errorf("%s: verdict %q counted %v p adj %v, want identical, not counted, 1", p.A, p.Verdict, p.Counted, p.PAdjusted)
		case p.A == "changed" && (p.Verdict != Better || !p.CI.Defined || p.CI.Low <= 0 || math.Abs(p.Effect.MeanDiff-0.257) > 0.001):
			t.Errorf("changed: verdict %q, Δ %.4f, CI %+v; want better with an interval above 0", p.Verdict, p.Effect.MeanDiff, p.CI)
		}
	}
	if !strings.Contains(r.PlanSentence(), "18 identical (same score on every query) reported as unchanged and not counted, 17 counted") {
		t.Errorf("plan sentence: %s", r.PlanSentence())
	}
	rev, err := Compare(in, Options{Plan: Plan{Kind: VsBaseline, Baseline: "changed"}, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rev.Pairs {
		if p.A == "base" && p.Verdict != Worse {
			t.Errorf("revert: base vs changed verdict %q (p adj %v), want worse", p.Verdict, p.PAdjusted)
		}
	}
	all, err := Compare(in, Options{Plan: Plan{Kind: AllPairs}, Seed: 3, Permutations: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if all.Comparisons >= 630 || all.Comparisons < 400 {
		t.Errorf("all pairs: %d counted comparisons", all.Comparisons)
	}
	for _, p := range all.Pairs {
		if p.A == "base" && p.B == "changed" && (p.Significant || p.Verdict != NoEvidence) {
			t.Errorf("all pairs: base vs changed p adj %v verdict %q, want not significant (the correction over all pairs)", p.PAdjusted, p.Verdict)
		}
	}
	if all.Power[0].MDD <= r.Power[0].MDD {
		t.Errorf("all-pairs MDD %.3f not above the baseline plan's %.3f", all.Power[0].MDD, r.Power[0].MDD)
	}
}

// TestBestPlanAndTies: the best plan compares with each metric's best
// system (the first of tied ones) and the tie is named.
func TestBestPlanAndTies(t *testing.T) {
	in := Input{Systems: []string{"a", "b", "c"}, Metrics: []string{"m"}, Scores: Scores{
		"a": {"m": byQuery("q", []float64{1, 0, 1, 0})},
		"b": {"m": byQuery("q", []float64{0, 1, 1, 1})},
		"c": {"m": byQuery("q", []float64{1, 1, 0, 1})},
	}}
	r, err := Compare(in, Options{Plan: Plan{Kind: VsBest}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Reference[0] != 1 || len(r.Pairs) != 2 || r.Pairs[0].B != "b" || r.Pairs[1].A != "c" {
		t.Errorf("reference %d, pairs %+v; want b as B of a and c", r.Reference[0], r.Pairs)
	}
	if len(r.Ties[0]) != 2 || !strings.Contains(strings.Join(r.Summary(), "\n"), "Tied for best on m (0.7500): b b, c c.") {
		t.Errorf("ties %v, summary %q", r.Ties, r.Summary())
	}
	if _, err := Compare(in, Options{Plan: Plan{Kind: VsBaseline, Baseline: "x"}}); err == nil {
		t.Error("unknown baseline: want an error")
	}
	if _, err := Compare(in, Options{Plan: Plan{Kind: Explicit, Pairs: [][2]string{{"a", "a"}}}}); err == nil {
		t.Error("a system paired with itself: want an error")
	}
	ex, err := Compare(in, Options{Plan: Plan{Kind: Explicit, Pairs: [][2]string{{"c", "a"}}}, Seed: 1})
	if err != nil || len(ex.Pairs) != 1 || ex.Pairs[0].A != "c" || ex.Pairs[0].B != "a" {
		t.Errorf("explicit pair: %v %+v", err, ex)
	}
}

// TestEquivalenceVerdict: a system within ±0.01 of the baseline on 200
// queries is "equivalent within ±0.05" by TOST; without a margin there is
// no evidence either way.
func TestEquivalenceVerdict(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	a, b := make([]float64, 200), make([]float64, 200)
	for i := range a {
		a[i] = rng.Float64()
		b[i] = a[i] + (rng.Float64()-0.5)*0.02
	}
	in := Input{Systems: []string{"old", "new"}, Metrics: []string{"m"}, Scores: Scores{
		"old": {"m": byQuery("q", a)}, "new": {"m": byQuery("q", b)}}}
	for margin, want := range map[float64]string{0.05: "equivalent within ±0.05", 0: "no evidence either way"} {
		r, err := Compare(in, Options{Plan: Plan{Kind: VsBaseline, Baseline: "old"}, Equivalence: margin, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if got := r.VerdictText(r.Pairs[0]); got != want {
			t.Errorf("margin %g: verdict %q (TOST p adj %v), want %q", margin, got, r.Pairs[0].PEquivalenceAdjusted, want)
		}
	}
}

// TestLabelsBeyond26: with 30 systems the labels are numbers and a run of
// superscripts is separated ("¹·³", <sup>1,3</sup>), never "ah".
func TestLabelsBeyond26(t *testing.T) {
	if l := Labels(26); l[25] != "z" {
		t.Errorf("26 systems: last label %q", l[25])
	}
	in := Input{Metrics: []string{"m"}, Scores: Scores{}}
	for i := range 30 {
		name := fmt.Sprintf("s%02d", i)
		in.Systems = append(in.Systems, name)
		v := make([]float64, 30)
		for q := range v {
			v[q] = float64(q%5) / 5
			if i == 29 {
				v[q] = 1
			}
		}
		in.Scores[name] = map[string]map[string]float64{"m": byQuery("q", v)}
	}
	r, err := Compare(in, Options{Plan: Plan{Kind: VsBest}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Letters[0] != "1" || r.Letters[29] != "30" {
		t.Fatalf("labels %v", r.Letters)
	}
	var text, md bytes.Buffer
	r.Write(&text, Table)
	r.Write(&md, Markdown)
	if !strings.Contains(text.String(), "1.0000¹·²·³") || !strings.Contains(md.String(), "<sup>1,2,3,") {
		t.Errorf("superscripts:\n%s\n%s", text.String(), md.String())
	}
}

// TestTinyReports: with 1–3 queries and 1–3 systems, every format writes
// without a NaN or an infinity, intervals of one query are "[–, –]".
func TestTinyReports(t *testing.T) {
	for n := 1; n <= 3; n++ {
		for m := 1; m <= 3; m++ {
			in := Input{Metrics: []string{"m"}, Scores: Scores{}}
			for s := range m {
				name := fmt.Sprintf("s%d", s)
				in.Systems = append(in.Systems, name)
				v := make([]float64, n)
				for q := range v {
					v[q] = float64((q+s)%2) * 0.5
				}
				in.Scores[name] = map[string]map[string]float64{"m": byQuery("q", v)}
			}
			for _, plan := range []Plan{{Kind: AllPairs}, {Kind: VsBest}, {}} {
				r, err := Compare(in, Options{Plan: plan, Equivalence: 0.1, Seed: 1, Permutations: 100, Resamples: 1000})
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range []Format{Table, Markdown, LaTeX, CSV, JSON} {
					var b bytes.Buffer
					if err := r.Write(&b, f); err != nil {
						t.Fatal(err)
					}
					out := b.String()
					if strings.Contains(out, "NaN") || strings.Contains(out, "Inf") || strings.Contains(out, "e+308") {
						t.Errorf("n = %d, %d systems, %s: %s", n, m, f, out)
					}
					if n == 1 && m > 1 && f == Table && !strings.Contains(out, "[–, –]") {
						t.Errorf("n = 1: no [–, –] interval in\n%s", out)
					}
				}
			}
		}
	}
}
