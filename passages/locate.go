package passages

import (
	"strings"
	"unicode"

	"github.com/ragbench/ragbench/anchor"
	"github.com/ragbench/ragbench/corpus"
)

// Placing says how a result was placed in the corpus.
type Placing int

// The placings: three placed, two unmapped (Placing.Unmapped).
const (
	Offsets    Placing = iota // by its doc, start and end
	Exact                     // its text, found at exactly one place
	Normalised                // its text, found at one place once white space is normalised
	Absent                    // unmapped: its text is found nowhere
	Ambiguous                 // unmapped: its text is found at two or more places
)

var placingNames = [...]string{"offsets", "exact", "normalised", "absent", "ambiguous"}

// String is the placing's name: offsets, exact, normalised, absent,
// ambiguous.
func (p Placing) String() string {
	if p < 0 || int(p) >= len(placingNames) {
		return "unknown"
	}
	return placingNames[p]
}

// Unmapped reports whether p is Absent or Ambiguous.
func (p Placing) Unmapped() bool { return p == Absent || p == Ambiguous }

// Locator places passage text in a corpus (docs/pipelines.md, "Locating
// text"), with package anchor:
//
//  1. exactly: every occurrence of the text, overlapping ones included, in
//     the document given or, without one, in every document; one place:
//     Exact; two or more: Ambiguous (step 2 is not tried);
//  2. only when step 1 found nothing: with white space normalised (each
//     maximal run of Unicode White_Space, unicode.IsSpace, becomes one
//     space in both, the text's leading and trailing white space dropped);
//     one place: Normalised, the passage running from the document
//     position of its first matched character to just after its last;
//     two or more: Ambiguous; none: Absent.
//
// Results are remembered per (doc, text): a text returned for many queries
// is located once. A Locator is not safe for concurrent use.
type Locator struct {
	ix   *anchor.Index
	memo map[locKey]located
}

type locKey struct{ doc, text string }

// located is where a text was placed: its document and code-point range,
// or how it is unmapped.
type located struct {
	how        Placing
	doc        string
	start, end int
}

// NewLocator prepares docs (as corpus.Load returns them) for locating.
func NewLocator(docs []corpus.Document) *Locator {
	return &Locator{ix: anchor.NewIndex(docs), memo: map[locKey]located{}}
}

// Doc returns document id of the corpus.
func (l *Locator) Doc(id string) (*anchor.Doc, bool) { return l.ix.Doc(id) }

// locate places text in document doc, or anywhere when doc is "" (the
// document, when given, must exist: the caller checks).
func (l *Locator) locate(doc, text string) located {
	k := locKey{doc, text}
	if v, ok := l.memo[k]; ok {
		return v
	}
	v := l.find(doc, text)
	l.memo[k] = v
	return v
}

func (l *Locator) find(doc, text string) located {
	var ms []anchor.Match
	if doc != "" {
		d, _ := l.ix.Doc(doc)
		for _, r := range d.Find(text, 2) {
			ms = append(ms, anchor.Match{Doc: d, Range: r})
		}
	} else {
		ms = l.ix.Locate(text, 0, 2).Matches
	}
	switch {
	case len(ms) == 1:
		return located{how: Exact, doc: ms[0].Doc.ID, start: ms[0].Start, end: ms[0].End}
	case len(ms) > 1:
		return located{how: Ambiguous}
	}
	trimmed := strings.TrimFunc(text, unicode.IsSpace)
	if trimmed == "" {
		return located{how: Absent}
	}
	ms = l.folded(doc, trimmed)
	switch {
	case len(ms) == 1:
		return located{how: Normalised, doc: ms[0].Doc.ID, start: ms[0].Start, end: ms[0].End}
	case len(ms) > 1:
		return located{how: Ambiguous}
	}
	return located{how: Absent}
}

// folded returns up to two places of text (without leading or trailing
// white space) once white space is normalised, in doc or in every
// document.
func (l *Locator) folded(doc, text string) []anchor.Match {
	if doc != "" {
		d, _ := l.ix.Doc(doc)
		var out []anchor.Match
		for _, r := range d.FindFolded(text, anchor.FoldSpace, 2) {
			out = append(out, anchor.Match{Doc: d, Range: r})
		}
		return out
	}
	loc := l.ix.Locate(text, anchor.FoldSpace, 2)
	if loc.Folded || len(loc.Matches) != 1 {
		// Folded places (0, 1 or 2), or two exact places of the trimmed
		// text, which are two folded places too.
		return loc.Matches
	}
	// One exact place of the trimmed text: the folded text may occur
	// elsewhere with other white space, which Locate did not look for.
	var out []anchor.Match
	for _, d := range l.ix.Docs() {
		for _, r := range d.FindFolded(text, anchor.FoldSpace, 2-len(out)) {
			out = append(out, anchor.Match{Doc: d, Range: r})
		}
		if len(out) == 2 {
			break
		}
	}
	return out
}
