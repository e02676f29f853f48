package testenv

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// SciFactAbstracts returns the first n entries of ../shared's SciFact
// corpus.jsonl as title + " " + text, in file order: the texts the encoder
// tests and the model benchmarks (issue 14's comparison with the Python
// pipeline) embed. It fails t when the file cannot be read or holds fewer
// than n entries, and skips as Shared does when ../shared is absent.
func SciFactAbstracts(t testing.TB, n int) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(Shared(t, "datasets/scifact"), "corpus.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	var out []string
	for sc.Scan() && len(out) < n {
		var d struct{ Title, Text string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		out = append(out, d.Title+" "+d.Text)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < n {
		t.Fatalf("SciFact corpus.jsonl: %d entries, want at least %d", len(out), n)
	}
	return out
}
