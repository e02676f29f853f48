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
