// Command synthcorpus writes a seeded synthetic BEIR-layout dataset (the
// scale benchmark's corpus, see internal/synth and scripts/bench-scale.sh):
//
//	synthcorpus -docs 1000000 -out .bench-scale/data-1000000
//
// Flags other than -docs and -out default to internal/synth.DefaultSpec.
// Exit codes: 0 written, 1 error, 2 usage.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/ragbench/ragbench/internal/synth"
)

func main() {
	d := synth.DefaultSpec()
	var s synth.Spec
	fs := flag.NewFlagSet("synthcorpus", flag.ContinueOnError)
	fs.IntVar(&s.Docs, "docs", 0, "number of documents (required)")
	fs.IntVar(&s.Queries, "queries", d.Queries, "number of queries, one judged target document each")
	fs.IntVar(&s.Vocabulary, "vocabulary", d.Vocabulary, "vocabulary size (Zipf ranks)")
	fs.Float64Var(&s.Zipf, "zipf", d.Zipf, "Zipf exponent (> 1)")
	fs.IntVar(&s.MinWords, "min-words", d.MinWords, "words per document, at least")
	fs.IntVar(&s.MaxWords, "max-words", d.MaxWords, "words per document, at most")
	fs.IntVar(&s.MinTerms, "min-terms", d.MinTerms, "distinct words per query, at least")
	fs.IntVar(&s.MaxTerms, "max-terms", d.MaxTerms, "distinct words per query, at most")
	fs.Uint64Var(&s.Seed, "seed", d.Seed, "random seed")
	out := fs.String("out", "", "output folder (required): corpus.jsonl, queries.jsonl, qrels/test.tsv")
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if s.Docs <= 0 || *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "synthcorpus: -docs N (> 0) and -out DIR are required; see synthcorpus -help")
		os.Exit(2)
	}
	t0 := time.Now()
	if err := synth.Write(*out, s); err != nil {
		fmt.Fprintln(os.Stderr, "synthcorpus:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "synthcorpus: %d documents, %d queries → %s in %.1fs\n", s.Docs, s.Queries, *out, time.Since(t0).Seconds())
}
