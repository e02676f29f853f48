//go:build e2e

package sweep

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragbench/ragbench/internal/testenv"
	"github.com/ragbench/ragbench/results"
)

// TestE2EScifactReduced runs testdata/scifact-e2e.yaml on the shared SciFact
// test split twice (the second from the caches) and checks the numbers
// against published references:
//   - BM25 (k1 = 0.9, b = 0.4) on whole documents, title + text: Pyserini's
//     flat index reports nDCG@10 = 0.6789 and Recall@100 = 0.9253 (BEIR
//     README of ../shared/datasets); issue 5 asks for nDCG@10 ≥ 0.665.
//   - ce-scifact-tiny interpolated with BM25 (α = 0.4, per-query z-scores)
//     over BM25's top 100: 0.7210 in the model's SOURCE.md (with an
//     unstemmed BM25), 0.661 for its BM25. Here the top 20 are reranked (to
//     keep the test short); reranking must still improve nDCG@10.
//
// SciFact has no slices and no unanswerable test query; 300 queries are
// judged and about 20% are held out.
func TestE2EScifactReduced(t *testing.T) {
	data := testenv.Shared(t, "")
	models := filepath.Join(data, "models")
	dir := t.TempDir()
	cfg, err := Load("testdata/scifact-e2e.yaml", LoadOptions{DataDir: data, ModelsDir: models,
		Output: filepath.Join(dir, "out"), CacheDir: filepath.Join(dir, "cache"), History: filepath.Join(dir, "h.csv")})
	if err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(testenv.RepoRoot(), "third_party", "onnxruntime", "libonnxruntime.so")
	if env := os.Getenv("ONNXRUNTIME_LIB"); env != "" {
		lib = env
	}
	t0 := time.Now()
	res, err := Run(t.Context(), cfg, Options{ONNXRuntime: lib})
	if err != nil {
		t.Fatal(err)
	}
	first := time.Since(t0)
	a := withoutTimings(t, filepath.Join(cfg.Output, "results.json"))

	d := res.Dataset
	if d.Queries != 300 || d.Answerable != 300 || d.Unanswerable != 0 || len(d.Slices) != 0 {
		t.Errorf("dataset %+v: want 300 answerable queries, no slices", d)
	}
	if d.HeldOut < 40 || d.HeldOut > 80 {
		t.Errorf("%d queries held out, want about 60 (20%% of 300)", d.HeldOut)
	}
	cell := func(name string) results.CellResult {
		for _, c := range res.Cells {
			if c.Name == name {
				return c
			}
		}
		t.Fatalf("no cell %s", name)
		return results.CellResult{}
	}
	bm := cell("doc/bm25").Means[results.GroupAll]
	if v := bm["ndcg@10"]; v < 0.665 || v > 0.69 {
		t.Errorf("doc/bm25 nDCG@10 = %.4f, want within [0.665, 0.69] (Pyserini 0.6789)", v)
	}
	if v := bm["recall@100"]; v < 0.90 || v > 0.95 {
		t.Errorf("doc/bm25 recall@100 = %.4f, want near Pyserini's 0.9253", v)
	}
	rr := cell("doc/rerank").Means[results.GroupAll]["ndcg@10"]
	if rr < bm["ndcg@10"]+0.02 {
		t.Errorf("doc/rerank nDCG@10 = %.4f, want clearly above BM25's %.4f (SOURCE.md: 0.661 → 0.721)", rr, bm["ndcg@10"])
	}
	report, _ := os.ReadFile(filepath.Join(cfg.Output, "report.md"))
	for _, s := range []string{"The dataset has no slices", "## Tuning vs held-out", "<sup>", "fixed-256o32/rerank"} {
		if !strings.Contains(string(report), s) {
			t.Errorf("report.md lacks %q", s)
		}
	}
	// Issue 23: the default plan compares each cell with the baseline, the
	// best BM25 cell on the primary metric (found here from the means), in
	// 8 − 1 = 7 comparisons, and report.md says so.
	best, bestV := "", -1.0
	for _, c := range res.Cells {
		if c.Retriever.Type == "bm25" && c.Means[results.GroupAll]["ndcg@10"] > bestV {
			best, bestV = c.Name, c.Means[results.GroupAll]["ndcg@10"]
		}
	}
	if sig := res.Significance; sig.Plan != "baseline" || sig.Baseline != best {
		t.Errorf("significance plan %q baseline %q, want baseline %q (the best BM25 cell, nDCG@10 %.4f)", sig.Plan, sig.Baseline, best, bestV)
	}
	if want := "Plan: each cell against baseline " + best + ": 7 comparisons"; !strings.Contains(string(report), want) {
		t.Errorf("report.md lacks %q", want)
	}
	if fi, err := os.Stat(filepath.Join(cfg.Output, "misses.jsonl")); err != nil || fi.Size() == 0 {
		t.Errorf("misses.jsonl missing or empty: %v", err)
	}

	// Second run: every cell from the run cache, same bytes.
	t1 := time.Now()
	res2, err := Run(t.Context(), cfg, Options{ONNXRuntime: lib})
	if err != nil {
		t.Fatal(err)
	}
	second := time.Since(t1)
	for _, tm := range res2.Timings {
		if !tm.Cached {
			t.Errorf("second run: %s not cached", tm.Cell)
		}
	}
	if b := withoutTimings(t, filepath.Join(cfg.Output, "results.json")); !bytes.Equal(a, b) {
		t.Error("results.json differs between the first and the cached run")
	}
	t.Logf("first run %s, second (cached) run %s (%.1f%%)", first.Round(time.Millisecond), second.Round(time.Millisecond), 100*second.Seconds()/first.Seconds())
}
