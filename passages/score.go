package passages

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/spans"
)

// NoDoc is the document of an unmapped passage's interval in a Scored
// chunking: no corpus document has this id (doc ids are non-empty file
// paths), so the interval meets no gold span while its length counts.
const NoDoc = "\x00unmapped"

// Scored is a passage run as the span and chunk-level measures see it.
type Scored struct {
	// Chunking holds every distinct passage of the run by its id:
	// "doc@start-end" (code points) for a placed passage, "unmapped@"
	// and 12 hex digits of the SHA-256 of its text for an unmapped one
	// (interval [0, length) of NoDoc). A passage returned twice for one
	// query takes a second id, "…~2", with the same interval: it takes
	// two ranks and counts twice in Σ|Ci|, as two copies in a prompt do.
	Chunking *spans.Chunking
	// Run is qid → passage ids in rank order with strictly decreasing
	// scores: the run's own scores, equal ones separated by the smallest
	// float64 step (math.Nextafter) so that every tie order of ragbench
	// (eval.TieDocIDDesc, eval.TieInputOrder) gives the rank order; a
	// query without scores gets n, n−1, …, 1.
	Run eval.Run
	// Chunks are the distinct passages as corpus chunks (byte offsets of
	// their document, their text; an unmapped one with DocID "" and its
	// text), for snippets.
	Chunks []corpus.Chunk
	// Doc maps a passage id to its document ("" for an unmapped one).
	Doc map[string]string
}

// DocOf is the document of passage id ("" for an unmapped one or an
// unknown id).
func (s *Scored) DocOf(id string) string { return s.Doc[id] }

// Scored converts r for scoring over docs (the corpus r was placed in).
// Errors: a passage whose document docs lack, or scores so close to
// −MaxFloat64 that separating ties would leave the finite numbers.
func (r *Run) Scored(docs []corpus.Document) (*Scored, error) {
	text := make(corpus.RuneIndexes, len(docs))
	byID := make(map[string]string, len(docs))
	for _, d := range docs {
		byID[d.ID] = d.Text
	}
	s := &Scored{Chunking: &spans.Chunking{Intervals: map[string]spans.Interval{}}, Run: make(eval.Run, len(r.Queries)), Doc: map[string]string{}}
	for _, q := range r.Queries {
		seen := map[string]int{}
		res := make([]eval.Result, len(q.Passages))
		prev := math.Inf(1)
		for i, p := range q.Passages {
			base := passageID(p)
			seen[base]++
			id := base
			if n := seen[base]; n > 1 {
				id = base + "~" + strconv.Itoa(n)
			}
			if _, known := s.Chunking.Intervals[id]; !known {
				ch, err := p.chunk(id, byID, text)
				if err != nil {
					return nil, fmt.Errorf("%s: query %q: %w", r.Name, q.ID, err)
				}
				s.Chunking.IDs = append(s.Chunking.IDs, id)
				s.Chunking.Intervals[id] = p.interval()
				s.Chunks = append(s.Chunks, ch)
				s.Doc[id] = p.Doc
			}
			score := float64(len(q.Passages) - i)
			if p.HasScore {
				score = p.Score
				if score >= prev {
					score = math.Nextafter(prev, math.Inf(-1))
				}
				if math.IsInf(score, 0) {
					return nil, fmt.Errorf("%s: query %q: scores too close to the lowest float64 to keep %d ties apart", r.Name, q.ID, len(q.Passages))
				}
			}
			prev = score
			res[i] = eval.Result{DocID: id, Score: score}
		}
		s.Run[q.ID] = res
	}
	return s, nil
}

// passageID is a passage's id in a Scored chunking (before repeats are
// numbered).
func passageID(p Passage) string {
	if p.Placing.Unmapped() {
		h := sha256.Sum256([]byte(p.Text))
		return "unmapped@" + hex.EncodeToString(h[:6])
	}
	return p.Doc + "@" + strconv.Itoa(p.Start) + "-" + strconv.Itoa(p.End)
}

// interval is the passage's interval (NoDoc's [0, Length) when unmapped).
func (p Passage) interval() spans.Interval {
	if p.Placing.Unmapped() {
		return spans.Interval{Doc: NoDoc, Start: 0, End: p.Length}
	}
	return spans.Interval{Doc: p.Doc, Start: p.Start, End: p.End}
}

