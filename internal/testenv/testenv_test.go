package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRepoRoot: the module root holds go.mod and is two folders above this
// package (internal/testenv).
func TestRepoRoot(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := RepoRoot(), filepath.Dir(filepath.Dir(wd)); got != want {
		t.Errorf("RepoRoot() = %q, want %q", got, want)
	}
}

func TestEmbeddingCache(t *testing.T) {
	t.Setenv("RAGBENCH_CACHE", "/some/cache")
	if got := EmbeddingCache(); got != "/some/cache" {
		t.Errorf("with $RAGBENCH_CACHE: %q, want /some/cache", got)
	}
	t.Setenv("RAGBENCH_CACHE", "")
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(filepath.Dir(filepath.Dir(wd)), ".cache", "embeddings")
	if got := EmbeddingCache(); got != want {
		t.Errorf("without $RAGBENCH_CACHE: %q, want %q", got, want)
	}
}

// TestDiffLines: lines 2 and 4 differ ("b" → "x", and "d" past the end of
// got); lines 1 and 3 are equal.
func TestDiffLines(t *testing.T) {
	got := DiffLines([]string{"a", "b", "c", "d"}, []string{"a", "x", "c"})
	want := []LineDiff{{Line: 2, Want: "b", Got: "x"}, {Line: 4, Want: "d", Got: ""}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("DiffLines = %+v, want %+v", got, want)
	}
	if d := DiffLines([]string{"a"}, []string{"a"}); len(d) != 0 {
		t.Errorf("same lines: %+v, want none", d)
	}
}
