package hybrid_test

import (
	"fmt"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/retrievers/hybrid"
)

// RRF of two runs with K = 60: d1 = 1/61 + 1/62, d3 = 1/63 + 1/61, d2 = 1/62,
// d4 = 1/63.
func ExampleFuse() {
	bm25 := eval.Run{"q1": {{DocID: "d1", Score: 3}, {DocID: "d2", Score: 2}, {DocID: "d3", Score: 1}}}
	dense := eval.Run{"q1": {{DocID: "d3", Score: 0.9}, {DocID: "d1", Score: 0.8}, {DocID: "d4", Score: 0.7}}}
	fused, err := hybrid.Fuse([]eval.Run{bm25, dense}, hybrid.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range fused["q1"] {
		fmt.Printf("%s %.6f\n", r.DocID, r.Score)
	}
	// Output:
	// d1 0.032522
	// d3 0.032266
	// d2 0.016129
	// d4 0.015873
}

// A weighted sum after min-max normalisation, weights 0.3 and 0.7:
// d3 = 0.3·0 + 0.7·1, d1 = 0.3·1 + 0.7·0.5, d2 = 0.3·0.5, d4 = 0.7·0.
func ExampleFuse_combSUM() {
	bm25 := eval.Run{"q1": {{DocID: "d1", Score: 3}, {DocID: "d2", Score: 2}, {DocID: "d3", Score: 1}}}
	dense := eval.Run{"q1": {{DocID: "d3", Score: 0.9}, {DocID: "d1", Score: 0.8}, {DocID: "d4", Score: 0.7}}}
	o := hybrid.Options{Method: hybrid.CombSUM, Norm: hybrid.MinMax, Weights: []float64{0.3, 0.7}, Depth: hybrid.DefaultDepth}
	fused, err := hybrid.Fuse([]eval.Run{bm25, dense}, o)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range fused["q1"] {
		fmt.Printf("%s %.4f\n", r.DocID, r.Score)
	}
	// Output:
	// d3 0.7000
	// d1 0.6500
	// d2 0.1500
	// d4 0.0000
}

// A grid of settings to tune over, as the sweep would expand it.
func ExampleGrid_Expand() {
	g := hybrid.Grid{
		Methods: []hybrid.Method{hybrid.RRF, hybrid.CombSUM},
		Norms:   []hybrid.Normalization{hybrid.MinMax, hybrid.ZScore},
		Weights: [][]float64{{0.5, 0.5}, {0.3, 0.7}},
	}
	settings, err := g.Expand(2)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range settings {
		fmt.Println(o)
	}
	// Output:
	// rrf k=60 missing=zero weights=0.5,0.5 depth=100
	// rrf k=60 missing=zero weights=0.3,0.7 depth=100
	// combsum norm=minmax missing=zero weights=0.5,0.5 depth=100
	// combsum norm=minmax missing=zero weights=0.3,0.7 depth=100
	// combsum norm=zscore missing=zero weights=0.5,0.5 depth=100
	// combsum norm=zscore missing=zero weights=0.3,0.7 depth=100
}
