package bm25

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/internal/testenv"
)

// analyzers returns the package's analyzers (analyzerNamed: bleve's, with
// the index-time fast path).
func analyzers(t testing.TB) map[string]*textAnalyzer {
	t.Helper()
	out := map[string]*textAnalyzer{}
	for _, name := range []string{AnalyzerEn, AnalyzerLuceneEn} {
		a, err := analyzerNamed(name)
		if err != nil {
			t.Fatal(err)
		}
		if !a.fast {
			t.Fatalf("%s: no fast path", name)
		}
		out[name] = a
	}
	return out
}

// bleveTerms is the reference: bleve's own analyzer on text.
func bleveTerms(a *textAnalyzer, text string) []string {
	var out []string
	for _, t := range a.bleve.Analyze([]byte(text)) {
		out = append(out, string(t.Term))
	}
	return out
}

func fastTerms(a *textAnalyzer, memo *termMemo, text string) []string {
	var out []string
	a.analyze(text, memo, func(e *memoTerm) { out = append(out, e.term) })
	return out
}

// checkSame compares the two analyses of text and reports a difference.
func checkSame(t *testing.T, name string, a *textAnalyzer, memo *termMemo, text string) bool {
	t.Helper()
	want, got := bleveTerms(a, text), fastTerms(a, memo, text)
	if !slices.Equal(want, got) {
		t.Errorf("%s: %q:\nbleve %q\nfast  %q", name, text, want, got)
		return false
	}
	return true
}

// Characters of every word-break class that matters: ASCII letters (with
// s and S for the possessive filter), digits, _ . ' : , ; " and hard
// punctuation, white space of each kind, and non-ASCII letters, a combining
// mark, a format character, curly and full-width apostrophes, Hebrew, Han,
// Katakana.
var analysisAlphabet = []string{"a", "B", "s", "S", "7", "_", ".", "'", ":", ",", ";", "\"", "-", " ", "\n", "\r",
	"\t", "\v", "é", "\u0301", "\u200d", "’", "＇", "א", "日", "カ", "!"}

// TestFastAnalysisEqualsBleve: the index-time analysis (fast path and
// memo) gives exactly bleve's analyzer output — every string of up to four
// characters over analysisAlphabet, 20,000 random strings, and every
// document of the shared SciFact, Cranfield and chunking-chroma corpora —
// for both analyzers (three characters and 2,000 strings under -race).
func TestFastAnalysisEqualsBleve(t *testing.T) {
	for name, a := range analyzers(t) {
		memo := newTermMemo()
		var rec func(prefix string, depth int) bool
		rec = func(prefix string, depth int) bool {
			if !checkSame(t, name, a, memo, prefix) {
				return false
			}
			if depth == 0 {
				return true
			}
			for _, c := range analysisAlphabet {
				if !rec(prefix+c, depth-1) {
					return false
				}
			}
			return true
		}
		depth, random := 4, 20000
		if raceDetector {
			depth, random = 3, 2000
		}
		if !rec("", depth) {
			continue
		}
		rng := rand.New(rand.NewPCG(1, 2))
		words := []string{"the", "cats", "cat's", "CAT’S", "don't", "U.S.A.", "3.14", "1,000", "e.g.", "a:b", "x_y", "__",
			"running", "ran", "Ωmega", "naïve", "\"quoted\"", "(paren)", "end.", "'s", "s'", "ab'cd'ef"}
		for range random {
			var sb strings.Builder
			for range rng.IntN(12) {
				if rng.IntN(3) == 0 {
					sb.WriteString(analysisAlphabet[rng.IntN(len(analysisAlphabet))])
				} else {
					sb.WriteString(words[rng.IntN(len(words))])
				}
				if rng.IntN(2) == 0 {
					sb.WriteByte(' ')
				}
			}
			if !checkSame(t, name, a, memo, sb.String()) {
				break
			}
		}
		if raceDetector {
			continue
		}
		for _, text := range sharedTexts(t) {
			if !checkSame(t, name, a, memo, text) {
				break
			}
		}
	}
}

// sharedTexts returns the title and text of every document of the shared
// SciFact and Cranfield corpora and the chunking-chroma corpus files.
func sharedTexts(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, ds := range []string{"scifact", "cranfield"} {
		f, err := os.Open(filepath.Join(testenv.Shared(t, "datasets/"+ds), "corpus.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var d struct{ Title, Text string }
			if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
				t.Fatal(err)
			}
			out = append(out, d.Title, d.Text)
		}
		f.Close()
	}
	dir := filepath.Join(testenv.Shared(t, "datasets/chunking-chroma"), "corpora")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		// Paragraphs, so that a difference is reported on a short text.
		out = append(out, strings.Split(string(data), "\n\n")...)
	}
	return out
}

// FuzzFastAnalysis: index-time analysis equals bleve's analyzer on any
// string, valid UTF-8 or not.
func FuzzFastAnalysis(f *testing.F) {
	for _, s := range []string{"", "The cat's hat", "don't U.S.A. 3.14 1,000 e.g. a:b x_y __", "naïve Ωmega א\"ב 日本語 カタカナ",
		"a\u0301b \u200dc", "\xff\xfe bad utf8", "s. 38(2) deposit: wear & tear?", "end.' \"x\""} {
		f.Add(s)
	}
	as := analyzers(f)
	memos := map[string]*termMemo{}
	for name := range as {
		memos[name] = newTermMemo()
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, a := range as {
			checkSame(t, name, a, memos[name], s)
		}
	})
}

// TestAnalyzeIsTheIndexAnalysis: the exported Analyze (misses' query and
// passage terms) gives the terms the index build's fast path indexes, with
// byte ranges that hold the raw token each term came from.
func TestAnalyzeIsTheIndexAnalysis(t *testing.T) {
	texts := []string{"", "The cat's whiskers, 3.14 and foo_bar: résumé naïve 日本語 DON'T", "running runners ran\n\tRUN"}
	for name, a := range analyzers(t) {
		memo := newTermMemo()
		for _, text := range texts {
			ts, err := Analyze(name, text)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tok := range ts {
				got = append(got, tok.Term)
				if tok.Start < 0 || tok.End > len(text) || tok.Start >= tok.End {
					t.Errorf("%s: %q: token %+v out of the text", name, text, tok)
				}
			}
			if want := fastTerms(a, memo, text); !slices.Equal(got, want) {
				t.Errorf("%s: %q: Analyze %q, index analysis %q", name, text, got, want)
			}
		}
	}
	if _, err := Analyze("nope", "x"); err == nil {
		t.Error("unknown analyzer: no error")
	}
}
