package spans

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/ragbench/ragbench/anchor"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/parallel"
)

// JudgedChunks is, per query, the chunks of ch that overlap (by at least
// one code point) some passage the query judges: a gold passage (every
// member of a group of alternatives) or one judged not relevant (grade 0).
// They are the chunks a labeller has looked at, in part: judged coverage
// (judged@k, eval.JudgedShare) counts them, and scoring judged items only
// (eval.Condense) keeps them. Each maps to the highest grade of the
// passages it overlaps (0 when only grade-0 ones): a set of judged chunks,
// not chunk relevance (that is Judgements', with the cover share). Every
// query is present, with no chunk when it judges nothing.
func JudgedChunks(queries []Query, ch *Chunking) eval.Qrels {
	byDoc := chunksByDoc(ch)
	out := make(eval.Qrels, len(queries))
	for _, q := range queries {
		m := map[string]int{}
		for _, g := range append(slices.Clone(q.Gold), q.NonRelevant...) {
			for _, id := range byDoc[g.Doc] {
				if ch.Intervals[id].overlap(g.Interval()) > 0 {
					if old, ok := m[id]; !ok || g.Grade > old {
						m[id] = g.Grade
					}
				}
			}
		}
		out[q.ID] = m
	}
	return out
}

// GoldText is a gold passage's text, for FindHoles: Label names it in
// messages (`doc [start, end)` for a span, the id for an id label).
type GoldText struct {
	Label, Text string
}

// SpanGold is the gold passages of q as GoldText (every member of a group
// of alternatives), labelled `doc [start, end)` in code points.
func SpanGold(q Query) []GoldText {
	out := make([]GoldText, len(q.Gold))
	for i, g := range q.Gold {
		out[i] = GoldText{Label: fmt.Sprintf("%s [%d, %d)", g.Doc, g.Start, g.End), Text: g.Text}
	}
	return out
}

// Hole is an unjudged result of a query whose text nearly equals a gold
// passage's (FindHoles): duplicate content elsewhere in the corpus, most
// likely relevant, that the labels count as not relevant.
type Hole struct {
	Query      string
	Rank       int    // its rank in the run, from 1
	ID         string // the chunk or document id
	Gold       string // the gold passage it repeats (GoldText.Label)
	Similarity float64
}

// HoleThreshold is the least similarity (anchor's: 1 − edits/length of
// the gold passage's nearest passage within the result's text, white
// space, quote marks, dashes and case folded; anchor.Doc.Nearest) at which
// an unjudged result is a hole: anchor.DefaultThreshold, the similarity
// at which a re-anchored label is the same passage edited rather than
// another. On the chunking-chroma corpus no gold passage of one document
// comes within it in another (anchor's TestThresholdSeparates: at most
// 0.545), so a hole there is a true near-copy.
const HoleThreshold = anchor.DefaultThreshold

// FindHoles lists the holes among the first n results of one query's
// ranking ids (best first): each result not in judged (a judged id: a key
// of the query's judgements, any grade ≥ 0) whose text (text(id)) holds
// a near-copy of a gold passage, at least HoleThreshold similar; with
// several gold passages, the most similar (the first on a tie). Results
// are in rank order. A result shorter than HoleThreshold of a passage
// cannot reach it and is not compared. (HoleFinder.Find with a new
// HoleFinder.)
func FindHoles(query string, ids []string, n int, judged map[string]int, text func(id string) string, gold []GoldText) []Hole {
	return NewHoleFinder(text).Find(query, ids, n, judged, gold)
}

// HoleFinder finds holes (FindHoles) over one set of texts, remembering
// each result's similarity to each gold passage: the cells of one
// chunking return many of the same chunks for a query, and each pair is
// compared once. It keeps the similarities, not the gold passages'
// prepared patterns (32 KB for a 1,500-character passage, 20 times its
// text; kept for every passage a run met, at 63 KB each, they were 60 MB
// of the live heap of a 3,000-query run): a call builds those it needs
// and drops them. Not safe for concurrent use (FindAll spreads its own
// comparisons over goroutines).
type HoleFinder struct {
	text func(id string) string
	sim  map[[2]string]float64 // {id, gold text} → similarity (−1: below HoleThreshold)
}

// NewHoleFinder is a HoleFinder over the texts text(id); text must be
// safe for concurrent use when FindAll is given more than one worker.
func NewHoleFinder(text func(id string) string) *HoleFinder {
	return &HoleFinder{text: text, sim: map[[2]string]float64{}}
}

