package spans

import (
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
)

// Interval is the place of a chunk or a span: code points [Start, End) of
// document Doc. Lengths and overlaps of intervals are in code points, the
// unit of Chroma's measures ("tokens" in its report are characters).
type Interval struct {
	Doc        string
	Start, End int
}

// Len is the interval's length in code points.
func (iv Interval) Len() int { return iv.End - iv.Start }

// overlap is the length of iv ∩ o (0 for intervals of different documents).
func (iv Interval) overlap(o Interval) int {
	if iv.Doc != o.Doc {
		return 0
	}
	return max(0, min(iv.End, o.End)-max(iv.Start, o.Start))
}

// touches is Chroma's intersect_two_ranges(...) is not None: the intervals
// overlap or meet (one ends where the other starts).
func (iv Interval) touches(o Interval) bool {
	return iv.Doc == o.Doc && max(iv.Start, o.Start) <= min(iv.End, o.End)
}

// Interval is the span's place.
func (s Span) Interval() Interval { return Interval{Doc: s.Doc, Start: s.Start, End: s.End} }

// Chunking is one chunking of a corpus as the span measures see it: each
// chunk's interval, by chunk id, and the chunks in corpus order.
type Chunking struct {
	IDs       []string            // chunk ids in corpus.Spec.Chunk's order
	Intervals map[string]Interval // chunk id → code-point interval
}

// NewChunking converts chunks (corpus.Spec.Chunk of docs; byte offsets) to
// code-point intervals, with corpus.RuneIndex. A chunk whose document is
// not in docs, whose offsets fall inside a character or outside the text,
// or a chunk id given twice, is an error.
func NewChunking(docs []corpus.Document, chunks corpus.Chunks) (*Chunking, error) {
	text := make(map[string]string, len(docs))
	for _, d := range docs {
		text[d.ID] = d.Text
	}
	idx := corpus.RuneIndexes{}
	c := &Chunking{IDs: make([]string, 0, chunks.Len()), Intervals: make(map[string]Interval, chunks.Len())}
	for _, ch := range chunks.All() {
		t, ok := text[ch.DocID]
		if !ok {
			return nil, fmt.Errorf("chunk %q: no document %q", ch.ID, ch.DocID)
		}
		x := idx.Of(ch.DocID, t)
		s, err := x.RuneOffset(ch.Start)
		if err != nil {
			return nil, fmt.Errorf("chunk %q: start: %w", ch.ID, err)
		}
		e, err := x.RuneOffset(ch.End)
		if err != nil {
			return nil, fmt.Errorf("chunk %q: end: %w", ch.ID, err)
		}
		if _, dup := c.Intervals[ch.ID]; dup {
			return nil, fmt.Errorf("chunk id %q given twice", ch.ID)
		}
		c.IDs = append(c.IDs, ch.ID)
		c.Intervals[ch.ID] = Interval{Doc: ch.DocID, Start: s, End: e}
	}
	return c, nil
}

// unionLen is the length of the union of ivs (merged per document, so no
// character counts twice).
func unionLen(ivs []Interval) int {
	s := slices.Clone(ivs)
	sort.Slice(s, func(i, j int) bool {
		if s[i].Doc != s[j].Doc {
			return s[i].Doc < s[j].Doc
		}
		return s[i].Start < s[j].Start
	})
	n := 0
	for i := 0; i < len(s); {
		cur := s[i]
		j := i + 1
		for ; j < len(s) && s[j].Doc == cur.Doc && s[j].Start <= cur.End; j++ {
			cur.End = max(cur.End, s[j].End)
		}
		n += max(0, cur.Len())
		i = j
	}
	return n
}

func sumLen(ivs []Interval) int {
	n := 0
	for _, iv := range ivs {
		n += iv.Len()
	}
	return n
}

// intersections are the non-empty Ci ∩ Gj.
func intersections(chunks, gold []Interval) []Interval {
	var out []Interval
	for _, c := range chunks {
		for _, g := range gold {
			if c.overlap(g) > 0 {
				out = append(out, Interval{Doc: c.Doc, Start: max(c.Start, g.Start), End: min(c.End, g.End)})
			}
		}
	}
	return out
}

