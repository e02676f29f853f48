package corpus_test

import (
	"fmt"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
)

// Sentence chunking packs whole sentences up to Size words; offsets are
// bytes into Text, and IndexText prepends the title.
func ExampleSpec_Chunk() {
	docs := []corpus.Document{{ID: "d1", Title: "Tenancy", Text: "The deposit is held. It covers wear and tear."}}
	spec := corpus.Spec{Strategy: corpus.Sentence, Size: 5, Title: true}
	chunks, err := spec.Chunk(docs)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(spec.Key())
	for _, c := range chunks.All() {
		fmt.Printf("%s [%d,%d) %q\n", c.ID, c.Start, c.End, c.IndexText())
	}
	// Output:
	// sent-5+title
	// d1#0 [0,20) "Tenancy The deposit is held."
	// d1#1 [21,45) "Tenancy It covers wear and tear."
}

// MaxP turns a chunk ranking into a document ranking before any cutoff.
func ExampleMaxP() {
	chunks := []corpus.Chunk{{ID: "a#0", DocID: "a"}, {ID: "a#1", DocID: "a"}, {ID: "b#0", DocID: "b"}}
	run := eval.Run{"q": {{DocID: "a#1", Score: 3}, {DocID: "b#0", Score: 2}, {DocID: "a#0", Score: 1}}}
	for _, r := range corpus.MaxP(run, corpus.DocOf(corpus.ChunkList(chunks)))["q"] {
		fmt.Println(r.DocID, r.Score)
	}
	// Output:
	// a 3
	// b 2
}
