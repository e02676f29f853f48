//go:build e2e

package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragbench/ragbench/internal/pipetest"
	"github.com/ragbench/ragbench/internal/testenv"
)

// TestE2EPipelinesReport is issue 22's acceptance in one bench run: on the
// 276 questions of chunking-chroma, chunked by recursive 1000/150, the
// built-in BM25 and dense (all-MiniLM-L6-v2, the shared embeddings cache)
// beside both reference pipelines, each twice — its passage run file
// (type run) and its server (type http). The two paths give identical
// numbers on every query; each pipeline's span_recall@k, token_recall@k
// and token_precision@k (k = 1, 5, 10) equal the independent Python
// scorer's on the run file to 1e-9; and every cell is in report.md and in
// the paired tests (each against the baseline, the BM25 cell).
func TestE2EPipelinesReport(t *testing.T) {
	model := testenv.Model(t, "all-minilm-l6-v2")
	if os.Getenv("ONNXRUNTIME_LIB") == "" {
		t.Skip("ONNXRUNTIME_LIB is not set: the dense cell needs ONNX Runtime")
	}
	lcRun := pipetest.Runs(t, "langchain", "offsets")["offsets"]
	liRun := pipetest.Runs(t, "llamaindex", "text-ws")["text-ws"] // passages by text, placed with white space normalised
	lc := pipetest.Pipeline(t, nil, "langchain")
	li := pipetest.Pipeline(t, nil, "llamaindex")
	retrievers := fmt.Sprintf(`  - {name: bm25, type: bm25}
  - {name: dense, type: dense, model: %q}
  - {name: langchain-run, type: run, file: %q}
  - {name: langchain-http, type: http, url: %q, k: 10}
  - {name: llamaindex-run, type: run, file: %q}
  - {name: llamaindex-http, type: http, url: %q, k: 10}`, model, lcRun, lc.URL("/search"), liRun, li.URL("/search"))
	s := newSweep(t, 0, retrievers)
	testenv.LinkEmbeddingCache(t, filepath.Join(s.cache, "embeddings"))
	t0 := time.Now()
	code, _, errOut := s.run()
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	t.Logf("bench run of 6 cells in %v", time.Since(t0).Round(time.Millisecond))
	r := s.results(t)
	corpusDir, questions := pipetest.Chroma(t)
	for _, p := range []struct{ name, file string }{{"langchain", lcRun}, {"llamaindex", liRun}} {
		runMeans, runPer := r.cell(t, "recursive-1000o150/"+p.name+"-run")
		_, httpPer := r.cell(t, "recursive-1000o150/"+p.name+"-http")
		if len(runPer) != 276 {
			t.Errorf("%s: %d queries scored, want 276", p.name, len(runPer))
		}
		for q, m := range runPer {
			for name, v := range m {
				if httpPer[q][name] != v {
					t.Errorf("%s query %s %s: run %v, http %v", p.name, q, name, v, httpPer[q][name])
				}
			}
		}
		ref := pipetest.Score(t, corpusDir, questions, p.file, 1, 5, 10)
		for _, f := range []string{"span_recall", "token_recall", "token_precision"} {
			for _, k := range []int{1, 5, 10} {
				name := fmt.Sprintf("%s@%d", f, k)
				got, want := runMeans["all"][name], ref.Means[name]
				if math.Abs(got-want) > 1e-9 {
					t.Errorf("%s %s = %.12f, the Python scorer %.12f", p.name, name, got, want)
				}
				t.Logf("%s %-18s ragbench %.10f scorer %.10f", p.name, name, got, want)
			}
		}
	}
	report, err := os.ReadFile(filepath.Join(s.out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"bm25", "dense", "langchain-run", "langchain-http", "llamaindex-run", "llamaindex-http"} {
		name := "recursive-1000o150/" + c
		if !strings.Contains(string(report), name) {
			t.Errorf("report.md lacks cell %s", name)
		}
		paired := 0
		for _, p := range r.Significance.Pairs {
			if p.A == name || p.B == name {
				paired++
			}
		}
		// The default plan: each cell against the baseline (the best BM25
		// cell, here the only one), so the baseline is in 5 tests and every
		// other cell in one, with it.
		want := 1
		if name == r.Significance.Baseline {
			want = 5
		}
		if paired != want {
			t.Errorf("cell %s in %d paired tests, want %d (baseline %s)", name, paired, want, r.Significance.Baseline)
		}
	}
}
