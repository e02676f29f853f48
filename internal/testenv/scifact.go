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
	return sciFactFirst(t, "corpus.jsonl", n, func(d struct{ Title, Text string }) string { return d.Title + " " + d.Text })
}

// SciFactQueries returns the text of the first n entries of ../shared's
// SciFact queries.jsonl, in file order: the queries of the cross-encoder
// benchmarks' (query, abstract) pairs. Failures and skips as
// SciFactAbstracts.
func SciFactQueries(t testing.TB, n int) []string {
	t.Helper()
	return sciFactFirst(t, "queries.jsonl", n, func(q struct{ Title, Text string }) string { return q.Text })
}

// sciFactFirst decodes the first n JSON lines of SciFact's file name and
// maps each through text.
func sciFactFirst(t testing.TB, name string, n int, text func(struct{ Title, Text string }) string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(Shared(t, "datasets/scifact"), name))
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
		out = append(out, text(d))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < n {
		t.Fatalf("SciFact %s: %d entries, want at least %d", name, len(out), n)
	}
	return out
}
