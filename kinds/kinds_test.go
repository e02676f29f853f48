package kinds

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/encoder"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/testenv"
	"github.com/ragbench/ragbench/retrievers"
)

// countProgress records the Count calls of a build.
type countProgress struct {
	NoProgress
	calls []countCall
}

type countCall struct {
	stage       string
	done, total int
}

func (p *countProgress) Count(stage string, done, total int) {
	p.calls = append(p.calls, countCall{stage, done, total})
}

// TestBuildProgress: the dense build and the reranker report their counts
// through Progress.Count. 5 chunks embedded in one call of dense.New (its
// batch is 256), in model batches of 2, none cached → the count after the
// cache lookup, then after each model batch: 0, 2, 4, 5 of 5. Reranking 2
// queries × depth 2 of 3 first-stage results → 4 pairs, scored per query
// → ("rerank", 2, 4) then ("rerank", 4, 4).
func TestBuildProgress(t *testing.T) {
	if err := encoder.Init(""); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("onnxruntime under CI: %v", err)
		}
		t.Skipf("onnxruntime not available: %v", err)
	}
	env := NewEnv(t.TempDir(), "")
	defer env.Close()
	var chunks []corpus.Chunk
	for i, text := range []string{"alpha beta", "gamma delta", "epsilon zeta", "eta theta", "iota kappa"} {
		id := string(rune('a' + i))
		chunks = append(chunks, corpus.Chunk{ID: id, DocID: id, Text: text, End: len(text)})
	}
	ctx := context.Background()
	prog := &countProgress{}
	dense := &Dense{ONNXModel{Model: testenv.Shared(t, "models/use-lite"), BatchSize: 2}}
	if _, err := dense.build(ctx, &Cell{Retriever: "dense", Chunks: corpus.ChunkList(chunks), Env: env, Progress: prog}); err != nil {
		t.Fatal(err)
	}
	if want := []countCall{{"embed", 0, 5}, {"embed", 2, 5}, {"embed", 4, 5}, {"embed", 5, 5}}; !slices.Equal(prog.calls, want) {
		t.Errorf("dense build progress %v, want %v", prog.calls, want)
	}
	prog.calls = nil
	first := eval.Run{
		"q1": {{DocID: "a", Score: 3}, {DocID: "b", Score: 2}, {DocID: "c", Score: 1}},
		"q2": {{DocID: "d", Score: 3}, {DocID: "e", Score: 2}, {DocID: "a", Score: 1}},
	}
	queries := []retrievers.Query{{ID: "q1", Text: "alpha"}, {ID: "q2", Text: "eta"}}
	rr := &Rerank{ONNXModel: ONNXModel{Model: testenv.Shared(t, "models/ce-scifact-tiny"), BatchSize: 8}, Depth: 2, Mode: "ce"}
	if _, err := rr.rerankRun(ctx, &Cell{Retriever: "ce", Chunks: corpus.ChunkList(chunks), Queries: queries, Inputs: []eval.Run{first}, Env: env, Progress: prog}); err != nil {
		t.Fatal(err)
	}
	if want := []countCall{{"rerank", 2, 4}, {"rerank", 4, 4}}; !slices.Equal(prog.calls, want) {
		t.Errorf("rerank progress %v, want %v", prog.calls, want)
	}
}

// TestHybridField: hybrid.Options.Validate's field names map back to the
// config's (k → rrf_k, weights[1] → weights.1).
func TestHybridField(t *testing.T) {
	key, msg := hybridField(errors.New("hybrid: k: RRF rank constant must be a finite number ≥ 0, got -1"))
	if key != "rrf_k" || msg != "RRF rank constant must be a finite number ≥ 0, got -1" {
		t.Errorf("hybridField = %q, %q", key, msg)
	}
	if key, _ := hybridField(errors.New("hybrid: weights[1]: must be finite and ≥ 0, got -0.5")); key != "weights.1" {
		t.Errorf("weights[1] → %q, want weights.1", key)
	}
}

// TestZeroWeightFusedKey: a hybrid with a weight 0 (given, or in its
// weights grid) gets a run-cache key part of its own, since a weight-0
// input stopped taking part in the fusion (runs cached before were fused
// with it); other retrievers keep their keys.
func TestZeroWeightFusedKey(t *testing.T) {
	for _, tc := range []struct {
		s    Settings
		want bool
	}{
		{&Hybrid{Weights: []float64{1, 0}}, true},
		{&Hybrid{Tune: &TuneGrid{Weights: [][]float64{{1, 1}, {0, 1}}}}, true},
		{&Hybrid{Weights: []float64{1, 0.5}}, false},
		{&Hybrid{}, false},
	} {
		if got := tc.s.(CacheKeyed).CacheKeyParts()["zero_weight"] == "absent"; got != tc.want {
			t.Errorf("%+v: %v, want %v", tc.s, got, tc.want)
		}
	}
	if _, ok := Settings(&Dense{}).(CacheKeyed); ok {
		t.Error("dense has cache key parts")
	}
}

