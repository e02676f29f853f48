package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryQueryUnanswerable (issue 26): labels whose every query is
// unanswerable are refused by the preflight — bench run --check and the
// run, before any cell — naming the file and why: the measures average
// answerable queries only (trec_eval's convention, and bench compare's,
// which refuses the same set). Before, the run exited 0 with every mean
// 0.0000 and a "best cell" among equals.
func TestEveryQueryUnanswerable(t *testing.T) {
	for _, tc := range []struct{ queries, want string }{
		{`{"id": "q5", "question": "capital of peru", "gold": [], "kind": "u"}` + "\n" + `{"id": "q6", "question": "quantum chromodynamics", "gold": [], "kind": "u"}` + "\n",
			"queries.jsonl: no answerable query: all 2 judged queries are unanswerable (no gold passage with a positive grade)"},
		{`{"id": "q5", "question": "capital of peru", "gold": [], "kind": "u"}` + "\n",
			"queries.jsonl: no answerable query: the one judged query is unanswerable"},
	} {
		dir := t.TempDir()
		corpus, err := os.ReadFile("testdata/small/corpus.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "corpus.jsonl"), corpus, 0o644)
		os.WriteFile(filepath.Join(dir, "queries.jsonl"), []byte(tc.queries), 0o644)
		cfg := loadConfig(t, "testdata/small.yaml", dir, dir)
		if _, err := Check(t.Context(), cfg, CheckOptions{Chunkings: true}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Check: %v\nwant %q", err, tc.want)
		}
		if _, err := Run(t.Context(), cfg, Options{NoHistory: true}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Run: %v\nwant %q", err, tc.want)
		}
		if _, err := os.Stat(cfg.Output); err == nil {
			t.Errorf("Run wrote %s", cfg.Output)
		}
	}
}

// TestEveryQueryUnanswerableSpans: the same refusal for span labels whose
// every query has no gold span (there the report named a "winning
// chunking" at 0.0000).
func TestEveryQueryUnanswerableSpans(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "corpus"), os.DirFS("testdata/spans/corpus")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "labels.jsonl"), []byte(`{"id": "q3", "question": "zulu", "gold_spans": [], "kind": "unanswerable"}`+"\n"+
		`{"id": "q4", "question": "alpha", "gold_spans": [], "kind": "unanswerable"}`+"\n"), 0o644)
	cfg := loadConfig(t, "testdata/spans.yaml", dir, dir)
	want := "labels.jsonl: no answerable query: all 2 judged queries are unanswerable"
	if _, err := Check(t.Context(), cfg, CheckOptions{Chunkings: true}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Check: %v\nwant %q", err, want)
	}
	if _, err := Run(t.Context(), cfg, Options{NoHistory: true}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Run: %v\nwant %q", err, want)
	}
}
