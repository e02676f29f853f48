package sweep

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/kinds"
	"github.com/ragbench/ragbench/results"
	"github.com/ragbench/ragbench/retrievers/bm25"
	"github.com/ragbench/ragbench/spans"
)

// This file diagnoses the misses (docs/misses.md): per missed gold passage
// (span labels) or missing gold id (id labels), its best rank, the chunk
// covering it, and one cause of results.Causes, the first that applies;
// and the snippets of a miss, cut around the gold passage or the query's
// terms, with marks.

// missAnalyzer is the analyzer whose terms decide a vocabulary mismatch:
// BM25's default (bleve's "en": lower-cased, stop words removed, Porter
// stems), whatever the cell's retriever, so that a miss's cause does not
// depend on the retriever that missed it.
var missAnalyzer = bm25.DefaultOptions().Analyzer

// missDiagnoser holds what the diagnoses of one sweep share: the queries'
// analysed terms, the documents as code points, each chunking's chunks by
// document, and the duplicate tests already made.
type missDiagnoser struct {
	cfg    *Config
	ds     *dataset
	qterms map[string][]string
	runes  map[string][]rune               // document id → text
	order  map[*spans.Chunking]*chunkOrder // a chunking's chunks by document (a pipeline's passages are a chunking of their own)
}

// chunkOrder is a chunking's chunks by document, in corpus order.
type chunkOrder struct {
	byDoc map[string][]string
}

func newMissDiagnoser(cfg *Config, ds *dataset) *missDiagnoser {
	return &missDiagnoser{cfg: cfg, ds: ds, qterms: map[string][]string{}, runes: map[string][]rune{},
		order: map[*spans.Chunking]*chunkOrder{}}
}

// analyse is text's analysed tokens (missAnalyzer). The analyzer is
// BM25's own, so it cannot fail on a name it defines.
func analyse(text string) []bm25.Token {
	ts, err := bm25.Analyze(missAnalyzer, text)
	if err != nil {
		panic("sweep: " + err.Error())
	}
	return ts
}

