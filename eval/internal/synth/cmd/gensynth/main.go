// Command gensynth writes the synthetic qrels and run of ragbench's
// evaluation speed benchmark (docs/benchmarks/eval.md):
//
//	go run ./eval/internal/synth/cmd/gensynth -queries 100000 -docs 1000 -rel 20 -out /tmp/synth100k
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/ragbench/ragbench/eval/internal/synth"
)

func main() {
	var c synth.Config
	flag.IntVar(&c.Queries, "queries", 10000, "number of queries")
	flag.IntVar(&c.Docs, "docs", 1000, "retrieved documents per query")
	flag.IntVar(&c.Rel, "rel", 20, "relevant judged documents per query (as many non-relevant are judged)")
	flag.Uint64Var(&c.Seed, "seed", 1, "random seed")
	out := flag.String("out", "", "output folder (created)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gensynth: -out is required")
		os.Exit(2)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "gensynth:", err)
		os.Exit(1)
	}
	q, r, err := synth.Write(*out, c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gensynth:", err)
		os.Exit(1)
	}
	fmt.Println(q)
	fmt.Println(r)
}
