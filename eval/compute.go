package eval

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
)

// TieBreak says how results with equal scores are ordered.
type TieBreak int

const (
	// TieDocIDDesc orders equal scores by doc id in descending byte order,
	// as trec_eval does (strcmp). The default.
	TieDocIDDesc TieBreak = iota
	// TieInputOrder keeps equal scores in the order the run gives them
	// (a stable sort by score), as ranx and most Python code do.
	TieInputOrder
)

// Sort orders results by score descending, breaking ties per tb. It sorts in
// place.
func Sort(res []Result, tb TieBreak) {
	if tb == TieInputOrder {
		slices.SortStableFunc(res, func(a, b Result) int {
			switch {
			case a.Score > b.Score:
				return -1
			case a.Score < b.Score:
				return 1
			}
			return 0
		})
		return
	}
	slices.SortFunc(res, CompareRank)
}

// CompareRank orders two results as trec_eval ranks them (TieDocIDDesc,
// the order of every ragbench ranking): it is negative when a ranks before
// b, positive when after, 0 when both score and doc id are equal. Higher
// scores rank first; equal scores rank by doc id in descending byte order
// (trec_eval 9.0.8 sorts by score, then strcmp of docno, both descending).
// For retrievers that keep their own top-k heap and must cut where Sort
// would.
func CompareRank(a, b Result) int {
	switch {
	case a.Score > b.Score:
		return -1
	case a.Score < b.Score:
		return 1
	}
	return strings.Compare(b.DocID, a.DocID)
}

// Sentinel grades of retrieved docs without a usable judgement.
const (
	gradeNotInQrels = math.MinInt32     // trec_eval RELVALUE_NONPOOL
	gradeUnjudged   = math.MinInt32 + 1 // in qrels with a negative grade: RELVALUE_UNJUDGED
)

// levelCount is how many judged docs of a query have a grade (≥ 0).
type levelCount struct{ level, count int }

// ranking is one query's retrieved list reduced to what the measures need.
type ranking struct {
	grades    []int        // grade at each rank (0-based), or a sentinel
	numRel    int          // R: judged docs with grade ≥ level
	numPos    int          // judged docs with a positive grade (0: unanswerable)
	numNonrel int          // judged docs with 0 ≤ grade < level
	numRelRet int          // retrieved docs with grade ≥ level
	levels    []levelCount // judged grades ≥ 0 and their counts, ascending
	level     int
	// judgedOnly drops retrieved docs without a judged grade ≥ 0 before
	// any measure (Options.JudgedOnly, trec_eval -J).
	judgedOnly bool
	table      []gainEntry // scratch for gain tables
	byLevel    []levelGain // table indexed by level, for gainOf
}

// isRel reports whether grade g counts as relevant at the relevance level.
func (r *ranking) isRel(g int) bool { return g >= r.level && g >= 0 }

// prepare fills r from the query's judgements and its results (already
// sorted and truncated).
func (r *ranking) prepare(judg map[string]int, res []Result, level int) {
	r.level = level
	r.grades = r.grades[:0]
	r.numRelRet = 0
	for _, x := range res {
		g, ok := judg[x.DocID]
		switch {
		case !ok:
			g = gradeNotInQrels
		case g < 0:
			g = gradeUnjudged
		}
		if r.judgedOnly && g < 0 {
			continue // trec_eval -J: ranks close up over unjudged docs
		}
		if r.isRel(g) {
			r.numRelRet++
		}
		r.grades = append(r.grades, g)
	}
	r.setJudged(judg, level)
}

// gradeOf maps a judgement lookup to the grade stored in ranking.grades.
func gradeOf(g int, ok bool) int {
	switch {
	case !ok:
		return gradeNotInQrels
	case g < 0:
		return gradeUnjudged
	}
	return g
}

// setJudged fills the statistics of the query's judgements.
func (r *ranking) setJudged(judg map[string]int, level int) {
	r.level = level
	r.numRel, r.numNonrel, r.numPos = 0, 0, 0
	r.levels = r.levels[:0]
	for _, g := range judg {
		if g < 0 {
			continue
		}
		if g > 0 {
			r.numPos++
		}
		if g >= level {
			r.numRel++
		} else {
			r.numNonrel++
		}
		r.levels = append(r.levels, levelCount{g, 1})
	}
	// Sort, then merge equal grades: O(J log J) for J judgements however
	// many distinct grades they hold.
	slices.SortFunc(r.levels, func(a, b levelCount) int { return cmp.Compare(a.level, b.level) })
	n := 0
	for _, lc := range r.levels {
		if n > 0 && r.levels[n-1].level == lc.level {
			r.levels[n-1].count++
			continue
		}
		r.levels[n] = lc
		n++
	}
	r.levels = r.levels[:n]
}

