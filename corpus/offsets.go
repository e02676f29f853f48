package corpus

import (
	"fmt"
	"sort"
	"unicode/utf8"
)

// RuneIndex converts offsets into one text between UTF-8 bytes (Go's string
// indexing, Chunk.Start and Chunk.End) and Unicode code points (Python's str
// indexing, what Chroma's questions.csv and most labelling tools write). It is
// the one place ragbench does this conversion. Offsets are positions between
// characters, from 0 to the text's length in that unit, both included.
//
// The text must be valid UTF-8 (LoadFolder checks it); an invalid byte counts
// as one code point, as Go's range over a string decodes it.
type RuneIndex struct {
	n     int   // length of the text in bytes
	ascii bool  // every byte < 0x80: byte and code-point offsets coincide
	start []int // start[i] = byte offset of code point i; start[len] = n
}

// NewRuneIndex indexes text. It costs one int per code point (nothing for
// ASCII text).
func NewRuneIndex(text string) *RuneIndex {
	x := &RuneIndex{n: len(text), ascii: true}
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			x.ascii = false
			break
		}
	}
	if x.ascii {
		return x
	}
	x.start = make([]int, 0, utf8.RuneCountInString(text)+1)
	for i := range text {
		x.start = append(x.start, i)
	}
	x.start = append(x.start, len(text))
	return x
}

// RuneIndexes holds the RuneIndex of each document id, built on first use,
// for readers that convert many offsets into the same documents (a passage
// run, a chunking). The zero value is not usable: make it with
// RuneIndexes{}. Not safe for concurrent use.
type RuneIndexes map[string]*RuneIndex

// Of returns the index of document doc, building it from text (the
// document's text) the first time doc is asked for.
func (xs RuneIndexes) Of(doc, text string) *RuneIndex {
	x := xs[doc]
	if x == nil {
		x = NewRuneIndex(text)
		xs[doc] = x
	}
	return x
}

// Runes is the text's length in code points.
func (x *RuneIndex) Runes() int {
	if x.ascii {
		return x.n
	}
	return len(x.start) - 1
}

// Bytes is the text's length in bytes.
func (x *RuneIndex) Bytes() int { return x.n }

// ByteOffset returns the byte offset of code-point offset r. r outside
// [0, Runes()] is an error.
func (x *RuneIndex) ByteOffset(r int) (int, error) {
	if r < 0 || r > x.Runes() {
		return 0, fmt.Errorf("offset %d outside the text (0 to %d code points)", r, x.Runes())
	}
	if x.ascii {
		return r, nil
	}
	return x.start[r], nil
}

// RuneOffset returns the code-point offset of byte offset b. b outside
// [0, Bytes()], or inside the encoding of a character, is an error.
func (x *RuneIndex) RuneOffset(b int) (int, error) {
	if b < 0 || b > x.n {
		return 0, fmt.Errorf("byte offset %d outside the text (0 to %d bytes)", b, x.n)
	}
	if x.ascii {
		return b, nil
	}
	i := sort.SearchInts(x.start, b)
	if x.start[i] != b {
		return 0, fmt.Errorf("byte offset %d falls inside a character (bytes %d to %d)", b, x.start[i-1], x.start[i])
	}
	return i, nil
}
