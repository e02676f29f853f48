package bm25_test

import (
	"context"
	"fmt"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/retrievers"
	"github.com/ragbench/ragbench/retrievers/bm25"
)

// Query text is analysed, never parsed as query syntax; a query of stop
// words only gets an empty list.
func ExampleNew() {
	docs := []corpus.Document{
		{ID: "lease", Title: "Tenancy deposits", Text: "The deposit covers fair wear and tear under s. 38(2)."},
		{ID: "rent", Title: "Rent reviews", Text: "Rent may be reviewed once a year."},
	}
	chunks, err := corpus.Spec{Strategy: corpus.Whole, Title: true}.Chunk(docs)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	r, err := bm25.Build(ctx, chunks.Stream(), bm25.Options{}) // k1 = 0.9, b = 0.4, flat, "en", in memory
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	run, err := r.Search(ctx, []retrievers.Query{
		{ID: "q1", Text: "s. 38(2) deposit: wear & tear?"},
		{ID: "q2", Text: "the and of"},
	}, 10)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Terms("s. 38(2) deposit: wear & tear?"))
	for _, res := range run["q1"] {
		fmt.Println(res.DocID)
	}
	fmt.Println(len(run["q2"]), "results for a stop-word query")
	// Output:
	// [{2 1} {38 1} {deposit 1} {s 1} {tear 1} {wear 1}]
	// lease
	// 0 results for a stop-word query
}