// TokenScores are Chroma's token-level measures of one query (fractions in
// [0, 1]).
type TokenScores struct {
	Recall, Precision, IoU float64
}

// Token computes Chroma's token-level measures for gold spans G and
// retrieved chunks C (the top k, in any order), as defined in "Evaluating
// Chunking Strategies for Retrieval" (Smith & Troynikov, Chroma, 2024) and
// its code (chunking_evaluation, base_evaluation.py), all lengths in code
// points:
//
//	I = ∪ (Ci ∩ Gj), merged so that no character counts twice
//	recall = |I| / Σ|Gj|    precision = |I| / Σ|Ci|
//	IoU = |I| / (Σ|Gj| + Σ|Ci| − |I|)
//
// The sums are not merged: overlapping chunks count their shared text
// twice, as in Chroma's code. A zero denominator gives 0. (Chroma's code
// writes IoU's denominator as Σ|Ci| + Σ|Gj \ ∪Ci|, the same unless gold
// spans of one query overlap each other; ragbench follows the formula, which
// the published reference reproduces.)
func Token(gold, chunks []Interval) TokenScores {
	inter := unionLen(intersections(chunks, gold))
	g, c := sumLen(gold), sumLen(chunks)
	var s TokenScores
	if g > 0 {
		s.Recall = float64(inter) / float64(g)
	}
	if c > 0 {
		s.Precision = float64(inter) / float64(c)
	}
	if d := g + c - inter; d > 0 {
		s.IoU = float64(inter) / float64(d)
	}
	return s
}

// PrecisionOmega is Chroma's precision Ω of one query: the token precision
// of retrieving exactly the chunks that hold gold text, i.e. the best
// precision a retriever can reach at full recall with this chunking
// (chunking_evaluation, base_evaluation.py _full_precision_score):
//
//	H = the chunks of the chunking that meet some Gj (overlap, or end where
//	    it starts: Chroma's intersect_two_ranges)
//	Ω = |∪ (Hi ∩ Gj)| / |∪ Hi ∪ ∪ Gj|, both unions merged
//
// 0 when no chunk holds gold text. all is every chunk of the chunking.
func PrecisionOmega(gold []Interval, all []Interval) float64 {
	var hit []Interval
	for _, c := range all {
		for _, g := range gold {
			if c.touches(g) {
				hit = append(hit, c)
				break
			}
		}
	}
	inter := unionLen(intersections(hit, gold))
	if inter == 0 {
		return 0
	}
	return float64(inter) / float64(unionLen(append(hit, gold...)))
}

// DefaultCoverShare is the default of Options.CoverShare: a chunk covers a
// gold span when it holds at least half of it. Half is the largest share
// every chunking can reach for a span cut once by a chunk boundary (one side
// holds at least half), so no chunking is penalised for where its boundaries
// happen to fall; and a chunk that merely touches or clips a span does not
// find it, so large chunks do not win by construction.
const DefaultCoverShare = 0.5

// Covers reports whether chunk c holds at least share (in (0, 1]) of gold
// span g: |c ∩ g| ≥ share · |g|.
func Covers(c, g Interval, share float64) bool {
	n := c.overlap(g)
	return n > 0 && float64(n) >= share*float64(g.Len())
}

// Options configure Evaluate.
type Options struct {
	// Ks are the cutoffs (each ≥ 1): every @k measure is computed at each.
	Ks []int
	// CoverShare is the share of a gold span a chunk must hold to cover it,
	// in (0, 1]; DefaultCoverShare is the usual value. 0 is an error, not
	// the default.
	CoverShare float64
	// TieBreak orders equal scores of the run (eval.Sort).
	TieBreak eval.TieBreak
}

