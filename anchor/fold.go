package anchor

import (
	"strings"
	"sync"
	"unicode"

	"github.com/ragbench/ragbench/corpus"
)

// Fold is a set of differences to ignore when matching text (see the
// package comment). Each folds one character to at most one character.
type Fold uint8

// The folds.
const (
	FoldSpace  Fold = 1 << iota // each run of white space → one space
	FoldQuotes                  // ‘ ’ ‚ ‛ ′ ʼ ＇ → ', “ ” „ ‟ ″ ＂ → "
	FoldDashes                  // ‐ ‑ ‒ – — ― − ﹘ ﹣ － → -
	FoldCase                    // each character → its lower case

	FoldAll = FoldSpace | FoldQuotes | FoldDashes | FoldCase
)

// foldNames are the folds' names in messages, in bit order.
var foldNames = []string{"white space", "quote marks", "dashes", "case"}

// String names the folds of f, "white space, quote marks" (the
// differences a folded match ignored); "" for none.
func (f Fold) String() string {
	var names []string
	for i, n := range foldNames {
		if f&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

// foldRune maps r by f, other than white space (see foldString).
func foldRune(r rune, f Fold) rune {
	if f&FoldQuotes != 0 {
		switch r {
		case '‘', '’', '‚', '‛', '′', 'ʼ', '＇':
			return '\''
		case '“', '”', '„', '‟', '″', '＂':
			return '"'
		}
	}
	if f&FoldDashes != 0 {
		switch r {
		case '‐', '‑', '‒', '–', '—', '―', '−', '﹘', '﹣', '－':
			return '-'
		}
	}
	if f&FoldCase != 0 {
		return unicode.ToLower(r)
	}
	return r
}

// FoldString folds s by f.
func FoldString(s string, f Fold) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if f&FoldSpace != 0 && unicode.IsSpace(r) {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(foldRune(r, f))
	}
	return b.String()
}

// Differences returns the folds without which quote and text (equal once
// folded by FoldAll) would differ: what a folded match ignored, for a
// message ("white space, quote marks").
func Differences(quote, text string) Fold {
	var f Fold
	for bit := FoldSpace; bit <= FoldCase; bit <<= 1 {
		if FoldString(quote, FoldAll&^bit) != FoldString(text, FoldAll&^bit) {
			f |= bit
		}
	}
	return f
}

// folded is a document folded by a Fold: its text, and for each folded code
// point the document's code points [start[k], end[k]) it stands for (a run
// of white space folds to one space).
type folded struct {
	text       string
	runes      *corpus.RuneIndex
	start, end []int32

	once sync.Once
	rs   []rune // text as code points (codePoints)
}

func newFolded(text string, f Fold) *folded {
	fd := &folded{}
	var b strings.Builder
	b.Grow(len(text))
	cp := 0
	inSpace := false // the last folded code point is a space standing for a run
	for _, r := range text {
		if f&FoldSpace != 0 && unicode.IsSpace(r) {
			if inSpace {
				fd.end[len(fd.end)-1]++
				cp++
				continue
			}
			inSpace, r = true, ' '
		} else {
			inSpace, r = false, foldRune(r, f)
		}
		b.WriteRune(r)
		fd.start = append(fd.start, int32(cp))
		fd.end = append(fd.end, int32(cp+1))
		cp++
	}
	fd.text = b.String()
	fd.runes = corpus.NewRuneIndex(fd.text)
	return fd
}

// foldedOf returns d folded by f, built on first use.
func (d *Doc) foldedOf(f Fold) *folded {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.folded == nil {
		d.folded = map[Fold]*folded{}
	}
	fd := d.folded[f]
	if fd == nil {
		fd = newFolded(d.Text, f)
		d.folded[f] = fd
	}
	return fd
}
