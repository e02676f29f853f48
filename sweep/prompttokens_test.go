package sweep

import (
	"context"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/testenv"
)

// oneBigDocument is a dataset of one document of about size bytes, with
// queries answerable queries each ranking it first, and its doc chunking
// (one chunk, the document).
func oneBigDocument(size, queries int) (*dataset, []corpus.Chunk, eval.Run) {
	text := strings.Repeat("Seven words of a very long document. ", size/37+1)
	docs := []corpus.Document{{ID: "big", Text: text}}
	ds := &dataset{docs: docs, docByID: corpus.IndexDocs(docs)}
	chunks := []corpus.Chunk{{ID: "big", DocID: "big", Text: text, Start: 0, End: len(text)}}
	run := eval.Run{}
	for i := range queries {
		id := "q" + string(rune('a'+i))
		ds.answerable = append(ds.answerable, id)
		run[id] = []eval.Result{{DocID: "big", Score: 1}}
	}
	return ds, chunks, run
}

// TestPromptTokensEncodeOnce: the prompt tokens of a chunking encode each
// chunk once, whatever the number of queries and cells that rank it: the
// bytes encoded are the document's, for ten queries and two cells (a
// single document of 50 MB is tens of seconds of tiktoken).
func TestPromptTokensEncodeOnce(t *testing.T) {
	ds, chunks, run := oneBigDocument(3*corpus.SegmentBytes, 10)
	pt, err := newPromptTokens(&Config{}, ds, corpus.ChunkList(chunks), ds.chunkIndex(corpus.ChunkList(chunks)))
	if err != nil {
		t.Fatal(err)
	}
	want := pt.bpe.Count(chunks[0].Text)
	for cell := range 2 {
		p, err := cellPromptTokens(t.Context(), &Config{PromptK: 10}, ds, pt, run)
		if err != nil {
			t.Fatal(err)
		}
		if p.Mean != float64(want) || p.Max != want {
			t.Errorf("cell %d: prompt tokens mean %v, max %d; want %d", cell, p.Mean, p.Max, want)
		}
		if pt.encoded != len(chunks[0].Text) {
			t.Errorf("cell %d: %d bytes encoded, want the document's %d (once)", cell, pt.encoded, len(chunks[0].Text))
		}
	}
}

// TestPromptTokensStopOnCancel: a context cancelled while a whole-document
// chunk is being encoded stops the prompt tokens at the next segment of
// the document (corpus.BPE.EncodeContext), with the context's error; the
// cut tokens are not remembered as the chunk's. (Encoded in one call, the
// document held Ctrl-C for tens of seconds.)
func TestPromptTokensStopOnCancel(t *testing.T) {
	ds, chunks, run := oneBigDocument(8*corpus.SegmentBytes, 10)
	pt, err := newPromptTokens(&Config{}, ds, corpus.ChunkList(chunks), ds.chunkIndex(corpus.ChunkList(chunks)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := &testenv.CancelAt{Context: t.Context(), At: 3} // the query's check, a segment, then cancelled
	if _, err := cellPromptTokens(ctx, &Config{PromptK: 10}, ds, pt, run); err != context.Canceled {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if ctx.Calls.Load() > ctx.At+1 {
		t.Errorf("%d looks at the context after it was cancelled at the %dth, want at most 1 more", ctx.Calls.Load()-ctx.At, ctx.At)
	}
	if _, ok := pt.ids["big"]; ok {
		t.Error("the cut tokens were remembered as the chunk's")
	}
	// Asked again with a live context, the chunk is encoded whole.
	p, err := cellPromptTokens(t.Context(), &Config{PromptK: 10}, ds, pt, run)
	if err != nil {
		t.Fatal(err)
	}
	if want := pt.bpe.Count(chunks[0].Text); p.Max != want {
		t.Errorf("after the cancel: %d tokens, want %d", p.Max, want)
	}
}

// TestJudgedStopsOnCancel: judged coverage looks at the context at every
// query (one query's holes can be a hundred edit distances), so a context
// cancelled at the third query stops it there with the context's error.
func TestJudgedStopsOnCancel(t *testing.T) {
	ds, chunks, run := oneBigDocument(1000, 10)
	ds.qrels = eval.Qrels{}
	list := corpus.ChunkList(chunks)
	in := cellInputs{run: run, chunks: list, chunkByID: ds.chunkIndex(list)}
	ctx := &testenv.CancelAt{Context: t.Context(), At: 3}
	if _, err := cellJudged(ctx, &Config{K: []int{10}}, ds, in); err != context.Canceled {
		t.Fatalf("err %v, want context.Canceled at the third query", err)
	}
	if ctx.Calls.Load() > ctx.At+1 {
		t.Errorf("%d looks at the context, want %d (one a query, and the error's)", ctx.Calls.Load(), ctx.At+1)
	}
	if _, err := cellJudged(t.Context(), &Config{K: []int{10}}, ds, in); err != nil {
		t.Fatal(err)
	}
}
