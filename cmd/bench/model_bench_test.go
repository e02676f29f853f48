package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/encoder"
	"github.com/ragbench/ragbench/internal/testenv"
)

// modelBenchAbstracts is the first 200 SciFact abstracts (title + " " +
// text), the input of issue 14's end-to-end comparison with the Python
// pipeline (pyembed.py, pyscore.py in docs/benchmarks/encoder.md).
const modelBenchAbstracts = 200

// writeBenchInputs writes abs200.txt (one abstract a line) and
// pairs200.tsv (the first 2 SciFact queries × the first 100 abstracts,
// query<TAB>passage) into a temporary folder and returns their paths.
func writeBenchInputs(b *testing.B) (texts, pairs string) {
	b.Helper()
	abstracts := testenv.SciFactAbstracts(b, modelBenchAbstracts)
	queries := testenv.SciFactQueries(b, 2)
	var pl []string
	for _, q := range queries {
		for _, a := range abstracts[:modelBenchAbstracts/2] {
			pl = append(pl, q+"\t"+a)
		}
	}
	tmp := b.TempDir()
	texts, pairs = filepath.Join(tmp, "abs200.txt"), filepath.Join(tmp, "pairs200.tsv")
	if err := os.WriteFile(texts, []byte(strings.Join(abstracts, "\n")+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(pairs, []byte(strings.Join(pl, "\n")+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	return texts, pairs
}

// BenchmarkModelCmd runs 'bench model embed' (all-MiniLM-L6-v2 int8 and
// fp32, when fetched into models/) on the first 200 SciFact abstracts and
// 'bench model score' (ce-scifact-tiny) on 200 pairs, end to end: reading
// the file, loading the model, tokenizing, Run, writing JSON lines (to
// io.Discard), at the default batch and 1 or 2 intra-op threads. It
// reports texts/s (pairs for score). It is the loop to profile:
//
//	go test -run '^$' -bench 'ModelCmd/embed/model=all-minilm-l6-v2-q/threads=1' -benchtime 3x -cpuprofile /tmp/cpu.out ./cmd/bench
func BenchmarkModelCmd(b *testing.B) {
	if err := encoder.Init(""); err != nil {
		b.Skip(err)
	}
	texts, pairs := writeBenchInputs(b)
	type cell struct{ sub, model, dir, in string }
	var cells []cell
	for _, name := range []string{"all-minilm-l6-v2-q", "all-minilm-l6-v2"} {
		dir := filepath.Join(testenv.RepoRoot(), "models", name)
		if _, err := os.Stat(filepath.Join(dir, encoder.ModelFile)); err == nil {
			cells = append(cells, cell{"embed", name, dir, texts})
		}
	}
	cells = append(cells, cell{"score", "ce-scifact-tiny", testenv.Shared(b, "models/ce-scifact-tiny"), pairs})
	for _, c := range cells {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/model=%s/threads=%d", c.sub, c.model, threads), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if err := cmdModel(io.Discard, io.Discard, []string{c.sub, c.dir, c.in, "--threads", fmt.Sprint(threads)}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N*modelBenchAbstracts)/b.Elapsed().Seconds(), "texts/s")
			})
		}
	}
}
