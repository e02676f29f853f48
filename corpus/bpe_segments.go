package corpus

import (
	"context"
	"unicode"
	"unicode/utf8"
)

// SegmentBytes is about how many bytes of a text EncodeContext encodes
// between two looks at its context: tens of milliseconds of tiktoken-go on
// ordinary text (about 1 MB a second).
const SegmentBytes = 64 << 10

// EncodeContext is Encode(text) encoded a segment of about SegmentBytes at
// a time, stopping with ctx's error (and the ids of the segments done)
// when ctx is cancelled between two segments: a whole 50 MB document is
// tens of seconds of one tiktoken call, which nothing could interrupt.
//
// The ids are Encode's: a segment ends after a letter (any script's: the
// pattern's \p{L}, Go's unicode.IsLetter over the same tables) followed by
// a space, where cl100k_base's pre-tokenizer always ends a piece (every
// piece holding a letter ends with a letter, so the piece holding the
// letter ends there) and starts the next one afresh (its pattern has no
// look-behind, and its one look-ahead, (?!\S), finds the space or the end
// of the segment alike); each piece is encoded alone. A text with no such
// place (a text without spaces, such as Chinese or Japanese) is one
// segment (TestEncodeContextMatchesEncode, TestEncodeContextStopsNonASCII).
func (b *BPE) EncodeContext(ctx context.Context, text string) ([]int, error) {
	return b.encodeSegments(ctx, text, SegmentBytes)
}

// encodeSegments is EncodeContext with segments of at least size bytes.
func (b *BPE) encodeSegments(ctx context.Context, text string, size int) ([]int, error) {
	var ids []int
	for len(text) > 0 {
		if err := ctx.Err(); err != nil {
			return ids, err
		}
		n := segmentEnd(text, size)
		ids = append(ids, b.Encode(text[:n])...)
		text = text[n:]
	}
	return ids, nil
}

// segmentEnd is the length of text's first segment: the first place at or
// after min bytes where a letter is followed by a space (the segment ends
// before the space), else all of text. A byte that is not valid UTF-8
// before the space is not a letter.
func segmentEnd(text string, size int) int {
	for i := max(size, 1); i < len(text); i++ {
		if text[i] != ' ' {
			continue
		}
		if c := text[i-1]; c < utf8.RuneSelf {
			if isASCIILetter(c) {
				return i
			}
			continue
		}
		if r, _ := utf8.DecodeLastRuneInString(text[:i]); unicode.IsLetter(r) {
			return i
		}
	}
	return len(text)
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
