package spans_test

import (
	"testing"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/spans"
)

// BenchmarkFindHoles: one op looks for holes among 10 unjudged chunks of
// 400 cl100k_base tokens of examples/sotu's State of the Union, against
// one of its labelled passages — a query's share of a cell's judged
// coverage with prompt sizes like Chroma's.
func BenchmarkFindHoles(b *testing.B) {
	docs, err := corpus.Load("../examples/sotu/corpus")
	if err != nil {
		b.Skip(err)
	}
	chunks, err := corpus.Spec{Strategy: corpus.Tokens, Tokenizer: "cl100k_base", Size: 400}.Chunk(docs)
	if err != nil {
		b.Fatal(err)
	}
	text := map[string]string{}
	var ids []string
	for _, c := range chunks.Slice()[:10] {
		text[c.ID] = c.Text
		ids = append(ids, c.ID)
	}
	gold := []spans.GoldText{{Label: "g", Text: chunks.At(20).Text[:200]}}
	b.ResetTimer()
	for range b.N {
		spans.FindHoles("q", ids, 10, nil, func(id string) string { return text[id] }, gold)
	}
}
