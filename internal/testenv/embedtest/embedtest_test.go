package embedtest

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/ragbench/ragbench/encoder"
	"github.com/ragbench/ragbench/internal/testenv"
)

// TestCached: use-lite loaded through Cached embeds the sentences of its
// reference.json (written by the model's exporter, ../shared) to within
// 1e-4 of the reference vectors, writes them under $RAGBENCH_CACHE (6
// misses), and serves a second call from there (6 hits, same vectors).
func TestCached(t *testing.T) {
	dir := testenv.Shared(t, "models/use-lite")
	if err := encoder.Init(""); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("onnxruntime under CI: %v", err)
		}
		t.Skipf("onnxruntime not available: %v", err)
	}
	var ref struct {
		Sentences  []string    `json:"sentences"`
		Embeddings [][]float32 `json:"sentence_embedding"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	t.Setenv("RAGBENCH_CACHE", cache)
	c := Cached(t, dir)
	if filepath.Dir(c.Dir()) != cache { // Dir is the model's subfolder
		t.Errorf("cache dir %q, want one under $RAGBENCH_CACHE %q", c.Dir(), cache)
	}
	n := int64(len(ref.Sentences))
	for pass, want := range []encoder.CacheStats{{Misses: n}, {Hits: n, Misses: n}} {
		vecs, err := c.Embed(context.Background(), ref.Sentences, false)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range vecs {
			if len(v) != len(ref.Embeddings[i]) {
				t.Fatalf("pass %d sentence %d: dim %d, want %d", pass, i, len(v), len(ref.Embeddings[i]))
			}
			for k := range v {
				if d := math.Abs(float64(v[k] - ref.Embeddings[i][k])); d > 1e-4 {
					t.Fatalf("pass %d sentence %d [%d]: %g, reference %g", pass, i, k, v[k], ref.Embeddings[i][k])
				}
			}
		}
		if got := c.Stats(); got.Hits != want.Hits || got.Misses != want.Misses {
			t.Errorf("pass %d: cache %d hits, %d misses; want %d, %d", pass, got.Hits, got.Misses, want.Hits, want.Misses)
		}
	}
}
