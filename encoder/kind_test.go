package encoder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/internal/testenv"
)

// TestFolderKind: neither shipped model has a ragbench.json, so the kind is
// inferred from the graph: ce-scifact-tiny is a cross-encoder (its
// SOURCE.md: a BertForSequenceClassification export, output "logits"),
// use-lite an embedder. A ragbench.json "kind" wins over the graph, and a
// folder without an ONNX graph is an error naming the file.
func TestFolderKind(t *testing.T) {
	for _, tc := range []struct{ model, want, how string }{
		{"models/ce-scifact-tiny", KindCrossEncoder, `output named "logits"`},
		{"models/use-lite", KindEmbedder, `include no "logits"`},
	} {
		kind, how, err := FolderKind(testenv.Shared(t, tc.model))
		if err != nil || kind != tc.want || !strings.Contains(how, tc.how) {
			t.Errorf("%s: FolderKind = %q, %q, %v; want %q (%s)", tc.model, kind, how, err, tc.want, tc.how)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ModelFile), []byte("not a graph"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := FolderKind(dir); err == nil || !strings.Contains(err.Error(), ModelFile) {
		t.Errorf("a non-ONNX model.onnx: err = %v, want one naming %s", err, ModelFile)
	}
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(`{"kind": "cross-encoder"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if kind, how, err := FolderKind(dir); err != nil || kind != KindCrossEncoder || !strings.Contains(how, ConfigFile) {
		t.Errorf("kind set in %s: FolderKind = %q, %q, %v", ConfigFile, kind, how, err)
	}
}
