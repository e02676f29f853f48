package eval

import (
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
	slices.SortFunc(res, func(a, b Result) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return strings.Compare(b.DocID, a.DocID)
	})
}

// Sentinel grades of retrieved docs without a usable judgement.
const (
	gradeNotInQrels = math.MinInt32     // trec_eval RELVALUE_NONPOOL
	gradeUnjudged   = math.MinInt32 + 1 // in qrels with a negative grade: RELVALUE_UNJUDGED
)

// ranking is one query's retrieved list reduced to what the measures need.
type ranking struct {
	grades     []int     // grade at each rank (0-based), or a sentinel
	numRel     int       // R: judged docs with grade ≥ level
	numNonrel  int       // judged docs with 0 ≤ grade < level
	numRelRet  int       // retrieved docs with grade ≥ level
	idealGains []float64 // positive grades of all judged docs, descending
	level      int
}

func (r *ranking) rel(i int) bool { return r.grades[i] >= r.level }

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
		if g >= level && g >= 0 {
			r.numRelRet++
		}
		r.grades = append(r.grades, g)
	}
	r.numRel, r.numNonrel = 0, 0
	r.idealGains = r.idealGains[:0]
	for _, g := range judg {
		if g < 0 {
			continue
		}
		if g >= level {
			r.numRel++
		} else {
			r.numNonrel++
		}
		if g > 0 {
			r.idealGains = append(r.idealGains, float64(g))
		}
	}
	slices.SortFunc(r.idealGains, func(a, b float64) int {
		switch {
		case a > b:
			return -1
		case a < b:
			return 1
		}
		return 0
	})
}

func (r *ranking) relInTop(k int) int {
	n := 0
	for i := 0; i < k && i < len(r.grades); i++ {
		if r.grades[i] >= r.level && r.grades[i] >= 0 {
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

// value computes measure m on r. tag is the run tag (only for runid, which
// has no numeric value; 0 is returned).
func (r *ranking) value(m Measure) float64 {
	n := len(r.grades)
	R := float64(r.numRel)
	switch m.Kind {
	case NumQ:
		return 1
	case NumRet:
		return float64(n)
	case NumRel:
		return R
	case NumRelRet:
		return float64(r.numRelRet)
	case AP, GMAP, MAPCut:
		k := n
		if m.Kind == MAPCut && m.K < k {
			k = m.K
		}
		sum, rels := 0.0, 0
		for i := 0; i < k; i++ {
			if r.grades[i] >= r.level && r.grades[i] >= 0 {
				rels++
				sum += float64(rels) / float64(i+1)
			}
		}
		ap := div(sum, R)
		if m.Kind == GMAP {
			return math.Max(ap, minGeoMean)
		}
		return ap
	case RPrec:
		return div(float64(r.relInTop(r.numRel)), R)
	case RPrecMult:
		// trec_eval m_Rprec_mult.c: cutoff = (long)(X * R + 0.9), precision
		// at that cutoff.
		c := int(m.X*R + 0.9)
		return div(float64(r.relInTop(c)), float64(c))
	case Bpref, GMBpref:
		v := r.bpref()
		if m.Kind == GMBpref {
			return math.Max(v, minGeoMean)
		}
		return v
	case RecipRank:
		k := n
		if m.K > 0 && m.K < k {
			k = m.K
		}
		for i := 0; i < k; i++ {
			if r.grades[i] >= r.level && r.grades[i] >= 0 {
				return 1 / float64(i+1)
			}
		}
		return 0
	case IPrecAtRecall:
		return r.iprec(m.X)
	case ElevenPtAvg:
		s := 0.0
		for i := 0; i <= 10; i++ {
			s += r.iprec(float64(i) / 10)
		}
		return s / 11
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
	case NDCG, NDCGExp:
		k := n
		ik := len(r.idealGains)
		if m.K > 0 {
			k = min(k, m.K)
			ik = min(ik, m.K)
		}
		gain := func(g float64) float64 { return g }
		if m.Kind == NDCGExp {
			gain = func(g float64) float64 { return math.Exp2(g) - 1 }
		}
		dcg := 0.0
		for i := 0; i < k; i++ {
			if g := r.grades[i]; g > 0 {
				dcg += gain(float64(g)) / math.Log2(float64(i+2))
			}
		}
		idcg := 0.0
		for i := 0; i < ik; i++ {
			idcg += gain(r.idealGains[i]) / math.Log2(float64(i+2))
		}
		return div(dcg, idcg)
	case SetP:
		return div(float64(r.numRelRet), float64(n))
	case SetRelativeP:
		return div(float64(r.numRelRet), math.Min(float64(n), R))
	case SetRecall:
		return div(float64(r.numRelRet), R)
	case SetMAP:
		return div(float64(r.numRelRet), float64(n)) * div(float64(r.numRelRet), R)
	case SetF:
		p := div(float64(r.numRelRet), float64(n))
		rc := div(float64(r.numRelRet), R)
		return div(2*p*rc, p+rc)
	case Utility:
		// trec_eval defaults a=1, b=-1, c=0, d=0.
		nonrelRet := 0
		for _, g := range r.grades {
			if !(g >= r.level && g >= 0) {
				nonrelRet++
			}
		}
		return float64(r.numRelRet) - float64(nonrelRet)
	case NumNonrelJudgedRet:
		c := 0
		for _, g := range r.grades {
			if g >= 0 && g < r.level {
				c++
			}
		}
		return float64(c)
	case Judged:
		c := 0
		for i := 0; i < m.K && i < n; i++ {
			if r.grades[i] != gradeNotInQrels {
				c++
			}
		}
		return float64(c) / float64(m.K)
	case NDCGRel, RNDCG, BinG, G:
		return r.trecGainMeasure(m)
	}
	return 0
}

// minGeoMean is trec_eval's MIN_GEO_MEAN: per-query values below it are
// raised to it before geometric averaging.
const minGeoMean = 0.00001

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
		if g >= r.level && g >= 0 {
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

// trecGainMeasure: measures not yet implemented exactly.
func (r *ranking) trecGainMeasure(m Measure) float64 {
	return math.NaN()
}

// relString returns trec_eval's relstring: the grades of the top 10 results,
// '-' for docs not in the qrels.
func (r *ranking) relString() string {
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < 10 && i < len(r.grades); i++ {
		g := r.grades[i]
		switch {
		case g == gradeNotInQrels:
			b.WriteByte('-')
		case g == gradeUnjudged:
			b.WriteByte('?')
		default:
			b.WriteString(strconv.Itoa(g))
		}
	}
	b.WriteByte('\'')
	return b.String()
}