// chunk is the passage as a corpus chunk of id: byte offsets and text of
// its document (an unmapped one: DocID "", its own text).
func (p Passage) chunk(id string, docs map[string]string, idx corpus.RuneIndexes) (corpus.Chunk, error) {
	if p.Placing.Unmapped() {
		return corpus.Chunk{ID: id, Text: p.Text}, nil
	}
	t, ok := docs[p.Doc]
	if !ok {
		return corpus.Chunk{}, fmt.Errorf("passage of document %q, which the corpus lacks", p.Doc)
	}
	x := idx.Of(p.Doc, t)
	b0, err := x.ByteOffset(p.Start)
	if err != nil {
		return corpus.Chunk{}, err
	}
	b1, err := x.ByteOffset(p.End)
	if err != nil {
		return corpus.Chunk{}, err
	}
	return corpus.Chunk{ID: id, DocID: p.Doc, Start: b0, End: b1, Text: t[b0:b1]}, nil
}

// notRetrieved is the qrels id standing for gold passage j of a query
// that no retrieved passage found: relevant, never retrieved, so that R
// counts it.
func notRetrieved(j int) string { return "gold-passage-" + strconv.Itoa(j+1) + "-not-retrieved" }

// Judgements derives the chunk-level judgements of a passage run from span
// labels, with spans.Covers' rule (a passage covers a gold span when it
// holds at least share of it, share in (0, 1]) and the span-level ideal:
// each of a query's gold passages (a required span, or a group of
// alternatives counted once: spans.Query.Passages) is one relevant item,
// so R is the number of gold passages. Walking the ranked passages best
// first, a passage covering gold passages not found yet is relevant with
// the grade of one of them (the highest; the first listed on a tie), which
// is then found; a passage covering only passages found already (a second
// copy, an overlapping chunk, another alternative) adds nothing new and is
// left unjudged, as an unlabelled chunk is; one covering a passage judged
// not relevant (grade 0) is judged 0. Gold passages that no passage found
// are judged relevant under an id no run retrieves (notRetrieved), so
// recall, MAP and nDCG's ideal list count them. An unmapped passage is
// never judged. Every query of queries is in the qrels (a query with no
// gold span has no relevant item: eval's unanswerable).
//
// A passage holding two short gold passages therefore counts for one at
// chunk level (span_recall counts both): chunk-level recall counts ranked
// items, span_recall passages. The passages of the sweep's own chunkings
// are judged by spans.Judgements instead, whose R counts the chunks
// covering gold spans; a pipeline's chunking is unknown beyond what it
// returned.
func (s *Scored) Judgements(queries []spans.Query, share float64) (eval.Qrels, error) {
	if !(share > 0 && share <= 1) {
		return nil, fmt.Errorf("passage judgements: cover share must be in (0, 1], got %v", share)
	}
	qrels := make(eval.Qrels, len(queries))
	for _, q := range queries {
		m := map[string]int{}
		passages := q.Passages()
		grade := make([][]int, len(passages))
		for j, members := range passages {
			for _, g := range members {
				grade[j] = append(grade[j], gradeOf(q, g))
			}
		}
		found := make([]bool, len(passages))
		for _, r := range s.Run[q.ID] {
			c := s.Chunking.Intervals[r.DocID]
			best, bestGrade := -1, 0
			for j, members := range passages {
				if found[j] {
					continue
				}
				for mi, g := range members {
					if spans.Covers(c, g, share) && grade[j][mi] > bestGrade {
						best, bestGrade = j, grade[j][mi]
					}
				}
			}
			if best >= 0 {
				found[best] = true
				m[r.DocID] = bestGrade
				continue
			}
			if slices.ContainsFunc(q.NonRelevant, func(g spans.Span) bool { return spans.Covers(c, g.Interval(), share) }) {
				if _, judged := m[r.DocID]; !judged {
					m[r.DocID] = 0
				}
			}
		}
		for j := range passages {
			if !found[j] {
				m[notRetrieved(j)] = grade[j][0]
			}
		}
		qrels[q.ID] = m
	}
	return qrels, nil
}

// gradeOf is the grade of gold span g of q (the highest when the same
// interval is labelled twice).
func gradeOf(q spans.Query, g spans.Interval) int {
	best := 0
	for _, sp := range q.Gold {
		if sp.Interval() == g {
			best = max(best, sp.Grade)
		}
	}
	return best
}