// TestRegistry: every kind's settings are a pointer to a struct whose
// keys are unique within the kind, and the names are listed in registry
// order; the reference kind is bm25.
func TestRegistry(t *testing.T) {
	if got, want := Names(), "bm25, dense, hybrid, rerank, elasticsearch, opensearch, run, http"; got != want {
		t.Errorf("Names() = %q, want %q", got, want)
	}
	for _, k := range registry {
		keys := keysOf(k.New())
		seen := map[string]bool{}
		for _, key := range keys {
			if seen[key] || key == "name" || key == "type" {
				t.Errorf("%s: key %q twice or reserved", k.Name, key)
			}
			seen[key] = true
		}
		if k.Reference != (k.Name == "bm25") {
			t.Errorf("%s: Reference %v", k.Name, k.Reference)
		}
	}
}

// TestCEScoreCache: cross-encoder scores saved by one sweep are read back
// by the next for the same model folder (so re-tuning alpha scores no
// pair again) and not for another; the scorer here has no model, so a
// pair missing from the cache would panic.
func TestCEScoreCache(t *testing.T) {
	cache, model, other := t.TempDir(), t.TempDir(), t.TempDir()
	for dir, content := range map[string]string{model: "weights a", other: "weights b"} {
		if err := os.WriteFile(filepath.Join(dir, "model.onnx"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	first := &crossScorer{memo: map[[2]string]float32{}, disk: loadCEDisk(cache, model)}
	first.disk.put("q", "p1", 1.25)
	first.disk.put("q", "p2", -3.0000002)
	if err := first.saveScores(); err != nil {
		t.Fatal(err)
	}
	next := &crossScorer{memo: map[[2]string]float32{}, disk: loadCEDisk(cache, model)}
	got, err := next.score(t.Context(), "q", []string{"p2", "p1"})
	if err != nil || len(got) != 2 || got[0] != -3.0000002 || got[1] != 1.25 {
		t.Errorf("cached scores %v, %v; want [-3.0000002 1.25]", got, err)
	}
	if _, ok := loadCEDisk(cache, other).get("q", "p1"); ok {
		t.Error("another model folder read this model's scores")
	}
}

// TestHybridDescribe: the retriever table's line of a hybrid names its
// fusion, normalisation and inputs, and, when they are not the defaults,
// each input's weight and the missing policy (a report that omits the
// weights 0.6/0.4 describes another retriever).
func TestHybridDescribe(t *testing.T) {
	for _, c := range []struct {
		h    Hybrid
		want string
	}{
		{Hybrid{Inputs: []string{"bm25", "dense"}, Fusion: "rrf", RRFK: ptr(60.0), Depth: 100}, "RRF(k=60) of bm25 + dense, top 100 each"},
		{Hybrid{Inputs: []string{"bm25", "dense"}, Fusion: "combsum", Normalization: "zscore", Weights: []float64{0.6, 0.4}, Depth: 100},
			"combsum (zscore) of 0.6·bm25 + 0.4·dense, top 100 each"},
		{Hybrid{Inputs: []string{"bm25", "dense"}, Fusion: "combsum", Normalization: "minmax", Weights: []float64{1, 1}, Depth: 50}, "combsum (minmax) of bm25 + dense, top 50 each"},
		{Hybrid{Inputs: []string{"a", "b", "c"}, Fusion: "rrf", RRFK: ptr(10.0), Weights: []float64{2, 1, 0}, Depth: 100}, "RRF(k=10) of 2·a + 1·b + 0·c, top 100 each"},
		{Hybrid{Inputs: []string{"a", "b"}, Fusion: "combmnz", Normalization: "minmax", Missing: "min", Depth: 100}, "combmnz (minmax) of a + b, top 100 each, missing: min"},
		{Hybrid{Inputs: []string{"a", "b"}, Fusion: "combsum", Normalization: "borda", Missing: "borda", Depth: 100}, "combsum (borda) of a + b, top 100 each"},
	} {
		if got := c.h.Describe(); got != c.want {
			t.Errorf("Describe = %q, want %q", got, c.want)
		}
	}
}
