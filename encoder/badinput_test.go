package encoder

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// modelDir makes a temporary model folder: model.onnx linked from src and
// the given files written (tokenizer.json copied from src unless given).
func modelDir(t *testing.T, src string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if _, ok := files[ModelFile]; !ok {
		if err := os.Symlink(filepath.Join(src, ModelFile), filepath.Join(dir, ModelFile)); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := files[TokenizerFile]; !ok {
		b, err := os.ReadFile(filepath.Join(src, TokenizerFile))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, TokenizerFile), string(b))
	}
	for name, content := range files {
		if content == "<absent>" {
			os.Remove(filepath.Join(dir, name))
			continue
		}
		writeFile(t, filepath.Join(dir, name), content)
	}
	return dir
}

func wantErr(t *testing.T, err error, subs ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one containing %q", subs)
	}
	for _, s := range subs {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not contain %q", err, s)
		}
	}
}

// TestBadModelFolders: missing or corrupt files give errors naming them.
func TestBadModelFolders(t *testing.T) {
	needRuntime(t)
	src, _ := useLite(t)
	real, err := os.ReadFile(filepath.Join(src, ModelFile))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"missing model", map[string]string{ModelFile: "<absent>"}, []string{"model.onnx", "no such file"}},
		{"garbage model", map[string]string{ModelFile: "this is not a protobuf"}, []string{"model.onnx", "not a loadable ONNX model"}},
		{"truncated model", map[string]string{ModelFile: string(real[:len(real)/3])}, []string{"model.onnx", "not a loadable ONNX model"}},
		{"missing tokenizer", map[string]string{TokenizerFile: "<absent>"}, []string{"tokenizer.json", "no such file"}},
		{"corrupt tokenizer", map[string]string{TokenizerFile: "{\n\"model\": [1,\n"}, []string{"tokenizer.json:3"}},
		{"config unknown field", map[string]string{ConfigFile: "{\n  \"kind\": \"embedder\",\n  \"poolin\": \"mean\"\n}"}, []string{"ragbench.json", "poolin"}},
		{"config wrong type", map[string]string{ConfigFile: "{\n  \"max_length\": \"long\"\n}"}, []string{"ragbench.json:2", "max_length"}},
		{"config bad pooling", map[string]string{ConfigFile: `{"pooling": "max"}`}, []string{"ragbench.json", "pooling", "max"}},
		{"pooling vs graph", map[string]string{ConfigFile: `{"pooling": "mean", "output": "sentence_embedding"}`}, []string{"pooling mean needs a [batch, sequence, hidden] output"}},
		{"unknown output", map[string]string{ConfigFile: `{"output": "pooler_output"}`}, []string{"pooler_output", "not in the graph"}},
		{"wrong kind", map[string]string{ConfigFile: `{"kind": "cross-encoder"}`}, []string{"not \"embedder\""}},
		{"template token", map[string]string{ConfigFile: `{"single_template": "[CLS] $A [SEP]"}`}, []string{"[CLS]", "not in the tokenizer's vocabulary"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadEmbedder(modelDir(t, src, c.files), Options{})
			wantErr(t, err, c.want...)
		})
	}
	_, err = LoadEmbedder(filepath.Join(t.TempDir(), "nope"), Options{})
	wantErr(t, err, "model folder", "no such file")
}

// useLiteTokenizerPlus returns use-lite's tokenizer.json with extra
// Unigram pieces (ids 8000.. appended), so "zzqxw" encodes to id >= 8002,
// beyond the graph's 8002-row embedding table.
func useLiteTokenizerPlus(t *testing.T, src string) string {
	b, err := os.ReadFile(filepath.Join(src, TokenizerFile))
	if err != nil {
		t.Fatal(err)
	}
	var tj map[string]any
	if err := json.Unmarshal(b, &tj); err != nil {
		t.Fatal(err)
	}
	m := tj["model"].(map[string]any)
	vocab := m["vocab"].([]any)
	for _, p := range []string{"▁aaqq", "▁bbqq", "▁zzqxv", "▁zzqxw"} { // ids 8000..8003
		vocab = append(vocab, []any{p, 0.0})
	}
	m["vocab"] = vocab
	out, _ := json.Marshal(tj)
	return string(out)
}

