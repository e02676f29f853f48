package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/encoder"
	"github.com/ragbench/ragbench/internal/testenv"
)

// needORT initialises ONNX Runtime as 'bench model' does (library from
// $ONNXRUNTIME_LIB or the project-local default); skipped without one,
// except under CI.
func needORT(t *testing.T) {
	t.Helper()
	if err := encoder.Init(""); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("onnxruntime under CI: %v", err)
		}
		t.Skipf("onnxruntime not available: %v", err)
	}
}

func runModelCmd(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(&out, &errb, args)
	return out.String(), errb.String(), code
}

// TestModelEmbedUseLiteReference: 'bench model embed' reproduces
// ../shared/models/use-lite/reference.json (ids exact, embeddings to 1e-4).
func TestModelEmbedUseLiteReference(t *testing.T) {
	needORT(t)
	dir := testenv.Shared(t, "models/use-lite")
	var ref struct {
		Sentences  []string    `json:"sentences"`
		InputIDs   [][]int64   `json:"input_ids"`
		Embeddings [][]float32 `json:"sentence_embedding"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(b, &ref)
	in := filepath.Join(t.TempDir(), "texts.txt")
	os.WriteFile(in, []byte(strings.Join(ref.Sentences, "\n")+"\n"), 0o644)
	out, stderr, code := runModelCmd(t, "model", "embed", dir, in, "--format", "jsonl", "--text-normalization", "collapse-whitespace")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	i := 0
	for ; sc.Scan(); i++ {
		var rec struct {
			Text      string    `json:"text"`
			IDs       []int64   `json:"ids"`
			Embedding []float32 `json:"embedding"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if rec.Text != ref.Sentences[i] {
			t.Errorf("line %d text %q, want %q", i+1, rec.Text, ref.Sentences[i])
		}
		if len(rec.IDs) != len(ref.InputIDs[i]) {
			t.Errorf("line %d: %d ids, want %d", i+1, len(rec.IDs), len(ref.InputIDs[i]))
		} else {
			for k := range rec.IDs {
				if rec.IDs[k] != ref.InputIDs[i][k] {
					t.Errorf("line %d id %d = %d, want %d", i+1, k, rec.IDs[k], ref.InputIDs[i][k])
				}
			}
		}
		for k := range rec.Embedding {
			if d := math.Abs(float64(rec.Embedding[k] - ref.Embeddings[i][k])); d > 1e-4 {
				t.Fatalf("line %d dim %d: diff %.3g > 1e-4", i+1, k, d)
			}
		}
	}
	if i != len(ref.Sentences) {
		t.Errorf("%d output lines, want %d", i, len(ref.Sentences))
	}
}

