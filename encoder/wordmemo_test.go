package encoder

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ragbench/ragbench/internal/fuzzwatch"
	"github.com/ragbench/ragbench/internal/testenv"
)

// wordMemoTexts are the Hugging Face parity texts (singles, queries and
// passages) plus words at the edges of wordIDs: punctuation runs, tabs and
// newlines inside a word, added tokens inside and around words (raw and as
// the normaliser lowercases them), CJK, accents and ligatures, other
// Unicode spaces, words longer than the memo's key bound and than
// WordPiece's 100 characters.
func wordMemoTexts(t *testing.T) []string {
	var ref hfParity
	readJSON(t, "testdata/hf_parity_minilm.json", &ref)
	var texts []string
	for _, s := range ref.Singles {
		texts = append(texts, normalizeText(s.Text, TextTrim))
	}
	for _, p := range ref.Pairs {
		texts = append(texts, normalizeText(p.Query, TextTrim), normalizeText(p.Passage, TextTrim))
	}
	return append(texts,
		"e.g., (1-2) 100% don't ... ?! ¿qué? «guillemets» — dash – x’y",
		"tab\tinside word\nnewline\fform\rreturn  two  spaces ",
		"a[MASK]b [CLS] x[SEP] [mask] [pad]x [UNK]! [PÀD] [ ] [[CLS]]",
		"中文字符 naïve café ﬁne Ångström İstanbul ß ǅ",
		"no\u00a0break ideographic\u3000space thin\u2009space zero\u200bwidth",
		strings.Repeat("x", memoWordBytes+1)+" "+strings.Repeat("ab", 60)+" "+strings.Repeat("é", 101),
		"",
		"   ",
	)
}

// TestWordMemoMatchesSugarme: with the word memo (word-by-word, sugarme's
// BertPreTokenizer done in Go, WordPiece called directly) the ids are those
// of sugarme's whole pipeline on 256-byte chunks (the path TestHFTokenizerParity
// checks against Hugging Face), for every text, encoded twice (the second
// time from the memo), by 4 workers at once, and with an id limit.
func TestWordMemoMatchesSugarme(t *testing.T) {
	memo := loadMiniLMTokenizer(t)
	if memo.words == nil {
		t.Fatal("MiniLM (WordPiece, BertPreTokenizer): word memo not enabled")
	}
	plain := loadMiniLMTokenizer(t)
	plain.words = nil
	texts := wordMemoTexts(t)
	want, werrs := plain.encodeAll(texts, 1, 0)
	for round := 0; round < 2; round++ {
		got, gerrs := memo.encodeAll(texts, 4, 0)
		for i := range texts {
			if werrs[i] != nil || gerrs[i] != nil {
				t.Fatalf("text %d %q: errors %v / %v", i, trunc(texts[i]), werrs[i], gerrs[i])
			}
			if diff := cmp.Diff(want[i], got[i]); diff != "" {
				t.Errorf("round %d text %d %q: ids differ (-sugarme +memo):\n%s", round, i, trunc(texts[i]), diff)
			}
		}
	}
	if memo.words.len() == 0 {
		t.Error("memo is empty after encoding")
	}
	for i, text := range texts {
		got, err := memo.encodeLimit(text, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) < min(10, len(want[i])) || !cmp.Equal(got, want[i][:len(got)]) {
			t.Errorf("text %d with limit 10: ids %v, want a prefix of %v of length >= 10", i, got, want[i])
		}
	}
}

// TestWordMemoBounded: the memo stores at most memoMaxWords words, none
// longer than memoWordBytes, and encoding repeats a word's ids from it.
func TestWordMemoBounded(t *testing.T) {
	tt := loadMiniLMTokenizer(t)
	ids, err := tt.encode("the the the " + strings.Repeat("y", memoWordBytes+1))
	if err != nil {
		t.Fatal(err)
	}
	// bert-base-uncased vocabulary: "the" 1996; 49 'y's: WordPiece pieces
	if ids[0] != 1996 || ids[1] != 1996 || ids[2] != 1996 {
		t.Fatalf("ids %v, want 1996 ×3 first", ids)
	}
	if n := tt.words.len(); n != 1 {
		t.Errorf("memo holds %d words, want 1 (\"the\"; the %d-byte word is over the bound)", n, memoWordBytes+1)
	}
	m := newWordMemo()
	for i := 0; i < memoMaxWords+10; i++ {
		m.put(fmt.Sprint(i), []int{i})
	}
	if m.len() != memoMaxWords {
		t.Errorf("memo holds %d words, want the cap %d", m.len(), memoMaxWords)
	}
	if ids, ok := m.get("0"); !ok || ids[0] != 0 {
		t.Errorf("first word lost: %v %v", ids, ok)
	}
}