// Measure names of Evaluate, at cutoff k: MeasureName(TokenRecall, 5) is
// "token_recall@5". PrecisionOmegaName has no cutoff.
const (
	TokenRecall    = "token_recall"    // Token().Recall of the top k
	TokenPrecision = "token_precision" // Token().Precision of the top k
	TokenIoU       = "token_iou"       // Token().IoU of the top k
	SpanRecall     = "span_recall"     // share of the gold spans covered by a chunk of the top k
	SpanHitRate    = "span_hit_rate"   // 1 when a chunk of the top k covers some gold span, else 0
	SpanMRR        = "span_mrr"        // 1/rank of the first chunk covering a gold span within the top k, else 0

	PrecisionOmegaName = "precision_omega" // PrecisionOmega, independent of the run
)

// AtK lists the families Evaluate computes at every k, in output order.
var AtK = []string{TokenRecall, TokenPrecision, TokenIoU, SpanRecall, SpanHitRate, SpanMRR}

// MeasureName is family@k.
func MeasureName(family string, k int) string { return family + "@" + strconv.Itoa(k) }

// Evaluation holds per-query values of the span measures of one run.
type Evaluation struct {
	// Measures are the names, PrecisionOmegaName then AtK × Ks (family
	// outer, k inner).
	Measures []string
	// Queries are the ids of the queries averaged (those with at least one
	// gold span), in label order.
	Queries []string
	// Values[m][i] is measure Measures[m] of query Queries[i].
	Values [][]float64
	// Unanswerable are the ids of queries with no gold span: not averaged,
	// as eval counts them apart.
	Unanswerable []string
	// MissingFromRun are answerable queries the run has no results for
	// (scored 0).
	MissingFromRun []string
}

// Mean is the mean of measure name over Queries (0 when there is none), and
// whether name is a measure of e.
func (e *Evaluation) Mean(name string) (float64, bool) {
	i := slices.Index(e.Measures, name)
	if i < 0 {
		return 0, false
	}
	if len(e.Queries) == 0 {
		return 0, true
	}
	s := 0.0
	for _, v := range e.Values[i] {
		s += v
	}
	return s / float64(len(e.Queries)), true
}

// PerQuery returns query id → measure → value.
func (e *Evaluation) PerQuery() map[string]map[string]float64 {
	out := make(map[string]map[string]float64, len(e.Queries))
	for qi, q := range e.Queries {
		m := make(map[string]float64, len(e.Measures))
		for mi, name := range e.Measures {
			m[name] = e.Values[mi][qi]
		}
		out[q] = m
	}
	return out
}

// Evaluate scores run (query id → ranked chunk ids of chunking ch) against
// span labels: for each query with gold spans, the run's results are sorted
// by score (eval.Sort, opt.TieBreak) and cut at each k of opt.Ks, then
// Token, Covers-based span_recall, span_hit_rate and span_mrr, and
// PrecisionOmega over all of ch's chunks are computed; means are over those
// queries (Evaluation.Mean). Run queries without labels are ignored.
//
// A group of alternatives (Span.Group) counts as one gold passage
// (Query.Passages), found when any member is: span_recall counts passages,
// span_mrr takes the first chunk covering any member. For the token
// measures at k the group stands for its member holding the most code
// points of the top k chunks (the first listed on a tie), and for
// precision Ω for its member of highest Ω alone (the first on a tie), so
// an answer given twice is neither required twice nor rewarded twice.
// docs/spans.md works an example by hand.
//
// Errors: no k, a k < 1, CoverShare outside (0, 1], a run result naming a
// chunk id that is not in ch (chunk ids of another chunking).
func Evaluate(queries []Query, ch *Chunking, run eval.Run, opt Options) (*Evaluation, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	e := &Evaluation{Measures: []string{PrecisionOmegaName}}
	for _, f := range AtK {
		for _, k := range opt.Ks {
			e.Measures = append(e.Measures, MeasureName(f, k))
		}
	}
	e.Values = make([][]float64, len(e.Measures))
	all := make([]Interval, len(ch.IDs))
	for i, id := range ch.IDs {
		all[i] = ch.Intervals[id]
	}
	for _, q := range queries {
		if len(q.Gold) == 0 {
			e.Unanswerable = append(e.Unanswerable, q.ID)
			continue
		}
		if _, ok := run[q.ID]; !ok {
			e.MissingFromRun = append(e.MissingFromRun, q.ID)
		}
		_, ranked, err := rank(q.ID, ch, run, opt.TieBreak)
		if err != nil {
			return nil, err
		}
		e.Queries = append(e.Queries, q.ID)
		for m, v := range queryValues(q.Passages(), ranked, all, opt) {
			e.Values[m] = append(e.Values[m], v)
		}
	}
	return e, nil
}

