package diagnose

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/plural"
)

// ThresholdOptions configures Threshold. The zero value is valid.
type ThresholdOptions struct {
	// Depth is how many top results count as "retrieved" when deciding
	// whether an answerable query has a gold doc to lose (≥ 1; 0 means
	// DefaultDepth; bench run passes its prompt_k).
	Depth int
	// Bins is the number of equal-width histogram bins (0 means 10).
	Bins int
}

// ScoreSummary describes the top-1 scores of one group of queries.
// Quantiles use linear interpolation between order statistics (Hyndman &
// Fan type 7, numpy's default): for sorted scores x[0..n-1] the p-quantile
// is x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]) with h = (n − 1)·p. All
// quantile fields are NaN when Scored is 0.
type ScoreSummary struct {
	Queries   int     // queries in the group (qrels queries of this kind)
	Scored    int     // queries with at least one result (the rest retrieved nothing)
	Min       float64 // smallest top-1 score
	P10       float64 // 10th percentile
	P25       float64 // 25th percentile
	Median    float64 // 50th percentile
	P75       float64 // 75th percentile
	P90       float64 // 90th percentile
	Max       float64 // largest top-1 score
	topScores []float64
}

// ThresholdPoint is the effect of one abstention threshold t: a query
// returns nothing when it has no result or its top-1 score is < t.
type ThresholdPoint struct {
	// Threshold is t, in the retriever's score units.
	Threshold float64
	// UnanswerableAbstained is the share (0..1) of unanswerable queries that
	// would correctly return nothing.
	UnanswerableAbstained float64
	// AnswerableLostGold is the share (0..1) of answerable queries that have
	// a gold doc in the top Depth but would return nothing: they lose their
	// gold. Answerable queries whose gold was not in the top Depth anyway lose
	// nothing and are not counted here.
	AnswerableLostGold float64
	// AnswerableAbstained is the share (0..1) of all answerable queries that
	// would return nothing (with or without a gold doc in the top Depth).
	AnswerableAbstained float64
	// J is Youden's J for this threshold: UnanswerableAbstained −
	// AnswerableLostGold, in [−1, 1]. The suggested threshold maximises it.
	J float64
}

// Histogram counts top-1 scores in equal-width bins. Bin i covers
// [Edges[i], Edges[i+1]); the last bin also holds Edges[len(Edges)-1].
type Histogram struct {
	Edges        []float64 `json:"edges"`        // len = bins + 1, ascending
	Answerable   []int     `json:"answerable"`   // per bin, answerable queries with results
	Unanswerable []int     `json:"unanswerable"` // per bin, unanswerable queries with results
}

// ThresholdReport is the result of Threshold for one run (one retriever).
type ThresholdReport struct {
	Depth        int          `json:"depth"`
	Answerable   ScoreSummary `json:"answerable"`   // queries with at least one judgement of grade > 0
	Unanswerable ScoreSummary `json:"unanswerable"` // qrels queries with no judgement of grade > 0
	Histogram    Histogram    `json:"histogram"`
	// Curve holds one point per distinct top-1 score observed, ascending by
	// threshold. Empty when there is no score at all.
	Curve []ThresholdPoint `json:"curve"`
	// Suggested is the point of Curve with the largest J, ties broken by the
	// lowest threshold; nil when either group has no query (no trade-off to
	// make) or no query has a result.
	Suggested *ThresholdPoint `json:"suggested"`
	// NotInQrels counts run queries absent from the qrels; they are left out.
	NotInQrels int `json:"not_in_qrels"`
	// Warnings explain a missing suggestion or left-out queries, one
	// sentence each.
	Warnings []string `json:"warnings"`
}

