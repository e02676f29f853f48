package encoder

import (
	"bytes"
	"encoding/json"
	"io"
	"log"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ragbench/ragbench/internal/fuzzwatch"
)

// FuzzLoadTokenizer: loading any tokenizer.json (the tokenizer only, no
// ONNX) never panics, logs nothing and takes bounded time; a tokenizer it
// accepts encodes text without panicking, every id within its vocabulary
// or an error.
func FuzzLoadTokenizer(f *testing.F) {
	f.Add([]byte(miniTokenizer))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0], ["▁a", -1.5], ["b", -2]]}, "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "add_prefix_space": true}}`))
	f.Add([]byte(`{"model": {"type": "WordLevel", "vocab": {"a": 0, "[UNK]": 1}, "unk_token": "[UNK]"}, "pre_tokenizer": {"type": "Whitespace"}}`))
	f.Add([]byte(`{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]}}`))
	dir := f.TempDir()
	log.SetOutput(io.Discard) // sugarme logs; checked below to stay silent on refused files
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzwatch.Start(fuzzwatch.Bound)()
		path := filepath.Join(dir, TokenizerFile)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		tt, err := loadTokenizer(path)
		if err != nil {
			return
		}
		for _, text := range []string{"hello world", "", "ab a\tb\u00e9 [SEP]"} {
			ids, err := tt.encode(text)
			if err != nil {
				continue
			}
			for _, id := range ids {
				if id < 0 || id > tt.maxID {
					t.Fatalf("encode %q: id %d outside the vocabulary [0, %d]", text, id, tt.maxID)
				}
			}
		}
	})
}

// FuzzReadConfig: reading any ragbench.json never panics; a config it
// accepts without error, and that validates, encodes back to JSON that
// reads to the same config (nothing dropped, renamed or rewritten).
func FuzzReadConfig(f *testing.F) {
	for _, s := range []string{
		`{"kind": "embedder", "pooling": "cls", "max_length": 512, "query_prefix": "Represent this sentence for searching relevant passages: "}`,
		`{"kind": "cross-encoder", "max_query_tokens": 64, "pair_template": "[CLS] $A [SEP] $B:1 [SEP]:1", "pad_id": 0, "normalize": false}`,
		`{"text_normalization": "collapse-whitespace", "vocab_size": 30522, "output": "last_hidden_state", "passage_prefix": "passage: "}`,
		`{"max_length": 1, "max_length": 2}`,
		`{}`,
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzwatch.Start(fuzzwatch.Bound)()
		path := filepath.Join(dir, ConfigFile)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, _, err := readConfig(dir)
		if err != nil || cfg.validate(path) != nil {
			return
		}
		out, err := json.Marshal(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		back, _, err := readConfig(dir)
		if err != nil {
			t.Fatalf("written back %s: %v", out, err)
		}
		if !reflect.DeepEqual(cfg, back) {
			t.Fatalf("round trip: %+v, then %+v", cfg, back)
		}
		// The accepted text says what the config holds: decoding it
		// loosely (as any JSON reader would) gives the same values.
		var loose map[string]any
		if json.Unmarshal(data, &loose) == nil {
			var again Config
			if err := json.Unmarshal(bytes.TrimSpace(data), &again); err == nil && !reflect.DeepEqual(again, cfg) {
				t.Fatalf("strict read %+v, loose read %+v", cfg, again)
			}
		}
	})
}
