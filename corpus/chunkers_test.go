package corpus

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ragbench/ragbench/internal/testenv"
)

// chunksReference is testdata/reference/chunks_reference.json, written by
// gen_chunks.py from tiktoken 0.14.0 and langchain-text-splitters 1.1.3
// themselves (the independent references of the two chunkers).
type chunksReference struct {
	Encode [][2]json.RawMessage // [text, tiktoken's ids]
	Tokens []struct {
		Doc, Kind     string
		Count         int
		SHA256        string
		Size, Overlap int
		Spans         [][2]int // code points; [-1, -1] when str.find found nothing
		MissingTexts  []string `json:"missing_texts"`
	}
	Recursive []struct {
		Unit          string
		Size, Overlap int
		Text          string // hand texts
		Corpus        string // or the first Prefix code points of this corpus
		Prefix        int
		Chunks        [][2]json.RawMessage // [start_index (code points), page_content]
	}
}

func readChunksReference(t *testing.T) (chunksReference, map[string]string) {
	t.Helper()
	var ref chunksReference
	b, err := os.ReadFile("testdata/reference/chunks_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	docs, err := LoadFolder(testenv.Shared(t, "datasets/chunking-chroma/corpora"))
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{}
	for _, d := range docs {
		texts[d.ID] = d.Text
	}
	return ref, texts
}

// TestTokensMatchTiktoken: cl100k_base ids of 20 hand strings and of the
// three shared corpora equal tiktoken's, and the "tokens" chunks equal Chroma's FixedTokenChunker
// windows located by str.find, at 7 sizes and overlaps (2,212 windows;
// wikitexts at 50o25 has two windows cutting a Japanese character, which
// str.find cannot locate: their text must still be tiktoken's).
func TestTokensMatchTiktoken(t *testing.T) {
	ref, texts := readChunksReference(t)
	bpe, err := LoadBPE(CL100kBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ref.Encode {
		var text string
		var ids []int
		if json.Unmarshal(e[0], &text) != nil || json.Unmarshal(e[1], &ids) != nil {
			t.Fatal("bad encode case")
		}
		if got := bpe.Encode(text); !slices.Equal(got, ids) {
			t.Errorf("Encode(%q) = %v, tiktoken %v", text, got, ids)
		}
	}
	if len(ref.Encode) < 20 {
		t.Errorf("%d encode cases", len(ref.Encode))
	}
	windows := 0
	for _, r := range ref.Tokens {
		text, ok := texts[r.Doc]
		if !ok {
			t.Fatalf("no corpus %q", r.Doc)
		}
		if r.Kind == "ids" {
			ids := bpe.Encode(text)
			parts := make([]string, len(ids))
			for i, id := range ids {
				parts[i] = strconv.Itoa(id)
			}
			sum := sha256.Sum256([]byte(strings.Join(parts, ",")))
			if len(ids) != r.Count || hex.EncodeToString(sum[:]) != r.SHA256 {
				t.Errorf("%s: %d tokens (sha256 %x), tiktoken %d (%s)", r.Doc, len(ids), sum[:4], r.Count, r.SHA256[:8])
			}
			continue
		}
		spec := Spec{Strategy: Tokens, Tokenizer: CL100kBase, Size: r.Size, Overlap: r.Overlap}
		chunks, err := chunkSlice(spec.Chunk([]Document{{ID: r.Doc, Text: text}}))
		if err != nil {
			t.Fatal(err)
		}
		if len(chunks) != len(r.Spans) {
			t.Errorf("%s %s: %d chunks, Chroma %d", r.Doc, spec.Name(), len(chunks), len(r.Spans))
			continue
		}
		x := NewRuneIndex(text)
		missing := 0
		for i, c := range chunks {
			windows++
			want := r.Spans[i]
			if want[0] < 0 {
				if missing >= len(r.MissingTexts) || c.Text != r.MissingTexts[missing] {
					t.Errorf("%s %s chunk %d: text not tiktoken's decode", r.Doc, spec.Name(), i)
				}
				missing++
				continue
			}
			s, err1 := x.RuneOffset(c.Start)
			e, err2 := x.RuneOffset(c.End)
			if err1 != nil || err2 != nil || s != want[0] || e != want[1] || c.Text != text[c.Start:c.End] {
				t.Errorf("%s %s chunk %d: span [%d, %d) code points, Chroma [%d, %d)", r.Doc, spec.Name(), i, s, e, want[0], want[1])
			}
		}
		if missing != len(r.MissingTexts) {
			t.Errorf("%s %s: %d windows not found, Chroma %d", r.Doc, spec.Name(), missing, len(r.MissingTexts))
		}
	}
	if windows < 2000 {
		t.Errorf("only %d windows compared", windows)
	}
}

// TestRecursiveMatchesLangChain: "recursive" chunks equal LangChain's
// RecursiveCharacterTextSplitter output (text and start_index, code points)
// on 8 hand texts and the start of each shared corpus, by characters and by
// cl100k_base tokens (77 cases).
func TestRecursiveMatchesLangChain(t *testing.T) {
	ref, texts := readChunksReference(t)
	for n, r := range ref.Recursive {
		text := r.Text
		if r.Corpus != "" {
			runes := []rune(texts[r.Corpus])
			text = string(runes[:min(r.Prefix, len(runes))])
		}
		spec := Spec{Strategy: Recursive, Size: r.Size, Overlap: r.Overlap}
		if r.Unit != "chars" {
			spec.Tokenizer = r.Unit
		}
		chunks, err := chunkSlice(spec.Chunk([]Document{{ID: "d", Text: text}}))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Chunks) == 0 { // LangChain returns no chunk; ragbench keeps one empty chunk
			if len(chunks) != 1 || chunks[0].Text != "" {
				t.Errorf("case %d (%s): %d chunks, want one empty", n, spec.Name(), len(chunks))
			}
			continue
		}
		if len(chunks) != len(r.Chunks) {
			t.Errorf("case %d %s %q: %d chunks, LangChain %d", n, spec.Name(), clipText(text), len(chunks), len(r.Chunks))
			continue
		}
		x := NewRuneIndex(text)
		for i, c := range chunks {
			var start int
			var content string
			if json.Unmarshal(r.Chunks[i][0], &start) != nil || json.Unmarshal(r.Chunks[i][1], &content) != nil {
				t.Fatalf("case %d: bad reference chunk", n)
			}
			s, _ := x.RuneOffset(c.Start)
			if start == -1 && spec.Tokenizer != "" {
				// LangChain's add_start_index searches from
				// start + len(previous chunk) − chunk_overlap, mixing code
				// points with tokens, and can start past the chunk: its
				// start_index is then -1 and only the text is compared.
				start = s
			}
			if c.Text != content || s != start || c.Text != text[c.Start:c.End] {
				t.Errorf("case %d %s chunk %d: start %d %q, LangChain %d %q", n, spec.Name(), i, s, clipText(c.Text), start, clipText(content))
			}
		}
	}
}

func clipText(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// TestTextSpecNames: Name and ParseSpec agree for the new strategies, and
// bad specs are refused.
func TestTextSpecNames(t *testing.T) {
	for _, s := range []Spec{
		{Strategy: Tokens, Tokenizer: CL100kBase, Size: 200, Overlap: 100},
		{Strategy: Tokens, Tokenizer: CL100kBase, Size: 100, Title: true},
		{Strategy: Recursive, Size: 400, Overlap: 50},
		{Strategy: Recursive, Tokenizer: CL100kBase, Size: 400},
	} {
		got, err := ParseSpec(s.Key())
		if err != nil || got != s {
			t.Errorf("ParseSpec(%q) = %+v, %v; want %+v", s.Key(), got, err, s)
		}
	}
	if n := (Spec{Strategy: Tokens, Tokenizer: CL100kBase, Size: 200, Overlap: 100}).Name(); n != "tokens-cl100k_base-200o100" {
		t.Errorf("Name = %q", n)
	}
	for _, name := range []string{"tokens-200", "tokens-gpt2-200", "tokens-cl100k_base-200o200", "recursive-0",
		"recursive-10o11", "recursive-x", "tokens-cl100k_base-1o-1", "recursive-010"} {
		if s, err := ParseSpec(name); err == nil {
			t.Errorf("ParseSpec(%q) = %+v, want an error", name, s)
		}
	}
	if err := (Spec{Strategy: Fixed, Size: 5, Tokenizer: CL100kBase}).Validate(); err == nil {
		t.Error("fixed with a tokenizer: no error")
	}
}

// TestReplaceInvalidUTF8 checks Python's bytes.decode("utf-8", "replace")
// on hand cases from the Unicode standard's Table 3-8 example: "\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64"
// decodes to "a\uFFFD\uFFFD\uFFFDb\uFFFDc\uFFFD\uFFFDd".
func TestReplaceInvalidUTF8(t *testing.T) {
	for in, want := range map[string]string{
		"\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64": "a\uFFFD\uFFFD\uFFFDb\uFFFDc\uFFFD\uFFFDd",
		"ok ’":         "ok ’",
		"\xe2\x80":     "\uFFFD",
		"\x80\x99s":    "\uFFFD\uFFFDs",
		"\xed\xa0\x80": "\uFFFD\uFFFD\uFFFD", // a surrogate: E0-ED rule
		"\xf4\x90":     "\uFFFD\uFFFD",
	} {
		if got := replaceInvalidUTF8(in); got != want {
			t.Errorf("replaceInvalidUTF8(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzTextChunkers: on any valid UTF-8 text, "recursive" chunks are
// text[Start:End], in order, at most size code points, trimmed unless kept
// whole; "tokens"
// chunks without overlap decode back to the whole text, and each is
// text[Start:End] unless it holds U+FFFD (a cut character).
func FuzzTextChunkers(f *testing.F) {
	f.Add("Hello world.\n\nSecond paragraph, longer than the first one.\nLine.", 12, 3)
	f.Add("It’s — 戦場のヴァルキュリア", 3, 1)
	f.Add("   ", 1, 0)
	f.Fuzz(func(t *testing.T, text string, size, overlap int) {
		if !utf8.ValidString(text) || len(text) > 2000 {
			return
		}
		size, overlap = 1+abs(size)%40, abs(overlap)%40
		overlap = min(overlap, size-1)
		docs := []Document{{ID: "d", Text: text}}
		rc, err := chunkSlice(Spec{Strategy: Recursive, Size: size, Overlap: overlap}.Chunk(docs))
		if err != nil {
			t.Fatal(err)
		}
		prev := -1
		for _, c := range rc {
			n := utf8.RuneCountInString(c.Text)
			// A piece that cannot be cut further is kept whole and
			// unstripped, as LangChain does (" " at size 1 stays " ").
			if c.Text != text[c.Start:c.End] || c.Start < prev || n > size ||
				n < size && c.Text != strings.TrimFunc(c.Text, pySpace) {
				t.Fatalf("recursive %d/%d: bad chunk %+v", size, overlap, c)
			}
			prev = c.Start
		}
		tc, err := chunkSlice(Spec{Strategy: Tokens, Tokenizer: CL100kBase, Size: size}.Chunk(docs))
		if err != nil {
			t.Fatal(err)
		}
		var all strings.Builder
		for _, c := range tc {
			all.WriteString(c.Text)
			if c.Text != text[c.Start:c.End] && !strings.ContainsRune(c.Text, utf8.RuneError) {
				t.Fatalf("tokens %d: chunk %+v is not the text at its span", size, c)
			}
		}
		if !strings.ContainsRune(all.String(), utf8.RuneError) && all.String() != text {
			t.Fatalf("tokens %d: windows join to %q, not the text", size, all.String())
		}
	})
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
