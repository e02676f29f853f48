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
	texts := testenv.SciFactAbstracts(t, 16)
	ctx := context.Background()
	for name, dir := range dirs {
		byBatchSize(t, func(bs int) ([][]float32, error) {
			e, err := LoadEmbedder(dir, Options{BatchSize: bs, IntraOpThreads: 1})
			if err != nil {
				return nil, err
			}
			defer e.Close()
			return e.Embed(ctx, texts, false)
		}, func(bs int, base, v [][]float32) {
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
		})
	}
	ce := testenv.Shared(t, "models/ce-scifact-tiny")
	byBatchSize(t, func(bs int) ([]float32, error) {
		c, err := LoadCrossEncoder(ce, Options{BatchSize: bs, IntraOpThreads: 1})
		if err != nil {
			return nil, err
		}
		defer c.Close()
		return c.Score(ctx, "What causes inflammation in the brain?", texts)
	}, func(bs int, base, v []float32) {
		var maxd float64
		for i := range v {
			maxd = max(maxd, math.Abs(float64(v[i]-base[i])))
		}
		t.Logf("ce-scifact-tiny: batch %d vs batch 1: max |Δ logit| %.3g", bs, maxd)
		if maxd > 1e-5 {
			t.Errorf("ce-scifact-tiny: batch %d vs batch 1: max |Δ logit| %.3g > 1e-5", bs, maxd)
		}
	})
}

// byBatchSize computes out at batch sizes 1, 8 and 32 (an error fails the
// test) and checks each later size's output against batch 1's.
func byBatchSize[T any](t *testing.T, out func(bs int) (T, error), check func(bs int, base, v T)) {
	t.Helper()
	var base T
	for i, bs := range []int{1, 8, 32} {
		v, err := out(bs)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			base = v
			continue
		}
		check(bs, base, v)
	}
}
