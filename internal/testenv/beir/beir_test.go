package beir

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/retrievers"
)

// TestQueries: only judged queries are kept, in file order (hand-written
// file: q2 and q0 judged, q1 not).
func TestQueries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queries.jsonl")
	data := `{"_id": "q2", "text": "second", "metadata": {}}
{"_id": "q1", "text": "unjudged"}
{"_id": "q0", "text": "zeroth"}
`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	keep := eval.Qrels{"q0": {"d": 1}, "q2": {"d": 0}}
	want := []retrievers.Query{{ID: "q2", Text: "second"}, {ID: "q0", Text: "zeroth"}}
	if d := cmp.Diff(want, Queries(t, path, keep)); d != "" {
		t.Errorf("queries (-want +got):\n%s", d)
	}
}

// TestWholeDocsTest: a hand-made two-document BEIR folder gives two chunks,
// the test-split qrels and only the judged query.
func TestWholeDocsTest(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"corpus.jsonl": `{"_id": "d1", "title": "T1", "text": "one"}
{"_id": "d2", "title": "", "text": "two"}
`,
		"queries.jsonl": `{"_id": "q1", "text": "first"}
{"_id": "q2", "text": "unjudged"}
`,
		"qrels/test.tsv": "query-id\tcorpus-id\tscore\nq1\td2\t1\n",
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	chunks, queries, qrels := WholeDocsTest(t, dir)
	if len(chunks) != 2 {
		t.Errorf("%d chunks, want 2", len(chunks))
	}
	if d := cmp.Diff([]retrievers.Query{{ID: "q1", Text: "first"}}, queries); d != "" {
		t.Errorf("queries (-want +got):\n%s", d)
	}
	if d := cmp.Diff(eval.Qrels{"q1": {"d2": 1}}, qrels); d != "" {
		t.Errorf("qrels (-want +got):\n%s", d)
	}
}
