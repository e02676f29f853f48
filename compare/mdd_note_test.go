package compare

import (
	"strings"
	"testing"
)

// TestMDDNoteNoVariance: the minimum detectable difference is λ·sd/√n, so
// with no per-query variance there is none to report. Identical runs, or a
// run shifted by a constant (0.1 on every query: equal differences up to
// float rounding), must say "undefined (no per-query variance)", never
// "below 0.000 are noise" (nor call any MDD a noise floor); with a third, varying system the sentence keeps
// the median over the two pairs that vary and counts the flat one.
func TestMDDNoteNoVariance(t *testing.T) {
	base := map[string]float64{"q1": 0.3, "q2": 0.7, "q3": 0.1, "q4": 0.55, "q5": 0.2}
	shift := map[string]float64{}
	vary := map[string]float64{}
	for i, q := range []string{"q1", "q2", "q3", "q4", "q5"} {
		shift[q] = base[q] + 0.1
		vary[q] = base[q] + []float64{0.2, -0.1, 0.05, 0.3, -0.2}[i]
	}
	note := func(t *testing.T, systems []string, scores map[string]map[string]float64) string {
		t.Helper()
		in := Input{Systems: systems, Metrics: []string{"ndcg@3"}, Scores: Scores{}}
		for _, s := range systems {
			in.Scores[s] = map[string]map[string]float64{"ndcg@3": scores[s]}
		}
		r, err := Compare(in, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range r.Notes() {
			if strings.Contains(n, "ndcg@3") && strings.Contains(n, "minimum detectable") {
				return n
			}
		}
		t.Fatalf("no minimum-detectable-difference note in %q", r.Notes())
		return ""
	}
	for name, other := range map[string]map[string]float64{"identical": base, "constant shift": shift} {
		n := note(t, []string{"a", "b"}, map[string]map[string]float64{"a": base, "b": other})
		want := "With 5 queries, the minimum detectable difference in ndcg@3 is undefined (no per-query variance"
		if !strings.HasPrefix(n, want) || strings.Contains(n, "noise") {
			t.Errorf("%s: note %q, want it to start %q", name, n, want)
		}
	}
	n := note(t, []string{"a", "b", "c"}, map[string]map[string]float64{"a": base, "b": base, "c": vary})
	for _, want := range []string{"the minimum detectable difference in ndcg@3 at 80% power", "(median over 2 pairs", "; undefined for 1 other pair with no per-query variance): smaller true differences are likely to be missed."} {
		if !strings.Contains(n, want) {
			t.Errorf("mixed: note %q lacks %q", n, want)
		}
	}
	if strings.Contains(n, "is 0.000") || strings.Contains(n, "noise") {
		t.Errorf("mixed: note %q reports a zero MDD", n)
	}
}
