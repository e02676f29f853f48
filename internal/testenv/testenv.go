// Package testenv locates material that tests read from outside the module:
// the read-only ../shared folder (conformance files, datasets, models) beside
// the repository root, and the project-local ONNX Runtime library.
package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// RepoRoot returns the module root (the nearest folder above the working
// directory holding go.mod), or "" when there is none.
func RepoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Shared returns the path of rel inside the shared folder: $RAGBENCH_SHARED
// when set, else ../shared beside the repository root. When the path does not
// exist the test is skipped, except under CI (CI=true), where it fails: CI
// always has shared/, so a skip there would hide a broken test.
func Shared(t testing.TB, rel string) string {
	t.Helper()
	base := os.Getenv("RAGBENCH_SHARED")
	if base == "" {
		base = filepath.Join(RepoRoot(), "..", "shared")
	}
	p := filepath.Join(base, rel)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("shared material missing under CI: %v", err)
		}
		t.Skipf("shared material not found (set RAGBENCH_SHARED): %v", err)
	}
	return p
}

// Model returns the folder of the standard ONNX model name under the
// repository's models/ (scripts/fetch-models.sh fetches them), skipping
// the test when its model.onnx is absent: the set-up goes on without the
// standard models when they cannot be fetched, so their tests skip, under
// CI too.
func Model(t testing.TB, name string) string {
	t.Helper()
	dir := filepath.Join(RepoRoot(), "models", name)
	if _, err := os.Stat(filepath.Join(dir, "model.onnx")); err != nil {
		t.Skipf("models/%s absent (run scripts/fetch-models.sh)", name)
	}
	return dir
}

// EmbeddingCache returns the folder of the embedding cache the end-to-end
// tests share (encoder.NewCachedEmbedder's dir): $RAGBENCH_CACHE when set,
// else .cache/embeddings under the repository root (git-ignored). The folder
// need not exist yet.
func EmbeddingCache() string {
	if d := os.Getenv("RAGBENCH_CACHE"); d != "" {
		return d
	}
	return filepath.Join(RepoRoot(), ".cache", "embeddings")
}

// LinkEmbeddingCache makes link (a run cache's "embeddings" entry) a
// symbolic link to EmbeddingCache, creating the shared folder first: on a
// clean clone it does not exist yet, and a link to nothing makes the
// embedder's mkdir fail with "file exists".
func LinkEmbeddingCache(t testing.TB, link string) {
	t.Helper()
	shared := EmbeddingCache()
	if err := os.MkdirAll(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(shared, link); err != nil {
		t.Fatal(err)
	}
}

// Python returns the interpreter of the test-only Python environment that
// scripts/setup-python.sh installs (scipy, statsmodels, ir_measures, tiktoken,
// the reference LangChain and LlamaIndex pipelines): $RAGBENCH_PYTHON when
// set, else third_party/python/bin/python under the repository root. When it
// is absent the test is skipped, except under CI (CI=true), where it fails:
// the set-up always installs it there, so a skip would hide a broken test.
func Python(t testing.TB) string {
	t.Helper()
	p := os.Getenv("RAGBENCH_PYTHON")
	if p == "" {
		p = filepath.Join(RepoRoot(), "third_party", "python", "bin", "python")
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("test Python environment missing under CI (scripts/setup-python.sh): %v", err)
		}
		t.Skipf("test Python environment not found (run scripts/setup-python.sh or set RAGBENCH_PYTHON): %v", err)
	}
	return p
}
