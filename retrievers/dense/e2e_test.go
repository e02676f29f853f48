//go:build e2e

package dense_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ragbench/ragbench/encoder"
	"github.com/ragbench/ragbench/internal/testenv"
	"github.com/ragbench/ragbench/internal/testenv/beir"
	"github.com/ragbench/ragbench/internal/testenv/embedtest"
	"github.com/ragbench/ragbench/retrievers/dense"
)

// TestE2EDenseMTEB checks dense nDCG@10 on SciFact test (whole documents,
// title + text) against MTEB's published values, for each standard model
// fetched by scripts/fetch-models.sh into models/ (skipped when absent):
// all-minilm-l6-v2 0.6451, bge-small-en-v1.5 0.7127, e5-small-v2 0.6885
// (MTEB leaderboard, SciFact, nDCG@10). The tolerance is 0.01 for the fp32
// exports; e5-small-v2-q is an int8 quantisation of e5-small-v2, so it is
// held to 0.03 of e5-small-v2's value and the difference is reported.
// all-minilm-l6-v2-q (int8, dynamically quantized, run at batch 1) is held
// to 0.01 of the fp32 model's MTEB value: the bound under which
// configs/scifact.yaml may use it in place of fp32 (issue 14).
func TestE2EDenseMTEB(t *testing.T) {
	ds := testenv.Shared(t, "datasets/scifact")
	models := []struct {
		dir      string
		ref, tol float64
		full     bool // only with RAGBENCH_E2E_FULL=1: too slow for CI's budget
	}{
		{"all-minilm-l6-v2", 0.6451, 0.01, false},
		{"all-minilm-l6-v2-q", 0.6451, 0.01, false},
		{"bge-small-en-v1.5", 0.7127, 0.01, false},
		{"e5-small-v2", 0.6885, 0.01, false},
		// Dynamically quantized: the encoder forces batch size 1, so 5,183
		// documents take several times MiniLM's time on 2 cores.
		{"e5-small-v2-q", 0.6885, 0.03, true},
	}
	var present []int
	for i, m := range models {
		if m.full && os.Getenv("RAGBENCH_E2E_FULL") != "1" {
			t.Logf("%s: skipped (set RAGBENCH_E2E_FULL=1)", m.dir)
			continue
		}
		if _, err := os.Stat(filepath.Join(testenv.RepoRoot(), "models", m.dir, "model.onnx")); err == nil {
			present = append(present, i)
		}
	}
	if len(present) == 0 {
		t.Skip("no standard model under models/ (run scripts/fetch-models.sh)")
	}
	if err := encoder.Init(""); err != nil {
		t.Fatal(err)
	}
	chunks, queries, qrels := beir.WholeDocsTest(t, ds)
	for _, i := range present {
		m := models[i]
		t.Run(m.dir, func(t *testing.T) {
			ctx := context.Background()
			emb := embedtest.Cached(t, filepath.Join(testenv.RepoRoot(), "models", m.dir))
			r, err := dense.New(ctx, chunks, emb.Embed, dense.Options{Model: emb.Fingerprint()})
			if err != nil {
				t.Fatal(err)
			}
			run, el := beir.TimedSearch(t, ctx, r, queries, 100)
			ev := beir.Evaluate(t, qrels, run)
			ndcg := beir.Mean(t, ev, "ndcg_cut_10")
			r100 := beir.Mean(t, ev, "recall_100")
			mrr := beir.Mean(t, ev, "recip_rank_cut_10")
			st, cs := r.Stats(), emb.Stats()
			t.Logf("%s: nDCG@10 %.4f (MTEB %.4f, Δ %+.4f)  R@100 %.4f  MRR@10 %.4f; built %d docs in %v (%.1f docs/s), %d queries in %v (%.1f q/s); embedding cache %d hits, %d misses",
				m.dir, ndcg, m.ref, ndcg-m.ref, r100, mrr, r.Len(), st.Build.Round(time.Millisecond), float64(r.Len())/st.Build.Seconds(),
				len(queries), el.Round(time.Millisecond), float64(len(queries))/el.Seconds(), cs.Hits, cs.Misses)
			if math.Abs(ndcg-m.ref) > m.tol {
				t.Errorf("%s: nDCG@10 %.4f, want MTEB's %.4f ± %.2f", m.dir, ndcg, m.ref, m.tol)
			}
		})
	}
}
