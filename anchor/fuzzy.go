package anchor

import (
	"slices"
	"strings"
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
	fq := FoldString(quote, FoldAll)
	if strings.TrimSpace(fq) == "" {
		return Range{}, 0, false
	}
	pat := []rune(fq)
	fd := d.foldedOf(FoldAll)
	text := fd.codePoints()
	s, e, dist := nearest(text, pat)
	if e == s {
		return Range{}, 0, false
	}
	r, err := d.ByCodePoints(int(fd.start[s]), int(fd.end[e-1]))
	if err != nil {
		panic("anchor: nearest range: " + err.Error())
	}
	return r, 1 - float64(dist)/float64(len(pat)), true
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

func newBlocks(pat []rune) *blocks {
	nb := (len(pat) + 63) / 64
	bl := &blocks{p: newPeq(pat), pv: make([]uint64, nb), mv: make([]uint64, nb), high: make([]uint64, nb)}
	for b := range nb {
		bl.pv[b] = ^uint64(0)
		bl.high[b] = 1 << 63
	}
	bl.high[nb-1] = 1 << ((len(pat) - 1) % 64)
	return bl
}

// column advances every block by text character c, given the horizontal
// delta hin (−1, 0 or +1) above the first row, and returns the delta of the
// last row: the change of the edit distance of the whole pattern.
func (bl *blocks) column(c rune, hin int) int {
	for b := range bl.pv {
		pv, mv, eq := bl.pv[b], bl.mv[b], bl.p.eq(b, c)
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
		hin = hout
	}
	return hin
}

// nearest returns the substring text[s:e] of least edit distance dist to
// pat (len(pat) ≥ 1): the first end e reaching the least distance, then,
// of the substrings ending there at that distance, the one whose length is
// nearest len(pat) (then the shorter).
func nearest(text, pat []rune) (s, e, dist int) {
	m := len(pat)
	fw := newBlocks(pat)
	score, best, end := m, m, 0
	for j, c := range text {
		score += fw.column(c, 0) // the first row is 0 everywhere: a match may start anywhere
		if score < best {
			best, end = score, j+1
		}
	}
	if best == m {
		return 0, 0, m
	}
	// Read back from end with the pattern reversed, the match anchored at
	// end (the first row counts the characters read: +1 a column). No
	// match at distance best is longer than m + best.
	rev := slices.Clone(pat)
	slices.Reverse(rev)
	bw := newBlocks(rev)
	score = m
	length := -1
	for k := 1; k <= min(end, m+best); k++ {
		score += bw.column(text[end-k], +1)
		if score == best && (length < 0 || abs(k-m) < abs(length-m)) {
			length = k
		}
	}
	return end - length, end, best
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
