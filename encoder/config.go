package encoder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/ragbench/ragbench/internal/jsonkey"
)

// Model folder file names.
const (
	ModelFile     = "model.onnx"     // the ONNX graph
	TokenizerFile = "tokenizer.json" // Hugging Face tokenizers format
	ConfigFile    = "ragbench.json"  // ragbench's model config (optional)
	HFConfigFile  = "config.json"    // Hugging Face model config (optional, read for defaults)
)

// Kinds of model.
const (
	KindEmbedder     = "embedder"      // bi-encoder: text → vector
	KindCrossEncoder = "cross-encoder" // (query, passage) → one relevance logit
)

// Pooling strategies turning a [batch, seq, hidden] output into [batch, hidden].
const (
	PoolingNone = "none" // the graph already pools: the output is [batch, dim]
	PoolingMean = "mean" // mean over positions with attention_mask = 1 (sentence-transformers)
	PoolingCLS  = "cls"  // the first position ([CLS] / <s>), as bge does
)

// Text normalisations applied before tokenization.
const (
	// TextTrim removes leading and trailing Unicode white space only (the
	// default). For Metaspace (SentencePiece) tokenizers interior runs of
	// spaces still become standalone "▁" tokens, as in Hugging Face; this is
	// how ce-scifact-tiny's reference ids were made.
	TextTrim = "trim"
	// TextCollapseWhitespace trims the text and replaces each run of Unicode
	// white space by one ASCII space. For WordPiece (BERT) tokenizers it
	// changes no id; use-lite's SOURCE.md asks for it.
	TextCollapseWhitespace = "collapse-whitespace"
	// TextNone feeds the text to the tokenizer unchanged.
	TextNone = "none"
)

// Config is a model folder's ragbench.json. Every field is optional: a zero
// value takes the default described on the field, inferred from the ONNX
// graph's input/output names, tokenizer.json and a Hugging Face config.json
// when present. LoadEmbedder and LoadCrossEncoder resolve it; Check reports
// the resolved values.
//
// Example (bge-small-en-v1.5):
//
//	{"kind": "embedder", "pooling": "cls", "max_length": 512,
//	 "query_prefix": "Represent this sentence for searching relevant passages: "}
type Config struct {
	// Kind is "embedder" or "cross-encoder". Default: "cross-encoder" when
	// the graph has an output named "logits", else "embedder".
	Kind string `json:"kind,omitempty"`
	// MaxLength is the longest token sequence fed to the model, special
	// tokens included (texts are truncated to it, keeping the closing
	// special token). Default: config.json max_length, else tokenizer.json
	// truncation.max_length, else config.json max_position_embeddings, else
	// 512.
	MaxLength int `json:"max_length,omitempty"`
	// MaxQueryTokens caps the query's tokens in a cross-encoder pair (the
	// passage is truncated to what is left). Default: config.json
	// max_query_tokens, else MaxLength/2.
	MaxQueryTokens int `json:"max_query_tokens,omitempty"`
	// Pooling is "none", "mean" or "cls". Default: "none" when the chosen
	// output has rank 2 ([batch, dim]), "mean" when it has rank 3.
	Pooling string `json:"pooling,omitempty"`
	// Normalize L2-normalises embeddings (cosine = dot product). Default
	// true. Ignored for cross-encoders.
	Normalize *bool `json:"normalize,omitempty"`
	// Output is the graph output to read. Default: for an embedder
	// "sentence_embedding" if present, else "last_hidden_state", else the
	// first output; for a cross-encoder "logits", else the first output.
	Output string `json:"output,omitempty"`
	// QueryPrefix and PassagePrefix are prepended to query and passage texts
	// before tokenization (e5: "query: " / "passage: "; bge: its search
	// instruction on queries only). Default "".
	QueryPrefix   string `json:"query_prefix,omitempty"`
	PassagePrefix string `json:"passage_prefix,omitempty"`
	// TextNormalization is "trim" (default), "collapse-whitespace" or
	// "none"; Options.TextNormalization overrides it.
	TextNormalization string `json:"text_normalization,omitempty"`
	// SingleTemplate and PairTemplate place special tokens around one text
	// ($A) or a pair ($A query, $B passage), Hugging Face TemplateProcessing
	// syntax: tokens separated by spaces, ":1" sets the token type id, e.g.
	// "[CLS] $A [SEP]" and "[CLS] $A [SEP] $B:1 [SEP]:1". Default: from
	// tokenizer.json's post_processor (TemplateProcessing, BertProcessing or
	// RobertaProcessing); none when it has no post_processor. Use "$A" for
	// no special tokens.
	SingleTemplate string `json:"single_template,omitempty"`
	PairTemplate   string `json:"pair_template,omitempty"`
	// PadID is the id put on padded positions (attention_mask 0 there).
	// Default: tokenizer.json padding.pad_id, else the id of [PAD] or <pad>,
	// else 0.
	PadID *int `json:"pad_id,omitempty"`
	// VocabSize is the number of rows of the model's token embedding table;
	// a tokenizer that can emit an id >= VocabSize is rejected at load.
	// Default: config.json vocab_size, else read from the graph's embedding
	// initializer when one can be identified, else unchecked.
	VocabSize int `json:"vocab_size,omitempty"`
}

