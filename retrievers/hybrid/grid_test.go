package hybrid

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGridExpand(t *testing.T) {
	for _, c := range []struct {
		name string
		g    Grid
		want []string
	}{
		{
			// rrf: 2 weights × 2 K; combsum: 2 norms × 2 weights (a repeated
			// norm adds nothing); dbsf: 2 weights.
			"axes per method",
			Grid{
				Methods: []Method{RRF, CombSUM, DBSF},
				Norms:   []Normalization{MinMax, ZScore, MinMax},
				Weights: [][]float64{{1, 1}, {0.7, 0.3}},
				K:       []float64{0, 60},
			},
			[]string{
				"rrf k=0 missing=zero weights=1,1 depth=100",
				"rrf k=60 missing=zero weights=1,1 depth=100",
				"rrf k=0 missing=zero weights=0.7,0.3 depth=100",
				"rrf k=60 missing=zero weights=0.7,0.3 depth=100",
				"combsum norm=minmax missing=zero weights=1,1 depth=100",
				"combsum norm=minmax missing=zero weights=0.7,0.3 depth=100",
				"combsum norm=zscore missing=zero weights=1,1 depth=100",
				"combsum norm=zscore missing=zero weights=0.7,0.3 depth=100",
				"dbsf missing=zero weights=1,1 depth=100",
				"dbsf missing=zero weights=0.7,0.3 depth=100",
			},
		},
		{
			// Norms apply to harmonic and geometric only where they are
			// non-negative (MeanNorms): zscore and none to combsum alone.
			"mean norms",
			Grid{Methods: []Method{CombSUM, Harmonic, Geometric}, Norms: []Normalization{ZScore, MinMax, None, Rank}},
			[]string{
				"combsum norm=zscore missing=zero depth=100",
				"combsum norm=minmax missing=zero depth=100",
				"combsum norm=none missing=zero depth=100",
				"combsum norm=rank missing=zero depth=100",
				"harmonic norm=minmax missing=zero depth=100",
				"harmonic norm=rank missing=zero depth=100",
				"geometric norm=minmax missing=zero depth=100",
				"geometric norm=rank missing=zero depth=100",
			},
		},
		{
			// Policies apply where valid: borda only with Borda, rank only with RRF.
			"policies",
			Grid{Methods: []Method{RRF, CombSUM}, Norms: []Normalization{Borda}, Missing: []Missing{MissingZero, MissingRank, MissingBorda}},
			[]string{
				"rrf k=60 missing=zero depth=100",
				"rrf k=60 missing=rank depth=100",
				"combsum norm=borda missing=zero depth=100",
				"combsum norm=borda missing=borda depth=100",
			},
		},
	} {
		if d := cmp.Diff(c.want, expandNames(t, c.g)); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
	}
}

// expandNames returns the names (Options.String) of g's settings for two
// inputs.
func expandNames(t *testing.T, g Grid) []string {
	t.Helper()
	got, err := g.Expand(2)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(got))
	for i, o := range got {
		names[i] = o.String()
	}
	return names
}

func TestGridErrors(t *testing.T) {
	many := make([]float64, 1001)
	for i := range many {
		many[i] = float64(i)
	}
	for _, c := range []struct {
		name string
		g    Grid
		want string
	}{
		{"no methods", Grid{}, "no methods"},
		{"unknown method", Grid{Methods: []Method{RRF, "wmnz"}}, `methods[1]: unknown fusion method "wmnz"`},
		{"negative weight", Grid{Methods: []Method{CombSUM}, Weights: [][]float64{{1, 1}, {1, -1}}}, "weights[1][1]: must be finite and ≥ 0, got -1"},
		{"weight count", Grid{Methods: []Method{CombSUM}, Weights: [][]float64{{1}}}, "weights[0]: 1 weights for 2 inputs"},
		{"k", Grid{Methods: []Method{RRF}, K: []float64{60, -1}}, "k[1]: RRF rank constant"},
		{"depth", Grid{Methods: []Method{RRF}, Depths: []int{100, 0}}, "depths[1]: must be ≥ 1"},
		{"norm", Grid{Methods: []Method{CombSUM}, Norms: []Normalization{"l2"}}, `unknown normalization "l2"`},
		{"no mean norm", Grid{Methods: []Method{CombSUM, Geometric}, Norms: []Normalization{ZScore, None}},
			"methods[1]: none of the grid's normalizations (zscore or none) applies to geometric, which takes minmax, sum, rank or borda"},
		{"unused policy", Grid{Methods: []Method{CombSUM}, Missing: []Missing{MissingRank}}, `missing[0]: policy "rank" applies to none`},
		{"too many", Grid{Methods: []Method{RRF}, K: many}, "more than 1000 settings"},
	} {
		_, err := c.g.Expand(2)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}
