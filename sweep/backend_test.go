package sweep

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/encoder"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/testenv"
	"github.com/ragbench/ragbench/retrievers"
)

// TestBackendProgress: the dense build and the reranker report their
// counts through buildEnv.progress. 5 chunks embedded in one call of
// dense.New (its batch is 256), in model batches of 2, none cached → the
// count after the cache lookup, then after each model batch: 0, 2, 4, 5
// of 5. Reranking 2
// queries × depth 2 of 3 first-stage results → 4 pairs, scored per query
// → ("rerank", 2, 4) then ("rerank", 4, 4).
func TestBackendProgress(t *testing.T) {
	if err := encoder.Init(""); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("onnxruntime under CI: %v", err)
		}
		t.Skipf("onnxruntime not available: %v", err)
	}
	type call struct {
		stage       string
		done, total int
	}
	var calls []call
	mdl := &models{embedders: map[string]*encoder.CachedEmbedder{}, crosses: map[string]*crossScorer{}, cacheDir: t.TempDir()}
	defer mdl.close()
	env := buildEnv{cacheDir: t.TempDir(), models: mdl,
		progress: func(stage string, done, total int) { calls = append(calls, call{stage, done, total}) }}
	var chunks []corpus.Chunk
	for i, text := range []string{"alpha beta", "gamma delta", "epsilon zeta", "eta theta", "iota kappa"} {
		id := string(rune('a' + i))
		chunks = append(chunks, corpus.Chunk{ID: id, DocID: id, Text: text, End: len(text)})
	}
	ctx := context.Background()
	dense := RetrieverConfig{Name: "dense", Type: "dense", Model: testenv.Shared(t, "models/use-lite"), BatchSize: 2}
	if _, err := newFirstStage(ctx, chunks, dense, env); err != nil {
		t.Fatal(err)
	}
	if want := []call{{"embed", 0, 5}, {"embed", 2, 5}, {"embed", 4, 5}, {"embed", 5, 5}}; !slices.Equal(calls, want) {
		t.Errorf("dense build progress %v, want %v", calls, want)
	}
	calls = nil
	first := eval.Run{
		"q1": {{DocID: "a", Score: 3}, {DocID: "b", Score: 2}, {DocID: "c", Score: 1}},
		"q2": {{DocID: "d", Score: 3}, {DocID: "e", Score: 2}, {DocID: "a", Score: 1}},
	}
	queries := []retrievers.Query{{ID: "q1", Text: "alpha"}, {ID: "q2", Text: "eta"}}
	rr := RetrieverConfig{Name: "ce", Type: "rerank", Model: testenv.Shared(t, "models/ce-scifact-tiny"), BatchSize: 8, Depth: 2, Mode: "ce"}
	if _, err := rerankRun(ctx, first, queries, chunks, rr, env); err != nil {
		t.Fatal(err)
	}
	if want := []call{{"rerank", 2, 4}, {"rerank", 4, 4}}; !slices.Equal(calls, want) {
		t.Errorf("rerank progress %v, want %v", calls, want)
	}
}
