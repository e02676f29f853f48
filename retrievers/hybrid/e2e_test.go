//go:build e2e

package hybrid_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ragbench/ragbench/encoder"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/testenv"
	"github.com/ragbench/ragbench/internal/testenv/beir"
	"github.com/ragbench/ragbench/internal/testenv/embedtest"
	"github.com/ragbench/ragbench/retrievers"
	"github.com/ragbench/ragbench/retrievers/bm25"
	"github.com/ragbench/ragbench/retrievers/dense"
	"github.com/ragbench/ragbench/retrievers/hybrid"
)

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

	emb := embedtest.Cached(t, model)
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

	denseRun, el := beir.TimedSearch(t, ctx, d, queries, 100)
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
	h, err := hybrid.New([]retrievers.Retriever{b, d}, hybrid.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	hyRun, el := beir.TimedSearch(t, ctx, h, queries, 100)
	hs := h.Stats()

	bm, de, hy := beir.Evaluate(t, qrels, bmRun), beir.Evaluate(t, qrels, denseRun), beir.Evaluate(t, qrels, hyRun)
	t.Logf("BM25:                 %s", beir.Summary(t, bm))
	t.Logf("dense use-lite:       %s", beir.Summary(t, de))
	t.Logf("hybrid RRF(BM25, dense), k=60, depth 100: %s; %d queries in %v (%.1f q/s; p50 ≈ %v, p95 ≈ %v)",
		beir.Summary(t, hy), len(queries), el.Round(time.Millisecond), float64(len(queries))/el.Seconds(), hs.LatencyP50, hs.LatencyP95)
	beir.LogPaired(t, "dense use-lite", "BM25", de, bm)
	beir.LogPaired(t, "hybrid RRF", "BM25", hy, bm)
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
	fused, err := hybrid.Fuse([]eval.Run{bmRun, denseRun}, hybrid.DefaultOptions())
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