func (r *ranking) relInTop(k int) int {
	n := 0
	for i := 0; i < k && i < len(r.grades); i++ {
		if r.isRel(r.grades[i]) {
			n++
		}
	}
	return n
}

func div(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// minGeoMean is trec_eval's MIN_GEO_MEAN: per-query values below it are
// raised to it before geometric averaging.
const minGeoMean = 0.00001

// infAPEpsilon is trec_eval's INFAP_EPSILON.
const infAPEpsilon = 0.00001

// value computes measure m on r (runid and relstring have no numeric value:
// 0).
func (r *ranking) value(m Measure) float64 {
	switch m.Kind {
	case NumQ, NumRet, NumRel, NumRelRet, NumNonrelJudgedRet, SetP, SetRelativeP, SetRecall, SetMAP, SetF, Utility:
		return r.setValue(m)
	case P, Recall, RelativeP, Success, RecipRank, Unjudged, Judged, RPrec, RPrecMult, IPrecAtRecall, ElevenPtAvg:
		return r.cutoffValue(m)
	}
	return r.gainValue(m)
}

// setValue computes the counts and the set measures (trec_eval's set_*,
// utility), which ignore the order of the results.
func (r *ranking) setValue(m Measure) float64 {
	n := float64(len(r.grades))
	R := float64(r.numRel)
	relRet := float64(r.numRelRet)
	switch m.Kind {
	case NumQ:
		return 1
	case NumRet:
		return n
	case NumRel:
		return R
	case NumRelRet:
		return relRet
	case NumNonrelJudgedRet:
		c := 0
		for _, g := range r.grades {
			if g >= 0 && g < r.level {
				c++
			}
		}
		return float64(c)
	case SetP:
		return div(relRet, n)
	case SetRelativeP:
		return div(relRet, math.Min(n, R))
	case SetRecall:
		return div(relRet, R)
	case SetMAP:
		return div(relRet, n) * div(relRet, R)
	case SetF:
		p, rc := div(relRet, n), div(relRet, R)
		return div(2*p*rc, p+rc)
	case Utility:
		c := [4]float64{1, -1, 0, 0}
		if m.params != nil {
			c = m.params.coef
		}
		// trec_eval m_utility.c; the collection size (-N) is taken as 0.
		return c[0]*relRet + c[1]*(n-relRet) + c[2]*(R-relRet) + c[3]*(relRet-n-R)
	}
	return 0
}

// cutoffValue computes the measures of the top k results or of recall
// levels: P, recall, relative_P, success, recip_rank, judged/unj, Rprec,
// Rprec_mult, iprec_at_recall, 11pt_avg.
func (r *ranking) cutoffValue(m Measure) float64 {
	n := len(r.grades)
	R := float64(r.numRel)
	switch m.Kind {
	case P:
		return float64(r.relInTop(m.K)) / float64(m.K)
	case Recall:
		return div(float64(r.relInTop(m.K)), R)
	case RelativeP:
		return div(float64(r.relInTop(m.K)), math.Min(float64(m.K), R))
	case Success:
		if r.relInTop(m.K) > 0 {
			return 1
		}
		return 0
	case RecipRank:
		k := n
		if m.K > 0 && m.K < k {
			k = m.K
		}
		for i := 0; i < k; i++ {
			if r.isRel(r.grades[i]) {
				return 1 / float64(i+1)
			}
		}
		return 0
	case Unjudged:
		c := 0
		for i := 0; i < m.K && i < n; i++ {
			if r.grades[i] < 0 {
				c++
			}
		}
		return float64(c) / float64(m.K)
	case Judged:
		return JudgedShare(r.grades[:min(m.K, n)], func(g int) bool { return g >= 0 })
	case RPrec:
		return div(float64(r.relInTop(r.numRel)), R)
	case RPrecMult:
		// trec_eval m_Rprec_mult.c: cutoff (long)(X·R + 0.9).
		c := int(m.X*R + 0.9)
		return div(float64(r.relInTop(c)), float64(c))
	case IPrecAtRecall:
		return r.iprec(m.X)
	case ElevenPtAvg:
		levels := defaultIPrec
		if m.params != nil && len(m.params.levels) > 0 {
			levels = m.params.levels
		}
		s := 0.0
		for _, x := range levels {
			s += r.iprec(x)
		}
		return s / float64(len(levels))
	}
	return 0
}

// gainValue computes the measures of the whole ranking: AP and its
// variants, bpref, the gain measures (nDCG family, G, binG), infAP, rbp,
// rbp_resid.
func (r *ranking) gainValue(m Measure) float64 {
	R := float64(r.numRel)
	switch m.Kind {
	case AP, GMAP, MAPCut:
		k := len(r.grades)
		if m.Kind == MAPCut && m.K < k {
			k = m.K
		}
		sum, rels := 0.0, 0
		for i := 0; i < k; i++ {
			if r.isRel(r.grades[i]) {
				rels++
				sum += float64(rels) / float64(i+1)
			}
		}
		ap := div(sum, R)
		if m.Kind == GMAP {
			return math.Max(ap, minGeoMean)
		}
		return ap
	case Bpref, GMBpref:
		v := r.bpref()
		if m.Kind == GMBpref {
			return math.Max(v, minGeoMean)
		}
		return v
	case NDCG:
		return r.ndcg(m)
	case NDCGExp:
		return r.ndcgExp(m.K)
	case NDCGRel:
		return r.ndcgRel(m)
	case RNDCG:
		return r.rndcg(m)
	case G:
		return r.g(m)
	case BinG:
		sum, rels := 0.0, 0
		for i, g := range r.grades {
			if r.isRel(g) {
				rels++
				sum += 1 / math.Log2(float64(3+i-rels))
			}
		}
		return div(sum, R)
	case InfAP:
		return r.infAP()
	case RBP:
		return r.rbp(m)
	case RBPResid:
		return r.rbpResid()
	}
	return 0
}

// rbpResid is trec_eval's rbp_resid (m_rbp_resid.c, p = 0.9): the residual
// of rbp if every unjudged retrieved doc were relevant, 0 without one.
func (r *ranking) rbpResid() float64 {
	p, cur, sum, unj := 0.9, 1.0, 0.0, 0
	for _, g := range r.grades {
		if g < 0 {
			unj++
			sum += cur
		}
		cur *= p
	}
	if unj == 0 {
		return 0
	}
	return cur + (1-p)*sum
}

// bpref follows trec_eval m_bpref.c.
func (r *ranking) bpref() float64 {
	if r.numRel == 0 {
		return 0
	}
	R := float64(r.numRel)
	den := math.Min(R, float64(r.numNonrel))
	nonrel := 0
	sum := 0.0
	for _, g := range r.grades {
		if g < 0 {
			continue // not judged
		}
		if g >= r.level {
			if nonrel > 0 {
				sum += 1 - math.Min(float64(nonrel), R)/den
			} else {
				sum++
			}
		} else {
			nonrel++
		}
	}
	return sum / R
}

// infAP follows trec_eval m_infap.c (Yilmaz & Aslam, CIKM 2006).
func (r *ranking) infAP() float64 {
	nonrel, rel, unjudged := 0, 0, 0
	sum := 0.0
	for j, g := range r.grades {
		switch {
		case g == gradeNotInQrels:
			continue
		case g == gradeUnjudged:
			unjudged++
			continue
		case g < r.level:
			nonrel++
			continue
		}
		rel++
		if j == 0 {
			sum++
			continue
		}
		fj := float64(j)
		sum += 1/(fj+1) + (fj/(fj+1))*(float64(rel-1+nonrel+unjudged)/fj)*
			((float64(rel-1)+infAPEpsilon)/(float64(rel-1+nonrel)+2*infAPEpsilon))
	}
	return div(sum, float64(r.numRel))
}

// iprec is interpolated precision at recall level x as trec_eval
// m_iprec_at_recall.c computes it: the level becomes a number of relevant
// docs c = round(x·R) (half away from zero); the value is the highest
// precision at any rank at or below the c-th relevant retrieved doc (the
// first one when c = 0), and 0 when fewer than c relevant docs are retrieved.
func (r *ranking) iprec(x float64) float64 {
	c := int(math.Round(x * float64(r.numRel)))
	if c > r.numRelRet || r.numRelRet == 0 {
		return 0
	}
	if c == 0 {
		c = 1
	}
	best := 0.0
	rels := 0
	for i, g := range r.grades {
		if r.isRel(g) {
			rels++
		}
		if rels >= c {
			if p := float64(rels) / float64(i+1); p > best {
				best = p
			}
		}
	}
	return best
}

// gainEntry is one row of trec_eval's gain table (setup_gains in m_ndcg.c):
// a relevance level, its gain and the number of judged docs at it.
type gainEntry struct {
	level int
	gain  float64
	count int
}

// gainTable builds the gain table of a query for measure m as trec_eval's
// setup_gains (m_ndcg.c) does: custom gains first (trec_eval
// "ndcg.1=3,2=9"), then every level from 0 to the highest judged grade with
// gain = level, sorted by gain ascending (ties by level). Levels that no
// judged doc holds and no custom gain names add a row with count 0, which
// neither the ideal walk (it skips empty rows) nor gainOf (retrieved docs
// hold judged grades or the below-zero markers) ever reads; they are left
// out, so that the table has at most len(r.levels) + len(custom) rows and
// its cost does not grow with the largest grade (trec_eval's loop over
// every level up to it takes seconds at grade 100000).
func (r *ranking) gainTable(m Measure) []gainEntry {
	t := r.table[:0]
	custom := 0
	if m.params != nil {
		for _, lg := range m.params.gains {
			t = append(t, gainEntry{level: lg.level, gain: lg.gain})
		}
		custom = len(t)
	}
	for _, lc := range r.levels {
		// trec_eval gives a level named twice its count at the first
		// mention only.
		j := slices.IndexFunc(t[:custom], func(e gainEntry) bool { return e.level == lc.level })
		if j >= 0 {
			t[j].count = lc.count
		} else {
			t = append(t, gainEntry{level: lc.level, gain: float64(lc.level), count: lc.count})
		}
	}
	slices.SortStableFunc(t, func(a, b gainEntry) int {
		switch {
		case a.gain < b.gain:
			return -1
		case a.gain > b.gain:
			return 1
		}
		return cmp.Compare(a.level, b.level)
	})
	r.table = t
	r.byLevel = r.byLevel[:0]
	for _, e := range t {
		r.byLevel = append(r.byLevel, levelGain{e.level, e.gain})
	}
	// Stable by level: among rows of one level the first in gain order
	// (the one trec_eval's get_gain finds) comes first.
	slices.SortStableFunc(r.byLevel, func(a, b levelGain) int { return cmp.Compare(a.level, b.level) })
	return t
}

// gainOf returns the gain of grade in the table last built by gainTable:
// the first row of that level in gain order, as trec_eval's get_gain; 0 for
// a level without a row.
func (r *ranking) gainOf(grade int) float64 {
	i, ok := slices.BinarySearchFunc(r.byLevel, grade, func(e levelGain, g int) int { return cmp.Compare(e.level, g) })
	if !ok {
		return 0
	}
	return r.byLevel[i].gain
}

// idealWalk steps through the ideal ranking of a gain table, best gain first,
// as trec_eval's nDCG-family code does.
type idealWalk struct {
	t     []gainEntry
	cur   int
	numAt int
	gain  float64
}

func newIdealWalk(t []gainEntry) idealWalk {
	w := idealWalk{t: t, cur: len(t) - 1}
	if w.cur >= 0 {
		w.gain = t[w.cur].gain
	}
	return w
}

// next returns the gain of the next ideal position (≤ 0 once exhausted).
func (w *idealWalk) next() float64 {
	w.numAt++
	for w.cur >= 0 && w.numAt > w.t[w.cur].count {
		w.numAt = 1
		w.cur--
		if w.cur >= 0 {
			w.gain = w.t[w.cur].gain
		} else {
			w.gain = 0
		}
	}
	return w.gain
}

// ndcg is trec_eval's ndcg (m.K = 0) and ndcg_cut_K: DCG with gain per the
// gain table and discount log2(rank+1), over the top K results, divided by
// the DCG of the ideal ranking over its top K positions.
func (r *ranking) ndcg(m Measure) float64 {
	t := r.gainTable(m)
	n := len(r.grades)
	if m.K > 0 {
		n = min(n, m.K)
	}
	dcg := 0.0
	for i := 0; i < n; i++ {
		if g := r.gainOf(r.grades[i]); g != 0 {
			dcg += g / math.Log2(float64(i+2))
		}
	}
	w := newIdealWalk(t)
	idcg := 0.0
	for i := 0; (m.K == 0 || i < m.K) && w.gain > 0; i++ {
		if g := w.next(); g > 0 {
			idcg += g / math.Log2(float64(i+2))
		}
	}
	if idcg <= 0 {
		return 0
	}
	return dcg / idcg
}

// ndcgExp is nDCG@K (K = 0: all) with exponential gain 2^grade − 1 (Burges
// et al., ICML 2005), grades ≤ 0 gaining 0, ideal from all judgements.
func (r *ranking) ndcgExp(k int) float64 {
	n := len(r.grades)
	if k > 0 {
		n = min(n, k)
	}
	dcg := 0.0
	for i := 0; i < n; i++ {
		if g := r.grades[i]; g > 0 {
			dcg += (math.Exp2(float64(g)) - 1) / math.Log2(float64(i+2))
		}
	}
	idcg := 0.0
	pos := 0
	for li := len(r.levels) - 1; li >= 0; li-- {
		lc := r.levels[li]
		if lc.level <= 0 {
			break
		}
		gain := math.Exp2(float64(lc.level)) - 1
		for c := 0; c < lc.count && (k == 0 || pos < k); c++ {
			idcg += gain / math.Log2(float64(pos+2))
			pos++
		}
	}
	return div(dcg, idcg)
}

// ndcgRel follows trec_eval m_ndcg_rel.c: nDCG averaged at each relevant
// (positive-gain) doc, unretrieved ones contributing the final nDCG.
func (r *ranking) ndcgRel(m Measure) float64 {
	t := r.gainTable(m)
	w := newIdealWalk(t)
	n := len(r.grades)
	dcg, idcg, sum := 0.0, 0.0, 0.0
	numRel, numRelRet := 0, 0
	i := 0
	for ; i < n || w.gain > 0; i++ {
		rg := 0.0
		if i < n {
			rg = r.gainOf(r.grades[i])
			if rg != 0 {
				dcg += rg / math.Log2(float64(i+2))
			}
		}
		if w.gain > 0 {
			if g := w.next(); g > 0 {
				numRel++
				idcg += g / math.Log2(float64(i+2))
			}
		}
		if i < n && rg > 0 {
			sum += dcg / idcg
			numRelRet++
		}
	}
	if numRel == 0 {
		return 0
	}
	sum += float64(numRel-numRelRet) * dcg / idcg
	if sum > 0 {
		return sum / float64(numRel)
	}
	return 0
}

// rndcg follows trec_eval m_Rndcg.c: nDCG averaged at the ranks where the
// ideal gain changes.
func (r *ranking) rndcg(m Measure) float64 {
	t := r.gainTable(m)
	if r.numRel == 0 {
		return 0
	}
	w := newIdealWalk(t)
	old := w.gain
	n := len(r.grades)
	dcg, idcg, sum := 0.0, 0.0, 0.0
	cnt := 0
	// point adds the nDCG so far to the average (a point with no ideal
	// gain yet does not count); idealStep takes the next ideal gain and
	// adds a point first when it differs from the previous one.
	point := func() {
		if idcg > 0 {
			sum += dcg / idcg
			cnt++
		}
	}
	idealStep := func() float64 {
		ig := w.next()
		if old != ig {
			point()
			old = ig
		}
		return ig
	}
	i := 0
	for ; i < n && w.gain > 0; i++ {
		rg := r.gainOf(r.grades[i])
		ig := idealStep()
		if rg != 0 {
			dcg += rg / math.Log2(float64(i+2))
		}
		if ig > 0 {
			idcg += ig / math.Log2(float64(i+2))
		}
	}
	if i < n {
		for ; i < n; i++ {
			if rg := r.gainOf(r.grades[i]); rg != 0 {
				dcg += rg / math.Log2(float64(i+2))
			}
		}
		point()
	}
	for ; w.gain > 0; i++ {
		ig := idealStep()
		if ig > 0 {
			idcg += ig / math.Log2(float64(i+2))
		}
	}
	return div(sum, float64(cnt))
}

// g follows trec_eval m_G.c (experimental gain measure).
func (r *ranking) g(m Measure) float64 {
	t := r.gainTable(m)
	w := newIdealWalk(t)
	const minCost = 1.0
	n := len(r.grades)
	resG, sumRes, sumIdeal, sumCost := 0.0, 0.0, 0.0, 0.0
	i := 0
	for ; i < n && w.gain > 0; i++ {
		rg := r.gainOf(r.grades[i])
		sumRes += rg
		ig := w.next()
		if ig > 0 {
			sumIdeal += ig
		}
		if ig >= minCost {
			sumCost += ig
		} else {
			sumCost += minCost
		}
		if rg != 0 {
			resG += rg / math.Log2(2+sumCost-sumRes)
		}
	}
	for ; i < n; i++ {
		rg := r.gainOf(r.grades[i])
		sumRes += rg
		sumCost += minCost
		if rg != 0 {
			resG += rg / math.Log2(2+sumCost-sumRes)
		}
	}
	for w.gain > 0 {
		if ig := w.next(); ig > 0 {
			sumIdeal += ig
		}
	}
	if sumIdeal > 0 {
		return resG / sumIdeal
	}
	return 0
}

// rbp is rank-biased precision (Moffat & Zobel, TOIS 2008) as trec_eval
// m_rbp.c: (1−p) Σ gain_i p^(i−1), persistence p = 0.9 by default, gains
// from the gain table rescaled to [0, 1] by (gain − min)/(max − min) when
// any lies outside it. min and max are those of trec_eval's whole table
// (gainRange), which has a row for every level from 0 to the highest judged
// one, judged or not: with grades 2 and 3 only, min is level 0's gain 0, not
// 2.
func (r *ranking) rbp(m Measure) float64 {
	t := r.gainTable(m)
	p := 0.9
	if m.params != nil && m.params.p > 0 {
		p = m.params.p
	}
	lo, hi := r.gainRange(m, t)
	scale := lo < 0 || hi > 1
	sum, cur := 0.0, 1.0
	for _, grade := range r.grades {
		g := 0.0
		found := false
		for _, e := range t {
			if e.level == grade {
				g, found = e.gain, true
				break
			}
		}
		if found && scale {
			g = (g - lo) / (hi - lo)
		}
		if g != 0 {
			sum += g * cur
		}
		cur *= p
	}
	return (1 - p) * sum
}

// gainRange returns the smallest and largest gain of trec_eval's full gain
// table (setup_gains): the custom gains, and gain = level for every level
// from 0 to the highest judged grade that no custom gain names. gainTable
// leaves out the unjudged levels (t holds only judged and custom rows), so
// they are added here from the ends of the level range: the smallest and
// largest levels no custom gain names, found in at most len(custom)+1 steps
// each. (±Inf, −Inf) for an empty table.
func (r *ranking) gainRange(m Measure, t []gainEntry) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, e := range t {
		lo, hi = math.Min(lo, e.gain), math.Max(hi, e.gain)
	}
	if len(r.levels) == 0 {
		return lo, hi
	}
	named := func(level int) bool {
		return m.params != nil && slices.ContainsFunc(m.params.gains, func(g levelGain) bool { return g.level == level })
	}
	top := r.levels[len(r.levels)-1].level
	for l := 0; l <= top; l++ {
		if !named(l) {
			lo = math.Min(lo, float64(l))
			break
		}
	}
	for l := top; l >= 0; l-- {
		if !named(l) {
			hi = math.Max(hi, float64(l))
			break
		}
	}
	return lo, hi
}

// relString returns trec_eval's relstring: the grades of the top k results,
// one character each: the digit, '>' above 9, '-' not in the qrels, '.' in
// the qrels with a negative grade.
func (r *ranking) relString(k int) string {
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < k && i < len(r.grades); i++ {
		g := r.grades[i]
		switch {
		case g == gradeNotInQrels:
			b.WriteByte('-')
		case g == gradeUnjudged:
			b.WriteByte('.')
		case g > 9:
			b.WriteByte('>')
		default:
			b.WriteString(strconv.Itoa(g))
		}
	}
	b.WriteByte('\'')
	return b.String()
}
