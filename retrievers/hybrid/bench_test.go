package hybrid

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ragbench/ragbench/eval"
)

// BenchmarkFuse fuses two runs of 300 queries × 100 results (SciFact test
// size, half the documents shared), per method:
//
//	go test -run '^$' -bench Fuse -benchmem ./retrievers/hybrid/
func BenchmarkFuse(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	runs := []eval.Run{{}, {}}
	for q := range 300 {
		qid := fmt.Sprintf("q%03d", q)
		for i := range runs {
			l := make([]eval.Result, 100)
			for j := range l {
				l[j] = eval.Result{DocID: fmt.Sprintf("d%d", j*(i+1)), Score: rng.Float64()}
			}
			runs[i][qid] = l
		}
	}
	norm := map[Method]Normalization{CombSUM: MinMax, CombMNZ: MinMax, Harmonic: MinMax, Geometric: MinMax}
	for _, m := range Methods {
		b.Run(string(m), func(b *testing.B) {
			for b.Loop() {
				if _, err := Fuse(runs, Options{Method: m, K: DefaultK, Norm: norm[m], Depth: DefaultDepth}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(300*float64(b.N)/b.Elapsed().Seconds(), "queries/s")
		})
	}
}
