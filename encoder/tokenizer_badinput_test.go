package encoder

import (
	"bytes"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// miniTokenizer is a small WordPiece tokenizer.json in Hugging Face's
// format: BERT normalizer and pre-tokenizer, [CLS] $A [SEP] template.
const miniTokenizer = `{"version": "1.0", "truncation": null, "padding": null,
"added_tokens": [{"id": 0, "content": "[PAD]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
 {"id": 1, "content": "[UNK]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
 {"id": 2, "content": "[CLS]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
 {"id": 3, "content": "[SEP]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}],
"normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true},
"pre_tokenizer": {"type": "BertPreTokenizer"},
"post_processor": {"type": "TemplateProcessing",
 "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
 "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
 "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}},
"decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
"model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
 "vocab": {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "hello": 4, "world": 5, "##s": 6}}}`

// TestTokenizerMissingModel: a tokenizer.json without a usable "model"
// section is an error naming the file and what is missing, with nothing
// logged (before the fix {} printed sugarme's "INFO: there is no field
// 'type'" line, then a recovered Go type-assertion message).
func TestTokenizerMissingModel(t *testing.T) {
	var logged bytes.Buffer
	log.SetOutput(&logged)
	defer log.SetOutput(os.Stderr)
	for _, c := range []struct{ name, text, want string }{
		{"empty object", `{}`, `no "model" section: not a Hugging Face tokenizer.json`},
		{"model null", `{"model": null}`, `no "model" section`},
		{"model list", `{"model": [1]}`, `"model" must be an object with "type" and "vocab"`},
		{"no type", `{"model": {"vocab": {"a": 0}}}`, "model.type missing (want one of BPE, Unigram, WordLevel, WordPiece)"},
		{"unknown type", `{"model": {"type": "Char", "vocab": {}}}`, `model.type "Char" is not supported`},
		{"no vocab", `{"model": {"type": "WordPiece"}}`, "model.vocab missing or not an object token → id (model.type WordPiece)"},
		{"unigram vocab object", `{"model": {"type": "Unigram", "vocab": {}}}`, "model.vocab missing or not a list of [token, score] pairs"},
	} {
		path := filepath.Join(t.TempDir(), TokenizerFile)
		writeFile(t, path, c.text)
		_, err := loadTokenizer(path)
		if err == nil || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q after the path", c.name, err, c.want)
		}
	}
	if logged.Len() > 0 {
		t.Errorf("logged %q; want nothing", logged.String())
	}
	// The small valid tokenizer loads and encodes.
	path := filepath.Join(t.TempDir(), TokenizerFile)
	writeFile(t, path, miniTokenizer)
	tt, err := loadTokenizer(path)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := tt.encode("Hello worlds")
	if err != nil || len(ids) != 3 || ids[0] != 4 || ids[1] != 5 || ids[2] != 6 {
		t.Errorf("encode: %v, %v; want [4 5 6]", ids, err)
	}
}

// TestConfigSilentChanges: ragbench.json text that encoding/json would
// read as a different config is refused, naming file and line or key:
// a second object after the first (ignored before), a key given twice (the
// last won), a key in another case (it set the field), invalid UTF-8 in a
// prefix (rewritten to U+FFFD).
func TestConfigSilentChanges(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"second object", "{\"pooling\": \"cls\"}\n{\"pooling\": \"mean\"}", ConfigFile + ":2: unexpected data after the config object"},
		{"repeated key", `{"max_length": 128, "max_length": 512}`, ConfigFile + ": max_length: key given twice"},
		{"case", `{"Max_Length": 128}`, ConfigFile + `: Max_Length: unknown key: keys are case-sensitive, did you mean "max_length"?`},
		{"invalid UTF-8", "{\"kind\": \"embedder\",\n\"query_prefix\": \"q\xff: \"}", ConfigFile + ":2: invalid UTF-8"},
		{"surrogate", `{"query_prefix": "\ud800"}`, ConfigFile + ":1: invalid UTF-8 or a lone \\u surrogate"},
	} {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, ConfigFile), c.text)
		_, _, err := readConfig(dir)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
	}
}
