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