// queryValues are one query's values of Evaluate's measures, in its
// Measures order, for its gold passages and its ranked chunks.
func queryValues(passages [][]Interval, ranked, all []Interval, opt Options) []float64 {
	nk := len(opt.Ks)
	vals := make([]float64, 1+len(AtK)*nk)
	vals[0] = PrecisionOmega(bestForOmega(passages, all), all)
	for ki, k := range opt.Ks {
		for fi, v := range promptValues(passages, ranked[:min(k, len(ranked))], opt.CoverShare) {
			vals[1+fi*nk+ki] = v
		}
	}
	return vals
}

// promptValues are the AtK measures, in AtK's order, of one query whose
// prompt holds the chunks top (best first): Token of the passages' members
// most retrieved, the share of passages a chunk of top covers, and the hit
// and reciprocal rank of the first chunk covering any passage.
func promptValues(passages [][]Interval, top []Interval, share float64) []float64 {
	ts := Token(mostRetrieved(passages, top), top)
	covered, first := 0, 0
	for _, members := range passages {
		for i, c := range top {
			if slices.ContainsFunc(members, func(g Interval) bool { return Covers(c, g, share) }) {
				covered++
				if first == 0 || i+1 < first {
					first = i + 1
				}
				break
			}
		}
	}
	at := []float64{ts.Recall, ts.Precision, ts.IoU, float64(covered) / float64(len(passages)), 0, 0}
	if first > 0 {
		at[4], at[5] = 1, 1/float64(first)
	}
	return at
}

// mostRetrieved picks one member of each passage: the one holding the most
// code points of the chunks top (the first listed on a tie).
func mostRetrieved(passages [][]Interval, top []Interval) []Interval {
	return pickMembers(passages, func(g Interval) float64 { return float64(unionLen(intersections(top, []Interval{g}))) })
}

// bestForOmega picks one member of each passage: the one of highest
// precision Ω alone over the chunks all (the first listed on a tie).
func bestForOmega(passages [][]Interval, all []Interval) []Interval {
	return pickMembers(passages, func(g Interval) float64 { return PrecisionOmega([]Interval{g}, all) })
}

// pickMembers picks the member of each passage of highest score (the first
// listed on a tie; a passage of one member without scoring it).
func pickMembers(passages [][]Interval, score func(Interval) float64) []Interval {
	out := make([]Interval, len(passages))
	for j, members := range passages {
		out[j] = members[0]
		if len(members) == 1 {
			continue
		}
		best := score(members[0])
		for _, g := range members[1:] {
			if s := score(g); s > best {
				best, out[j] = s, g
			}
		}
	}
	return out
}

func (opt Options) check() error {
	if len(opt.Ks) == 0 {
		return fmt.Errorf("span measures: no cutoff k given")
	}
	for _, k := range opt.Ks {
		if k < 1 {
			return fmt.Errorf("span measures: cutoff k must be ≥ 1, got %d", k)
		}
	}
	if !(opt.CoverShare > 0 && opt.CoverShare <= 1) {
		return fmt.Errorf("span measures: cover share must be in (0, 1], got %v (the usual value is %v)", opt.CoverShare, DefaultCoverShare)
	}
	return nil
}

// eachAnswerable calls f, in label order, with every query that has gold
// spans and its ranking in run (rank); a chunk id not in ch stops it with
// rank's error.
func eachAnswerable(queries []Query, ch *Chunking, run eval.Run, tb eval.TieBreak, f func(q Query, ids []string, ranked []Interval)) error {
	for _, q := range queries {
		if len(q.Gold) == 0 {
			continue
		}
		ids, ranked, err := rank(q.ID, ch, run, tb)
		if err != nil {
			return err
		}
		f(q, ids, ranked)
	}
	return nil
}

