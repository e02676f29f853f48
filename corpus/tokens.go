package corpus

import (
	"context"
	"fmt"
	"index/suffixarray"
	"slices"
	"strings"
	"unicode/utf8"
)

// tokenChunks cuts text as Chroma's FixedTokenChunker does
// (chunking_evaluation, fixed_token_chunker.py, split_text_on_tokens): the
// text's tokens in windows of size tokens, a window starting every
// size−overlap tokens, the last one ending at the last token; each window's
// text is its tokens decoded (BPE.Decode). A text with no tokens has no
// window.
//
// A window's span is where its text first occurs in text, searched from the
// start of text (str.find), as the published state_of_the_union reference
// computes it (polinak1r/Chunking_Evaluation, pipeline.py), which
// TestE2EChromaFixedTokens reproduces. chunking_evaluation's own
// rigorous_document_search differs in one detail: it first drops a trailing
// "." from the chunk, so its span of such a chunk ends one character
// earlier. When the text does not occur (a window's edge cuts a character,
// which decodes to U+FFFD), the span is where the window's tokens lie,
// widened to whole characters; the chunk's Text then differs from
// Document.Text[Start:End] at its ends. (Chroma's evaluation would instead
// fall back to a fuzzy sentence match, and the published reference to an
// empty span; neither arises on the shared corpora.)
//
// Cancelling ctx stops it within one 64 KiB segment of the encoding
// (BPE.EncodeContext) or one window, with ctx's error.
func tokenChunks(ctx context.Context, bpe *BPE, text string, size, overlap int) (spans []span, texts []string, err error) {
	ids, err := bpe.EncodeContext(ctx, text)
	if err != nil {
		return nil, nil, err
	}
	// at[i] = byte offset of token i in text; the tokens' bytes are text's.
	at := make([]int, len(ids)+1)
	for i, id := range ids {
		at[i+1] = at[i] + len(bpe.enc.Decode([]int{id}))
	}
	find, err := newLocator(ctx, text)
	if err != nil {
		return nil, nil, err
	}
	for start := 0; start < len(ids); start += size - overlap {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		end := min(start+size, len(ids))
		chunk := bpe.Decode(ids[start:end])
		sp, ok := find.first(chunk)
		if !ok {
			sp = widen(text, span{at[start], at[end]})
		}
		spans = append(spans, sp)
		texts = append(texts, chunk)
		if end == len(ids) {
			break
		}
	}
	return spans, texts, nil
}

// locator finds where a chunk first occurs in a text (str.find), in time
// that does not grow with the text for a long one: strings.Index from the
// start costs the position found, so every window of a document of n bytes
// cost O(n²) in all (a 5 MB document: 51 s). A text of at least
// locatorIndexBytes has a suffix array (index/suffixarray, built in
// O(n)), and a chunk is looked up in it; the first occurrence is the least
// of its occurrences, taken from the array when they are fewer than
// locatorMaxHits, else found by strings.Index as before (costing its
// position: only chunks a text repeats a thousand times pay it).
type locator struct {
	text string
	sa   *suffixarray.Index // nil for a short text
}

// locatorIndexBytes is the least text length given a suffix array: below
// it strings.Index over the whole text costs less than building one
// (about 100 ns a byte); locatorMaxHits bounds the occurrences read from
// the array for one chunk.
const (
	locatorIndexBytes = 256 << 10
	locatorMaxHits    = 1000
)