// Find is FindHoles with f's texts and remembered similarities.
func (f *HoleFinder) Find(query string, ids []string, n int, judged map[string]int, gold []GoldText) []Hole {
	var out []Hole
	pats := make([]*anchor.Pattern, len(gold)) // built on first need
	for i, id := range ids[:min(n, len(ids))] {
		if g, ok := judged[id]; ok && g >= 0 {
			continue
		}
		best := Hole{Similarity: -1}
		for gi, g := range gold {
			if sim := f.similarity(id, g.Text, &pats[gi]); sim >= HoleThreshold && sim > best.Similarity {
				best = Hole{Query: query, Rank: i + 1, ID: id, Gold: g.Label, Similarity: sim}
			}
		}
		if best.Similarity >= 0 {
			out = append(out, best)
		}
	}
	return out
}

// HoleQuery is one query's part of a FindAll: Find's arguments but n.
type HoleQuery struct {
	Query  string
	IDs    []string       // its ranking, best first
	Judged map[string]int // its judgements (any grade ≥ 0 is judged)
	Gold   []GoldText
}

// FindAll is Find for every query of qs with the same n, the holes in qs's
// order, after comparing every pair of a result and a gold passage that f
// does not remember yet on min(workers, pairs) goroutines (workers ≥ 1;
// f's text function is then called concurrently and must allow it). The
// holes do not depend on workers. Cancelling ctx stops it between two
// comparisons with ctx's error.
//
// The pairs are compared passage by passage (calls are handed out in
// order): a passage's pattern is prepared at its first pair and dropped
// after its last, so at most workers + 1 patterns are held at once.
func (f *HoleFinder) FindAll(ctx context.Context, qs []HoleQuery, n, workers int) ([]Hole, error) {
	type gold struct {
		text string
		ids  []string // the results to compare it with, each once
		once sync.Once
		p    *anchor.Pattern
		left atomic.Int64 // its pairs not compared yet
	}
	var golds []*gold // in the order Find meets them
	byText := map[string]*gold{}
	queued := map[[2]string]bool{} // {id, gold text}
	for _, q := range qs {
		for _, id := range q.IDs[:min(n, len(q.IDs))] {
			if g, ok := q.Judged[id]; ok && g >= 0 {
				continue
			}
			for _, g := range q.Gold {
				key := [2]string{id, g.Text}
				if _, ok := f.sim[key]; ok || queued[key] {
					continue
				}
				queued[key] = true
				gd := byText[g.Text]
				if gd == nil {
					gd = &gold{text: g.Text}
					byText[g.Text] = gd
					golds = append(golds, gd)
				}
				gd.ids = append(gd.ids, id)
			}
		}
	}
	queued, byText = nil, nil
	type pair struct {
		id string
		g  *gold
	}
	var todo []pair // grouped by passage: calls are handed out in order
	for _, g := range golds {
		g.left.Store(int64(len(g.ids)))
		for _, id := range g.ids {
			todo = append(todo, pair{id, g})
		}
	}
	sims := make([]float64, len(todo))
	err := parallel.ForEach(ctx, workers, len(todo), func(_, i int) error {
		g := todo[i].g
		g.once.Do(func() { g.p = anchor.NewPattern(g.text) })
		sims[i] = f.compare(todo[i].id, g.p)
		if g.left.Add(-1) == 0 { // every read of g.p is done
			g.p = nil
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, pr := range todo {
		f.sim[[2]string{pr.id, pr.g.text}] = sims[i]
	}
	var out []Hole
	for _, q := range qs {
		out = append(out, f.Find(q.Query, q.IDs, n, q.Judged, q.Gold)...)
	}
	return out, nil
}

// similarity is anchor's similarity of gold's nearest passage in id's
// text, or −1 when it is below HoleThreshold, remembered; *p is gold's
// pattern, built here when nil and needed.
func (f *HoleFinder) similarity(id, gold string, p **anchor.Pattern) float64 {
	key := [2]string{id, gold}
	if s, ok := f.sim[key]; ok {
		return s
	}
	if *p == nil {
		*p = anchor.NewPattern(gold)
	}
	s := f.compare(id, *p)
	f.sim[key] = s
	return s
}

// compare is the similarity of p's nearest passage in id's text, or −1
// when it is below HoleThreshold. It reads f only through f.text.
func (f *HoleFinder) compare(id string, p *anchor.Pattern) float64 {
	t := f.text(id)
	// A text of fewer code points than HoleThreshold of the passage's
	// (folding never lengthens it) misses more than a quarter of them.
	if m := p.Len(); m > 0 && float64(utf8.RuneCountInString(t)) >= HoleThreshold*float64(m) {
		if sim, ok := p.SimilarityIn(t, HoleThreshold); ok {
			return sim
		}
	}
	return -1
}
