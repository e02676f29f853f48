package anchor

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ragbench/ragbench/corpus"
)

// Range is a place in a document: code points [Start, End) and the same
// range in UTF-8 bytes, [ByteStart, ByteEnd).
type Range struct {
	Start, End         int
	ByteStart, ByteEnd int
}

// Len is the range's length in code points.
func (r Range) Len() int { return r.End - r.Start }

// Position is a place in a document as an editor shows it: Line from 1,
// Col from 1, counted in code points from the line's start.
type Position struct {
	Line, Col int
}

// String is "line:col".
func (p Position) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// Doc is one document prepared for locating text in it. Its methods are
// safe for concurrent use; the folded forms and line table are built on
// first use and kept.
type Doc struct {
	ID    string
	Text  string
	runes *corpus.RuneIndex

	mu     sync.Mutex
	lines  []int // code-point offset of each line's start
	folded map[Fold]*folded
}

// NewDoc prepares text (valid UTF-8, as corpus.Load returns it) for
// locating quotes in it. id names it in matches.
func NewDoc(id, text string) *Doc {
	return &Doc{ID: id, Text: text, runes: corpus.NewRuneIndex(text)}
}

// Len is the document's length in code points.
func (d *Doc) Len() int { return d.runes.Runes() }

// ByCodePoints returns the range of code points [start, end); an offset
// outside [0, Len()] or end < start is an error.
func (d *Doc) ByCodePoints(start, end int) (Range, error) {
	bs, be, err := convertRange(start, end, d.runes.ByteOffset)
	if err != nil {
		return Range{}, err
	}
	return Range{Start: start, End: end, ByteStart: bs, ByteEnd: be}, nil
}

// ByBytes returns the range of UTF-8 bytes [start, end); an offset outside
// [0, len(Text)], inside a character, or end < start is an error.
func (d *Doc) ByBytes(start, end int) (Range, error) {
	s, e, err := convertRange(start, end, d.runes.RuneOffset)
	if err != nil {
		return Range{}, err
	}
	return Range{Start: s, End: e, ByteStart: start, ByteEnd: end}, nil
}

// convertRange is [start, end) with both ends converted by conv (code
// points to bytes or back); end < start, or an offset conv refuses, is an
// error.
func convertRange(start, end int, conv func(int) (int, error)) (int, int, error) {
	if end < start {
		return 0, 0, fmt.Errorf("range [%d, %d) ends before it starts", start, end)
	}
	s, err := conv(start)
	if err != nil {
		return 0, 0, err
	}
	e, err := conv(end)
	if err != nil {
		return 0, 0, err
	}
	return s, e, nil
}

// mustBytes is ByBytes for offsets known to lie on character boundaries.
func (d *Doc) mustBytes(start, end int) Range {
	r, err := d.ByBytes(start, end)
	if err != nil {
		panic("anchor: " + err.Error())
	}
	return r
}

// Slice is the text of r.
func (d *Doc) Slice(r Range) string { return d.Text[r.ByteStart:r.ByteEnd] }

// Position is the line and column of code-point offset cp (clamped to
// [0, Len()]).
func (d *Doc) Position(cp int) Position {
	cp = max(0, min(cp, d.Len()))
	d.mu.Lock()
	if d.lines == nil {
		d.lines = []int{0}
		n := 0
		for _, r := range d.Text {
			n++
			if r == '\n' {
				d.lines = append(d.lines, n)
			}
		}
	}
	lines := d.lines
	d.mu.Unlock()
	i := sort.SearchInts(lines, cp+1) - 1
	return Position{Line: i + 1, Col: cp - lines[i] + 1}
}

// Context returns up to n code points of the text just before r and just
// after it: the prefix and suffix of a TextQuoteSelector.
func (d *Doc) Context(r Range, n int) (prefix, suffix string) {
	a, _ := d.runes.ByteOffset(max(0, r.Start-n))
	b, _ := d.runes.ByteOffset(min(d.Len(), r.End+n))
	return d.Text[a:r.ByteStart], d.Text[r.ByteEnd:b]
}

// Find returns the exact occurrences of quote in the document in order,
// overlapping ones included, at most limit of them (limit ≤ 0: all). An
// empty quote, or one that is not valid UTF-8, occurs nowhere.
func (d *Doc) Find(quote string, limit int) []Range {
	var out []Range
	if quote == "" || !utf8.ValidString(quote) { // a valid quote matches on character boundaries only
		return nil
	}
	for from := 0; limit <= 0 || len(out) < limit; {
		i := strings.Index(d.Text[from:], quote)
		if i < 0 {
			break
		}
		at := from + i
		out = append(out, d.mustBytes(at, at+len(quote)))
		from = at + 1
		for from < len(d.Text) && !isRuneStart(d.Text[from]) {
			from++
		}
	}
	return out
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
