package spans

import (
	"math"
	"slices"
	"sort"

	"github.com/ragbench/ragbench/eval"
)

// Meta returns each query's text and slice as eval.QueryMeta, so the span
// labels go through the same slicing and reporting as labelled-query JSONL.
func Meta(queries []Query) map[string]eval.QueryMeta {
	m := make(map[string]eval.QueryMeta, len(queries))
	for _, q := range queries {
		m[q.ID] = eval.QueryMeta{Text: q.Text, Slice: q.Slice}
	}
	return m
}

// SliceMeans groups e's queries by slice (meta, e.g. Meta(queries);
// unknown queries and empty slices go to slice "") and returns, per slice
// in byte order of names, eval.SliceMean values aligned with e.Measures:
// NumQ queries averaged, Rows those plus the slice's unanswerable queries,
// Means over the averaged ones (NaN when there is none). It returns nil
// when no query has a slice, as eval.Evaluation.SliceMeans does.
func (e *Evaluation) SliceMeans(meta map[string]eval.QueryMeta) []eval.SliceMean {
	in := map[string][]int{}
	rows := map[string]int{}
	has := false
	for i, q := range e.Queries {
		s := meta[q].Slice
		has = has || s != ""
		in[s] = append(in[s], i)
		rows[s]++
	}
	for _, q := range e.Unanswerable {
		s := meta[q].Slice
		has = has || s != ""
		rows[s]++
	}
	if !has {
		return nil
	}
	names := make([]string, 0, len(rows))
	for s := range rows {
		names = append(names, s)
	}
	sort.Strings(names)
	out := make([]eval.SliceMean, 0, len(names))
	for _, s := range names {
		sm := eval.SliceMean{Slice: s, NumQ: len(in[s]), Rows: rows[s], Means: make([]float64, len(e.Measures))}
		for m := range e.Measures {
			if sm.NumQ == 0 {
				sm.Means[m] = math.NaN()
				continue
			}
			sum := 0.0
			for _, i := range in[s] {
				sum += e.Values[m][i]
			}
			sm.Means[m] = sum / float64(sm.NumQ)
		}
		out = append(out, sm)
	}
	return out
}

// Miss is a gold passage that no chunk of a query's top k covers: for
// misses.jsonl, its text (Span.Text) beside the chunks that came back
// instead. A group of alternatives missed is one Miss: Span is its first
// member, Alternatives the others.
type Miss struct {
	Query        string
	Span         Span
	Alternatives []Span
	Retrieved    []string // the top-k chunk ids, best first
}

// Misses lists, for each query with gold spans, in label order, each gold
// passage (Query.Passages) not covered (Covers, opt.CoverShare) by any of
// the run's top k chunks (sorted as Evaluate sorts them). Errors as
// Evaluate's (k < 1, a cover share outside (0, 1], a chunk id not in ch).
func Misses(queries []Query, ch *Chunking, run eval.Run, k int, opt Options) ([]Miss, error) {
	opt.Ks = []int{k}
	if err := opt.check(); err != nil {
		return nil, err
	}
	var out []Miss
	err := eachAnswerable(queries, ch, run, opt.TieBreak, func(q Query, ids []string, ranked []Interval) {
		n := min(k, len(ids))
		for _, members := range q.passageSpans() {
			found := slices.ContainsFunc(members, func(g Span) bool {
				return slices.ContainsFunc(ranked[:n], func(c Interval) bool { return Covers(c, g.Interval(), opt.CoverShare) })
			})
			if !found {
				m := Miss{Query: q.ID, Span: members[0], Retrieved: slices.Clone(ids[:n])}
				if len(members) > 1 {
					m.Alternatives = slices.Clone(members[1:])
				}
				out = append(out, m)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
