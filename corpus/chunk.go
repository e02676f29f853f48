package corpus

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Chunking strategies for Spec.Strategy.
const (
	Whole    = "document" // one chunk per document, id = doc id
	Fixed    = "fixed"    // windows of Size words, Overlap words shared
	Sentence = "sentence" // whole sentences packed up to Size words
	// Tokens: Chroma's FixedTokenChunker, windows of Size tokens of
	// Tokenizer sharing Overlap tokens (see tokenChunks).
	Tokens = "tokens"
	// Recursive: LangChain's RecursiveCharacterTextSplitter, chunks of at
	// most Size code points (or tokens of Tokenizer), see recursiveSplit.
	Recursive = "recursive"
)

// Spec says how to cut documents into chunks.
//
// For "fixed" and "sentence", tokens are whitespace words: maximal runs of non-space characters as
// unicode.IsSpace defines space (strings.Fields), never tokenizer pieces, so
// a chunking is the same for every retriever and model.
//
//   - Strategy "document" (Whole): one chunk per document holding the whole
//     Text; Size and Overlap must be 0. The chunk id is the doc id.
//   - Strategy "fixed": windows of Size words starting every Size−Overlap
//     words (0 ≤ Overlap < Size); the last window ends at the document's
//     last word, so no window lies inside the previous one.
//   - Strategy "sentence": sentences (see Sentences) packed greedily, in
//     order, while the chunk stays ≤ Size words; a sentence longer than Size
//     words is cut into windows of Size words. Overlap must be 0.
//   - Strategy "tokens" (Tokens): Chroma's FixedTokenChunker, windows of Size
//     tokens of Tokenizer (required, CL100kBase) every Size−Overlap tokens
//     (0 ≤ Overlap < Size), each decoded and located in the document (see
//     tokenChunks). Here tokens are BPE tokens, not words.
//   - Strategy "recursive" (Recursive): LangChain's
//     RecursiveCharacterTextSplitter at its defaults (separators
//     RecursiveSeparators, keep_separator, strip_whitespace), chunks of at
//     most Size code points, or tokens of Tokenizer when it is set
//     (0 ≤ Overlap ≤ Size), see recursiveSplit.
//
// Title says whether each chunk's IndexText starts with its document's
// title. It does not change chunk ids or offsets.
type Spec struct {
	Strategy string
	Size     int // words per chunk (fixed, sentence); tokens (tokens); code points or tokens (recursive); 0 for document
	Overlap  int // words (fixed), tokens (tokens), code points or tokens (recursive) shared by consecutive chunks
	Title    bool
	// Tokenizer names the BPE of "tokens" (required) and "recursive"
	// (optional: lengths in its tokens instead of code points); only
	// CL100kBase. It must be "" for the other strategies.
	Tokenizer string
}

// Validate reports the first problem with s, or nil.
func (s Spec) Validate() error {
	if s.Strategy == Tokens || s.Strategy == Recursive {
		return s.validateText()
	}
	if s.Tokenizer != "" {
		return fmt.Errorf("chunking %q: tokenizer is only for %q and %q (got %q)", s.Strategy, Tokens, Recursive, s.Tokenizer)
	}
	switch s.Strategy {
	case Whole:
		if s.Size != 0 || s.Overlap != 0 {
			return fmt.Errorf("chunking %q: size and overlap must be 0 (got %d, %d)", s.Strategy, s.Size, s.Overlap)
		}
	case Fixed:
		if s.Size <= 0 {
			return fmt.Errorf("chunking %q: size must be > 0 words (got %d)", s.Strategy, s.Size)
		}
		if s.Overlap < 0 || s.Overlap >= s.Size {
			return fmt.Errorf("chunking %q: overlap must be in [0, size) = [0, %d) words (got %d)", s.Strategy, s.Size, s.Overlap)
		}
	case Sentence:
		if s.Size <= 0 {
			return fmt.Errorf("chunking %q: size must be > 0 words (got %d)", s.Strategy, s.Size)
		}
		if s.Overlap != 0 {
			return fmt.Errorf("chunking %q: overlap is not supported (got %d)", s.Strategy, s.Overlap)
		}
	default:
		return fmt.Errorf("unknown chunking strategy %q (want %q, %q, %q, %q or %q)", s.Strategy, Whole, Fixed, Sentence, Tokens, Recursive)
	}
	return nil
}

// Name is the canonical short name of the cut: "doc", "fixed-128o32"
// (Size 128, Overlap 32), "fixed-128" (no overlap), "sent-256". It names
// what decides chunk ids and offsets, so Title is not part of it (see Key).
// ParseSpec reads it back.
func (s Spec) Name() string {
	switch s.Strategy {
	case Whole:
		return "doc"
	case Fixed:
		if s.Overlap == 0 {
			return fmt.Sprintf("fixed-%d", s.Size)
		}
		return fmt.Sprintf("fixed-%do%d", s.Size, s.Overlap)
	case Sentence:
		return fmt.Sprintf("sent-%d", s.Size)
	case Tokens, Recursive:
		return s.nameText()
	}
	return fmt.Sprintf("invalid(%q,%d,%d)", s.Strategy, s.Size, s.Overlap)
}

