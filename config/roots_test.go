package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeCheckout makes a ragbench checkout (go.mod of the module) holding
// models/<m>/{model.onnx,tokenizer.json} for each of models, and makes it
// the checkout of the running binary (bin/bench), as scripts/setup.sh
// builds it.
func fakeCheckout(t *testing.T, models ...string) string {
	t.Helper()
	repo := t.TempDir()
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module github.com/ragbench/ragbench\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, m := range models {
		for _, f := range []string{"model.onnx", "tokenizer.json"} {
			p := filepath.Join(repo, "models", m, f)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	old := executable
	t.Cleanup(func() { executable = old })
	executable = func() (string, error) { return filepath.Join(repo, "bin", "bench"), nil }
	return repo
}

// writeConfig writes a config file into a fresh temporary folder (outside
// any checkout).
func writeConfig(t *testing.T, yaml string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const minimal = "dataset:\n  corpus: corpus.jsonl\n  queries: queries.jsonl\nretrievers:\n  - {name: bm25, type: bm25}\n"

// TestModelRootsFromExecutable: a config outside any checkout finds the
// models of the checkout holding the binary (bin/bench), before the data
// root's models/; a go.mod of another module is not a checkout.
func TestModelRootsFromExecutable(t *testing.T) {
	repo := fakeCheckout(t, "m1")
	data := t.TempDir()
	p := writeConfig(t, minimal+"  - {name: d, type: dense, model: m1}\n  - {name: e, type: dense, model: m2}\n")
	cfg, err := Load(p, LoadOptions{DataDir: data})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(repo, "models"), filepath.Join(data, "models")}
	if got := cfg.ModelRoots(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("model roots %q, want %q", got, want)
	}
	if got := cfg.Retrievers[1].Model(); got != filepath.Join(repo, "models", "m1") {
		t.Errorf("m1 resolved to %s", got)
	}
	if got := cfg.Retrievers[2].Model(); got != filepath.Join(repo, "models", "m2") {
		t.Errorf("m2 (missing) resolved to %s, want it under the first root", got)
	}
	os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module example.com/other\n"), 0o644)
	cfg, err = Load(p, LoadOptions{DataDir: data})
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.ModelRoots(); len(got) != 1 || got[0] != want[1] {
		t.Errorf("model roots %q, want only %s", got, want[1])
	}
}

// TestModelRootsAddUp is issue 25's case: a config outside the repository
// names a model the checkout's models/ holds (fetched by
// scripts/fetch-models.sh) and one the shared data's models/ holds;
// --models-dir ../shared/models (here: the shared folder, a second
// data-less root) must find both, the explicit root first. Before the fix
// the flag replaced every other root and the fetched model was lost. A
// path list names two explicit roots; $RAGBENCH_MODELS_DIR works the same
// and the flag wins over it.
func TestModelRootsAddUp(t *testing.T) {
	repo := fakeCheckout(t, "all-minilm-l6-v2-q")
	shared := t.TempDir()
	os.MkdirAll(filepath.Join(shared, "models", "ce-scifact-tiny"), 0o755)
	p := writeConfig(t, minimal+"  - {name: dense, type: dense, model: all-minilm-l6-v2-q}\n  - {name: ce, type: rerank, input: dense, model: ce-scifact-tiny}\n")
	data := t.TempDir() // a data root without models/
	check := func(opts LoadOptions, wantRoots ...string) {
		t.Helper()
		cfg, err := Load(p, opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.ModelRoots(); strings.Join(got, "|") != strings.Join(wantRoots, "|") {
			t.Errorf("model roots %q, want %q", got, wantRoots)
		}
		if got, want := cfg.Retrievers[1].Model(), filepath.Join(repo, "models", "all-minilm-l6-v2-q"); got != want {
			t.Errorf("fetched model resolved to %s, want %s", got, want)
		}
		if got, want := cfg.Retrievers[2].Model(), filepath.Join(shared, "models", "ce-scifact-tiny"); got != want {
			t.Errorf("shared model resolved to %s, want %s", got, want)
		}
		if got := cfg.ModelsDir(); got != wantRoots[0] {
			t.Errorf("models_dir %s, want the first explicit root %s", got, wantRoots[0])
		}
	}
	sharedModels, other := filepath.Join(shared, "models"), t.TempDir()
	check(LoadOptions{DataDir: data, ModelsDir: sharedModels}, sharedModels, filepath.Join(repo, "models"), filepath.Join(data, "models"))
	check(LoadOptions{DataDir: data, ModelsDir: other + string(os.PathListSeparator) + sharedModels}, other, sharedModels, filepath.Join(repo, "models"), filepath.Join(data, "models"))
	t.Setenv("RAGBENCH_MODELS_DIR", sharedModels)
	check(LoadOptions{DataDir: data}, sharedModels, filepath.Join(repo, "models"), filepath.Join(data, "models"))
	check(LoadOptions{DataDir: data, ModelsDir: other + string(os.PathListSeparator) + sharedModels}, other, sharedModels, filepath.Join(repo, "models"), filepath.Join(data, "models"))
}