// Threshold compares the top-1 scores of unanswerable and answerable queries
// in run and suggests an abstention threshold.
//
// Groups: every query of qrels is answerable when it has a judgement with
// grade > 0, else unanswerable (an empty judgement map counts: add query ids
// that have no judgement line with WithQueries). A qrels query absent from
// run, or with an empty result list, has no top-1 score and always returns
// nothing. Run queries absent from qrels are counted in NotInQrels.
//
// Rule: the candidate thresholds are the distinct top-1 scores observed;
// at threshold t a query returns nothing when its top-1 score is < t (so
// t = the lowest candidate abstains only on queries without results). The
// suggestion maximises Youden's J = share of unanswerable queries returning
// nothing − share of answerable queries losing a gold doc from the top
// Depth, i.e. the balanced accuracy (J+1)/2 of the "should this query get
// an answer" decision where an answerable query without gold in the top
// Depth is not hurt by abstaining; ties go to the lower threshold (fewer
// answerable queries silenced).
//
// Errors: Depth < 0, Bins < 0, a NaN or infinite score in run.
func Threshold(run eval.Run, qrels eval.Qrels, opt ThresholdOptions) (*ThresholdReport, error) {
	depth, bins := opt.Depth, opt.Bins
	if depth < 0 {
		return nil, fmt.Errorf("diagnose: depth %d < 0", depth)
	}
	if bins < 0 {
		return nil, fmt.Errorf("diagnose: bins %d < 0", bins)
	}
	if depth == 0 {
		depth = DefaultDepth
	}
	if bins == 0 {
		bins = 10
	}
	for _, q := range slices.Sorted(maps.Keys(run)) {
		if err := checkScores(q, run[q]); err != nil {
			return nil, fmt.Errorf("diagnose: %w", err)
		}
	}
	rep := &ThresholdReport{Depth: depth, Curve: []ThresholdPoint{}, Warnings: []string{}}
	qs := thresholdQueries(run, qrels, depth, rep)
	summarize(&rep.Answerable)
	summarize(&rep.Unanswerable)
	scored := rep.curve(qs)
	nA, nU := rep.Answerable.Queries, rep.Unanswerable.Queries
	switch {
	case nU == 0:
		rep.Warnings = append(rep.Warnings, "no unanswerable query in the qrels (every query has a gold doc): no threshold suggested")
	case nA == 0:
		rep.Warnings = append(rep.Warnings, "no answerable query in the qrels: no threshold suggested")
	case scored == 0:
		rep.Warnings = append(rep.Warnings, "no query has any result: no threshold suggested")
	default:
		best := 0
		for i, p := range rep.Curve {
			if p.J > rep.Curve[best].J { // strict: ties keep the lower threshold
				best = i
			}
		}
		s := rep.Curve[best]
		rep.Suggested = &s
	}
	if rep.NotInQrels > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%d run %s not in the qrels and left out", rep.NotInQrels, plural.Word(rep.NotInQrels, "query is", "queries are")))
	}
	rep.Histogram = histogram(rep.Answerable.topScores, rep.Unanswerable.topScores, bins)
	return rep, nil
}

// thresholdQuery is one qrels query as Threshold sees it.
type thresholdQuery struct {
	top        float64 // top-1 score; valid when scored
	scored     bool
	answerable bool
	goldInTop  bool
}

// thresholdQueries returns the qrels queries in id order with their top-1
// scores, counting them and their scores into rep's groups, and counts the
// run queries not in the qrels.
func thresholdQueries(run eval.Run, qrels eval.Qrels, depth int, rep *ThresholdReport) []thresholdQuery {
	var qs []thresholdQuery
	for _, q := range slices.Sorted(maps.Keys(qrels)) {
		judged := qrels[q]
		list := top(run[q], depth)
		e := thresholdQuery{answerable: hasGold(judged)}
		if len(list) > 0 {
			e.top, e.scored = list[0].Score, true
		}
		g := &rep.Unanswerable
		if e.answerable {
			e.goldInTop = goldInTop(list, judged, depth)
			g = &rep.Answerable
		}
		g.Queries++
		if e.scored {
			g.topScores = append(g.topScores, e.top)
		}
		qs = append(qs, e)
	}
	for q := range run {
		if _, ok := qrels[q]; !ok {
			rep.NotInQrels++
		}
	}
	return qs
}

