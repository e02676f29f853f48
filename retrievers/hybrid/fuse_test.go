package hybrid

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/fusion"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/retrievers"
)

// approx compares float64 scores to 1e-12 relative (cmpopts.EquateApprox).
var approx = cmpopts.EquateApprox(1e-12, 1e-15)

// bm25Like and denseLike are the two inputs of the hand-computed examples:
//
//	input 0: d1 3.0, d2 2.0, d3 1.0      ranks d1=1 d2=2 d3=3
//	input 1: d3 0.9, d1 0.8, d4 0.7      ranks d3=1 d1=2 d4=3
var (
	bm25Like  = eval.Run{"q": {{DocID: "d2", Score: 2}, {DocID: "d1", Score: 3}, {DocID: "d3", Score: 1}}}
	denseLike = eval.Run{"q": {{DocID: "d3", Score: 0.9}, {DocID: "d1", Score: 0.8}, {DocID: "d4", Score: 0.7}}}
)

func TestFuseRRFHandComputed(t *testing.T) {
	// RRF, k = 60 (Cormack et al. 2009), by hand:
	//   d1 = 1/(60+1) + 1/(60+2) = 123/3782 = 0.032522474881...
	//   d3 = 1/(60+3) + 1/(60+1) = 124/3843 = 0.032266458495...
	//   d2 = 1/(60+2)            =   1/62   = 0.016129032258...
	//   d4 = 1/(60+3)            =   1/63   = 0.015873015873...
	got, err := Fuse([]eval.Run{bm25Like, denseLike}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := eval.Run{"q": {
		{DocID: "d1", Score: 123.0 / 3782},
		{DocID: "d3", Score: 124.0 / 3843},
		{DocID: "d2", Score: 1.0 / 62},
		{DocID: "d4", Score: 1.0 / 63},
	}}
	if d := cmp.Diff(want, got, approx); d != "" {
		t.Errorf("RRF (-want +got):\n%s", d)
	}
	// The same by decimal expansion, to 1e-12.
	for i, w := range []float64{0.032522474881, 0.032266458495, 0.016129032258, 0.015873015873} {
		if math.Abs(got["q"][i].Score-w) > 1e-12 {
			t.Errorf("rank %d: score %.15f, want %.12f", i+1, got["q"][i].Score, w)
		}
	}
}

func TestFuseRRFWeightsKDepth(t *testing.T) {
	// Weights 2 and 1, k = 10, depth 2 (d3 of input 0 and d4 of input 1 cut):
	//   d1 = 2/11 + 1/12 = 0.265151...;  d2 = 2/12 = 0.1666...;  d3 = 1/11 = 0.0909...
	got, err := Fuse([]eval.Run{bm25Like, denseLike}, Options{Method: RRF, K: 10, Weights: []float64{2, 1}, Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := eval.Run{"q": {
		{DocID: "d1", Score: 2.0/11 + 1.0/12},
		{DocID: "d2", Score: 2.0 / 12},
		{DocID: "d3", Score: 1.0 / 11},
	}}
	if d := cmp.Diff(want, got, approx); d != "" {
		t.Errorf("weighted RRF (-want +got):\n%s", d)
	}
}

func TestFuseCombSUMAndMNZHandComputed(t *testing.T) {
	// Min-max: input 0 → d1 1, d2 0.5, d3 0; input 1 → d3 1, d1 0.5, d4 0.
	//   CombSUM: d1 1.5, d3 1, d2 0.5, d4 0
	//   CombMNZ: d1 1.5·2 = 3, d3 1·2 = 2, d2 0.5·1, d4 0·1
	sum, err := Fuse([]eval.Run{bm25Like, denseLike}, Options{Method: CombSUM, Norm: MinMax, Depth: DefaultDepth})
	if err != nil {
		t.Fatal(err)
	}
	wantSum := eval.Run{"q": {{DocID: "d1", Score: 1.5}, {DocID: "d3", Score: 1}, {DocID: "d2", Score: 0.5}, {DocID: "d4", Score: 0}}}
	if d := cmp.Diff(wantSum, sum, approx); d != "" {
		t.Errorf("CombSUM min-max (-want +got):\n%s", d)
	}
	mnz, err := Fuse([]eval.Run{bm25Like, denseLike}, Options{Method: CombMNZ, Norm: MinMax, Depth: DefaultDepth})
	if err != nil {
		t.Fatal(err)
	}
	wantMNZ := eval.Run{"q": {{DocID: "d1", Score: 3}, {DocID: "d3", Score: 2}, {DocID: "d2", Score: 0.5}, {DocID: "d4", Score: 0}}}
	if d := cmp.Diff(wantMNZ, mnz, approx); d != "" {
		t.Errorf("CombMNZ min-max (-want +got):\n%s", d)
	}
	// z-score with population σ: input 0 mean 2, σ = √(2/3) → d1 +1.224744871391589,
	// d2 0, d3 −1.224744871391589; input 1 mean 0.8, σ = √(0.02/3) → d3 +1.2247…,
	// d1 0, d4 −1.2247…. Weights 1 and 0.5:
	//   d1 = 1.224744871391589, d2 = 0, d3 = −1.2247… + 0.6123724356957945 = −0.6123724356957945,
	//   d4 = −0.6123724356957945.
	z, err := Fuse([]eval.Run{bm25Like, denseLike}, Options{Method: CombSUM, Norm: ZScore, Weights: []float64{1, 0.5}, Depth: DefaultDepth})
	if err != nil {
		t.Fatal(err)
	}
	score := map[string]float64{}
	for _, r := range z["q"] {
		score[r.DocID] = r.Score
	}
	wantZ := map[string]float64{"d1": 1.224744871391589, "d2": 0, "d3": -0.6123724356957945, "d4": -0.6123724356957945}
	if d := cmp.Diff(wantZ, score, cmpopts.EquateApprox(0, 1e-9)); d != "" {
		t.Errorf("CombSUM z-score (-want +got):\n%s", d)
	}
	if z["q"][0].DocID != "d1" || z["q"][1].DocID != "d2" {
		t.Errorf("CombSUM z-score order: %v, want d1, d2 first", z["q"])
	}
}

func TestFuseDisjointTiesEmpty(t *testing.T) {
	a := eval.Run{
		"q1": {{DocID: "a", Score: 5}, {DocID: "b", Score: 4}},
		"q2": {{DocID: "x", Score: 1}, {DocID: "y", Score: 1}}, // tie: ranks y=1, x=2 (id descending, trec_eval's)
		"q3": {},
		"q4": {},
	}
	b := eval.Run{
		"q1": {{DocID: "c", Score: 0.5}, {DocID: "d", Score: 0.4}},
		"q2": {{DocID: "x", Score: 3}, {DocID: "y", Score: 2}},
		"q3": {{DocID: "z", Score: 1}},
		// q4 absent from b; q5 only in b
		"q5": {{DocID: "w", Score: 1}},
	}
	got, err := Fuse([]eval.Run{a, b}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := eval.Run{
		// Disjoint: a and c both 1/61, b and d both 1/62; ties by id descending.
		"q1": {{DocID: "c", Score: 1.0 / 61}, {DocID: "a", Score: 1.0 / 61}, {DocID: "d", Score: 1.0 / 62}, {DocID: "b", Score: 1.0 / 62}},
		// y = 1/61 + 1/62 = x (had a's tie gone to x by id ascending, x would
		// get 2/61 and y 2/62); the fused tie is broken by id descending.
		"q2": {{DocID: "y", Score: 1.0/61 + 1.0/62}, {DocID: "x", Score: 1.0/62 + 1.0/61}},
		"q3": {{DocID: "z", Score: 1.0 / 61}},
		"q4": {},
		"q5": {{DocID: "w", Score: 1.0 / 61}},
	}
	if d := cmp.Diff(want, got, approx); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if got["q4"] == nil {
		t.Error("q4: want an empty non-nil list")
	}
	// Min-max of a single-score list: max = min → 0 (ranx's convention).
	mm, err := Fuse([]eval.Run{{"q": {{DocID: "only", Score: 7}}}}, Options{Method: CombSUM, Norm: MinMax, Depth: DefaultDepth})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(eval.Run{"q": {{DocID: "only", Score: 0}}}, mm); d != "" {
		t.Errorf("single-score min-max (-want +got):\n%s", d)
	}
}

func TestFuseDoesNotModifyInputs(t *testing.T) {
	in := eval.Run{"q": {{DocID: "b", Score: 1}, {DocID: "a", Score: 2}}}
	if _, err := Fuse([]eval.Run{in}, DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	if in["q"][0].DocID != "b" {
		t.Errorf("input reordered: %v", in["q"])
	}
}

func TestFuseErrors(t *testing.T) {
	ok := eval.Run{"q": {{DocID: "a", Score: 1}}}
	for _, tc := range []struct {
		name string
		runs []eval.Run
		opts Options
		want string
	}{
		{"no runs", nil, Options{}, "no runs"},
		{"NaN", []eval.Run{ok, {"q": {{DocID: "n", Score: math.NaN()}}}}, Options{}, `input 1, query "q": doc "n": score is NaN`},
		{"Inf", []eval.Run{{"q": {{DocID: "i", Score: math.Inf(1)}}}}, Options{}, `doc "i": score is +Inf`},
		{"duplicate", []eval.Run{{"q": {{DocID: "a", Score: 1}, {DocID: "b", Score: 0.5}, {DocID: "a", Score: 0.1}}}}, Options{}, `doc "a": listed twice`},
		{"weights length", []eval.Run{ok, ok}, Options{Weights: []float64{1}}, "1 weights for 2 inputs"},
		{"negative weight", []eval.Run{ok}, Options{Weights: []float64{-1}}, "weights[0]"},
		{"method", []eval.Run{ok}, Options{Method: "borda", Depth: 1}, `unknown fusion method "borda"`},
		{"empty method", []eval.Run{ok}, Options{Method: "", Depth: 1}, `unknown fusion method ""`},
		{"norm", []eval.Run{ok}, Options{Method: CombSUM, Norm: "l2", Depth: 1}, `unknown normalization "l2"`},
		{"no norm", []eval.Run{ok}, Options{Method: CombMNZ, Depth: 1}, "combmnz needs a normalization"},
		{"rrf norm", []eval.Run{ok}, Options{Method: RRF, Norm: MinMax, Depth: 1}, "rrf takes no normalization"},
		{"dbsf norm", []eval.Run{ok}, Options{Method: DBSF, Norm: ZScore, Depth: 1}, "dbsf takes no normalization"},
		{"k", []eval.Run{ok}, Options{Method: RRF, K: -1, Depth: 1}, "rank constant"},
		{"k inf", []eval.Run{ok}, Options{Method: RRF, K: math.Inf(1), Depth: 1}, "rank constant"},
		{"k NaN", []eval.Run{ok}, Options{Method: RRF, K: math.NaN(), Depth: 1}, "rank constant"},
		{"depth", []eval.Run{ok}, Options{Method: RRF, K: 60, Depth: -3}, "depth: must be ≥ 1"},
		{"depth 0", []eval.Run{ok}, Options{Method: RRF, K: 60, Depth: 0}, "depth: must be ≥ 1"},
		{"NaN weight", []eval.Run{ok}, Options{Weights: []float64{math.NaN()}}, "weights[0]"},
		{"Inf weight", []eval.Run{ok}, Options{Weights: []float64{math.Inf(1)}}, "weights[0]"},
		{"all weights zero", []eval.Run{ok, ok}, Options{Weights: []float64{0, 0}}, "weights: every weight is 0"},
		{"missing", []eval.Run{ok}, Options{Method: RRF, Missing: "drop", Depth: 1}, `unknown policy "drop"`},
		{"missing min rrf", []eval.Run{ok}, Options{Method: RRF, Missing: MissingMin, Depth: 1}, `"min" applies to score methods`},
		{"missing rank combsum", []eval.Run{ok}, Options{Method: CombSUM, Norm: MinMax, Missing: MissingRank, Depth: 1}, `"rank" applies to rrf only`},
		{"missing borda minmax", []eval.Run{ok}, Options{Method: CombSUM, Norm: MinMax, Missing: MissingBorda, Depth: 1}, `"borda" applies to the borda`},
		{"max of negatives", []eval.Run{{"q": {{DocID: "a", Score: -1}}}}, Options{Method: CombSUM, Norm: Max, Depth: 1}, `query "q": input 0: max normalization needs a top score > 0, got -1`},
	} {
		o := tc.opts
		if o.Method == "" && tc.name != "empty method" {
			o.Method, o.K, o.Depth = RRF, DefaultK, DefaultDepth
		}
		_, err := Fuse(tc.runs, o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}

// TestFuseRRFAgreesWithBleve checks our RRF against bleve v2.6.3's own
// fusion.ReciprocalRankFusion on random inputs: one "FTS" list (bleve's
// DocumentMatch.Score) and two "kNN" lists (ScoreBreakdown[0], [1]), with
// distinct scores so that both sides rank identically, weights 1, 0.7, 1.3.
func TestFuseRRFAgreesWithBleve(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 50 {
		const pool = 40
		window := 5 + rng.IntN(40)
		rankConstant := 1 + rng.IntN(80)
		weights := []float64{1, 0.7, 1.3}
		runs := make([]eval.Run, 3)
		hits := map[string]*search.DocumentMatch{}
		var order []string
		for i := range runs {
			var l []eval.Result
			for d := range pool {
				if rng.Float64() < 0.5 {
					continue
				}
				id := fmt.Sprintf("d%02d", d)
				s := 0.001 + rng.Float64() // > 0: bleve reads FTS score 0 as "no FTS hit"
				l = append(l, eval.Result{DocID: id, Score: s})
				h, ok := hits[id]
				if !ok {
					h = &search.DocumentMatch{ID: id, HitNumber: uint64(len(order))}
					hits[id] = h
					order = append(order, id)
				}
				if i == 0 {
					h.Score = s
				} else {
					if h.ScoreBreakdown == nil {
						h.ScoreBreakdown = map[int]float64{}
					}
					h.ScoreBreakdown[i-1] = s
				}
			}
			runs[i] = eval.Run{"q": l}
		}
		coll := make(search.DocumentMatchCollection, 0, len(order))
		for _, id := range order {
			coll = append(coll, hits[id])
		}
		res := fusion.ReciprocalRankFusion(coll, weights, rankConstant, window, 2, false)

		got, err := Fuse(runs, Options{Method: RRF, K: float64(rankConstant), Weights: weights, Depth: window})
		if err != nil {
			t.Fatal(err)
		}
		ours := map[string]float64{}
		for _, r := range got["q"] {
			ours[r.DocID] = r.Score
		}
		// bleve returns the top `window` fused hits (and hits with score 0 when
		// fewer than window fused); compare every hit with a nonzero score.
		n := 0
		for rank, h := range res.Hits {
			if h.Score == 0 {
				continue
			}
			n++
			if math.Abs(ours[h.ID]-h.Score) > 1e-15 {
				t.Errorf("trial %d: %s: ours %.17g, bleve %.17g", trial, h.ID, ours[h.ID], h.Score)
			}
			// Same rank when bleve's neighbours differ in score (no tie).
			if rank < len(got["q"]) && got["q"][rank].DocID != h.ID && math.Abs(got["q"][rank].Score-h.Score) > 1e-15 {
				t.Errorf("trial %d: rank %d: ours %s, bleve %s", trial, rank+1, got["q"][rank].DocID, h.ID)
			}
		}
		if want := min(window, len(ours)); n != want {
			t.Errorf("trial %d: bleve returned %d scored hits, want %d", trial, n, want)
		}
	}
}

// fakeRetriever returns a fixed run (cut to k) and fixed stats.
type fakeRetriever struct {
	run   eval.Run
	stats retrievers.Stats
	gotK  int
}

func (f *fakeRetriever) Search(_ context.Context, qs []retrievers.Query, k int) (eval.Run, error) {
	f.gotK = k
	out := eval.Run{}
	for _, q := range qs {
		l := f.run[q.ID]
		out[q.ID] = l[:min(k, len(l))]
	}
	return out, nil
}

func (f *fakeRetriever) Stats() retrievers.Stats { return f.stats }

func TestRetriever(t *testing.T) {
	a := &fakeRetriever{run: bm25Like, stats: retrievers.Stats{Build: time.Second, IndexBytes: 10, LatencyP50: time.Millisecond, LatencyP95: 2 * time.Millisecond}}
	b := &fakeRetriever{run: denseLike, stats: retrievers.Stats{Build: 2 * time.Second, IndexBytes: 5, LatencyP50: time.Millisecond, LatencyP95: 3 * time.Millisecond}}
	r, err := New([]retrievers.Retriever{a, b}, Options{Method: RRF, K: DefaultK, Depth: 50})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Search(context.Background(), []retrievers.Query{{ID: "q"}, {ID: "none"}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := eval.Run{"q": {{DocID: "d1", Score: 123.0 / 3782}, {DocID: "d3", Score: 124.0 / 3843}}, "none": {}}
	if d := cmp.Diff(want, got, approx); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if a.gotK != 50 {
		t.Errorf("input searched with k=%d, want depth 50", a.gotK)
	}
	s := r.Stats()
	if s.Build != 3*time.Second || s.IndexBytes != 15 || s.Queries != 2 || s.LatencyP95 < 5*time.Millisecond {
		t.Errorf("stats %+v", s)
	}
	if _, err := r.Search(context.Background(), nil, 0); err == nil {
		t.Error("k=0: want an error")
	}
	if _, err := New(nil, DefaultOptions()); err == nil {
		t.Error("no inputs: want an error")
	}
	if _, err := New([]retrievers.Retriever{a, nil}, DefaultOptions()); err == nil {
		t.Error("nil input: want an error")
	}
}

// TestFuseOverflow: finite scores whose fused score overflows float64 are
// an *OverflowError naming query, doc and the inputs holding it, never a
// +Inf score: CombSUM none of 1e308 + 1e308 (+Inf), and CombMNZ none of
// 1e308 + 1 = 1e308 (finite) × 2 inputs (+Inf). An input of weight 0 is
// not named (it takes no part).
func TestFuseOverflow(t *testing.T) {
	a := eval.Run{"q": {{DocID: "d1", Score: 1e308}, {DocID: "d2", Score: 1}}}
	b := eval.Run{"q": {{DocID: "d1", Score: 1e308}}}
	c := eval.Run{"q": {{DocID: "d1", Score: 1}}}
	for _, tc := range []struct {
		name   string
		runs   []eval.Run
		o      Options
		inputs []int
	}{
		{"combsum sum", []eval.Run{a, b}, Options{Method: CombSUM, Norm: None, Depth: 10}, []int{0, 1}},
		{"combmnz product", []eval.Run{a, c, b}, Options{Method: CombMNZ, Norm: None, Depth: 10, Weights: []float64{1, 1, 0}}, []int{0, 1}},
	} {
		_, err := Fuse(tc.runs, tc.o)
		var oe *OverflowError
		if !errors.As(err, &oe) || oe.Query != "q" || oe.Doc != "d1" || !math.IsInf(oe.Score, 1) || !slices.Equal(oe.Inputs, tc.inputs) {
			t.Errorf("%s: error %#v, want an *OverflowError for q, d1, +Inf, inputs %v", tc.name, err, tc.inputs)
		}
	}
}