// termSet is the sorted distinct terms of text.
func termSet(text string) []string {
	var out []string
	for _, t := range analyse(text) {
		out = append(out, t.Term)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// queryTerms is query id's analysed terms, sorted.
func (d *missDiagnoser) queryTerms(id string) []string {
	if t, ok := d.qterms[id]; ok {
		return t
	}
	t := termSet(d.ds.text[id])
	if t == nil {
		t = []string{}
	}
	d.qterms[id] = t
	return t
}

// docRunes is document id's text as code points.
func (d *missDiagnoser) docRunes(id string) []rune {
	if r, ok := d.runes[id]; ok {
		return r
	}
	var r []rune
	if i, ok := d.ds.docByID.Get(id); ok {
		r = []rune(d.ds.texts.Detach(d.ds.docs[i].Text))
	}
	d.runes[id] = r
	return r
}

// text is the document text of iv.
func (d *missDiagnoser) text(iv spans.Interval) string {
	r := d.docRunes(iv.Doc)
	return string(r[min(iv.Start, len(r)):min(iv.End, len(r))])
}

// chunksOf is sc's chunks by document (its corpus order).
func (d *missDiagnoser) chunksOf(sc *spanCells) *chunkOrder {
	if o := d.order[sc.ch]; o != nil {
		return o
	}
	o := &chunkOrder{byDoc: map[string][]string{}}
	for _, id := range sc.ch.IDs {
		doc := sc.ch.Intervals[id].Doc
		o.byDoc[doc] = append(o.byDoc[doc], id)
	}
	d.order[sc.ch] = o
	return o
}

// sharedTerms are the terms of both sorted lists.
func sharedTerms(a, b []string) []string {
	out := []string{}
	for _, t := range a {
		if _, ok := slices.BinarySearch(b, t); ok {
			out = append(out, t)
		}
	}
	return out
}

// share is the part of g that c holds, in [0, 1].
func share(c, g spans.Interval) float64 {
	if c.Doc != g.Doc || g.Len() == 0 {
		return 0
	}
	return float64(max(0, min(c.End, g.End)-max(c.Start, g.Start))) / float64(g.Len())
}

// duplicate is the first of the top k results (ids, best first) that is a
// hole for gold (spans.FindHoles, the judged coverage's one rule: a result
// no label judges whose text holds a near-copy of the passage, at least
// spans.HoleThreshold similar), or nil: the passage was returned
// elsewhere, a likely label gap rather than a miss.
func (d *missDiagnoser) duplicate(in cellInputs, qid string, ids []string, k int, gold spans.GoldText) *results.Duplicate {
	holes := d.ds.holeFinder(in).Find(qid, ids, k, d.ds.judgedSet(in.spans)[qid], []spans.GoldText{gold})
	if len(holes) == 0 {
		return nil
	}
	h := holes[0]
	return &results.Duplicate{ID: h.ID, Rank: h.Rank, Similarity: h.Similarity}
}

// spanCause is the first cause of results.Causes that applies to a
// diagnosis of a span miss at prompt_k.
func spanCause(dg *results.Diagnosis, covered bool) string {
	switch {
	case dg.Duplicate != nil:
		return results.CauseDuplicate
	case len(dg.Split) == 2:
		return results.CauseBoundarySplit
	case len(dg.SharedTerms) == 0:
		return results.CauseVocabulary
	case covered && dg.Dilution >= results.DilutionRatio:
		return results.CauseDiluted
	case dg.BestRank > 0:
		return results.CauseRankedBelowK
	}
	return results.CauseNotRetrieved
}

// diagnoseSpan diagnoses gold passage g of query qid, missed from the top
// k of the ranked chunks (ids, their intervals) of sc's chunking.
func (d *missDiagnoser) diagnoseSpan(in cellInputs, qid string, g spans.Interval, ids []string, ranked []spans.Interval, k int) *results.Diagnosis {
	sc := in.spans
	cover := d.cfg.Dataset.SpanCoverShare
	rankOf := make(map[string]int, len(ids))
	for i, id := range ids {
		rankOf[id] = i + 1
	}
	dg := &results.Diagnosis{Depth: d.cfg.Depth, QueryTerms: d.queryTerms(qid)}
	for i, c := range ranked {
		if spans.Covers(c, g, cover) {
			dg.BestRank = i + 1
			break
		}
	}
	chunks := d.chunksOf(sc).byDoc[g.Doc]
	best, bestShare := -1, 0.0
	for i, id := range chunks {
		if s := share(sc.ch.Intervals[id], g); s > bestShare {
			best, bestShare = i, s
		}
	}
	covered := false
	if best >= 0 {
		iv := sc.ch.Intervals[chunks[best]]
		dg.Cover = &results.ChunkShare{ID: chunks[best], Rank: rankOf[chunks[best]], Share: bestShare, Length: iv.Len()}
		if covered = spans.Covers(iv, g, cover); covered && g.Len() > 0 {
			dg.Dilution = float64(iv.Len()) / float64(g.Len())
		}
	}
	if !covered {
		// Boundary split: the adjacent pair holding the most of g.
		pair, pairShare := -1, 0.0
		for i := 0; i+1 < len(chunks); i++ {
			a, b := sc.ch.Intervals[chunks[i]], sc.ch.Intervals[chunks[i+1]]
			if share(a, g) == 0 || share(b, g) == 0 {
				continue
			}
			// |a∩g ∪ b∩g| = |a∩g| + |b∩g| − |a∩b∩g| (overlapping chunks).
			both := max(0, min(a.End, b.End, g.End)-max(a.Start, b.Start, g.Start))
			if s := share(a, g) + share(b, g) - float64(both)/float64(g.Len()); s > pairShare {
				pair, pairShare = i, s
			}
		}
		if pair >= 0 {
			for _, id := range chunks[pair : pair+2] {
				iv := sc.ch.Intervals[id]
				dg.Split = append(dg.Split, results.ChunkShare{ID: id, Rank: rankOf[id], Share: share(iv, g), Length: iv.Len()})
			}
			dg.SplitShare = pairShare
		}
	}
	gtext := d.text(g)
	pterms := termSet(gtext)
	dg.SharedTerms = sharedTerms(dg.QueryTerms, pterms)
	dg.PassageTermCount = len(pterms)
	if len(dg.SharedTerms) == 0 {
		dg.PassageTerms = pterms[:min(len(pterms), results.MaxTerms)]
	}
	dg.Duplicate = d.duplicate(in, qid, ids, k, spans.GoldText{Label: fmt.Sprintf("%s [%d, %d)", g.Doc, g.Start, g.End), Text: gtext})
	dg.Cause = spanCause(dg, covered)
	return dg
}

// diagnoseSpanMisses fills each span miss row of cr with its diagnosis
// (the member of a group of alternatives found best, else its first) and
// its snippets, and counts the causes.
func (d *missDiagnoser) diagnoseSpanMisses(ctx context.Context, in cellInputs, cr *results.CellResult) error {
	sc := in.spans
	byQuery := map[string][]spans.Query{}
	for _, q := range d.ds.spanQueries {
		byQuery[q.ID] = append(byQuery[q.ID], q)
	}
	rankedOf := map[string][2]any{}
	for i := range cr.SpanMisses {
		if err := ctx.Err(); err != nil {
			return err
		}
		m := &cr.SpanMisses[i]
		rk, ok := rankedOf[m.QueryID]
		if !ok {
			l := slices.Clone(in.run[m.QueryID])
			eval.Sort(l, eval.TieDocIDDesc)
			ids := make([]string, 0, len(l))
			ivs := make([]spans.Interval, 0, len(l))
			for _, r := range l {
				iv, ok := sc.ch.Intervals[r.DocID]
				if !ok {
					return fmt.Errorf("misses: query %q: chunk %q is not a chunk of this chunking", m.QueryID, r.DocID)
				}
				ids, ivs = append(ids, r.DocID), append(ivs, iv)
			}
			rk = [2]any{ids, ivs}
			rankedOf[m.QueryID] = rk
		}
		ids, ranked := rk[0].([]string), rk[1].([]spans.Interval)
		g := spans.Interval{Doc: m.Doc, Start: m.Start, End: m.End}
		dg := d.diagnoseSpan(in, m.QueryID, g, ids, ranked, d.cfg.PromptK)
		for _, alt := range d.alternatives(byQuery[m.QueryID], m) {
			if a := d.diagnoseSpan(in, m.QueryID, alt, ids, ranked, d.cfg.PromptK); a.BestRank > 0 && (dg.BestRank == 0 || a.BestRank < dg.BestRank) {
				dg = a
			}
		}
		m.Diagnosis = dg
		qterms := dg.QueryTerms
		m.TextMarks = termMarks(m.Text, qterms)
		for j := range m.Returned {
			h := &m.Returned[j]
			iv := ranked[h.Rank-1]
			text := d.text(iv)
			var gold [][2]int
			if iv.Doc == g.Doc && iv.Start < g.End && g.Start < iv.End {
				gold = append(gold, [2]int{max(iv.Start, g.Start) - iv.Start, min(iv.End, g.End) - iv.Start})
			}
			h.Snippet, h.Marks = markedSnippet(text, d.cfg.Snippet, gold, termRanges(text, qterms))
		}
	}
	cr.MissCauses = d.count(results.LabelsSpans, cr)
	return nil
}

// alternatives are the other members of m's passage when it is a group
// (the row's Span is its first member).
func (d *missDiagnoser) alternatives(qs []spans.Query, m *results.SpanMiss) []spans.Interval {
	var out []spans.Interval
	for _, q := range qs {
		for _, members := range q.Passages() {
			if len(members) < 2 || members[0] != (spans.Interval{Doc: m.Doc, Start: m.Start, End: m.End}) {
				continue
			}
			out = append(out, members[1:]...)
		}
	}
	return out
}

// itemText is the text of a retrieved or gold item of id labels: a chunk's
// indexed text, or a document's title and text.
func (d *missDiagnoser) itemText(id string, in cellInputs) string {
	tx := d.ds.texts
	if i, ok := in.chunkByID.Get(id); ok && in.chunks.ID(i) != in.chunks.At(i).DocID {
		c := in.chunks.At(i)
		c.Title, c.Text = tx.Detach(c.Title), tx.Detach(c.Text)
		return c.IndexText()
	}
	if i, ok := d.ds.docByID.Get(id); ok {
		doc := d.ds.docs[i]
		return strings.TrimSpace(tx.Detach(doc.Title) + " " + tx.Detach(doc.Text))
	}
	return ""
}

// diagnoseDocMisses fills each missing gold id of cr's miss rows (id
// labels) with its diagnosis and the rows' snippets, and counts the
// causes. Boundary split and dilution do not apply: the label names the
// item itself.
func (d *missDiagnoser) diagnoseDocMisses(ctx context.Context, in cellInputs, cr *results.CellResult) error {
	for i := range cr.Misses {
		if err := ctx.Err(); err != nil {
			return err
		}
		m := &cr.Misses[i]
		qterms := d.queryTerms(m.QueryID)
		l := slices.Clone(in.run[m.QueryID])
		kinds.SortResults(l)
		for j := range m.Missing {
			g := &m.Missing[j]
			gtext := d.itemText(g.ID, in)
			dg := &results.Diagnosis{BestRank: g.Rank, Depth: d.cfg.Depth, QueryTerms: qterms}
			pterms := termSet(gtext)
			dg.SharedTerms = sharedTerms(qterms, pterms)
			dg.PassageTermCount = len(pterms)
			if len(dg.SharedTerms) == 0 {
				dg.PassageTerms = pterms[:min(len(pterms), results.MaxTerms)]
			}
			ids := make([]string, len(l))
			for i, r := range l {
				ids[i] = r.DocID
			}
			dg.Duplicate = d.duplicate(in, m.QueryID, ids, d.cfg.PromptK, spans.GoldText{Label: g.ID, Text: d.ds.fullText(g.ID, in.chunkByID, in.chunks)})
			switch {
			case dg.Duplicate != nil:
				dg.Cause = results.CauseDuplicate
			case len(dg.SharedTerms) == 0:
				dg.Cause = results.CauseVocabulary
			case dg.BestRank > 0:
				dg.Cause = results.CauseRankedBelowK
			default:
				dg.Cause = results.CauseNotRetrieved
			}
			g.Diagnosis = dg
			g.Snippet, g.Marks = markedSnippet(gtext, d.cfg.Snippet, nil, termRanges(gtext, qterms))
		}
		for j := range m.Returned {
			h := &m.Returned[j]
			text := d.itemText(h.ID, in)
			h.Snippet, h.Marks = markedSnippet(text, d.cfg.Snippet, nil, termRanges(text, qterms))
		}
	}
	cr.MissCauses = d.count("", cr)
	return nil
}

// idCauses are the causes that apply to id labels.
var idCauses = []string{results.CauseDuplicate, results.CauseVocabulary, results.CauseRankedBelowK, results.CauseNotRetrieved}

// count is cr's misses by cause, over all queries and per slice.
func (d *missDiagnoser) count(labels string, cr *results.CellResult) *results.MissCauses {
	causes, unit := idCauses, "gold id"
	if labels == results.LabelsSpans {
		causes, unit = results.Causes, "gold passage"
	}
	mc := &results.MissCauses{Unit: unit, All: map[string]int{}}
	for _, c := range causes {
		mc.All[c] = 0
	}
	labelled := false
	for _, id := range d.ds.sortedIDs() {
		labelled = labelled || d.ds.slice[id] != ""
	}
	add := func(qid, cause string) {
		mc.Missed++
		mc.All[cause]++
		if s := d.ds.sliceOf(qid, labelled); s != "" {
			if mc.Slices == nil {
				mc.Slices = map[string]map[string]int{}
			}
			if mc.Slices[s] == nil {
				mc.Slices[s] = map[string]int{}
				for _, c := range causes {
					mc.Slices[s][c] = 0
				}
			}
			mc.Slices[s][cause]++
		}
	}
	for _, m := range cr.SpanMisses {
		add(m.QueryID, m.Diagnosis.Cause)
	}
	for _, m := range cr.Misses {
		for _, g := range m.Missing {
			add(m.QueryID, g.Diagnosis.Cause)
		}
	}
	return mc
}

// diagnoseMisses diagnoses cr's misses (span or id labels). A cancelled
// ctx stops it between rows, with its error.
func (d *missDiagnoser) diagnoseMisses(ctx context.Context, in cellInputs, cr *results.CellResult) error {
	if in.spans != nil {
		return d.diagnoseSpanMisses(ctx, in, cr)
	}
	return d.diagnoseDocMisses(ctx, in, cr)
}
