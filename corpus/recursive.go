package corpus

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// RecursiveSeparators are the separators of the "recursive" strategy, tried
// in order: LangChain's RecursiveCharacterTextSplitter defaults
// (paragraph, line, word, character).
var RecursiveSeparators = []string{"\n\n", "\n", " ", ""}

// recursiveSplit cuts text with LangChain's RecursiveCharacterTextSplitter
// semantics at its defaults (langchain_text_splitters 1.1.3,
// character.py and base.py; keep_separator=True, i.e. "start";
// strip_whitespace=True): take the first separator of RecursiveSeparators
// that occurs in the text ("" always does: single characters); cut the text
// before each occurrence, so a piece starts with its separator; pieces
// shorter than size (by length) are merged, in order, into chunks of length
// ≤ size, each next chunk starting with the last pieces of the previous one
// whose length stays ≤ overlap (base.py _merge_splits); a piece of length ≥ size is
// cut again with the remaining separators (kept whole when none remain).
// Chunks are then stripped of leading and trailing white space (Python's
// str.strip) and empty ones dropped.
//
// Lengths are length(piece) summed over a chunk's pieces, as LangChain sums
// them (with length = code points, LangChain's len, the sum is the chunk's
// length; with tokens it may differ from counting the chunk at once).
// Because keep_separator puts every separator inside a piece, the pieces of
// a chunk are contiguous and each chunk is exactly text[start:end].
func recursiveSplit(text string, size, overlap int, length func(string) int) []span {
	r := recursive{text: text, size: size, overlap: overlap, length: length}
	return r.split(span{0, len(text)}, RecursiveSeparators)
}

type recursive struct {
	text          string
	size, overlap int
	length        func(string) int
}

func (r *recursive) len(sp span) int { return r.length(r.text[sp.start:sp.end]) }

// split is LangChain's _split_text on r.text[sp].
func (r *recursive) split(sp span, seps []string) []span {
	t := r.text[sp.start:sp.end]
	sep, rest := seps[len(seps)-1], []string(nil)
	for i, s := range seps {
		if s == "" {
			sep = s
			break
		}
		if strings.Contains(t, s) {
			sep, rest = s, seps[i+1:]
			break
		}
	}
	var out, good []span
	for _, p := range pieces(t, sep, sp.start) {
		if r.len(p) < r.size {
			good = append(good, p)
			continue
		}
		if len(good) > 0 {
			out = append(out, r.merge(good)...)
			good = nil
		}
		if len(rest) == 0 {
			out = append(out, p)
		} else {
			out = append(out, r.split(p, rest)...)
		}
	}
	if len(good) > 0 {
		out = append(out, r.merge(good)...)
	}
	return out
}

// pieces cuts t (at offset off in r.text) before each non-overlapping
// occurrence of sep, left to right, or into code points when sep is "";
// empty pieces are dropped (LangChain's _split_text_with_regex, keep_separator
// "start").
func pieces(t, sep string, off int) []span {
	var out []span
	if sep == "" {
		for i, c := range t {
			out = append(out, span{off + i, off + i + utf8.RuneLen(c)})
		}
		return out
	}
	start := 0
	for i := 0; ; {
		j := strings.Index(t[i:], sep)
		if j < 0 {
			break
		}
		cut := i + j
		if cut > start {
			out = append(out, span{off + start, off + cut})
		}
		start = cut
		i = cut + len(sep)
	}
	if len(t) > start {
		out = append(out, span{off + start, off + len(t)})
	}
	return out
}

// merge is LangChain's _merge_splits with separator "" (keep_separator
// joins pieces with nothing) on contiguous pieces.
func (r *recursive) merge(ps []span) []span {
	var out []span
	var cur []span
	total := 0
	for _, p := range ps {
		n := r.len(p)
		if total+n > r.size && len(cur) > 0 {
			out = r.join(out, cur)
			for total > r.overlap || (total+n > r.size && total > 0) {
				total -= r.len(cur[0])
				cur = cur[1:]
			}
		}
		cur = append(cur, p)
		total += n
	}
	return r.join(out, cur)
}

// join appends the span from cur's first piece to its last, stripped of
// white space as Python's str.strip, unless it is empty.
func (r *recursive) join(out, cur []span) []span {
	if len(cur) == 0 {
		return out
	}
	sp := span{cur[0].start, cur[len(cur)-1].end}
	for sp.start < sp.end {
		c, n := utf8.DecodeRuneInString(r.text[sp.start:])
		if !pySpace(c) {
			break
		}
		sp.start += n
	}
	for sp.end > sp.start {
		c, n := utf8.DecodeLastRuneInString(r.text[sp.start:sp.end])
		if !pySpace(c) {
			break
		}
		sp.end -= n
	}
	if sp.start == sp.end {
		return out
	}
	return append(out, sp)
}

// pySpace is Python's str.isspace for one character: Go's unicode.IsSpace
// plus the information separators U+001C to U+001F.
func pySpace(c rune) bool { return unicode.IsSpace(c) || c >= 0x1c && c <= 0x1f }
