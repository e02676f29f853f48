package anchor

import (
	"math"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// FindFolded returns the occurrences of quote in the document once both
// are folded by f, in order, overlapping ones included, at most limit of
// them (limit ≤ 0: all), as ranges of the document's own text (a folded
// space covers the whole run of white space it stands for). A quote that
// folds to "" occurs nowhere.
func (d *Doc) FindFolded(quote string, f Fold, limit int) []Range {
	fq := FoldString(quote, f)
	if fq == "" {
		return nil
	}
	fd := d.foldedOf(f)
	var out []Range
	for from := 0; limit <= 0 || len(out) < limit; {
		i := strings.Index(fd.text[from:], fq)
		if i < 0 {
			break
		}
		at := from + i
		out = append(out, d.unfold(fd, at, at+len(fq)))
		_, size := utf8.DecodeRuneInString(fd.text[at:])
		from = at + size
	}
	return out
}

// unfold maps the folded bytes [fb, fe) (on character boundaries) back to
// the document's range.
func (d *Doc) unfold(fd *folded, fb, fe int) Range {
	k1, _ := fd.runes.RuneOffset(fb)
	k2, _ := fd.runes.RuneOffset(fe)
	r, err := d.ByCodePoints(int(fd.start[k1]), int(fd.end[k2-1]))
	if err != nil {
		panic("anchor: folded range: " + err.Error())
	}
	return r
}

// Nearest returns the passage of the document nearest to quote: the range
// whose text, folded by FoldAll, is fewest edits (Levenshtein, in code
// points) from the quote folded by FoldAll, and its similarity
// 1 − edits/m for a folded quote of m code points, in [0, 1]. Of the
// passages that close, the one ending first wins, and of those ending
// there, the one whose length is nearest m (then the shorter). ok is false
// when the quote is empty or white space, or no passage shares a character
// with it (similarity 0).
func (d *Doc) Nearest(quote string) (r Range, similarity float64, ok bool) {
	return d.NearestPattern(NewPattern(quote), 0)
}

// NearestPattern is Nearest for a prepared quote, among the passages at
// least minSim similar (minSim in [0, 1]; 0 searches them all, as
// Nearest): ok is false, and the range and similarity zero, when no
// passage is that similar. Rows of the edit-distance table that can no
// longer come within the allowed edits are not computed (Ukkonen's
// cut-off, in Myers' blocks of 64: J. ACM 46(3), 1999, section 5), so a
// high minSim makes a search in a document without the passage several
// times faster; every passage within it is found as Nearest finds it.
func (d *Doc) NearestPattern(p *Pattern, minSim float64) (r Range, similarity float64, ok bool) {
	k := p.maxEdits(minSim)
	if k < 0 {
		return Range{}, 0, false
	}
	fd := d.foldedOf(FoldAll)
	text := fd.codePoints()
	end, dist := p.forward(text, k)
	if end == 0 {
		return Range{}, 0, false
	}
	s := p.start(text, end, dist)
	r, err := d.ByCodePoints(int(fd.start[s]), int(fd.end[end-1]))
	if err != nil {
		panic("anchor: nearest range: " + err.Error())
	}
	return r, 1 - float64(dist)/float64(len(p.pat)), true
}

// Pattern is a quote folded by FoldAll with the tables Myers' algorithm
// reads, prepared once for searches in many documents
// (Doc.NearestPattern, Pattern.SimilarityIn). Safe for concurrent use.
type Pattern struct {
	pat []rune
	fw  *peq // the pattern's tables

	bwOnce sync.Once
	bw     *peq // the reversed pattern's, built on first use (backward)
}

// NewPattern folds quote by FoldAll and prepares its tables, in O(m) for
// a folded quote of m code points. A quote that folds to white space or
// nothing has Len 0 and matches nowhere.
func NewPattern(quote string) *Pattern {
	fq := FoldString(quote, FoldAll)
	if strings.TrimSpace(fq) == "" {
		return &Pattern{}
	}
	pat := []rune(fq)
	return &Pattern{pat: pat, fw: newPeq(pat)}
}

// backward is the reversed pattern's tables, which only a passage's start
// reads (NearestPattern; SimilarityIn, the many comparisons of judged
// coverage, never does): built on first use, half of NewPattern's time
// and memory otherwise.
func (p *Pattern) backward() *peq {
	p.bwOnce.Do(func() {
		rev := slices.Clone(p.pat)
		slices.Reverse(rev)
		p.bw = newPeq(rev)
	})
	return p.bw
}

// Len is the folded quote's length in code points: the m of a
// similarity 1 − edits/m (0 for a quote that matches nowhere).
func (p *Pattern) Len() int { return len(p.pat) }

// SimilarityIn is the similarity of the passage of text nearest the
// quote (Doc.Nearest's, text folded by FoldAll), when it is at least
// minSim (in [0, 1]); ok is false, and sim 0, when no passage is that
// similar or none shares a character with the quote. It computes only the
// edit distance (no range, no document index), with Ukkonen's cut-off as
// NearestPattern.
func (p *Pattern) SimilarityIn(text string, minSim float64) (sim float64, ok bool) {
	k := p.maxEdits(minSim)
	if k < 0 {
		return 0, false
	}
	end, dist := p.forward([]rune(FoldString(text, FoldAll)), k)
	if end == 0 {
		return 0, false
	}
	return 1 - float64(dist)/float64(len(p.pat)), true
}

// maxEdits is the most edits a passage at least minSim similar may have:
// the largest d in [0, m) with 1 − d/m ≥ minSim, by the same float
// comparison callers make (a passage m edits away shares nothing and is
// never a match); −1 when there is none or the pattern is empty.
func (p *Pattern) maxEdits(minSim float64) int {
	m := len(p.pat)
	if m == 0 || math.IsNaN(minSim) {
		return -1
	}
	within := func(d int) bool { return 1-float64(d)/float64(m) >= minSim }
	d := min(m-1, max(0, int(math.Floor((1-minSim)*float64(m)))))
	for d+1 < m && within(d+1) {
		d++
	}
	for d >= 0 && !within(d) {
		d--
	}
	return d
}

// forward returns the first end e (in code points, ≥ 1) of a substring of
// text at the least edit distance dist from the pattern, when that
// distance is at most k (k < m); e is 0 when none is. Each column computes
// only the blocks down to the last that can hold a value ≤ k: a block
// whose bottom value exceeds k by its height holds nothing ≤ k (adjacent
// rows differ by at most 1), and a block below the computed ones is
// started again, with every vertical difference +1 (an upper bound of the
// true column), only once the block above ends at ≤ k, the only way a
// value ≤ k can enter it. Values ≤ k are then exact (Myers 1999, section
// 5; TestNearestMatchesDP checks every k against the dynamic programme).
func (p *Pattern) forward(text []rune, k int) (e, dist int) {
	m := len(p.pat)
	bl := newBlocks(p.fw, m)
	nb := len(bl.pv)
	height := func(b int) int { return min(64*(b+1), m) - 64*b }
	score := make([]int, nb) // per block, the value of its last row at the current column
	for b := range score {
		score[b] = min(64*(b+1), m) // column 0: row i holds i
	}
	y := min(nb-1, k/64) // the last block computed; every value below it exceeds k
	best := k + 1
	for j, c := range text {
		hout := bl.advance(c, 0, 0, y, score) // the first row is 0 everywhere: a match may start anywhere
		for y < nb-1 && (score[y]-hout <= k || score[y] <= k) {
			y++
			bl.pv[y], bl.mv[y] = ^uint64(0), 0
			score[y] = score[y-1] - hout + height(y)
			hout = bl.advance(c, hout, y, y, score)
		}
		for y > 0 && score[y] >= k+height(y) {
			y--
		}
		if y == nb-1 && score[y] < best {
			best, e = score[y], j+1
		}
	}
	if e == 0 {
		return 0, m
	}
	return e, best
}

// start returns the start s of the substring text[s:end] at distance dist
// from the pattern whose length is nearest m (then the shorter), read back
// from end with the reversed pattern, the match anchored at end (the
// first row counts the characters read: +1 a column). No match at
// distance dist is longer than m + dist.
func (p *Pattern) start(text []rune, end, dist int) int {
	m := len(p.pat)
	bw := newBlocks(p.backward(), m)
	score := m
	length := -1
	for k := 1; k <= min(end, m+dist); k++ {
		score += bw.column(text[end-k], +1)
		if score == dist && (length < 0 || abs(k-m) < abs(length-m)) {
			length = k
		}
	}
	return end - length
}

// codePoints is the folded text as code points, built on first use (the
// caller holds no lock: the slice is immutable once set).
func (fd *folded) codePoints() []rune {
	fd.once.Do(func() { fd.rs = []rune(fd.text) })
	return fd.rs
}

// peq holds, per block of 64 pattern positions, the bit mask of the
// positions equal to each character (Myers' Peq table).
type peq struct {
	ascii [][128]uint64
	other map[rune][]uint64
}

func newPeq(pat []rune) *peq {
	nb := (len(pat) + 63) / 64
	p := &peq{ascii: make([][128]uint64, nb), other: map[rune][]uint64{}}
	for i, c := range pat {
		b, bit := i/64, uint64(1)<<(i%64)
		if c < 128 {
			p.ascii[b][c] |= bit
			continue
		}
		if p.other[c] == nil {
			p.other[c] = make([]uint64, nb)
		}
		p.other[c][b] |= bit
	}
	return p
}

func (p *peq) eq(b int, c rune) uint64 {
	if c >= 0 && c < 128 {
		return p.ascii[b][c]
	}
	if m := p.other[c]; m != nil {
		return m[b]
	}
	return 0
}

// blocks is the state of Myers' algorithm for one pattern: per block the
// vertical positive and negative delta vectors, and the bit of the block's
// last row.
type blocks struct {
	p      *peq
	pv, mv []uint64
	high   []uint64
}

// newBlocks is the state at column 0 (row i holds i) for a pattern of m
// ≥ 1 code points whose table is p.
func newBlocks(p *peq, m int) *blocks {
	nb := (m + 63) / 64
	bl := &blocks{p: p, pv: make([]uint64, nb), mv: make([]uint64, nb), high: make([]uint64, nb)}
	for b := range nb {
		bl.pv[b] = ^uint64(0)
		bl.high[b] = 1 << 63
	}
	bl.high[nb-1] = 1 << ((m - 1) % 64)
	return bl
}

// column advances every block by text character c, given the horizontal
// delta hin (−1, 0 or +1) above the first row, and returns the delta of the
// last row: the change of the edit distance of the whole pattern.
func (bl *blocks) column(c rune, hin int) int {
	return bl.advance(c, hin, 0, len(bl.pv)-1, nil)
}

// advance advances blocks from to to (inclusive) by text character c,
// given the horizontal delta hin (−1, 0 or +1) above block from's first
// row, adds each block's change of its last row to score[b] when score
// is not nil, and returns the delta below block to's last row. One loop
// for every use: the loop body is the whole cost of a search.
func (bl *blocks) advance(c rune, hin, from, to int, score []int) int {
	for b := from; b <= to; b++ {
		pv, mv := bl.pv[b], bl.mv[b]
		var eq uint64
		if c >= 0 && c < 128 {
			eq = bl.p.ascii[b][c]
		} else {
			eq = bl.p.eq(b, c)
		}
		xv := eq | mv
		if hin < 0 {
			eq |= 1
		}
		xh := (((eq & pv) + pv) ^ pv) | eq
		ph := mv | ^(xh | pv)
		mh := pv & xh
		hout := 0
		if ph&bl.high[b] != 0 {
			hout = 1
		} else if mh&bl.high[b] != 0 {
			hout = -1
		}
		ph <<= 1
		mh <<= 1
		if hin < 0 {
			mh |= 1
		} else if hin > 0 {
			ph |= 1
		}
		bl.pv[b] = mh | ^(xv | ph)
		bl.mv[b] = ph & xv
		if score != nil {
			score[b] += hout
		}
		hin = hout
	}
	return hin
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
