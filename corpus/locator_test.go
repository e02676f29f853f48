package corpus

import (
	"context"
	"errors"
	"index/suffixarray"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/internal/testenv"
)

// TestLocatorFirstOccurrence: with a suffix array (forced here on short
// texts) the locator returns str.find's first occurrence (strings.Index)
// of every chunk: substrings cut anywhere, edited ones, absent ones, on
// texts over two letters (chunks repeated past locatorMaxHits, the
// fallback) and over many.
func TestLocatorFirstOccurrence(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for n := range 300 {
		al := "ab"
		if n%2 == 1 {
			al = "abcdefghij é"
		}
		var b strings.Builder
		for range 1 + r.IntN(5000) {
			b.WriteByte(al[r.IntN(len(al))])
		}
		text := b.String()
		sa := &locator{text: text, sa: suffixarray.New([]byte(text))}
		plain := &locator{text: text}
		for range 20 {
			i := r.IntN(len(text))
			chunk := text[i:min(len(text), i+1+r.IntN(40))]
			if r.IntN(4) == 0 {
				chunk += "z"
			}
			got, gok := sa.first(chunk)
			want, wok := plain.first(chunk)
			if got != want || gok != wok {
				t.Fatalf("text of %d bytes, chunk %q: %v %v, want %v %v", len(text), chunk, got, gok, want, wok)
			}
		}
	}
}

// BenchmarkTokenChunksLong cuts one 4 MB document of random words (no
// window repeats) into windows of 200 cl100k_base tokens, 100 shared: one
// op is the whole document (before the locator, strings.Index from the
// start for every window: 51 s for 5 MB).
func BenchmarkTokenChunksLong(b *testing.B) {
	bpe, err := LoadBPE(CL100kBase)
	if err != nil {
		b.Skip(err)
	}
	r := rand.New(rand.NewPCG(7, 8))
	words := strings.Fields("retrieval chunk label passage query corpus judged gold span token window overlap index rank score recall precision document answer model")
	var sb strings.Builder
	for sb.Len() < 4<<20 {
		sb.WriteString(words[r.IntN(len(words))])
		if r.IntN(12) == 0 {
			sb.WriteString(". ")
		} else {
			sb.WriteByte(' ')
		}
	}
	text := sb.String()
	b.ResetTimer()
	for range b.N {
		spans, _, err := tokenChunks(b.Context(), bpe, text, 200, 100)
		if err != nil {
			b.Fatal(err)
		}
		if len(spans) == 0 {
			b.Fatal("no windows")
		}
	}
}

// TestChunkStopsOnCancel: a context cancelled while a long document is cut
// stops "tokens" (within its encoding's segments or its windows) and
// "recursive" with the context's error and no chunks, and a suffix array
// being built for a long text is not waited for.
func TestChunkStopsOnCancel(t *testing.T) {
	text := strings.Repeat("Retrieval finds the passage; the model reads it. ", 6_000) // 294 KB: a suffix array
	docs := []Document{{ID: "long", Text: text}}
	for _, s := range []Spec{
		{Strategy: Tokens, Size: 200, Overlap: 50, Tokenizer: CL100kBase},
		{Strategy: Recursive, Size: 200, Overlap: 0, Tokenizer: CL100kBase},
	} {
		for _, at := range []int{1, 3, 12} {
			ctx := &testenv.CancelAt{Context: t.Context(), At: int64(at)}
			chunks, err := s.ChunkIndexed(ctx, docs, nil)
			if !errors.Is(err, context.Canceled) || chunks.Len() != 0 {
				t.Errorf("%s cancelled at call %d: %d chunks, error %v", s.Name(), at, chunks.Len(), err)
			}
		}
		if chunks, err := s.ChunkIndexed(t.Context(), docs, nil); err != nil || chunks.Len() < 100 {
			t.Errorf("%s not cancelled: %d chunks, error %v", s.Name(), chunks.Len(), err)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if l, err := newLocator(ctx, text); !errors.Is(err, context.Canceled) || l != nil {
		t.Errorf("locator of a cancelled context: %v, %v", l, err)
	}
}