// readConfig reads dir/ragbench.json (strictly: unknown fields are errors)
// and the defaults a Hugging Face config.json offers. Both are optional.
func readConfig(dir string) (Config, hfConfig, error) {
	var cfg Config
	var hf hfConfig
	p := filepath.Join(dir, ConfigFile)
	b, err := os.ReadFile(p)
	switch {
	case err == nil:
		if err := checkConfigText(b, p); err != nil {
			return cfg, hf, err
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cfg); err != nil {
			return cfg, hf, fmt.Errorf("%s:%s", p, jsonErr(b, err))
		}
		if _, err := dec.Token(); err != io.EOF {
			return cfg, hf, fmt.Errorf("%s:%d: unexpected data after the config object (one JSON object)", p, lineOf(b, dec.InputOffset()))
		}
	case !errors.Is(err, os.ErrNotExist):
		return cfg, hf, fmt.Errorf("%s: %w", p, err)
	}
	hp := filepath.Join(dir, HFConfigFile)
	if b, err := os.ReadFile(hp); err == nil {
		if err := json.Unmarshal(b, &hf); err != nil {
			return cfg, hf, fmt.Errorf("%s:%s", hp, jsonErr(b, err))
		}
	}
	return cfg, hf, nil
}

// checkConfigText refuses what encoding/json would accept silently in
// ragbench.json: text it would rewrite to U+FFFD (a prefix would change), a
// key given twice (the last would win) or spelled in another case than the
// field's ("Max_Length" would set max_length).
func checkConfigText(b []byte, path string) error {
	if off := jsonkey.Rewritten(b); off >= 0 {
		return fmt.Errorf("%s:%d: invalid UTF-8 or a lone \\u surrogate: JSON decoding would replace it by U+FFFD", path, lineOf(b, int64(off)))
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(b, &obj) != nil {
		return nil // the strict decoder reports it with its line
	}
	if k := jsonkey.Repeated(b, true); k != "" {
		return fmt.Errorf("%s: %s: key given twice (in any case)", path, k)
	}
	known := map[string]bool{}
	t := reflect.TypeFor[Config]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		known[name] = true
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if !known[k] {
			for name := range known {
				if strings.EqualFold(k, name) {
					return fmt.Errorf("%s: %s: unknown key: keys are case-sensitive, did you mean %q?", path, k, name)
				}
			}
		}
	}
	return nil
}

// hfConfig holds the few Hugging Face config.json fields used as defaults.
type hfConfig struct {
	MaxLength             int `json:"max_length"`
	MaxQueryTokens        int `json:"max_query_tokens"`
	MaxPositionEmbeddings int `json:"max_position_embeddings"`
	VocabSize             int `json:"vocab_size"`
}

// jsonErr formats a JSON decoding error as "line: message".
func jsonErr(b []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
		if te.Field != "" {
			return fmt.Sprintf("%d: %s: want %s, got JSON %s", lineOf(b, off), te.Field, te.Type, te.Value)
		}
	}
	if off < 0 {
		return " " + err.Error()
	}
	return fmt.Sprintf("%d: %v", lineOf(b, off), err)
}

func lineOf(b []byte, off int64) int {
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	return 1 + bytes.Count(b[:off], []byte("\n"))
}

// validate checks the explicit values of a config; "" and 0 mean default.
func (c Config) validate(path string) error {
	bad := func(field, msg string, a ...any) error {
		return fmt.Errorf("%s: %s: %s", path, field, fmt.Sprintf(msg, a...))
	}
	switch c.Kind {
	case "", KindEmbedder, KindCrossEncoder:
	default:
		return bad("kind", "%q: want %q or %q", c.Kind, KindEmbedder, KindCrossEncoder)
	}
	switch c.Pooling {
	case "", PoolingNone, PoolingMean, PoolingCLS:
	default:
		return bad("pooling", "%q: want none, mean or cls", c.Pooling)
	}
	switch c.TextNormalization {
	case "", TextTrim, TextCollapseWhitespace, TextNone:
	default:
		return bad("text_normalization", "%q: want %q, %q or %q", c.TextNormalization, TextTrim, TextCollapseWhitespace, TextNone)
	}
	if c.MaxLength < 0 {
		return bad("max_length", "%d: must be positive", c.MaxLength)
	}
	if c.MaxQueryTokens < 0 {
		return bad("max_query_tokens", "%d: must be positive", c.MaxQueryTokens)
	}
	if c.VocabSize < 0 {
		return bad("vocab_size", "%d: must be positive", c.VocabSize)
	}
	if c.PadID != nil && *c.PadID < 0 {
		return bad("pad_id", "%d: must be >= 0", *c.PadID)
	}
	return nil
}

// ResolvedConfig is a Config with every default filled in, as the model
// runs it. It is part of the model's Fingerprint.
type ResolvedConfig struct {
	Kind              string `json:"kind"`
	MaxLength         int    `json:"max_length"`
	MaxQueryTokens    int    `json:"max_query_tokens,omitempty"`
	Pooling           string `json:"pooling,omitempty"`
	Normalize         bool   `json:"normalize"`
	Output            string `json:"output"`
	QueryPrefix       string `json:"query_prefix"`
	PassagePrefix     string `json:"passage_prefix"`
	TextNormalization string `json:"text_normalization"`
	SingleTemplate    string `json:"single_template"`
	PairTemplate      string `json:"pair_template,omitempty"`
	PadID             int    `json:"pad_id"`
	VocabSize         int    `json:"vocab_size,omitempty"` // 0: unknown, unchecked
	// Inputs are the graph inputs fed, in order (input_ids, attention_mask,
	// token_type_ids as the graph declares them).
	Inputs []string `json:"inputs"`
}

// String renders the resolved config as indented JSON.
func (r ResolvedConfig) String() string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(r)
	return strings.TrimSuffix(b.String(), "\n")
}

// normalizeText applies the text normalisation. It never changes valid
// non-space characters.
func normalizeText(s, mode string) string {
	switch mode {
	case TextNone:
		return s
	case TextCollapseWhitespace:
		return strings.Join(strings.Fields(s), " ")
	default:
		return strings.TrimSpace(s)
	}
}
