package anchor

import (
	"index/suffixarray"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ragbench/ragbench/corpus"
)

// Index is a corpus prepared for locating text whose document is not known
// (Locate) or is (LocateIn). Safe for concurrent use; the suffix arrays are
// built on first use: about 5 bytes of memory per byte of text for each of
// the exact and the folded one.
type Index struct {
	docs []*Doc
	byID map[string]int

	mu  sync.Mutex
	sas map[Fold]*joined // 0: the exact texts
}

// joined is every document's text (or folded text) in one byte string, each
// followed by 0xFF (a byte no UTF-8 text holds, so no match spans two
// documents), with a suffix array over it.
type joined struct {
	sa     *suffixarray.Index
	starts []int // byte offset of each document in the joined text
}

// NewIndex prepares docs. Doc ids are unique in a corpus.Load result; a
// later document with the id of an earlier one is not reachable by Doc.
func NewIndex(docs []corpus.Document) *Index {
	ix := &Index{byID: make(map[string]int, len(docs)), sas: map[Fold]*joined{}}
	for i, d := range docs {
		ix.docs = append(ix.docs, NewDoc(d.ID, d.Text))
		if _, dup := ix.byID[d.ID]; !dup {
			ix.byID[d.ID] = i
		}
	}
	return ix
}

// Doc returns the document of id.
func (ix *Index) Doc(id string) (*Doc, bool) {
	i, ok := ix.byID[id]
	if !ok {
		return nil, false
	}
	return ix.docs[i], true
}

// Docs returns the documents in the order given.
func (ix *Index) Docs() []*Doc { return ix.docs }

// Match is a located text: its document and range.
type Match struct {
	Doc *Doc
	Range
}

// Location is the result of locating a text: its places at the first level
// that found any (exact, then folded), at most the limit asked for.
type Location struct {
	Matches []Match // in corpus order, then document order
	Folded  bool    // found only once folded (by the Fold given)
}

// Unique reports whether the text was found at exactly one place.
func (l Location) Unique() bool { return len(l.Matches) == 1 }

// Locate finds text anywhere in the corpus: its exact occurrences, else,
// with f ≠ 0, its occurrences once both are folded by f (FoldSpace alone
// is "white space normalised"). At most limit places are returned (limit
// ≤ 0: all; 2 tells unique from ambiguous). No match: an empty Location.
// Text that is empty or not valid UTF-8 is found nowhere.
func (ix *Index) Locate(text string, f Fold, limit int) Location {
	if text == "" || !utf8.ValidString(text) {
		return Location{}
	}
	if m := ix.lookup(text, 0, limit); len(m) > 0 {
		return Location{Matches: m}
	}
	if f == 0 {
		return Location{}
	}
	ft := FoldString(text, f)
	if ft == "" {
		return Location{}
	}
	return Location{Matches: ix.lookup(ft, f, limit), Folded: true}
}

// LocateIn is Locate within the document doc (no match when there is no
// such document).
func (ix *Index) LocateIn(doc, text string, f Fold, limit int) Location {
	d, ok := ix.Doc(doc)
	if !ok {
		return Location{}
	}
	if rs := d.Find(text, limit); len(rs) > 0 {
		return Location{Matches: matches(d, rs)}
	}
	if f == 0 {
		return Location{}
	}
	rs := d.FindFolded(text, f, limit)
	if len(rs) == 0 {
		return Location{}
	}
	return Location{Matches: matches(d, rs), Folded: true}
}

func matches(d *Doc, rs []Range) []Match {
	out := make([]Match, len(rs))
	for i, r := range rs {
		out[i] = Match{Doc: d, Range: r}
	}
	return out
}

// lookup finds q (already folded by f) in the joined texts of fold f.
func (ix *Index) lookup(q string, f Fold, limit int) []Match {
	j := ix.joinedOf(f)
	n := -1
	if limit > 0 {
		n = limit
	}
	offs := j.sa.Lookup([]byte(q), n)
	if limit > 0 && len(offs) == limit {
		// Lookup returns any limit of the occurrences: take them all to
		// return the first in corpus order (deterministic).
		offs = j.sa.Lookup([]byte(q), -1)
	}
	slices.Sort(offs)
	var out []Match
	for _, off := range offs {
		if limit > 0 && len(out) == limit {
			break
		}
		di := sort.SearchInts(j.starts, off+1) - 1
		d := ix.docs[di]
		b := off - j.starts[di]
		if f == 0 {
			out = append(out, Match{Doc: d, Range: d.mustBytes(b, b+len(q))})
			continue
		}
		out = append(out, Match{Doc: d, Range: d.unfold(d.foldedOf(f), b, b+len(q))})
	}
	return out
}

// joinedOf returns the joined texts of fold f (0: exact), built on first
// use.
func (ix *Index) joinedOf(f Fold) *joined {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if j := ix.sas[f]; j != nil {
		return j
	}
	var buf []byte
	j := &joined{starts: make([]int, len(ix.docs))}
	for i, d := range ix.docs {
		j.starts[i] = len(buf)
		if f == 0 {
			buf = append(buf, d.Text...)
		} else {
			buf = append(buf, d.foldedOf(f).text...)
		}
		buf = append(buf, 0xFF)
	}
	j.sa = suffixarray.New(buf)
	ix.sas[f] = j
	return j
}

// SuggestID returns the document id meant by id, which names no document:
// sure when the corpus has it once its extension is dropped
// ("practices/naming.md" → "practices/naming") or in another case (one
// such document only); otherwise the id fewest edits away (Levenshtein in
// code points, within a fifth of its length and at least 2), not sure;
// "" when there is none.
func (ix *Index) SuggestID(id string) (suggestion string, sure bool) {
	if cand := strings.TrimSuffix(id, path.Ext(id)); cand != id {
		if _, ok := ix.Doc(cand); ok {
			return cand, true
		}
	}
	found := ""
	for _, d := range ix.docs {
		if d.ID != id && strings.EqualFold(d.ID, id) {
			if found != "" && found != d.ID {
				found = ""
				break
			}
			found = d.ID
		}
	}
	if found != "" {
		return found, true
	}
	best, bestD := "", max(2, utf8.RuneCountInString(id)/5)+1
	for _, d := range ix.docs {
		if dist := editDistance(id, d.ID, bestD); dist < bestD {
			best, bestD = d.ID, dist
		}
	}
	return best, false
}

// editDistance is the Levenshtein distance of a and b in code points, or
// limit when it is at least limit.
func editDistance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			sub := prev[j-1]
			if ra[i-1] != rb[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return min(prev[len(rb)], limit)
}
