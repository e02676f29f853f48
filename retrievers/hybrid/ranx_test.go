package hybrid_test

import (
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
	bm25, err := eval.ReadRun(ranxfuse.Path("bm25.trec.gz"))
	if err != nil {
		t.Fatal(err)
	}
	dense, err := eval.ReadRun(ranxfuse.Path("dense.trec.gz"))
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
