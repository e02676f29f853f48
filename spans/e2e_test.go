//go:build e2e

package spans_test

import (
	"context"
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/encoder"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/testenv"
	"github.com/ragbench/ragbench/internal/testenv/embedtest"
	"github.com/ragbench/ragbench/retrievers"
	"github.com/ragbench/ragbench/retrievers/dense"
	"github.com/ragbench/ragbench/spans"
)

// TestE2EChromaFixedTokens reproduces the published table
// ../shared/datasets/chunking-chroma/reference/state_of_the_union_minilm_fixed_tokens.csv
// (github.com/polinak1r/Chunking_Evaluation, results_table.csv: Chroma's
// FixedTokenChunker on cl100k_base, sentence-transformers all-MiniLM-L6-v2,
// exact cosine search, state_of_the_union indexed alone, 76 questions): all 60
// rows of token recall, precision and IoU (percent, rounded to 2 decimals by
// the reference) at n = 1..10 for 6 sizes × overlaps, each to 0.01
// percentage points, through ragbench's own pieces: corpus.LoadFolder,
// the "tokens" chunker, encoder (models/all-minilm-l6-v2, max 256 tokens),
// retrievers/dense, spans.ReadChromaCSV and spans.Evaluate.
func TestE2EChromaFixedTokens(t *testing.T) {
	dir := testenv.Shared(t, "datasets/chunking-chroma")
	model := testenv.Model(t, "all-minilm-l6-v2")
	if err := encoder.Init(""); err != nil {
		t.Fatal(err)
	}
	docs, err := corpus.LoadFolder(filepath.Join(dir, "corpora"))
	if err != nil {
		t.Fatal(err)
	}
	all, err := spans.ReadChromaCSV(filepath.Join(dir, "questions.csv"), docs)
	if err != nil {
		t.Fatal(err)
	}
	const doc = "state_of_the_union"
	var sotu []corpus.Document
	for _, d := range docs {
		if d.ID == doc {
			sotu = append(sotu, d)
		}
	}
	var queries []spans.Query
	var rq []retrievers.Query
	for _, q := range all {
		if q.Slice == doc {
			queries = append(queries, q)
			rq = append(rq, retrievers.Query{ID: q.ID, Text: q.Text})
		}
	}
	if len(queries) != 76 {
		t.Fatalf("%d state_of_the_union questions, want 76", len(queries))
	}

	ref, cells := testenv.ChromaReference(t, dir)

	ctx := context.Background()
	emb := embedtest.Cached(t, model)
	ks := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	match, exact := 0, 0
	worst := 0.0 // largest |ours − published| in percentage points
	for _, c := range cells {
		spec := corpus.Spec{Strategy: corpus.Tokens, Tokenizer: corpus.CL100kBase, Size: c[0], Overlap: c[1]}
		chunks, err := spec.Chunk(sotu)
		if err != nil {
			t.Fatal(err)
		}
		r, err := dense.NewChunks(ctx, chunks, emb.Embed, dense.Options{Model: emb.Fingerprint()})
		if err != nil {
			t.Fatal(err)
		}
		run, err := r.Search(ctx, rq, 10)
		if err != nil {
			t.Fatal(err)
		}
		ch, err := spans.NewChunking(sotu, chunks)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := spans.Evaluate(queries, ch, run, spans.Options{Ks: ks, CoverShare: spans.DefaultCoverShare, TieBreak: eval.TieDocIDDesc})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range ks {
			want := ref[[3]int{c[0], c[1], k}]
			mean := func(f string) float64 {
				m, ok := ev.Mean(spans.MeasureName(f, k))
				if !ok {
					t.Fatalf("no %s", spans.MeasureName(f, k))
				}
				return 100 * m
			}
			got := testenv.ChromaRow{Recall: mean(spans.TokenRecall), Precision: mean(spans.TokenPrecision), IoU: mean(spans.TokenIoU)}
			ok := math.Abs(got.Recall-want.Recall) <= 0.01+1e-9 && math.Abs(got.Precision-want.Precision) <= 0.01+1e-9 &&
				math.Abs(got.IoU-want.IoU) <= 0.01+1e-9
			for _, d := range [][2]float64{{got.Recall, want.Recall}, {got.Precision, want.Precision}, {got.IoU, want.IoU}} {
				worst = max(worst, math.Abs(d[0]-d[1]))
				if math.Round(100*d[0]) == math.Round(100*d[1]) {
					exact++
				}
			}
			if ok {
				match++
			} else {
				t.Errorf("%s n=%d: recall %.4f precision %.4f IoU %.4f; published %.2f %.2f %.2f",
					spec.Name(), k, got.Recall, got.Precision, got.IoU, want.Recall, want.Precision, want.IoU)
			}
		}
		t.Logf("%s: %d chunks; n=5: %s", spec.Name(), chunks.Len(), fmtMeans(ev, 5))
	}
	st := emb.Stats()
	t.Logf("%d of %d published rows reproduced to 0.01 percentage points (largest difference %.4f; %d of %d values equal after rounding to 2 decimals as published); embedding cache %d hits, %d misses",
		match, len(ref), worst, exact, 3*len(ref), st.Hits, st.Misses)
}

func fmtMeans(ev *spans.Evaluation, k int) string {
	s := ""
	for _, f := range []string{spans.TokenRecall, spans.TokenPrecision, spans.TokenIoU, spans.SpanRecall} {
		m, _ := ev.Mean(spans.MeasureName(f, k))
		s += f + " " + strconv.FormatFloat(100*m, 'f', 2, 64) + " "
	}
	m, _ := ev.Mean(spans.PrecisionOmegaName)
	return s + "Ω " + strconv.FormatFloat(100*m, 'f', 2, 64)
}