// Key is Name plus "+title" when titles are prepended: it names everything
// that decides the chunks' IndexText, for cache keys and reports.
func (s Spec) Key() string {
	if s.Title {
		return s.Name() + "+title"
	}
	return s.Name()
}

// ParseSpec reads a Name or Key ("doc", "fixed-128o32", "fixed-128",
// "sent-256", "tokens-cl100k_base-200o100", "recursive-400o50", each
// optionally followed by "+title") and validates it.
func ParseSpec(name string) (Spec, error) {
	var s Spec
	base, title := strings.CutSuffix(name, "+title")
	s.Title = title
	if ts, ok, err := parseText(name, base); ok {
		if err != nil {
			return Spec{}, err
		}
		ts.Title = title
		if err := ts.Validate(); err != nil {
			return Spec{}, err
		}
		return ts, nil
	}
	switch {
	case base == "doc":
		s.Strategy = Whole
	case strings.HasPrefix(base, "fixed-"):
		s.Strategy = Fixed
		size, overlap, hasO := strings.Cut(strings.TrimPrefix(base, "fixed-"), "o")
		var err error
		if s.Size, err = strconv.Atoi(size); err != nil {
			return Spec{}, fmt.Errorf("chunking %q: bad size %q", name, size)
		}
		if hasO {
			if s.Overlap, err = strconv.Atoi(overlap); err != nil {
				return Spec{}, fmt.Errorf("chunking %q: bad overlap %q", name, overlap)
			}
		}
	case strings.HasPrefix(base, "sent-"):
		s.Strategy = Sentence
		var err error
		if s.Size, err = strconv.Atoi(strings.TrimPrefix(base, "sent-")); err != nil {
			return Spec{}, fmt.Errorf("chunking %q: bad size", name)
		}
	default:
		return Spec{}, fmt.Errorf("chunking %q: want doc, fixed-N, fixed-NoM or sent-N (optionally +title)", name)
	}
	if err := s.Validate(); err != nil {
		return Spec{}, err
	}
	return s, nil
}

// span is a byte range [start, end) of a text.
type span struct{ start, end int }