// rank returns query qid's results in run sorted by score (eval.Sort, tb),
// as chunk ids and their intervals in ch. A chunk id not in ch is an error.
func rank(qid string, ch *Chunking, run eval.Run, tb eval.TieBreak) ([]string, []Interval, error) {
	res := slices.Clone(run[qid])
	eval.Sort(res, tb)
	ids := make([]string, len(res))
	ranked := make([]Interval, len(res))
	for i, r := range res {
		iv, ok := ch.Intervals[r.DocID]
		if !ok {
			return nil, nil, fmt.Errorf("span measures: query %q: the run names chunk %q, which is not a chunk of this chunking", qid, r.DocID)
		}
		ids[i], ranked[i] = r.DocID, iv
	}
	return ids, ranked, nil
}

// Uncoverable is a gold span no chunk of a chunking covers (at the cover
// share used): no retriever can find it, whatever it ranks.
type Uncoverable struct {
	Query string
	Span  Span
}

// Judgements derives chunk-level judgements for chunking ch from span
// labels: a chunk is relevant to a query when it covers (Covers, share) one
// of the query's gold spans, with the highest grade among the spans it
// covers; a chunk covering only passages judged not relevant
// (Query.NonRelevant) is judged with grade 0. Every query is present: one
// with no gold span has a map of no relevant chunk (eval's unanswerable).
// eval's trec_eval measures (nDCG, MAP, P, recall) then apply at chunk
// level; note that chunk-level recall counts relevant chunks, not spans
// (span_recall counts spans). Gold spans no chunk covers are returned
// apart (a group of alternatives once, when no member is covered): a query
// all of whose spans are uncoverable would have no relevant chunk, and eval
// would count it as unanswerable, so the caller must report them.
//
// Errors: share outside (0, 1]; a query with alternatives (Span.Group),
// whose judgements depend on the run: RunJudgements derives them.
func Judgements(queries []Query, ch *Chunking, share float64) (eval.Qrels, []Uncoverable, error) {
	if err := checkShare(share); err != nil {
		return nil, nil, err
	}
	if id, ok := hasGroups(queries); ok {
		return nil, nil, fmt.Errorf("span judgements: query %q gives alternatives (any_of), whose chunk judgements depend on the run: derive them per run (spans.RunJudgements)", id)
	}
	byDoc := chunksByDoc(ch)
	qrels := eval.Qrels{}
	var un []Uncoverable
	for _, q := range queries {
		m := map[string]int{}
		for _, g := range q.Gold {
			if !judge(m, ch, byDoc[g.Doc], g, share) {
				un = append(un, Uncoverable{Query: q.ID, Span: g})
			}
		}
		judgeNonRelevant(m, ch, byDoc, q.NonRelevant, share)
		qrels[q.ID] = m
	}
	return qrels, un, nil
}

// UncoverablePassages lists the gold passages of queries that no chunk of ch covers
// (Covers, share): a required span, or a group of alternatives none of
// whose members is covered (listed by its first member). share outside
// (0, 1] is an error.
func UncoverablePassages(queries []Query, ch *Chunking, share float64) ([]Uncoverable, error) {
	if err := checkShare(share); err != nil {
		return nil, err
	}
	byDoc := chunksByDoc(ch)
	var un []Uncoverable
	for _, q := range queries {
		for _, members := range q.passageSpans() {
			if !slices.ContainsFunc(members, func(g Span) bool { return judge(map[string]int{}, ch, byDoc[g.Doc], g, share) }) {
				un = append(un, Uncoverable{Query: q.ID, Span: members[0]})
			}
		}
	}
	return un, nil
}

// checkShare refuses a cover share outside (0, 1].
func checkShare(share float64) error {
	if !(share > 0 && share <= 1) {
		return fmt.Errorf("span judgements: cover share must be in (0, 1], got %v", share)
	}
	return nil
}
