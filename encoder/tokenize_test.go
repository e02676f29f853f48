package encoder

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbench/ragbench/internal/testenv"
)

// hfParity is testdata/hf_parity_minilm.json, made by gen_hf_parity.py with
// Hugging Face's own tokenizers (PyPI, Rust) from the same tokenizer.json.
type hfParity struct {
	Singles []struct {
		Text   string  `json:"text"`
		IDs    []int64 `json:"ids"`
		IDs256 []int64 `json:"ids_256"`
	} `json:"singles"`
	Pairs []struct {
		Query   string  `json:"query"`
		Passage string  `json:"passage"`
		IDs     []int64 `json:"ids"`
		TypeIDs []int64 `json:"type_ids"`
	} `json:"pairs"`
}

func loadMiniLMTokenizer(t *testing.T) *textTokenizer {
	t.Helper()
	tt, err := loadTokenizer("testdata/all-minilm-l6-v2/tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	return tt
}

// TestHFTokenizerParity compares ids with Hugging Face tokenizers on 249
// texts (accents, other scripts, control characters, SciFact abstracts,
// inputs far over 256 tokens), untruncated and truncated to 256, and on 40
// (query, passage) pairs truncated to 128 (passage only).
func TestHFTokenizerParity(t *testing.T) {
	var ref hfParity
	readJSON(t, "testdata/hf_parity_minilm.json", &ref)
	if len(ref.Singles) < 200 {
		t.Fatalf("fixture has %d texts, want >= 200", len(ref.Singles))
	}
	tt := loadMiniLMTokenizer(t)
	texts := make([]string, len(ref.Singles))
	for i, s := range ref.Singles {
		texts[i] = normalizeText(s.Text, TextTrim)
	}
	raw, errs := tt.encodeAll(texts, 4, 0)
	long := 0
	for i, s := range ref.Singles {
		if errs[i] != nil {
			t.Errorf("text %d %q: %v", i, s.Text, errs[i])
			continue
		}
		full, _ := tt.singleIDs(raw[i], 1<<30)
		if diff := cmp.Diff(s.IDs, full); diff != "" {
			t.Errorf("text %d %q: ids differ from Hugging Face (-hf +ours):\n%s", i, trunc(s.Text), diff)
		}
		cut, tr := tt.singleIDs(raw[i], 256)
		if diff := cmp.Diff(s.IDs256, cut); diff != "" {
			t.Errorf("text %d %q: ids truncated to 256 differ (-hf +ours):\n%s", i, trunc(s.Text), diff)
		}
		if tr {
			long++
			if cut[len(cut)-1] != 102 {
				t.Errorf("text %d: truncated ids end with %d, want [SEP] 102", i, cut[len(cut)-1])
			}
		}
	}
	if long < 20 {
		t.Errorf("only %d texts exceed 256 tokens; the fixture should exercise truncation", long)
	}
	for i, p := range ref.Pairs {
		q, err := tt.encode(normalizeText(p.Query, TextTrim))
		if err != nil {
			t.Fatal(err)
		}
		ps, err := tt.encode(normalizeText(p.Passage, TextTrim))
		if err != nil {
			t.Fatal(err)
		}
		ids, types, _ := tt.pairIDs(q, ps, 128, 64)
		if diff := cmp.Diff(p.IDs, ids); diff != "" {
			t.Errorf("pair %d: ids differ (-hf +ours):\n%s", i, diff)
		}
		if diff := cmp.Diff(p.TypeIDs, types); diff != "" {
			t.Errorf("pair %d: token type ids differ (-hf +ours):\n%s", i, diff)
		}
	}
}

func trunc(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// TestAccentGuard: Hugging Face's BertNormalizer strips accents when
// lowercase is on and strip_accents is null; sugarme v0.3.0 does not, and
// "café" became [UNK] (100). The guard must be installed and effective.
// Ids from bert-base-uncased's vocab: café → cafe 7668, naïve → naive 15743.
func TestAccentGuard(t *testing.T) {
	tt := loadMiniLMTokenizer(t)
	if !tt.needsAccentFix() {
		t.Fatal("needsAccentFix = false for MiniLM's BertNormalizer(lowercase, strip_accents=null)")
	}
	for text, want := range map[string][]int{"café": {7668}, "naïve": {15743}} {
		got, err := tt.encode(text)
		if err != nil {
			t.Fatal(err)
		}
		if !cmp.Equal(got, want) {
			t.Errorf("%q: ids %v, want %v (100 = [UNK]: accents not stripped)", text, got, want)
		}
	}
}

// TestTruncationKeepsClosingToken: a text far over max_length keeps
// [CLS] first and [SEP] last (Anserini once lost [SEP] this way), and the
// ids are the untruncated ones' prefix.
func TestTruncationKeepsClosingToken(t *testing.T) {
	tt := loadMiniLMTokenizer(t)
	raw, err := tt.encode(strings.Repeat("retrieval augmented generation ", 400))
	if err != nil {
		t.Fatal(err)
	}
	ids, tr := tt.singleIDs(raw, 256)
	if !tr || len(ids) != 256 || ids[0] != 101 || ids[255] != 102 {
		t.Fatalf("truncated=%v len=%d first=%d last=%d; want true 256 101 102", tr, len(ids), ids[0], ids[len(ids)-1])
	}
	for k := 1; k < 255; k++ {
		if ids[k] != int64(raw[k-1]) {
			t.Fatalf("id %d = %d, want %d (prefix of the text's ids)", k, ids[k], raw[k-1])
		}
	}
}

// TestPairTruncationPassageOnly: sugarme's LongestFirst cuts too much when
// both sides are long; ours keeps the query whole (up to its cap) and fills
// max_length exactly with the passage, ending with [SEP].
func TestPairTruncationPassageOnly(t *testing.T) {
	tt := loadMiniLMTokenizer(t)
	q, _ := tt.encode(strings.Repeat("query words ", 30))    // 60 tokens
	p, _ := tt.encode(strings.Repeat("passage words ", 300)) // 600 tokens
	ids, types, tr := tt.pairIDs(q, p, 128, 100)
	if !tr || len(ids) != 128 || ids[127] != 102 {
		t.Fatalf("truncated=%v len=%d last=%d; want true, 128, [SEP]", tr, len(ids), ids[len(ids)-1])
	}
	// [CLS] + 60 query + [SEP] = 62 positions of type 0, then 66 of type 1.
	zeros := 0
	for _, ty := range types {
		if ty == 0 {
			zeros++
		}
	}
	if len(q) != 60 || zeros != 62 {
		t.Errorf("query tokens %d, type-0 positions %d; want 60 and 62 (query kept whole)", len(q), zeros)
	}
	// A query over the cap is cut to it.
	long, _ := tt.encode(strings.Repeat("query words ", 100))
	ids, _, _ = tt.pairIDs(long, p, 128, 100)
	if len(ids) != 128 || ids[101] != 102 {
		t.Errorf("query capped at 100: [SEP] expected at 101, ids[101]=%d len=%d", ids[101], len(ids))
	}
}

// TestNoFatalPaths: a tokenizer.json asking for OnlyFirst truncation and
// fixed padding (sugarme can log.Fatal or mis-pad there) loads and encodes
// normally, because both are cleared.
func TestNoFatalPaths(t *testing.T) {
	tt := loadMiniLMTokenizer(t)
	s := strings.Replace(string(tt.raw), `"strategy":"LongestFirst"`, `"strategy":"OnlyFirst"`, 1)
	s = strings.Replace(s, `"strategy": "LongestFirst"`, `"strategy": "OnlyFirst"`, 1)
	if s == string(tt.raw) {
		t.Fatal("fixture tokenizer.json has no LongestFirst truncation to replace")
	}
	dir := t.TempDir()
	writeFile(t, dir+"/tokenizer.json", s)
	tt2, err := loadTokenizer(dir + "/tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	ids, err := tt2.encode(strings.Repeat("long text ", 500))
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1000 {
		t.Errorf("got %d ids, want 1000 (no truncation inside the tokenizer)", len(ids))
	}
}

// TestInvalidUTF8 is an error naming the byte offset, never a replacement.
func TestInvalidUTF8(t *testing.T) {
	tt := loadMiniLMTokenizer(t)
	_, err := tt.encode("ok \xff bad")
	if err == nil || !strings.Contains(err.Error(), "invalid UTF-8 at byte 3") {
		t.Fatalf("err = %v, want invalid UTF-8 at byte 3", err)
	}
}

// TestTemplates parses HF TemplateProcessing strings and rejects unknown tokens.
func TestTemplates(t *testing.T) {
	vocab := map[string]int{"[CLS]": 101, "[SEP]": 102}
	tp, err := parseTemplate("[CLS] $A [SEP] $B:1 [SEP]:1", vocab, true)
	if err != nil {
		t.Fatal(err)
	}
	ids, types := tp.build([]int{7, 8}, []int{9})
	if !cmp.Equal(ids, []int64{101, 7, 8, 102, 9, 102}) || !cmp.Equal(types, []int64{0, 0, 0, 0, 1, 1}) {
		t.Errorf("build = %v %v", ids, types)
	}
	if _, err := parseTemplate("[BOS] $A", vocab, false); err == nil {
		t.Error("unknown special token accepted")
	}
	if _, err := parseTemplate("[CLS] $A [SEP]", vocab, true); err == nil {
		t.Error("pair template without $B accepted")
	}
}

// TestHFTokenizerParityUseLite compares use-lite's SentencePiece Unigram
// ids (NFKC, Metaspace, no special tokens) with Hugging Face tokenizers on
// 148 texts (testdata/hf_parity_uselite.json, gen_hf_parity.py).
func TestHFTokenizerParityUseLite(t *testing.T) {
	dir, _ := useLite(t)
	var ref struct {
		Singles []struct {
			Text string `json:"text"`
			IDs  []int  `json:"ids"`
		} `json:"singles"`
	}
	readJSON(t, "testdata/hf_parity_uselite.json", &ref)
	tt, err := loadTokenizer(dir + "/tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	texts := make([]string, len(ref.Singles))
	for i, s := range ref.Singles {
		texts[i] = s.Text
	}
	got, errs := tt.encodeAll(texts, 2, 0)
	for i, s := range ref.Singles {
		if errs[i] != nil {
			t.Errorf("text %d %q: %v", i, trunc(s.Text), errs[i])
			continue
		}
		if diff := cmp.Diff(s.IDs, got[i]); diff != "" {
			t.Errorf("text %d %q: ids differ from Hugging Face (-hf +ours):\n%s", i, trunc(s.Text), diff)
		}
	}
}

// TestMetaspaceSpacesPreReplaced: for the Metaspace (SentencePiece)
// tokenizers, encode swaps ASCII spaces for "▁" before sugarme sees the
// text (sugarme's own replacement is quadratic in the piece), and the ids
// are exactly those of sugarme's own replacement on SciFact abstracts and
// on texts with leading, doubled and trailing spaces, tabs and newlines, a
// literal "▁", a no-break space and the added token <unk> next to spaces.
// The ids' independent reference is TestHFTokenizerParityUseLite and
// TestCrossEncoderReference, which run through the same path. A tokenizer
// with an added token holding a space keeps sugarme's replacement (it
// matches added tokens before pre-tokenizing).
func TestMetaspaceSpacesPreReplaced(t *testing.T) {
	dir, _ := useLite(t)
	texts := append(testenv.SciFactAbstracts(t, 50),
		" leading space", "doubled  space", "trailing space ", "tab\tand\nnewline",
		"a ▁ literal▁ replacement", "no-break\u00a0space", "x <unk> y", "<unk> z", " ",
		strings.Repeat("long text over the chunk size ", 40))
	for _, path := range []string{dir + "/tokenizer.json", testenv.Shared(t, "models/ce-scifact-tiny") + "/tokenizer.json"} {
		tt, err := loadTokenizer(path)
		if err != nil {
			t.Fatal(err)
		}
		if tt.metaspaceRep != "▁" {
			t.Fatalf("%s: metaspaceRep %q, want \"▁\"", path, tt.metaspaceRep)
		}
		fast, fastErrs := tt.encodeAll(texts, 2, 0)
		tt.metaspaceRep = "" // sugarme's own replacement
		slow, slowErrs := tt.encodeAll(texts, 2, 0)
		for i := range texts {
			if fastErrs[i] != nil || slowErrs[i] != nil {
				t.Fatalf("%s text %d: %v / %v", path, i, fastErrs[i], slowErrs[i])
			}
			if diff := cmp.Diff(slow[i], fast[i]); diff != "" {
				t.Errorf("%s text %d %q: ids differ (-sugarme +pre-replaced):\n%s", path, i, trunc(texts[i]), diff)
			}
		}
	}
	raw, err := os.ReadFile(dir + "/tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	var j map[string]any
	if err := json.Unmarshal(raw, &j); err != nil {
		t.Fatal(err)
	}
	j["added_tokens"] = append(j["added_tokens"].([]any), map[string]any{"id": 5, "content": "a b", "normalized": false, "special": false, "lstrip": false, "rstrip": false, "single_word": false})
	b, _ := json.Marshal(j)
	p := filepath.Join(t.TempDir(), "tokenizer.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	tt, err := loadTokenizer(p)
	if err != nil {
		t.Fatal(err)
	}
	if tt.metaspaceRep != "" {
		t.Errorf("added token %q holds a space: metaspaceRep %q, want \"\"", "a b", tt.metaspaceRep)
	}
}