// TestModelScoreCrossEncoderReference: 'bench model score' reproduces the
// logits of ../shared/models/ce-scifact-tiny/reference.json to 1e-4.
func TestModelScoreCrossEncoderReference(t *testing.T) {
	needORT(t)
	dir := testenv.Shared(t, "models/ce-scifact-tiny")
	var ref struct {
		Pairs []struct {
			Query   string  `json:"query"`
			Passage string  `json:"passage"`
			Logit   float32 `json:"logit"`
		} `json:"pairs"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(b, &ref)
	var in strings.Builder
	for _, p := range ref.Pairs {
		in.WriteString(p.Query + "\t" + p.Passage + "\n")
	}
	f := filepath.Join(t.TempDir(), "pairs.tsv")
	os.WriteFile(f, []byte(in.String()), 0o644)
	out, stderr, code := runModelCmd(t, "model", "score", dir, f)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(ref.Pairs) {
		t.Fatalf("%d lines, want %d", len(lines), len(ref.Pairs))
	}
	for i, l := range lines {
		var rec struct {
			Query, Passage string
			Score          float32
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Query != ref.Pairs[i].Query || rec.Passage != ref.Pairs[i].Passage {
			t.Errorf("line %d: pair echoed wrongly", i+1)
		}
		if d := math.Abs(float64(rec.Score - ref.Pairs[i].Logit)); d > 1e-4 {
			t.Errorf("line %d: score %v, want %v", i+1, rec.Score, ref.Pairs[i].Logit)
		}
	}
}

func TestModelCheckAndErrors(t *testing.T) {
	needORT(t)
	dir := testenv.Shared(t, "models/use-lite")
	out, stderr, code := runModelCmd(t, "model", "check", dir)
	if code != 0 {
		t.Fatalf("check: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"kind:            embedder", "input_ids int64 [?, ?]", "sentence_embedding float32 [?, 512]   <- read", "\"pooling\": \"none\"", "onnxruntime:     1.", "OK: "} {
		if !strings.Contains(out, want) {
			t.Errorf("check output lacks %q:\n%s", want, out)
		}
	}
	// A broken folder fails loudly with exit 1, without printing the
	// report's empty headers (the graph never loaded).
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "model.onnx"), []byte("junk"), 0o644)
	os.WriteFile(filepath.Join(bad, "tokenizer.json"), []byte("{}"), 0o644)
	out, stderr, code = runModelCmd(t, "model", "check", bad)
	if code != 1 || out != "" || !strings.Contains(stderr, "FAILED") || !strings.Contains(stderr, "not a loadable ONNX model") {
		t.Errorf("broken folder: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	// Bad input lines are named by file and line.
	f := filepath.Join(t.TempDir(), "in.txt")
	os.WriteFile(f, []byte("fine\n\nalso fine\n"), 0o644)
	_, stderr, code = runModelCmd(t, "model", "embed", dir, f)
	if code != 1 || !strings.Contains(stderr, f+":2: text: empty text") {
		t.Errorf("empty line: exit %d, stderr %q", code, stderr)
	}
	os.WriteFile(f, []byte("no tab here\n"), 0o644)
	_, stderr, code = runModelCmd(t, "model", "score", testenv.Shared(t, "models/ce-scifact-tiny"), f)
	if code != 1 || !strings.Contains(stderr, f+":1: want query<TAB>passage") {
		t.Errorf("no tab: exit %d, stderr %q", code, stderr)
	}
}

func TestModelUsage(t *testing.T) {
	for _, args := range [][]string{
		{"model"},
		{"model", "frobnicate", "x"},
		{"model", "embed"},
		{"model", "check", "a", "b"},
		{"model", "embed", "x", "--format", "csv"},
		{"model", "score", "x", "--query"},
		{"model", "embed", "x", "--batch", "0"},
	} {
		if _, _, code := runModelCmd(t, args...); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
	if stdout, stderr, code := runModelCmd(t, "model", "--help"); code != 0 || !strings.Contains(stdout, "Examples:") || stderr != "" {
		t.Errorf("--help: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestModelCheckMissingFolder: a missing folder, a file instead of a
// folder, or a folder without model.onnx or tokenizer.json fails with one
// message naming what is missing and where models come from (exit 1), with
// nothing on stdout: no half-printed report of empty "graph inputs:"
// headers. No ONNX Runtime is needed to say so.
func TestModelCheckMissingFolder(t *testing.T) {
	dir := t.TempDir()
	onlyTok := filepath.Join(dir, "only-tokenizer")
	os.Mkdir(onlyTok, 0o755)
	os.WriteFile(filepath.Join(onlyTok, "tokenizer.json"), []byte("{}"), 0o644)
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	file := filepath.Join(dir, "file.onnx")
	os.WriteFile(file, []byte("x"), 0o644)
	nowhere := filepath.Join(dir, "nonexistent")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"model", "check", nowhere}, nowhere + ": no such model folder; a model folder holds model.onnx"},
		{[]string{"model", "check", file}, file + ": not a folder"},
		{[]string{"model", "check", onlyTok}, onlyTok + ": no model.onnx in this folder"},
		{[]string{"model", "check", empty}, empty + ": no model.onnx and no tokenizer.json in this folder"},
		{[]string{"model", "embed", nowhere}, nowhere + ": no such model folder"},
		{[]string{"model", "score", empty}, "no model.onnx and no tokenizer.json"},
	} {
		stdout, stderr, code := runModelCmd(t, c.args...)
		if code != 1 || stdout != "" || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "scripts/fetch-models.sh puts all-minilm-l6-v2, all-minilm-l6-v2-q, e5-small-v2-q into models/") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 1, empty stdout, one line with %q", c.args, code, stdout, stderr, c.want)
		}
	}
}