// words returns the byte spans of the whitespace words of text.
func words(text string) []span {
	var ws []span
	start := -1
	for i, r := range text {
		if unicode.IsSpace(r) {
			if start >= 0 {
				ws = append(ws, span{start, i})
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		ws = append(ws, span{start, len(text)})
	}
	return ws
}

// Chunk cuts docs into chunks, in document order and, within a document, in
// text order. Every document yields at least one chunk: a document with no
// words yields one empty chunk (Start = End = 0; id "docid#0", or the doc id
// for "document"), so its title can still be retrieved when Title is set.
// Chunk ids are "docid#i", i from 0, and the doc id itself for "document";
// Start and End are byte offsets into Document.Text, from the first byte of
// the chunk's first word to the end of its last word (the whole Text for
// "document"). For "tokens" and "recursive", Start and End are the chunk's
// exact span as tokenChunks and recursiveSplit define it (Text is
// Document.Text[Start:End] except for a token window that cuts a
// character). An invalid Spec, or two documents with the same id, is an
// error.
//
// For "document" the result is the view DocChunks(docs, s.Title): no
// chunk is stored, and docs must not change while it is in use. The
// duplicate check indexes the ids (IDIndex, 5 to 11 bytes per document,
// freed on return); ChunkIndexed skips it for documents that come with
// their index.
func (s Spec) Chunk(docs []Document) (Chunks, error) {
	return s.ChunkIndexed(context.Background(), docs, nil)
}

// ChunkIndexed is Chunk for documents whose positions by id byID already
// holds (IndexDocs, LoadIndexed, LoadSpilled: an index of exactly docs),
// or nil: their ids are then known to be distinct when byID.Len() equals
// len(docs), and not indexed again, so "document" chunking allocates
// nothing per document. The chunks and errors are Chunk's. Cancelling ctx
// stops it with ctx's error between two documents, and within a long one
// between two 64 KiB segments of its token encoding or two of its windows
// ("tokens"), or within one pass of the splitter ("recursive").
func (s Spec) ChunkIndexed(ctx context.Context, docs []Document, byID *IDIndex) (Chunks, error) {
	if err := s.Validate(); err != nil {
		return Chunks{}, err
	}
	check := byID == nil || byID.Len() != len(docs)
	var seen *IDIndex
	if check {
		seen = NewIDIndex(func(i int) string { return docs[i].ID }, len(docs))
	}
	if s.Strategy == Whole {
		if check {
			for i, d := range docs {
				if _, dup := seen.Add(i); dup {
					return Chunks{}, fmt.Errorf("chunking %s: duplicate doc id %q", s.Name(), d.ID)
				}
			}
		}
		return DocChunks(docs, s.Title), nil
	}
	out := make([]Chunk, 0, len(docs))
	for i, d := range docs {
		if err := ctx.Err(); err != nil {
			return Chunks{}, err
		}
		if check {
			if _, dup := seen.Add(i); dup {
				return Chunks{}, fmt.Errorf("chunking %s: duplicate doc id %q", s.Name(), d.ID)
			}
		}
		if s.Strategy == Tokens || s.Strategy == Recursive {
			spans, texts, err := s.chunkText(ctx, d)
			if err != nil {
				return Chunks{}, err
			}
			if len(spans) == 0 {
				spans, texts = []span{{0, 0}}, []string{""}
			}
			for i, sp := range spans {
				out = append(out, Chunk{ID: d.ID + "#" + strconv.Itoa(i), DocID: d.ID, Index: i,
					Start: sp.start, End: sp.end, Title: d.Title, Text: texts[i], TitlePrepended: s.Title})
			}
			continue
		}
		var spans []span
		ws := words(d.Text)
		switch s.Strategy {
		case Fixed:
			spans = fixedWindows(ws, s.Size, s.Overlap)
		case Sentence:
			spans = packSentences(d.Text, ws, s.Size)
		}
		if len(spans) == 0 {
			spans = []span{{0, 0}}
		}
		for i, sp := range spans {
			out = append(out, Chunk{ID: d.ID + "#" + strconv.Itoa(i), DocID: d.ID, Index: i,
				Start: sp.start, End: sp.end, Title: d.Title, Text: d.Text[sp.start:sp.end],
				TitlePrepended: s.Title})
		}
	}
	return ChunkList(out), nil
}

// fixedWindows returns windows of size words every size−overlap words; the
// last one ends at the last word.
func fixedWindows(ws []span, size, overlap int) []span {
	var out []span
	step := size - overlap
	for first := 0; first < len(ws); first += step {
		last := min(first+size, len(ws)) - 1
		out = append(out, span{ws[first].start, ws[last].end})
		if last == len(ws)-1 {
			break
		}
	}
	return out
}

// packSentences packs whole sentences into chunks of at most size words.
func packSentences(text string, ws []span, size int) []span {
	var out []span
	cur := -1 // index of the current chunk's first word, -1 when none
	n := 0    // words in the current chunk
	curEnd := 0
	flush := func() {
		if cur >= 0 {
			out = append(out, span{ws[cur].start, curEnd})
			cur, n = -1, 0
		}
	}
	for _, sent := range sentenceWords(text, ws) { // sent = word index range [a, b)
		a, b := sent.start, sent.end
		if b-a > size { // a long sentence: its own windows
			flush()
			out = append(out, fixedWindows(ws[a:b], size, 0)...)
			continue
		}
		if n+(b-a) > size {
			flush()
		}
		if cur < 0 {
			cur = a
		}
		n += b - a
		curEnd = ws[b-1].end
	}
	flush()
	return out
}

// Sentences splits text into sentences and returns their byte spans as
// [start, end) pairs, each from a sentence's first word to the end of its
// last word. The rule: a sentence ends after a whitespace word that ends in
// '.', '!' or '?' (optionally followed by closing quotes or brackets) when
// the next word starts with an upper-case letter, a digit, or an opening
// quote or bracket. Abbreviations before a capitalised word ("Dr. Smith")
// are split too: the rule is deliberately simple and documented rather than
// language-aware.
func Sentences(text string) [][2]int {
	ws := words(text)
	var out [][2]int
	for _, s := range sentenceWords(text, ws) {
		out = append(out, [2]int{ws[s.start].start, ws[s.end-1].end})
	}
	return out
}

// sentenceWords groups words into sentences; each span is a word index
// range [start, end).
func sentenceWords(text string, ws []span) []span {
	var out []span
	first := 0
	for i := range ws {
		if i+1 < len(ws) && !endsSentence(text[ws[i].start:ws[i].end], text[ws[i+1].start:ws[i+1].end]) {
			continue
		}
		out = append(out, span{first, i + 1})
		first = i + 1
	}
	return out
}

func endsSentence(word, next string) bool {
	w := strings.TrimRight(word, `"')]}’”»`)
	if w == "" {
		return false
	}
	switch w[len(w)-1] {
	case '.', '!', '?':
	default:
		return false
	}
	r, _ := utf8.DecodeRuneInString(next)
	return unicode.IsUpper(r) || unicode.IsDigit(r) || strings.ContainsRune(`"'([{‘“«`, r)
}
