package encoder

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/ragbench/ragbench/internal/testenv"
)

// TestBatchSizeRounding: for fp32 graphs the batch a text is embedded with
// changes its vector by float rounding only. Embedding 16 SciFact abstracts
// at batch 1, 8 and 32 gives vectors within 1e-6 of each other
// (components of unit vectors; the measured spread is logged, and whether
// they are bit-identical). Texts are padded to their batch's longest, and
// ONNX Runtime's kernels pick different blockings for different shapes, so
// the last bits can move: that is why Options.BatchSize has one documented
// default rather than a timing-dependent choice. The cross-encoder
// ce-scifact-tiny's logits for a query and the same 16 abstracts move by at
// most 1e-5 (logits span about -12..8).
func TestBatchSizeRounding(t *testing.T) {
	needRuntime(t)
	dirs := map[string]string{}
	dirs["use-lite"], _ = useLite(t)
	if d := filepath.Join(testenv.RepoRoot(), "models", "all-minilm-l6-v2"); fileExists(filepath.Join(d, ModelFile)) {
		dirs["all-minilm-l6-v2"] = d
	}
	texts := sciFactAbstracts(t, 16)
	ctx := context.Background()
	for name, dir := range dirs {
		var base [][]float32
		for _, bs := range []int{1, 8, 32} {
			e, err := LoadEmbedder(dir, Options{BatchSize: bs, IntraOpThreads: 1})
			if err != nil {
				t.Fatal(err)
			}
			v, err := e.Embed(ctx, texts, false)
			e.Close()
			if err != nil {
				t.Fatal(err)
			}
			if base == nil {
				base = v
				continue
			}
			var maxd float64
			same := true
			for i := range v {
				for j := range v[i] {
					d := math.Abs(float64(v[i][j] - base[i][j]))
					maxd = max(maxd, d)
					if v[i][j] != base[i][j] {
						same = false
					}
				}
			}
			t.Logf("%s: batch %d vs batch 1: max |Δ| %.3g, bit-identical %v", name, bs, maxd, same)
			if maxd > 1e-6 {
				t.Errorf("%s: batch %d vs batch 1: max |Δ| %.3g > 1e-6", name, bs, maxd)
			}
		}
	}
	ce := testenv.Shared(t, "models/ce-scifact-tiny")
	var base []float32
	for _, bs := range []int{1, 8, 32} {
		c, err := LoadCrossEncoder(ce, Options{BatchSize: bs, IntraOpThreads: 1})
		if err != nil {
			t.Fatal(err)
		}
		v, err := c.Score(ctx, "What causes inflammation in the brain?", texts)
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		if base == nil {
			base = v
			continue
		}
		var maxd float64
		for i := range v {
			maxd = max(maxd, math.Abs(float64(v[i]-base[i])))
		}
		t.Logf("ce-scifact-tiny: batch %d vs batch 1: max |Δ logit| %.3g", bs, maxd)
		if maxd > 1e-5 {
			t.Errorf("ce-scifact-tiny: batch %d vs batch 1: max |Δ logit| %.3g > 1e-5", bs, maxd)
		}
	}
}