// curve fills rep.Curve, one point per candidate threshold, and returns
// the number of queries with a result. The candidates are the distinct
// observed top-1 scores, ascending. Sweeping them in order over the
// queries sorted by top-1 score, the queries silenced at t (no result, or
// top-1 < t) are a growing prefix: O(n log n) in all.
func (rep *ThresholdReport) curve(qs []thresholdQuery) int {
	byTop := make([]thresholdQuery, 0, len(qs))
	var uAb, aAb, aLost int // silenced so far
	count := func(e thresholdQuery) {
		switch {
		case !e.answerable:
			uAb++
		case e.goldInTop:
			aLost++
			aAb++
		default:
			aAb++
		}
	}
	for _, e := range qs {
		if e.scored {
			byTop = append(byTop, e)
		} else {
			count(e) // no result: always returns nothing
		}
	}
	sort.SliceStable(byTop, func(i, j int) bool { return byTop[i].top < byTop[j].top })
	nA, nU := rep.Answerable.Queries, rep.Unanswerable.Queries
	for i := 0; i < len(byTop); {
		t := byTop[i].top
		p := ThresholdPoint{
			Threshold:             t,
			UnanswerableAbstained: ratio(uAb, nU),
			AnswerableLostGold:    ratio(aLost, nA),
			AnswerableAbstained:   ratio(aAb, nA),
		}
		p.J = p.UnanswerableAbstained - p.AnswerableLostGold
		rep.Curve = append(rep.Curve, p)
		for ; i < len(byTop) && byTop[i].top == t; i++ {
			count(byTop[i]) // silenced from the next candidate on
		}
	}
	return len(byTop)
}

// WithQueries returns qrels plus an empty judgement map for each id of ids
// that qrels lacks, so that queries known only from a query list (e.g. the
// labelled-query JSONL's rows with an empty gold list) count as
// unanswerable. qrels itself is not modified; judgement maps are shared.
func WithQueries(qrels eval.Qrels, ids []string) eval.Qrels {
	out := make(eval.Qrels, len(qrels)+len(ids))
	for q, j := range qrels {
		out[q] = j
	}
	for _, q := range ids {
		if _, ok := out[q]; !ok {
			out[q] = map[string]int{}
		}
	}
	return out
}

func summarize(s *ScoreSummary) {
	x := append([]float64(nil), s.topScores...)
	sort.Float64s(x)
	s.topScores = x
	s.Scored = len(x)
	s.Min, s.P10, s.P25, s.Median = quantile(x, 0), quantile(x, 0.1), quantile(x, 0.25), quantile(x, 0.5)
	s.P75, s.P90, s.Max = quantile(x, 0.75), quantile(x, 0.9), quantile(x, 1)
}

// quantile returns the p-quantile (type 7) of sorted x, NaN when x is empty.
func quantile(x []float64, p float64) float64 {
	n := len(x)
	if n == 0 {
		return math.NaN()
	}
	h := float64(n-1) * p
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return x[n-1]
	}
	return x[lo] + (h-float64(lo))*(x[lo+1]-x[lo])
}

func histogram(a, u []float64, bins int) Histogram {
	all := append(append([]float64(nil), a...), u...)
	if len(all) == 0 {
		return Histogram{}
	}
	lo, hi := all[0], all[0]
	for _, v := range all {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if lo == hi {
		bins = 1
	}
	h := Histogram{Edges: make([]float64, bins+1), Answerable: make([]int, bins), Unanswerable: make([]int, bins)}
	width := (hi - lo) / float64(bins)
	for i := range h.Edges {
		h.Edges[i] = lo + float64(i)*width
	}
	h.Edges[bins] = hi
	bin := func(v float64) int {
		if width == 0 {
			return 0
		}
		i := int((v - lo) / width)
		if i >= bins {
			i = bins - 1
		}
		// Guard against rounding putting v one bin too high or low.
		for i > 0 && v < h.Edges[i] {
			i--
		}
		for i < bins-1 && v >= h.Edges[i+1] {
			i++
		}
		return i
	}
	for _, v := range a {
		h.Answerable[bin(v)]++
	}
	for _, v := range u {
		h.Unanswerable[bin(v)]++
	}
	return h
}
