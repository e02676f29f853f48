package results

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ragbench/ragbench/internal/fuzzwatch"
)

// FuzzReadResults: reading any file as a results.json never panics and
// takes bounded time; what ReadResults accepts writes back (ResultsJSON)
// and reads back again to the same JSON, retrievers of every kind (and of
// unknown kinds) included. Seeds: the golden results.json of the small
// sweep and hand-made retrievers of each kind.
func FuzzReadResults(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("..", "sweep", "testdata", "golden", "small.results.json")); err == nil {
		f.Add(b)
	}
	for _, r := range []string{
		`{"name":"d","type":"dense","model":"/m","batch_size":2}`,
		`{"name":"e","type":"opensearch","urls":["http://h:1"],"retries":0,"filters":[{"term":{"a":1}}],"k1":1.2,"b":0.75,"mode":"managed"}`,
		`{"name":"h","type":"hybrid","inputs":["a","b"],"tune":{"alpha":[0.1],"weights":[[1,0]]}}`,
		`{"name":"x","type":"http","version":"v1"}`,
		`{"name":"r","type":"rerank","alpha":"x"}`,
	} {
		f.Add([]byte(`{"config":{"retrievers":[` + r + `]},"cells":[{"name":"doc/x","retriever":` + r + `}]}`))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzwatch.Start(fuzzwatch.Bound)()
		p := filepath.Join(dir, "results.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := ReadResults(p)
		if err != nil {
			return
		}
		out, err := ResultsJSON(res)
		if err != nil {
			t.Fatalf("read, it does not write back: %v", err)
		}
		if err := os.WriteFile(p, out, 0o644); err != nil {
			t.Fatal(err)
		}
		again, err := ReadResults(p)
		if err != nil {
			t.Fatalf("written back, it does not read: %v\n%s", err, out)
		}
		if b, err := ResultsJSON(again); err != nil || !bytes.Equal(b, out) {
			t.Fatalf("reads back differently:\n%s\nthen\n%s", out, b)
		}
	})
}
