//go:build e2e

package passages_test

import (
	"fmt"
	"math"
	"os"
	"testing"
	"time"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/pipetest"
	"github.com/ragbench/ragbench/passages"
	"github.com/ragbench/ragbench/spans"
)

// chroma loads the shared chunking-chroma corpus and its 276 questions.
func chroma(t *testing.T) (corpusDir, questions string, docs []corpus.Document, qs []spans.Query) {
	t.Helper()
	corpusDir, questions = pipetest.Chroma(t)
	docs, err := corpus.Load(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	if qs, err = spans.Read(questions, docs); err != nil {
		t.Fatal(err)
	}
	return corpusDir, questions, docs, qs
}

func TestMain(m *testing.M) {
	code := m.Run()
	pipetest.Cleanup()
	os.Exit(code)
}

// TestE2EReferencePipelines scores the two reference pipelines' passage runs
// of chunking-chroma's 276 questions (LangChain: recursive 1000/150 + BM25,
// in all five styles; LlamaIndex: SentenceSplitter 256/32 + BM25, by
// offsets and by text with white space collapsed) and checks every query's
// span and token measures at k = 1, 5, 10 against the independent Python
// scorer (pipelines/reference/score.py) on the same file, to 1e-9, and the
// placing counts against its own.
func TestE2EReferencePipelines(t *testing.T) {
	corpusDir, questions, docs, qs := chroma(t)
	files := map[string]string{}
	for s, f := range pipetest.Runs(t, "langchain", "offsets", "bytes", "doc-text", "text", "text-ws") {
		files["langchain/"+s] = f
	}
	for s, f := range pipetest.Runs(t, "llamaindex", "offsets", "text-ws") {
		files["llamaindex/"+s] = f
	}
	names := spanNames()
	means := map[string]map[string]float64{}
	for name, f := range files {
		t.Run(name, func(t *testing.T) {
			t0 := time.Now()
			run, err := passages.Read(f, passages.NewLocator(docs))
			if err != nil {
				t.Fatal(err)
			}
			sc, err := run.Scored(docs)
			if err != nil {
				t.Fatal(err)
			}
			e, err := passages.Evaluate(qs, sc, nil, passages.Options{Span: names, CoverShare: spans.DefaultCoverShare, Eval: eval.DefaultOptions()})
			if err != nil {
				t.Fatal(err)
			}
			took := time.Since(t0)
			ref := pipetest.Score(t, corpusDir, questions, f, 1, 5, 10)
			if e.NumQ != ref.Queries || run.Results != ref.Results {
				t.Fatalf("%d queries, %d results; the scorer: %d, %d", e.NumQ, run.Results, ref.Queries, ref.Results)
			}
			for k, v := range map[string]int{"offsets": run.Placed[passages.Offsets], "exact": run.Placed[passages.Exact], "normalised": run.Placed[passages.Normalised]} {
				if ref.Placed[k] != v {
					t.Errorf("placed %s: %d, the scorer %d", k, v, ref.Placed[k])
				}
			}
			if run.Placed[passages.Absent] != ref.Unmapped["absent"] || run.Placed[passages.Ambiguous] != ref.Unmapped["ambiguous"] {
				t.Errorf("unmapped %v, the scorer %v", run.Placed, ref.Unmapped)
			}
			worst := 0.0
			for i, q := range e.Queries {
				for j, m := range e.Measures {
					d := math.Abs(e.Values[i][j] - ref.PerQuery[q][m.Name])
					worst = max(worst, d)
					if d > 1e-9 {
						t.Errorf("query %s %s = %v, the scorer %v", q, m.Name, e.Values[i][j], ref.PerQuery[q][m.Name])
					}
				}
			}
			m := map[string]float64{}
			for j, n := range e.Measures {
				m[n.Name] = e.Means[j]
				if d := math.Abs(e.Means[j] - ref.Means[n.Name]); d > 1e-9 {
					t.Errorf("mean %s = %v, the scorer %v", n.Name, e.Means[j], ref.Means[n.Name])
				}
			}
			means[name] = m
			t.Logf("%s: %d results read, placed and scored in %v; largest difference from the scorer %.3g", name, run.Results, took.Round(time.Millisecond), worst)
			for _, k := range []int{1, 5, 10} {
				t.Logf("  k=%2d span_recall %.10f token_recall %.10f token_precision %.10f", k,
					m[fmt.Sprint("span_recall@", k)], m[fmt.Sprint("token_recall@", k)], m[fmt.Sprint("token_precision@", k)])
			}
		})
	}
}

// TestE2ELangChainIsRecursive1000 is the Python developer's cross-check: the
// LangChain pipeline's passages are exactly ragbench's recursive 1000/150
// chunks, so its run mapped to that chunking's chunk ids and scored by
// spans.Evaluate (ties in input order) gives the same means as the passage
// run scored as passages.
func TestE2ELangChainIsRecursive1000(t *testing.T) {
	_, _, docs, qs := chroma(t)
	run, err := passages.Read(pipetest.Runs(t, "langchain", "offsets", "bytes", "doc-text", "text", "text-ws")["offsets"], passages.NewLocator(docs))
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := corpus.Spec{Strategy: corpus.Recursive, Size: 1000, Overlap: 150}.Chunk(docs)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := spans.NewChunking(docs, chunks)
	if err != nil {
		t.Fatal(err)
	}
	byPlace := map[spans.Interval]string{}
	for _, id := range ch.IDs {
		byPlace[ch.Intervals[id]] = id
	}
	chunkRun := eval.Run{}
	for _, q := range run.Queries {
		l := []eval.Result{}
		for _, p := range q.Passages {
			id, ok := byPlace[spans.Interval{Doc: p.Doc, Start: p.Start, End: p.End}]
			if !ok {
				t.Fatalf("query %s: passage %s [%d, %d) is not a chunk of recursive-1000o150", q.ID, p.Doc, p.Start, p.End)
			}
			l = append(l, eval.Result{DocID: id, Score: p.Score})
		}
		chunkRun[q.ID] = l
	}
	opts := spans.Options{Ks: []int{1, 5, 10}, CoverShare: spans.DefaultCoverShare, TieBreak: eval.TieInputOrder}
	want, err := spans.Evaluate(qs, ch, chunkRun, opts)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := run.Scored(docs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := spans.Evaluate(qs, sc.Chunking, sc.Run, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range spanNames() {
		w, _ := want.Mean(name)
		g, _ := got.Mean(name)
		if w != g {
			t.Errorf("%s: passages %v, recursive-1000o150 chunks %v", name, g, w)
		}
	}
}
