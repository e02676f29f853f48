package spans

import (
	"slices"

	"github.com/ragbench/ragbench/eval"
)

// Passages groups the query's gold spans into the passages the span
// measures count: each required span (Group 0) alone, and each group of
// alternatives with all its members, in the order of their first span.
// An alternatives group counts once: found when any member is.
func (q Query) Passages() [][]Interval {
	spans := q.passageSpans()
	out := make([][]Interval, len(spans))
	for i, members := range spans {
		for _, g := range members {
			out[i] = append(out[i], g.Interval())
		}
	}
	return out
}

// passageSpans is Passages with the spans themselves.
func (q Query) passageSpans() [][]Span {
	var out [][]Span
	for _, slot := range eval.GoldSlots(len(q.Gold), func(i int) int { return q.Gold[i].Group }) {
		members := make([]Span, len(slot))
		for j, i := range slot {
			members[j] = q.Gold[i]
		}
		out = append(out, members)
	}
	return out
}

// hasGroups reports whether some query gives alternatives.
func hasGroups(queries []Query) (string, bool) {
	for _, q := range queries {
		for _, g := range q.Gold {
			if g.Group != 0 {
				return q.ID, true
			}
		}
	}
	return "", false
}

// RunJudgements derives the chunk-level judgements of one run for chunking
// ch (Judgements for every query without alternatives). A group of
// alternatives counts once at chunk level too: it stands for its
// representative member, the one covered by the best-ranked chunk of the
// run (sorted by eval.Sort with tb), or its first member when the run
// covers none; the chunks covering the representative are relevant with its
// grade, and those covering only other members of the group are left
// unjudged. So chunk-level recall's denominator and nDCG's ideal ranking
// count the group once, and a run that returns two alternatives is
// rewarded for one (the other counts as a chunk not relevant, as an
// unlabelled one does). docs/spans.md works an example by hand.
//
// Errors: share outside (0, 1]; a run result naming a chunk that is not in
// ch.
func RunJudgements(queries []Query, ch *Chunking, run eval.Run, share float64, tb eval.TieBreak) (eval.Qrels, error) {
	if err := checkShare(share); err != nil {
		return nil, err
	}
	byDoc := chunksByDoc(ch)
	qrels := eval.Qrels{}
	for _, q := range queries {
		_, ranked, err := rank(q.ID, ch, run, tb)
		if err != nil {
			return nil, err
		}
		m := map[string]int{}
		for _, members := range q.passageSpans() {
			rep := members[0]
			if len(members) > 1 {
				rep = representative(members, ranked, share)
			}
			judge(m, ch, byDoc[rep.Doc], rep, share)
		}
		judgeNonRelevant(m, ch, byDoc, q.NonRelevant, share)
		qrels[q.ID] = m
	}
	return qrels, nil
}

// representative is the member of a group covered by the best-ranked chunk
// of ranked, or the first member when none is covered.
func representative(members []Span, ranked []Interval, share float64) Span {
	for _, c := range ranked {
		if i := slices.IndexFunc(members, func(g Span) bool { return Covers(c, g.Interval(), share) }); i >= 0 {
			return members[i]
		}
	}
	return members[0]
}

// judge marks the chunks of ids covering g relevant with g's grade (the
// highest, when a chunk covers several); it reports whether any does.
func judge(m map[string]int, ch *Chunking, ids []string, g Span, share float64) bool {
	found := false
	for _, id := range ids {
		if Covers(ch.Intervals[id], g.Interval(), share) {
			found = true
			m[id] = max(m[id], g.Grade)
		}
	}
	return found
}

// judgeNonRelevant marks the chunks covering a passage judged not relevant
// with grade 0, unless they are judged already.
func judgeNonRelevant(m map[string]int, ch *Chunking, byDoc map[string][]string, spans []Span, share float64) {
	for _, g := range spans {
		for _, id := range byDoc[g.Doc] {
			if _, judged := m[id]; !judged && Covers(ch.Intervals[id], g.Interval(), share) {
				m[id] = 0
			}
		}
	}
}

func chunksByDoc(ch *Chunking) map[string][]string {
	byDoc := map[string][]string{}
	for _, id := range ch.IDs {
		d := ch.Intervals[id].Doc
		byDoc[d] = append(byDoc[d], id)
	}
	return byDoc
}
