//go:build e2e

package hybrid_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ragbench/ragbench/encoder"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/testenv"
	"github.com/ragbench/ragbench/internal/testenv/beir"
	"github.com/ragbench/ragbench/retrievers"
	"github.com/ragbench/ragbench/retrievers/bm25"
	"github.com/ragbench/ragbench/retrievers/dense"
	"github.com/ragbench/ragbench/retrievers/hybrid"
	"github.com/ragbench/ragbench/stats"
)

func evaluate(t *testing.T, qrels eval.Qrels, run eval.Run) *eval.Evaluation {
	t.Helper()
	ms, err := eval.ParseMeasures([]string{"ndcg_cut.10", "recall.100", "recip_rank_cut.10"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := eval.Evaluate(qrels, run, ms, eval.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func mean(t *testing.T, e *eval.Evaluation, name string) float64 {
	t.Helper()
	v, ok := e.Mean(name)
	if !ok {
		t.Fatalf("no measure %s", name)
	}
	return v
}

func summary(t *testing.T, e *eval.Evaluation) string {
	return fmt.Sprintf("nDCG@10 %.4f  R@100 %.4f  MRR@10 %.4f", mean(t, e, "ndcg_cut_10"), mean(t, e, "recall_100"), mean(t, e, "recip_rank_cut_10"))
}

func paired(t *testing.T, name string, a, b *eval.Evaluation) {
	t.Helper()
	for i := range a.Queries {
		if a.Queries[i] != b.Queries[i] {
			t.Fatalf("query order differs at %d", i)
		}
	}
	s := stats.Sample{QueryIDs: a.Queries, A: a.Column("ndcg_cut_10"), B: b.Column("ndcg_cut_10")}
	for _, test := range []stats.Test{stats.Randomization, stats.TTest} {
		r, err := stats.Paired(test, s, stats.Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s vs BM25, nDCG@10, paired %s test: %.4f vs %.4f, Δ %+.4f, p = %.4g (n = %d)",
			name, test, r.MeanA, r.MeanB, r.MeanA-r.MeanB, r.P, r.N)
	}
}

// peakRSS returns the process's peak resident set size (VmHWM) in MiB.
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			f := strings.Fields(l)
			if len(f) < 2 {
				return 0
			}
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

// TestE2EDenseHybridSciFact runs, on SciFact test (300 queries, 5,183 whole
// documents, title + text): dense retrieval with ../shared/models/use-lite,
// BM25, and their RRF fusion (k = 60, depth 100), and logs nDCG@10,
// Recall@100, MRR@10, throughput and paired tests against BM25. use-lite has
// no published BEIR score (its SOURCE.md: "our own measured numbers are the
// reference"), so quality is reported, not asserted; what is asserted is
// independent of our code: the dense top 10 equals a brute-force float64
// cosine over the same embeddings, a saved and reloaded index returns the
// same run, and hybrid.New equals hybrid.Fuse of the inputs' runs.
func TestE2EDenseHybridSciFact(t *testing.T) {
	ds := testenv.Shared(t, "datasets/scifact")
	model := testenv.Shared(t, "models/use-lite")
	if err := encoder.Init(""); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	chunks, queries, qrels := beir.WholeDocsTest(t, ds)
	sort.Slice(queries, func(i, j int) bool { return queries[i].ID < queries[j].ID })

	e, err := encoder.LoadEmbedder(model, encoder.Options{IntraOpThreads: runtime.GOMAXPROCS(0)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	emb, err := encoder.NewCachedEmbedder(e, cacheDir())
	if err != nil {
		t.Fatal(err)
	}
	d, err := dense.New(ctx, chunks, emb.Embed, dense.Options{Model: emb.Fingerprint()})
	if err != nil {
		t.Fatal(err)
	}
	ds1 := d.Stats()
	cs := emb.Stats()
	t.Logf("dense use-lite: built %d × %d in %v (%.1f docs/s; embedding cache %d hits, %d misses — docs/s measures embedding only when hits = 0); peak RSS %.0f MiB",
		d.Len(), d.Dim(), ds1.Build.Round(time.Millisecond), float64(d.Len())/ds1.Build.Seconds(), cs.Hits, cs.Misses, peakRSS())
	// Round trip through one file must not change a number.
	path := filepath.Join(t.TempDir(), "scifact.dense")
	if err := d.Save(path); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	loaded, err := dense.Load(ctx, path, emb.Embed, dense.Options{Model: emb.Fingerprint()})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("dense use-lite: saved %.1f MiB, loaded in %v", float64(fi.Size())/(1<<20), loaded.Stats().Build.Round(time.Millisecond))

	start := time.Now()
	denseRun, err := d.Search(ctx, queries, 100)
	if err != nil {
		t.Fatal(err)
	}
	el := time.Since(start)
	st := d.Stats()
	t.Logf("dense use-lite: %d queries in %v (%.1f q/s incl. query embedding; p50 %v, p95 %v)",
		len(queries), el.Round(time.Millisecond), float64(len(queries))/el.Seconds(), st.LatencyP50, st.LatencyP95)
	loadedRun, err := loaded.Search(ctx, queries, 100)
	if err != nil {
		t.Fatal(err)
	}
	for q, l := range denseRun {
		ll := loadedRun[q]
		if len(ll) != len(l) {
			t.Fatalf("query %s: loaded index returned %d results, built %d", q, len(ll), len(l))
		}
		for i := range l {
			if l[i] != ll[i] {
				t.Fatalf("query %s rank %d: built %v, loaded %v", q, i+1, l[i], ll[i])
			}
		}
	}

	b, err := bm25.New(ctx, chunks, bm25.Options{})
	if err != nil {
		t.Fatal(err)
	}
	bmRun, err := b.Search(ctx, queries, 100)
	if err != nil {
		t.Fatal(err)
	}
	h, err := hybrid.New([]retrievers.Retriever{b, d}, hybrid.Options{})
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	hyRun, err := h.Search(ctx, queries, 100)
	if err != nil {
		t.Fatal(err)
	}
	el = time.Since(start)
	hs := h.Stats()

	bm, de, hy := evaluate(t, qrels, bmRun), evaluate(t, qrels, denseRun), evaluate(t, qrels, hyRun)
	t.Logf("BM25:                 %s", summary(t, bm))
	t.Logf("dense use-lite:       %s", summary(t, de))
	t.Logf("hybrid RRF(BM25, dense), k=60, depth 100: %s; %d queries in %v (%.1f q/s; p50 ≈ %v, p95 ≈ %v)",
		summary(t, hy), len(queries), el.Round(time.Millisecond), float64(len(queries))/el.Seconds(), hs.LatencyP50, hs.LatencyP95)
	paired(t, "dense use-lite", de, bm)
	paired(t, "hybrid RRF", hy, bm)
	t.Logf("peak RSS %.0f MiB", peakRSS())

	// Independent check of the dense run: brute-force cosine in float64 over
	// the same embeddings (served by the cache) gives the same score at every
	// rank of every query's top 10 (to float32 precision).
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		texts[i] = c.IndexText()
	}
	docVecs, err := emb.Embed(ctx, texts, false)
	if err != nil {
		t.Fatal(err)
	}
	qTexts := make([]string, len(queries))
	for i, q := range queries {
		qTexts[i] = q.Text
	}
	qVecs, err := emb.Embed(ctx, qTexts, true)
	if err != nil {
		t.Fatal(err)
	}
	for qi, q := range queries {
		sims := make([]float64, len(docVecs))
		for di, v := range docVecs {
			sims[di] = cosine(qVecs[qi], v)
		}
		sort.Sort(sort.Reverse(sort.Float64Slice(sims)))
		got := denseRun[q.ID]
		for i := 0; i < 10; i++ {
			if math.Abs(got[i].Score-sims[i]) > 1e-5 {
				t.Fatalf("query %s rank %d: dense score %.7f, brute force %.7f", q.ID, i+1, got[i].Score, sims[i])
			}
		}
	}
	// Fusing through hybrid.New equals Fuse on the inputs' runs.
	fused, err := hybrid.Fuse([]eval.Run{bmRun, denseRun}, hybrid.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for q, l := range hyRun {
		for i := range l {
			if fused[q][i] != l[i] {
				t.Fatalf("query %s rank %d: Retriever %v, Fuse %v", q, i+1, l[i], fused[q][i])
			}
		}
	}
}

// cacheDir is the embedding cache shared by e2e runs: $RAGBENCH_CACHE, else
// .cache/embeddings under the repository root (git-ignored).
func cacheDir() string {
	if d := os.Getenv("RAGBENCH_CACHE"); d != "" {
		return d
	}
	return filepath.Join(testenv.RepoRoot(), ".cache", "embeddings")
}

// cosine is the cosine similarity of a and b, computed in float64.
func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}
