package sweep

import (
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/ragbench/ragbench/results"
)

// termRanges are the code-point ranges of text's words whose analysed
// term is one of terms (sorted): what a snippet highlights as the query's
// terms.
func termRanges(text string, terms []string) [][2]int {
	if len(terms) == 0 {
		return nil
	}
	var out [][2]int
	cp, at := 0, 0 // code points before byte offset at
	toCP := func(b int) int {
		cp += utf8.RuneCountInString(text[at:b])
		at = b
		return cp
	}
	for _, t := range analyse(text) {
		if _, ok := slices.BinarySearch(terms, t.Term); !ok || t.Start < at {
			continue
		}
		s := toCP(t.Start)
		out = append(out, [2]int{s, toCP(t.End)})
	}
	return out
}

// termMarks are the marks of text's query terms, on the whole text.
func termMarks(text string, terms []string) []results.Mark {
	var out []results.Mark
	for _, r := range termRanges(text, terms) {
		out = append(out, results.Mark{Start: r[0], End: r[1], Kind: results.MarkTerm})
	}
	return out
}

// markedSnippet is the part of text a miss shows: about n code points
// around the first gold range (the missed passage's text in the chunk),
// else around the first query term, else from the start — white space
// collapsed to single spaces, "…" where text was cut — with marks of the
// gold and term ranges (code points of text) moved onto it.
func markedSnippet(text string, n int, gold, terms [][2]int) (string, []results.Mark) {
	rs := []rune(text)
	focus := 0
	switch {
	case len(gold) > 0:
		focus = gold[0][0]
	case len(terms) > 0:
		focus = terms[0][0]
	}
	start := max(0, focus-n/5)
	end := min(len(rs), start+n)
	start = max(0, min(start, end-n))
	// Collapse white space; pos[i] is where rune start+i went (-1:
	// dropped leading space), out the snippet's runes.
	var out []rune
	if start > 0 {
		out = append(out, '…')
	}
	lead := len(out)
	pos := make([]int, end-start+1)
	for i := start; i < end; i++ {
		r := rs[i]
		if unicode.IsSpace(r) {
			if len(out) == lead || out[len(out)-1] == ' ' {
				pos[i-start] = len(out) // joins the next character, or the space before
				continue
			}
			r = ' '
		}
		pos[i-start] = len(out)
		out = append(out, r)
	}
	for len(out) > lead && out[len(out)-1] == ' ' {
		out = out[:len(out)-1]
	}
	pos[end-start] = len(out)
	for i := range pos {
		pos[i] = min(pos[i], len(out))
	}
	body := len(out)
	if end < len(rs) {
		out = append(out, '…')
	}
	var marks []results.Mark
	add := func(rgs [][2]int, kind string) {
		for _, r := range rgs {
			a, b := max(r[0], start), min(r[1], end)
			if a >= b {
				continue
			}
			ma, mb := min(pos[a-start], body), min(pos[b-1-start]+1, body)
			if ma < mb {
				marks = append(marks, results.Mark{Start: ma, End: mb, Kind: kind})
			}
		}
	}
	add(gold, results.MarkGold)
	add(terms, results.MarkTerm)
	slices.SortStableFunc(marks, func(x, y results.Mark) int { return x.Start - y.Start })
	return string(out), marks
}
