// Package beir reads BEIR-layout test material (queries.jsonl) for tests,
// and holds the end-to-end tests' shared scoring helpers (Evaluate, Mean,
// Summary, LogPaired, TimedSearch), so that each is defined once.
// It lives apart from package testenv so that testenv itself imports no
// ragbench package and stays usable from the internal tests of eval and
// retrievers without an import cycle.
package beir

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/retrievers"
)

// Queries reads a BEIR queries.jsonl ({"_id", "text"} per line, lines up to
// 1 MiB) and returns the queries whose query id is judged in keep (a key of
// the qrels), in file order. Any read error or malformed line fails the test
// as "file:line: error".
func Queries(t testing.TB, path string, keep eval.Qrels) []retrievers.Query {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var qs []retrievers.Query
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		var q struct {
			ID   string `json:"_id"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		if _, ok := keep[q.ID]; ok {
			qs = append(qs, retrievers.Query{ID: q.ID, Text: q.Text})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return qs
}

// WholeDocsTest loads the BEIR dataset in folder dir (e.g.
// testenv.Shared(t, "datasets/scifact")) as most end-to-end tests use it:
// corpus.jsonl as one chunk per document with the title prepended
// (corpus.Spec{Strategy: corpus.Whole, Title: true}), the qrels of the test
// split (qrels/test.tsv), and the queries judged there, in file order. Any
// error fails the test. The chunks come as a list (corpus.Chunks.Slice)
// for the retrievers' slice APIs the tests call: fine at SciFact's size.
func WholeDocsTest(t testing.TB, dir string) ([]corpus.Chunk, []retrievers.Query, eval.Qrels) {
	t.Helper()
	docs, err := corpus.Load(filepath.Join(dir, "corpus.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := corpus.Spec{Strategy: corpus.Whole, Title: true}.Chunk(docs)
	if err != nil {
		t.Fatal(err)
	}
	qrels, _, err := eval.ReadQrels(filepath.Join(dir, "qrels", "test.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	return chunks.Slice(), Queries(t, filepath.Join(dir, "queries.jsonl"), qrels), qrels
}