// ParseSpanMeasure reads a span measure name, family@k ("span_recall@10",
// "token_precision@5"; the families of spans.AtK, k ≥ 1), as
// spans.MeasureName writes it. ok is false for any other name.
func ParseSpanMeasure(name string) (family string, k int, ok bool) {
	for _, f := range spans.AtK {
		if rest, found := cutPrefix(name, f+"@"); found {
			n, err := strconv.Atoi(rest)
			if err != nil || n < 1 || strconv.Itoa(n) != rest {
				return "", 0, false
			}
			return f, n, true
		}
	}
	return "", 0, false
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return s, false
}

// Options configure Evaluate.
type Options struct {
	// Span are the span measures to compute, by name (ParseSpanMeasure),
	// in output order after the chunk-level measures.
	Span []string
	// CoverShare is the share of a gold span a passage must hold to cover
	// it, in (0, 1] (spans.DefaultCoverShare is the usual value; 0 is an
	// error, not the default).
	CoverShare float64
	// Eval are the options of the chunk-level measures (eval.Evaluate):
	// CompleteQueries, AverageUnanswerable, RelevanceLevel, MaxResults…
	// TieBreak does not matter: Scored's scores are strictly decreasing.
	Eval eval.Options
}

// Evaluate scores s against span labels: the chunk-level measures ms on
// s.Judgements (eval.Evaluate with opts.Eval), then the span measures
// opts.Span (spans.Evaluate on s.Chunking and s.Run), joined into one
// eval.Evaluation whose columns are ms then opts.Span, so that eval's
// writers (table, json, csv, trec), its slices and compare.FromEvaluation
// treat both alike. A span column's Measure has the span measure's name
// and Kind eval.P (a fraction, printed as one; nothing evaluates it
// again); its values of unanswerable queries (no gold span) are 0, and
// its means are over the queries the evaluation averages. Queries, the
// unanswerable and the missing are eval's (qrels hold every labelled
// query: see Judgements). Errors: no measure at all, a bad span name or
// cover share, eval's and spans' errors.
func Evaluate(queries []spans.Query, s *Scored, ms []eval.Measure, opts Options) (*eval.Evaluation, error) {
	if len(ms) == 0 && len(opts.Span) == 0 {
		return nil, fmt.Errorf("no measure given")
	}
	var ks []int
	for _, name := range opts.Span {
		_, k, ok := ParseSpanMeasure(name)
		if !ok {
			return nil, fmt.Errorf("%q is not a span measure (want one of %v at @k, k ≥ 1)", name, spans.AtK)
		}
		if !slices.Contains(ks, k) {
			ks = append(ks, k)
		}
	}
	qrels, err := s.Judgements(queries, opts.CoverShare)
	if err != nil {
		return nil, err
	}
	evalMs := ms
	if len(ms) == 0 {
		// eval.Evaluate needs a measure: num_ret, dropped below.
		evalMs, _ = eval.ParseMeasures([]string{"num_ret"})
	}
	eo := opts.Eval
	if eo.Labels == "" {
		eo.Labels = "labelled" // span labels, not qrels, in the warnings
	}
	e, err := eval.Evaluate(qrels, s.Run, evalMs, eo)
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		e.Measures = nil
		for i := range e.Values {
			e.Values[i] = nil
		}
		e.Means = nil
	}
	if len(opts.Span) == 0 {
		return e, nil
	}
	sev, err := spans.Evaluate(queries, s.Chunking, s.Run, spans.Options{Ks: ks, CoverShare: opts.CoverShare, TieBreak: eval.TieInputOrder})
	if err != nil {
		return nil, err
	}
	per := sev.PerQuery()
	for i := range e.Values {
		// eval's rows share one array: each grows into a copy of its own.
		e.Values[i] = slices.Clip(e.Values[i])
	}
	for _, name := range opts.Span {
		e.Measures = append(e.Measures, eval.Measure{Name: name, Kind: eval.P})
		sum, n := 0.0, 0
		for i, q := range e.Queries {
			v := per[q][name] // 0 for a query with no gold span
			e.Values[i] = append(e.Values[i], v)
			if e.InMean[i] {
				sum += v
				n++
			}
		}
		mean := math.NaN()
		if n > 0 {
			mean = sum / float64(n)
		}
		e.Means = append(e.Means, mean)
	}
	return e, nil
}