// The array is built on its own goroutine (about 0.25 s a MB, with no way
// to stop it midway), so that cancelling ctx returns at once with ctx's
// error; the abandoned build finishes in the background.
func newLocator(ctx context.Context, text string) (*locator, error) {
	l := &locator{text: text}
	if len(text) < locatorIndexBytes {
		return l, nil
	}
	done := make(chan *suffixarray.Index, 1)
	go func() { done <- suffixarray.New([]byte(text)) }()
	select {
	case l.sa = <-done:
		return l, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// first returns the byte span of the first occurrence of chunk in the
// text, or ok false when chunk does not occur.
func (l *locator) first(chunk string) (sp span, ok bool) {
	i := -1
	if l.sa != nil && chunk != "" {
		if hits := l.sa.Lookup([]byte(chunk), locatorMaxHits); len(hits) < locatorMaxHits {
			if len(hits) == 0 {
				return span{}, false
			}
			i = slices.Min(hits)
		}
	}
	if i < 0 {
		if i = strings.Index(l.text, chunk); i < 0 {
			return span{}, false
		}
	}
	return span{i, i + len(chunk)}, true
}

// widen moves sp's ends outward to character boundaries of text.
func widen(text string, sp span) span {
	for sp.start > 0 && !utf8.RuneStart(text[sp.start]) {
		sp.start--
	}
	for sp.end < len(text) && !utf8.RuneStart(text[sp.end]) {
		sp.end++
	}
	return sp
}

// validateText checks a Tokens or Recursive spec.
func (s Spec) validateText() error {
	if s.Size <= 0 {
		return fmt.Errorf("chunking %q: size must be > 0 (got %d)", s.Strategy, s.Size)
	}
	switch s.Strategy {
	case Tokens:
		if s.Tokenizer == "" {
			return fmt.Errorf("chunking %q: tokenizer is required (want %q)", s.Strategy, CL100kBase)
		}
		if s.Overlap < 0 || s.Overlap >= s.Size {
			return fmt.Errorf("chunking %q: overlap must be in [0, size) = [0, %d) tokens (got %d)", s.Strategy, s.Size, s.Overlap)
		}
	case Recursive:
		// LangChain allows overlap = size (TextSplitter.__init__).
		if s.Overlap < 0 || s.Overlap > s.Size {
			return fmt.Errorf("chunking %q: overlap must be in [0, size] = [0, %d] (got %d)", s.Strategy, s.Size, s.Overlap)
		}
	}
	if s.Tokenizer != "" && s.Tokenizer != CL100kBase {
		return fmt.Errorf("chunking %q: unknown tokenizer %q (want %q)", s.Strategy, s.Tokenizer, CL100kBase)
	}
	return nil
}

// nameText is Name for Tokens and Recursive: "tokens-cl100k_base-200o100",
// "recursive-400o50" (characters), "recursive-cl100k_base-400".
func (s Spec) nameText() string {
	name := s.Strategy
	if s.Tokenizer != "" {
		name += "-" + s.Tokenizer
	}
	name += fmt.Sprintf("-%d", s.Size)
	if s.Overlap != 0 {
		name += fmt.Sprintf("o%d", s.Overlap)
	}
	return name
}

// parseText reads a nameText name back (without validating it).
func parseText(name, base string) (Spec, bool, error) {
	strategy, rest, _ := strings.Cut(base, "-")
	if strategy != Tokens && strategy != Recursive {
		return Spec{}, false, nil
	}
	s := Spec{Strategy: strategy}
	if tok, sizes, ok := strings.Cut(rest, "-"); ok {
		s.Tokenizer, rest = tok, sizes
	}
	size, overlap, hasO := strings.Cut(rest, "o")
	if _, err := fmt.Sscanf(size, "%d", &s.Size); err != nil || fmt.Sprint(s.Size) != size {
		return Spec{}, true, fmt.Errorf("chunking %q: bad size %q", name, size)
	}
	if hasO {
		if _, err := fmt.Sscanf(overlap, "%d", &s.Overlap); err != nil || fmt.Sprint(s.Overlap) != overlap {
			return Spec{}, true, fmt.Errorf("chunking %q: bad overlap %q", name, overlap)
		}
	}
	return s, true, nil
}

// chunkText cuts one document by a Tokens or Recursive spec; each chunk's
// Text is text[Start:End] except as tokenChunks says.
func (s Spec) chunkText(ctx context.Context, d Document) ([]span, []string, error) {
	var bpe *BPE
	if s.Tokenizer != "" {
		var err error
		if bpe, err = LoadBPE(s.Tokenizer); err != nil {
			return nil, nil, err
		}
	}
	if s.Strategy == Tokens {
		return tokenChunks(ctx, bpe, d.Text, s.Size, s.Overlap)
	}
	length := utf8.RuneCountInString // Python's len: code points
	if bpe != nil {
		length = bpe.Count
	}
	// The splitter measures every piece it considers; once ctx is
	// cancelled every piece measures 0, so that it ends in one pass, and
	// its spans are dropped.
	measure := func(t string) int {
		if ctx.Err() != nil {
			return 0
		}
		return length(t)
	}
	sp := recursiveSplit(d.Text, s.Size, s.Overlap, measure)
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	texts := make([]string, len(sp))
	for i, x := range sp {
		texts[i] = d.Text[x.start:x.end]
	}
	return sp, texts, nil
}
