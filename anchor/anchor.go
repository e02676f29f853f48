package anchor

import (
	"fmt"
	"unicode/utf8"
)

// DefaultThreshold is the least similarity (1 − edits/length, see
// Doc.Nearest) at which an approximate match makes a quote Changed rather
// than Lost. At 0.75 a quarter of a passage's characters may differ (a
// word edited in a sentence); on the chunking-chroma corpus no gold passage
// of one document reaches it in another (anchor's TestThresholdSeparates),
// so a passage that is gone is not mistaken for an edit.
const DefaultThreshold = 0.75

// Status is what became of a quote in an edited document (Doc.Anchor).
type Status int

// The statuses, from best to worst.
const (
	Unchanged Status = iota // found where it was (or, with no place given, once)
	Moved                   // found exactly, once (given its context), elsewhere
	Changed                 // found only folded, ambiguously, or approximately: a person must look
	Lost                    // not found, not even approximately
)

var statusNames = []string{"unchanged", "moved", "changed", "lost"}

// String is "unchanged", "moved", "changed" or "lost".
func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusNames[s]
}

// Quote is a passage to find again: a W3C TextQuoteSelector (Text, the
// exact passage; Prefix and Suffix, the text just before and after it,
// optional) and, when known, the range it was labelled at (At).
type Quote struct {
	Text, Prefix, Suffix string
	At                   *Range
}

// Anchoring is where a quote is in a document now (Doc.Anchor).
type Anchoring struct {
	Status Status
	// Range is the quote's place (Unchanged, Moved), or for Changed the
	// candidate a person should look at first (the folded or approximate
	// match; the first of Places when ambiguous); for Lost the nearest
	// passage found, if any, below the threshold.
	Range Range
	// Sure is true when Range is certainly the quote's place: Unchanged,
	// Moved, and Changed by folding alone with a single place. A tool may
	// write a Sure range back into a label (bench labels check --fix).
	Sure bool
	// Folds are the differences a folded match ignored (Changed by
	// folding), 0 otherwise.
	Folds Fold
	// Similarity is 1 for exact and folded matches, else the approximate
	// match's (Doc.Nearest).
	Similarity float64
	// Places lists every occurrence, in document order, when the quote
	// (exactly or folded) occurs several times and its context does not
	// single one out; the status is then Changed.
	Places []Range
}

// Anchor finds q in the document (see the package comment): Unchanged
// when q.At holds q.Text, or, without q.At, when q.Text occurs once (or
// once given its context); Moved when q.At does not hold it but it occurs
// exactly once (given its context) elsewhere; Changed when it occurs only
// once folded by FoldAll (Sure), several times with nothing to choose
// between them (Places), or only approximately with a similarity of at
// least threshold; Lost otherwise. An empty quote, or one that is not valid
// UTF-8, is Lost.
func (d *Doc) Anchor(q Quote, threshold float64) Anchoring {
	if q.Text == "" || !utf8.ValidString(q.Text) {
		return Anchoring{Status: Lost}
	}
	if q.At != nil && q.At.ByteStart >= 0 && q.At.ByteEnd <= len(d.Text) && q.At.ByteStart <= q.At.ByteEnd && d.Slice(*q.At) == q.Text {
		return Anchoring{Status: Unchanged, Range: *q.At, Sure: true, Similarity: 1}
	}
	if exact := d.Find(q.Text, 0); len(exact) > 0 {
		r, ok := d.pick(exact, q)
		if !ok {
			return Anchoring{Status: Changed, Range: exact[0], Similarity: 1, Places: exact}
		}
		st := Unchanged
		if q.At != nil {
			st = Moved
		}
		return Anchoring{Status: st, Range: r, Sure: true, Similarity: 1}
	}
	if fold := d.FindFolded(q.Text, FoldAll, 0); len(fold) > 0 {
		r, ok := d.pick(fold, q)
		a := Anchoring{Status: Changed, Range: r, Sure: ok, Similarity: 1}
		if !ok {
			a.Range, a.Places = fold[0], fold
		}
		a.Folds = Differences(q.Text, d.Slice(a.Range))
		return a
	}
	r, sim, ok := d.Nearest(q.Text)
	if ok && sim >= threshold {
		return Anchoring{Status: Changed, Range: r, Similarity: sim}
	}
	return Anchoring{Status: Lost, Range: r, Similarity: sim}
}

// pick chooses among the places of a quote: the only one, or the one whose
// surrounding text repeats strictly more of the quote's prefix and suffix
// than any other (context.Score); ok is false when none stands out.
func (d *Doc) pick(places []Range, q Quote) (Range, bool) {
	if len(places) == 1 {
		return places[0], true
	}
	if q.Prefix == "" && q.Suffix == "" {
		return Range{}, false
	}
	best, second, at := -1, -1, 0
	for i, r := range places {
		s := d.contextScore(r, q.Prefix, q.Suffix)
		if s > best {
			best, second, at = s, best, i
		} else if s > second {
			second = s
		}
	}
	return places[at], best > second
}

// contextScore is how many code points of prefix end the text before r and
// of suffix start the text after it, compared folded by FoldAll (white
// space reflowed around a passage does not count against it).
func (d *Doc) contextScore(r Range, prefix, suffix string) int {
	np, ns := utf8.RuneCountInString(prefix), utf8.RuneCountInString(suffix)
	before, after := d.Context(r, max(np, ns)+np/4+ns/4+4)
	b := []rune(FoldString(before, FoldAll))
	p := []rune(FoldString(prefix, FoldAll))
	n := 0
	for n < len(b) && n < len(p) && b[len(b)-1-n] == p[len(p)-1-n] {
		n++
	}
	a := []rune(FoldString(after, FoldAll))
	s := []rune(FoldString(suffix, FoldAll))
	m := 0
	for m < len(a) && m < len(s) && a[m] == s[m] {
		m++
	}
	return n + m
}
