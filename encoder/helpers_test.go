package encoder

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ragbench/ragbench/internal/testenv"
)

// needRuntime initialises ONNX Runtime via Init(""); without a library the
// test is skipped, except under CI (CI=true), where it fails.
func needRuntime(t testing.TB) {
	t.Helper()
	if err := Init(""); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("onnxruntime under CI: %v", err)
		}
		t.Skipf("onnxruntime not available: %v", err)
	}
}

// useLiteRef is ../shared/models/use-lite/reference.json.
type useLiteRef struct {
	Sentences  []string    `json:"sentences"`
	InputIDs   [][]int64   `json:"input_ids"`
	Embeddings [][]float32 `json:"sentence_embedding"`
}

// ceRef is ../shared/models/ce-scifact-tiny/reference.json.
type ceRef struct {
	Pairs []struct {
		Query        string  `json:"query"`
		Passage      string  `json:"passage"`
		InputIDs     []int64 `json:"input_ids"`
		TokenTypeIDs []int64 `json:"token_type_ids"`
		Logit        float32 `json:"logit"`
	} `json:"pairs"`
}

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func useLite(t testing.TB) (string, useLiteRef) {
	dir := testenv.Shared(t, "models/use-lite")
	var ref useLiteRef
	readJSON(t, dir+"/reference.json", &ref)
	return dir, ref
}

// useLiteEmbedder loads use-lite with opts (skipping without ONNX
// Runtime, as needRuntime does), closed when the test ends.
func useLiteEmbedder(t *testing.T, opts Options) (*Embedder, useLiteRef) {
	t.Helper()
	needRuntime(t)
	dir, ref := useLite(t)
	e, err := LoadEmbedder(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, ref
}

func ceTiny(t testing.TB) (string, ceRef) {
	dir := testenv.Shared(t, "models/ce-scifact-tiny")
	var ref ceRef
	readJSON(t, dir+"/reference.json", &ref)
	return dir, ref
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// cmpApprox compares float32s to an absolute tolerance.
func cmpApprox(tol float64) cmp.Option {
	return cmp.Comparer(func(a, b float32) bool {
		d := float64(a) - float64(b)
		return d <= tol && -d <= tol
	})
}
