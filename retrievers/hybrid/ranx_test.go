package hybrid_test

import (
	"reflect"
	"testing"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/testenv/ranxfuse"
	"github.com/ragbench/ragbench/retrievers/hybrid"
)

// TestFuseMatchesRanx fuses SciFact BM25 and all-MiniLM-L6-v2 runs (30 test
// queries, depth 100) with every method and normalisation ranx 0.3.21 also
// implements — rrf, comb_sum, comb_mnz and wsum (weights 0.7, 0.3) over
// min-max, max, sum, zmuv, rank and borda — and checks each fused run against
// the one ranx's fuse() made (testdata/scifact/ranx_reference.py): same
// documents, scores within 1e-9, same order up to ties. Options are
// ragbench's defaults for each method (MissingZero, or MissingBorda for
// Borda), which are ranx's policies.
func TestFuseMatchesRanx(t *testing.T) {
	ref, err := ranxfuse.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(ref) != 19 {
		t.Fatalf("%d reference runs, want 19", len(ref))
	}
	bm25, dense, err := ranxfuse.Inputs()
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range ref {
		o := hybrid.Options{
			Method:  hybrid.Method(c.Method),
			Norm:    hybrid.Normalization(c.Norm),
			Weights: c.Weights,
			K:       hybrid.DefaultK,
			Depth:   hybrid.DefaultDepth,
		}
		got, err := hybrid.Fuse([]eval.Run{c.Subset(bm25), c.Subset(dense)}, o)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		ties, err := c.Compare(got)
		if err != nil {
			t.Errorf("%s: differs from ranx:\n%v", name, err)
		}
		t.Logf("%s: equal to ranx over %d queries (%d positions differ only among tied scores)", name, len(got), ties)
	}
}

// TestRankedFuseEqualsFuse: runs ranked once (RankRuns) and fused under every
// setting of a grid give exactly hybrid.Fuse's run for each setting — the
// path a tuning sweep takes.
func TestRankedFuseEqualsFuse(t *testing.T) {
	bm25, dense, err := ranxfuse.Inputs()
	if err != nil {
		t.Fatal(err)
	}
	runs := []eval.Run{bm25, dense}
	settings, err := hybrid.Grid{
		Methods: hybrid.Methods,
		Norms:   []hybrid.Normalization{hybrid.MinMax, hybrid.ZScore, hybrid.Max, hybrid.Sum, hybrid.Rank, hybrid.Borda, hybrid.None},
		Weights: [][]float64{{1, 1}, {0.3, 0.7}},
		Depths:  []int{10, 100},
	}.Expand(2)
	if err != nil {
		t.Fatal(err)
	}
	ranked, err := hybrid.RankRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range settings {
		want, err := hybrid.Fuse(runs, o)
		if err != nil {
			t.Fatalf("%s: %v", o, err)
		}
		got, err := ranked.Fuse(o)
		if err != nil {
			t.Fatalf("%s: %v", o, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Ranked.Fuse differs from Fuse", o)
		}
	}
	if _, err := hybrid.RankRuns(nil); err == nil {
		t.Error("RankRuns(nil): want an error")
	}
}