// TestWordMemoOnlyWhereExact: use-lite (Unigram under Metaspace, where a
// space belongs to the next piece) keeps sugarme's chunked path.
func TestWordMemoOnlyWhereExact(t *testing.T) {
	dir, _ := useLite(t)
	tt, err := loadTokenizer(filepath.Join(dir, TokenizerFile))
	if err != nil {
		t.Fatal(err)
	}
	if tt.words != nil {
		t.Error("use-lite (Metaspace): word memo enabled, but a word is not a pre-token there")
	}
}

// BenchmarkTokenizeMiniLM tokenizes the first 200 SciFact abstracts with
// MiniLM's WordPiece tokenizer, a fresh tokenizer (empty word memo) per
// iteration, through the word memo and through sugarme's whole pipeline
// (the path before it), and reports tokens per CPU-second of the process
// (both workers' time: the figure that holds on a loaded machine).
//
// Run: go test -run '^$' -bench TokenizeMiniLM -benchtime 5x ./encoder
func BenchmarkTokenizeMiniLM(b *testing.B) {
	texts := testenv.SciFactAbstracts(b, benchAbstracts)
	for _, path := range []string{"memo", "sugarme"} {
		b.Run("path="+path, func(b *testing.B) {
			var cpu time.Duration
			ntok := 0
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				tt, err := loadTokenizer("testdata/all-minilm-l6-v2/tokenizer.json")
				if err != nil {
					b.Fatal(err)
				}
				if path == "sugarme" {
					tt.words = nil
				}
				b.StartTimer()
				c0 := cpuTime()
				ids, _ := tt.encodeAll(texts, 2, 0)
				cpu += cpuTime() - c0
				for _, x := range ids {
					ntok += len(x)
				}
			}
			b.ReportMetric(float64(ntok)/cpu.Seconds(), "cpu_tokens/s")
		})
	}
}

// FuzzWordMemo: for any text, the word memo's ids are those of sugarme's
// whole pipeline (the exactness the memo claims), for a text seen the first
// time and again from the memo. MiniLM's tokenizer.json (WordPiece under
// BertPreTokenizer, lowercasing BertNormalizer) is the one that enables it.
func FuzzWordMemo(f *testing.F) {
	for _, s := range []string{
		"e.g., (1-2) 100% don't ... ?! ¿qué? «guillemets» — dash – x’y",
		"tab\tinside word\nnewline\fform\rreturn  two  spaces ",
		"a[MASK]b [CLS] x[SEP] [mask] [pad]x [UNK]! [PÀD] [ ] [[CLS]]",
		"中文字符 naïve café ﬁne Ångström İstanbul ß ǅ",
		"no\u00a0break ideographic\u3000space thin\u2009space zero\u200bwidth \u0085nel \u2028ls",
		"\x00nul\x7fdel \ufffdrepl \u0301combining e\u0301 \U0001F600emoji",
	} {
		f.Add(s)
	}
	memo, err := loadTokenizer("testdata/all-minilm-l6-v2/tokenizer.json")
	if err != nil {
		f.Fatal(err)
	}
	plain, err := loadTokenizer("testdata/all-minilm-l6-v2/tokenizer.json")
	if err != nil {
		f.Fatal(err)
	}
	if memo.words == nil {
		f.Fatal("MiniLM (WordPiece, BertPreTokenizer): word memo not enabled")
	}
	plain.words = nil
	f.Fuzz(func(t *testing.T, text string) {
		defer fuzzwatch.Start(fuzzwatch.Bound)()
		want, werr := plain.encode(text)
		for round := 0; round < 2; round++ {
			got, err := memo.encode(text)
			if (err == nil) != (werr == nil) {
				t.Fatalf("%q: errors %v (memo) / %v (sugarme)", text, err, werr)
			}
			if !cmp.Equal(got, want) {
				t.Fatalf("round %d %q: ids differ (-sugarme +memo):\n%s", round, text, cmp.Diff(want, got))
			}
		}
	})
}