// TestVocabularyExceedsEmbeddingTable: a tokenizer that can emit ids past
// the model's embedding table is rejected at load (table size read from the
// graph); when vocab_size is overridden to hide that, the out-of-range id
// is still a clear error at run time, not a crash.
func TestVocabularyExceedsEmbeddingTable(t *testing.T) {
	needRuntime(t)
	src, _ := useLite(t)
	tok := useLiteTokenizerPlus(t, src)
	_, err := LoadEmbedder(modelDir(t, src, map[string]string{TokenizerFile: tok}), Options{})
	wantErr(t, err, "can emit id 8003", "8002 rows")

	dir := modelDir(t, src, map[string]string{TokenizerFile: tok, ConfigFile: `{"vocab_size": 100000}`})
	e, err := LoadEmbedder(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	toks, err := e.Tokenize(context.Background(), []string{"zzqxw"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if toks[0].IDs[len(toks[0].IDs)-1] < 8002 {
		t.Fatalf("test tokenizer did not emit an id >= 8002: %v", toks[0].IDs)
	}
	_, err = e.Embed(context.Background(), []string{"zzqxw"}, false)
	wantErr(t, err, "outside the model's embedding table")
}

// TestBadTexts: empty and whitespace-only texts and invalid UTF-8 are
// errors naming the text; texts far over max_length are truncated to it
// and counted.
func TestBadTexts(t *testing.T) {
	needRuntime(t)
	src, _ := useLite(t)
	e, err := LoadEmbedder(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	for _, bad := range []string{"", "   \t\n"} {
		_, err := e.Embed(ctx, []string{"fine", bad}, false)
		var te *TextError
		if !errors.As(err, &te) || te.Index != 1 || !errors.Is(err, ErrEmptyText) {
			t.Errorf("%q: err = %v, want TextError{text 1, ErrEmptyText}", bad, err)
		}
	}
	_, err = e.Embed(ctx, []string{"fine", "fine", "caf\xe9"}, false)
	wantErr(t, err, "text 2", "invalid UTF-8 at byte 3")

	long := strings.Repeat("a very long scientific abstract about retrieval ", 2000)
	toks, err := e.Tokenize(ctx, []string{long, "short"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(toks[0].IDs) != 128 || !toks[0].Truncated || toks[1].Truncated {
		t.Errorf("long text: %d ids truncated=%v; short truncated=%v; want 128 true false", len(toks[0].IDs), toks[0].Truncated, toks[1].Truncated)
	}
	before := e.Stats()
	v, err := e.EmbedTokens(ctx, toks)
	if err != nil || len(v) != 2 || len(v[0]) != 512 {
		t.Fatalf("embedding a truncated text: %v", err)
	}
	if s := e.Stats(); s.Truncated-before.Truncated != 1 || s.Texts-before.Texts != 2 {
		t.Errorf("stats delta %+v → %+v, want 2 texts, 1 truncated", before, s)
	}
	// Hand-made ids longer than max_length are refused.
	_, err = e.EmbedTokens(ctx, []Tokens{{IDs: make([]int64, 129)}})
	wantErr(t, err, "129 tokens > max_length 128")
}

// TestCrossEncoderBadInput: empty query or passage and invalid UTF-8 name
// the culprit; a passage far over max_length is cut and the pair still ends
// with </s>.
func TestCrossEncoderBadInput(t *testing.T) {
	needRuntime(t)
	src, _ := ceTiny(t)
	c, err := LoadCrossEncoder(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	_, err = c.Score(ctx, " ", []string{"passage"})
	wantErr(t, err, "query", "empty text")
	_, err = c.Score(ctx, "query", []string{"passage", ""})
	wantErr(t, err, "passage 1", "empty text")
	_, err = c.Score(ctx, "query", []string{"ok", "bad \xff"})
	wantErr(t, err, "passage 1", "invalid UTF-8")
	s, err := c.Score(ctx, "query", []string{strings.Repeat("long passage text ", 3000)})
	if err != nil || len(s) != 1 {
		t.Fatalf("long passage: %v", err)
	}
	if st := c.Stats(); st.Truncated != 1 || st.Tokens != 128 {
		t.Errorf("stats %+v, want 1 truncated pair of 128 tokens", st)
	}
	if _, err := LoadEmbedder(src, Options{}); err == nil || !strings.Contains(err.Error(), `model kind is "cross-encoder"`) {
		t.Errorf("LoadEmbedder on a cross-encoder: %v", err)
	}
}

// TestEmptyAndClosed: no texts give no vectors; a closed model is an error.
func TestEmptyAndClosed(t *testing.T) {
	needRuntime(t)
	src, _ := useLite(t)
	e, err := LoadEmbedder(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.Embed(context.Background(), nil, false)
	if err != nil || len(v) != 0 {
		t.Errorf("Embed(nil) = %v, %v; want empty, nil", v, err)
	}
	e.Close()
	_, err = e.Embed(context.Background(), []string{"text"}, false)
	wantErr(t, err, "closed")
	if err := e.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
