package eval

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Kind identifies a family of measures (one trec_eval measure name before
// its parameters). See Measure and ParseMeasures.
type Kind int

// Measure kinds, in trec_eval's output order. The comment of each gives its
// trec_eval name, its definition and its source; "rel" means a judged grade ≥
// Options.RelevanceLevel, R is the number of relevant judged docs of the
// query, ranks start at 1, results are ordered as described at Sort (after
// truncation at Options.MaxResults), and a ratio with a zero denominator is
// 0. All values lie in [0, 1] except counts, utility and unbounded gains.
const (
	RunID              Kind = iota // runid: the run tag (summary line only; no numeric value).
	NumQ                           // num_q: number of queries averaged.
	NumRet                         // num_ret: results retrieved (summed over queries).
	NumRel                         // num_rel: R (summed).
	NumRelRet                      // num_rel_ret: relevant docs retrieved (summed).
	AP                             // map: average precision Σ_{rel ranks i} P@i / R.
	GMAP                           // gm_map: per query max(AP, 1e-5); the summary is the geometric mean.
	RPrec                          // Rprec: rel in the top R / R.
	Bpref                          // bpref: (1/R) Σ_{rel r} (1 − min(n_r, R)/min(R, N)), n_r judged non-rel above r, N judged non-rel (Buckley & Voorhees 2004; trec_eval m_bpref.c).
	RecipRank                      // recip_rank: 1/rank of the first rel result; with K > 0 only the top K count (RR@K, ragbench's "recip_rank_cut_K" = ranx mrr@K).
	IPrecAtRecall                  // iprec_at_recall_X: interpolated precision at recall X (trec_eval m_iprec_at_recall.c: X·R rounded to a count of rel docs).
	P                              // P_K: rel in the top K / K (K counts even when fewer results exist).
	RelString                      // relstring (relstring_K with a parameter): the grades of the top K (default 10) results as text, per query only.
	Recall                         // recall_K: rel in the top K / R.
	InfAP                          // infAP: inferred AP (Yilmaz & Aslam, CIKM 2006; trec_eval m_infap.c); equals AP when nothing retrieved is unjudged.
	GMBpref                        // gm_bpref: per query max(bpref, 1e-5); geometric mean.
	RPrecMult                      // Rprec_mult_X: precision at rank ⌊X·R + 0.9⌋ (trec_eval m_Rprec_mult.c).
	Utility                        // utility: a·relret + b·nonrelret + c·relnotret + d·nonrelnotret, default 1,−1,0,0 (trec_eval m_utility.c; collection size taken as 0).
	ElevenPtAvg                    // 11pt_avg: mean interpolated precision at recall 0, .1, …, 1 (or the levels given).
	BinG                           // binG: (1/R) Σ_{rel i} 1/log2(2 + non-rel above i) (trec_eval m_binG.c, experimental).
	G                              // G: trec_eval m_G.c gain measure (experimental).
	NDCG                           // ndcg (K = 0) and ndcg_cut_K: DCG/IDCG with gain = grade (or the gains given, "ndcg.1=3,2=9"), discount log2(rank+1), ideal from all judgements cut at K (Järvelin & Kekäläinen 2002; trec_eval m_ndcg.c). The relevance level does not apply.
	NDCGRel                        // ndcg_rel: nDCG averaged over the relevant docs (trec_eval m_ndcg_rel.c, experimental).
	RNDCG                          // Rndcg: nDCG averaged at the R-level boundaries of the ideal ranking (trec_eval m_Rndcg.c, experimental).
	MAPCut                         // map_cut_K: Σ_{rel ranks i ≤ K} P@i / R.
	RelativeP                      // relative_P_K: rel in the top K / min(K, R).
	Success                        // success_K: 1 if a rel result is in the top K, else 0 (hit rate@K).
	SetP                           // set_P: rel retrieved / retrieved.
	SetRelativeP                   // set_relative_P: rel retrieved / min(retrieved, R).
	SetRecall                      // set_recall: rel retrieved / R.
	SetMAP                         // set_map: set_P · set_recall.
	SetF                           // set_F: harmonic mean of set_P and set_recall (β = 1).
	NumNonrelJudgedRet             // num_nonrel_judged_ret: judged non-relevant docs retrieved (summed).
	RBP                            // rbp: rank-biased precision, p = 0.9 (Moffat & Zobel, TOIS 2008; trec_eval m_rbp.c).
	RBPResid                       // rbp_resid: RBP residual from unjudged docs (trec_eval m_rbp_resid.c).
	Unjudged                       // unj_K: share of the top K not judged (trec_eval m_unjudged.c), divided by K.
	NDCGExp                        // ndcg_exp (K = 0), ndcg_exp_cut_K: nDCG with gain 2^grade − 1 (Burges et al., ICML 2005); ragbench extension = ranx ndcg_burges.
	Judged                         // judged_K: share of the top K with a judgement (any grade ≥ 0), divided by min(K, results) (JudgedShare); ragbench extension = ir_measures Judged@K.
)

// Measure is one evaluation measure at given parameters. Name is its stable
// display name, which is trec_eval's output name ("map", "P_10",
// "ndcg_cut_10", "iprec_at_recall_0.10", "success_5") or, for ragbench's
// extensions, a name in the same style ("recip_rank_cut_10", "ndcg_exp_cut_10",
// "judged_10"). K is the cutoff (0 = none) and X the real parameter of
// iprec_at_recall and Rprec_mult.
type Measure struct {
	Name string
	Kind Kind
	K    int
	X    float64
	// params holds parsed trec_eval parameters that are not a cutoff
	// (gains, utility coefficients, recall levels); nil means defaults.
	params *measureParams
}

type levelGain struct {
	level int
	gain  float64
}

type measureParams struct {
	gains  []levelGain // ndcg, ndcg_rel, Rndcg, G, rbp
	coef   [4]float64  // utility
	levels []float64   // 11pt_avg
	p      float64     // rbp persistence
}

// Integer reports whether the measure is a count printed as an integer
// (num_q, num_ret, num_rel, num_rel_ret, num_nonrel_judged_ret), summed rather
// than averaged over queries.
func (m Measure) Integer() bool {
	switch m.Kind {
	case NumQ, NumRet, NumRel, NumRelRet, NumNonrelJudgedRet:
		return true
	}
	return false
}

// String returns m.Name.
func (m Measure) String() string { return m.Name }

var (
	defaultCutoffs     = []int{5, 10, 15, 20, 30, 100, 200, 500, 1000}
	defaultSuccess     = []int{1, 5, 10}
	defaultIPrec       = []float64{0, .1, .2, .3, .4, .5, .6, .7, .8, .9, 1}
	defaultRPrecMult   = []float64{.2, .4, .6, .8, 1, 1.2, 1.4, 1.6, 1.8, 2}
	defaultJudged      = []int{5, 10, 20}
	officialMeasures   = []string{"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"}
	allTrecMeasures    = []string{"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "rbp", "rbp_resid", "unj"}
	trecNotImplemented = []string{"dcg", "ideal_dcg", "prefs_*", "*_avgjg", "yaap", "ndcg_p", "num_nonjudged_ret", "Runj"}
)

// NotImplementedTrecMeasures lists the trec_eval measures (trec_eval
// v10.0-rc3 names) that ragbench does not compute. "all_trec" selects every
// implemented one.
func NotImplementedTrecMeasures() []string {
	return append([]string(nil), trecNotImplemented...)
}

// OfficialMeasures are trec_eval's default measures (printed when no -m is
// given): runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref
// recip_rank iprec_at_recall_* P_*.
func OfficialMeasures() []Measure {
	ms, err := ParseMeasures([]string{"official"})
	if err != nil {
		panic(err) // static input
	}
	return ms
}

// ParseMeasures parses measure names into Measures, in the order given,
// without duplicates (the first occurrence wins; for the single-valued
// families relstring, utility, 11pt_avg, ndcg, ndcg_rel, Rndcg, G and rbp a
// later, parametrised specification replaces the earlier one, as in
// trec_eval). A name may hold several names separated by white space.
// Accepted names:
//
//   - trec_eval names: runid num_q num_ret num_rel num_rel_ret
//     num_nonrel_judged_ret map gm_map Rprec bpref gm_bpref recip_rank infAP
//     binG rbp_resid set_P set_relative_P set_recall set_map set_F;
//     the cutoff families P recall ndcg_cut map_cut relative_P success unj
//     ("P.5,10", "recall.100"; without parameters trec_eval's defaults
//     5,10,15,20,30,100,200,500,1000 — success 1,5,10, unj 5,10,20);
//     iprec_at_recall and Rprec_mult with real parameters (defaults
//     0,.1,…,1 and .2,.4,…,2); and the families whose parameters become part
//     of the name: relstring.N, utility.a,b,c,d, 11pt_avg.levels,
//     ndcg/ndcg_rel/Rndcg/G.level=gain,… and rbp.p=X. Parameters are sorted
//     ascending and output names use "_" as trec_eval prints them
//     ("P.10,5" → "P_5", "P_10"). The groups "official" (trec_eval's
//     default set) and "all_trec" (every trec_eval measure ragbench
//     implements, in trec_eval's order) are accepted.
//   - ragbench extensions in trec_eval style: recip_rank_cut.K (RR@K),
//     ndcg_exp and ndcg_exp_cut.K (exponential gain), judged.K.
//   - ranx-style names with "@k": ndcg@k, ndcg_burges@k, hit_rate@k
//     (= success_k), mrr@k (= recip_rank_cut_k), recall@k, precision@k
//     (= P_k), map@k (= map_cut_k), judged@k; and mrr (= recip_rank) and
//     r-precision (= Rprec).
//
// Errors name the measure: an unknown name, a cutoff that is not a positive
// integer (trec_eval truncates "23.4" to 23; ParseMeasures refuses it,
// ParseMeasuresTrec accepts it with a warning), a bad parameter.
func ParseMeasures(names []string) ([]Measure, error) {
	return parseMeasures(names, nil)
}

// ParseMeasuresTrec is ParseMeasures with trec_eval's reading of cutoff
// parameters (P, recall, ndcg_cut, map_cut, relative_P, success, unj and
// ragbench's cutoff families): trec_eval v10.0 reads each comma-separated
// cutoff with C's atol (meas_init.c, get_long_cutoffs), which keeps the
// leading integer, so "ndcg_cut.10,20,23.4" yields ndcg_cut_23. A cutoff
// written as a decimal number (digits, a point, digits: "23.4", "23.") is
// read the same way — truncated to its integer part — and each one so
// changed is reported in warnings, in the order met ("measure
// \"ndcg_cut.10,20,23.4\": cutoff \"23.4\" truncated to 23 ..."). Other
// text that atol would read partly ("10abc", "1e2" → 1) and a cutoff
// truncating to 0 are errors, as is everything ParseMeasures refuses.
func ParseMeasuresTrec(names []string) (ms []Measure, warnings []string, err error) {
	warnings = []string{}
	ms, err = parseMeasures(names, &warnings)
	if err != nil {
		return nil, nil, err
	}
	return ms, warnings, nil
}

// parseMeasures is ParseMeasures; with lax non-nil, fractional cutoffs are
// truncated as trec_eval does and a warning for each is appended to *lax.
func parseMeasures(names []string, lax *[]string) ([]Measure, error) {
	var out []Measure
	seen := map[string]bool{}
	add := func(m Measure) {
		if singleValued(m) {
			// trec_eval keeps one instance of such a family: a later
			// specification (e.g. relstring.20 after all_trec) replaces it.
			for i, o := range out {
				if singleValued(o) && o.Kind == m.Kind {
					delete(seen, o.Name)
					seen[m.Name] = true
					out[i] = m
					return
				}
			}
		}
		if !seen[m.Name] {
			seen[m.Name] = true
			out = append(out, m)
		}
	}
	for _, raw := range names {
		for _, name := range SplitMeasureList(raw) {
			ms, err := parseMeasure(name, lax)
			if err != nil {
				return nil, err
			}
			for _, m := range ms {
				add(m)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no measure given")
	}
	return out, nil
}

// SplitMeasureList splits one -m argument into measure names, as
// ParseMeasures and ParseMeasuresTrec read it and as bench eval and bench
// compare take it: at white space ("map ndcg@10"), and at each comma
// followed by an ASCII letter, which starts a new name
// ("ndcg@10,recall@100" gives "ndcg@10" and "recall@100"). Any other comma
// separates trec_eval parameters and stays in the name: "P.5,10",
// "utility.2,-1,0,0", "iprec_at_recall..10,.20", "ndcg.1=3,2=9" are one
// name each (every trec_eval parameter starts with a digit, '-', '.' or
// '+', and every measure name with a letter). Any other comma stays in
// its name, so a stray ",," or trailing comma reaches the parser, which
// rejects it.
func SplitMeasureList(s string) []string {
	var out []string
	for _, field := range strings.Fields(s) {
		start := 0
		for i := 0; i < len(field); i++ {
			if field[i] != ',' || i+1 >= len(field) || !isASCIILetter(field[i+1]) {
				continue
			}
			out = append(out, field[start:i])
			start = i + 1
		}
		out = append(out, field[start:])
	}
	return out
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func parseMeasure(name string, lax *[]string) ([]Measure, error) {
	switch name {
	case "official":
		return expandGroup(officialMeasures)
	case "all_trec":
		return expandGroup(allTrecMeasures)
	}
	if base, ks, ok := strings.Cut(name, "@"); ok {
		return parseRanx(name, strings.ToLower(base), ks)
	}
	base, params, hasParams := strings.Cut(name, ".")
	switch lower := strings.ToLower(name); lower {
	case "mrr":
		return one("recip_rank", RecipRank, 0, 0), nil
	case "r-precision", "r_precision", "rprec":
		return one("Rprec", RPrec, 0, 0), nil
	}
	if k, ok := simpleMeasures[base]; ok {
		if hasParams {
			return nil, fmt.Errorf("measure %q: %s takes no parameter", name, base)
		}
		return one(base, k, 0, 0), nil
	}
	if k, ok := namedParamMeasures[base]; ok {
		return parseNamedParams(name, base, params, hasParams, k)
	}
	if k, ok := cutoffMeasures[base]; ok {
		return parseCutoffMeasure(name, base, params, hasParams, k, lax)
	}
	if k, ok := levelMeasures[base]; ok {
		return parseLevelMeasure(name, base, params, hasParams, k)
	}
	return nil, fmt.Errorf("unknown measure %q (see 'bench eval --help' for the names)", name)
}

// The trec_eval measure families by how their parameters are read.
var (
	// simpleMeasures take no parameter.
	simpleMeasures = map[string]Kind{
		"runid": RunID, "num_q": NumQ, "num_ret": NumRet, "num_rel": NumRel, "num_rel_ret": NumRelRet,
		"map": AP, "gm_map": GMAP, "Rprec": RPrec, "bpref": Bpref, "gm_bpref": GMBpref,
		"recip_rank": RecipRank, "infAP": InfAP, "binG": BinG, "rbp_resid": RBPResid,
		"ndcg_exp": NDCGExp, "set_P": SetP, "set_relative_P": SetRelativeP, "set_recall": SetRecall,
		"set_map": SetMAP, "set_F": SetF, "num_nonrel_judged_ret": NumNonrelJudgedRet,
	}
	// namedParamMeasures' parameters (if any) become part of the name
	// verbatim, as trec_eval prints them.
	namedParamMeasures = map[string]Kind{
		"relstring": RelString, "utility": Utility, "11pt_avg": ElevenPtAvg,
		"ndcg": NDCG, "ndcg_rel": NDCGRel, "Rndcg": RNDCG, "G": G, "rbp": RBP,
	}
	// cutoffMeasures give one measure per cutoff k.
	cutoffMeasures = map[string]Kind{
		"P": P, "recall": Recall, "ndcg_cut": NDCG, "map_cut": MAPCut, "relative_P": RelativeP,
		"success": Success, "recip_rank_cut": RecipRank, "ndcg_exp_cut": NDCGExp, "judged": Judged,
		"unj": Unjudged,
	}
	// levelMeasures give one measure per real-valued level.
	levelMeasures = map[string]Kind{"iprec_at_recall": IPrecAtRecall, "Rprec_mult": RPrecMult}
)

// parseNamedParams parses a measure of namedParamMeasures: relstring's
// length, utility's four coefficients, 11pt_avg's recall levels, rbp's
// p=X, and the gain measures' level=gain pairs.
func parseNamedParams(name, base, params string, hasParams bool, k Kind) ([]Measure, error) {
	m := Measure{Name: base, Kind: k}
	if k == RelString {
		m.K = 10
	}
	if !hasParams {
		return []Measure{m}, nil
	}
	m.Name = base + "_" + params
	mp := &measureParams{}
	bad := func(why string) ([]Measure, error) {
		return nil, fmt.Errorf("measure %q: %s", name, why)
	}
	switch k {
	case RelString:
		c, err := strconv.Atoi(params)
		if err != nil || c <= 0 {
			return bad("length must be a positive integer")
		}
		m.K = c
		mp = nil
	case Utility:
		f := strings.Split(params, ",")
		if len(f) != 4 {
			return bad("want 4 coefficients a,b,c,d")
		}
		for i, x := range f {
			v, err := strconv.ParseFloat(x, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return bad(fmt.Sprintf("coefficient %q is not a number", x))
			}
			mp.coef[i] = v
		}
	case ElevenPtAvg:
		for _, x := range strings.Split(params, ",") {
			v, err := strconv.ParseFloat(x, 64)
			if err != nil || v < 0 || v > 1 {
				return bad(fmt.Sprintf("recall level %q must be a number in [0, 1]", x))
			}
			mp.levels = append(mp.levels, v)
		}
	case RBP:
		for _, pair := range strings.Split(params, ",") {
			key, val, ok := strings.Cut(pair, "=")
			v, err := strconv.ParseFloat(val, 64)
			if !ok || key != "p" || err != nil || v <= 0 || v >= 1 {
				return bad("want p=X with 0 < X < 1 (custom gains are not supported for rbp)")
			}
			mp.p = v
		}
	default: // gains "level=gain,..."
		for _, pair := range strings.Split(params, ",") {
			key, val, ok := strings.Cut(pair, "=")
			lv, err1 := strconv.Atoi(key)
			g, err2 := strconv.ParseFloat(val, 64)
			if !ok || err1 != nil || err2 != nil || lv < 0 || math.IsNaN(g) || math.IsInf(g, 0) {
				return bad(fmt.Sprintf("gain %q: want level=gain with an integer level ≥ 0", pair))
			}
			mp.gains = append(mp.gains, levelGain{lv, g})
		}
	}
	m.params = mp
	return []Measure{m}, nil
}

// parseCutoffMeasure parses a measure of cutoffMeasures: its cutoffs, or
// the family's defaults.
func parseCutoffMeasure(name, base, params string, hasParams bool, k Kind, lax *[]string) ([]Measure, error) {
	ks := defaultCutoffs
	switch base {
	case "success":
		ks = defaultSuccess
	case "judged", "unj":
		ks = defaultJudged
	case "recip_rank_cut", "ndcg_exp_cut":
		ks = []int{10}
	}
	if hasParams {
		var err error
		if ks, err = parseCutoffs(name, params, lax); err != nil {
			return nil, err
		}
	}
	var out []Measure
	for _, c := range ks {
		out = append(out, Measure{Name: fmt.Sprintf("%s_%d", base, c), Kind: k, K: c})
	}
	return out, nil
}

// parseLevelMeasure parses a measure of levelMeasures: its levels (sorted,
// without duplicates, as trec_eval), or the family's defaults.
func parseLevelMeasure(name, base, params string, hasParams bool, k Kind) ([]Measure, error) {
	xs := defaultIPrec
	if k == RPrecMult {
		xs = defaultRPrecMult
	}
	if hasParams {
		xs = nil
		for _, p := range strings.Split(params, ",") {
			x, err := strconv.ParseFloat(p, 64)
			if err != nil || x < 0 || (k == IPrecAtRecall && x > 1) {
				return nil, fmt.Errorf("measure %q: bad parameter %q", name, p)
			}
			xs = append(xs, x)
		}
		slices.Sort(xs) // as trec_eval
		xs = slices.Compact(xs)
	}
	var out []Measure
	for _, x := range xs {
		out = append(out, Measure{Name: fmt.Sprintf("%s_%.2f", base, x), Kind: k, X: x})
	}
	return out, nil
}

// singleValued reports whether m's family yields one measure whose
// parameters, if any, are part of its name (relstring, utility, 11pt_avg,
// ndcg, ndcg_rel, Rndcg, G, rbp).
func singleValued(m Measure) bool {
	switch m.Kind {
	case RelString, Utility, ElevenPtAvg, NDCGRel, RNDCG, G, RBP:
		return true
	case NDCG:
		return m.K == 0
	}
	return false
}

func one(name string, k Kind, c int, x float64) []Measure {
	return []Measure{{Name: name, Kind: k, K: c, X: x}}
}

func expandGroup(names []string) ([]Measure, error) {
	var out []Measure
	for _, n := range names {
		ms, err := parseMeasure(n, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, ms...)
	}
	return out, nil
}

func parseCutoffs(name, params string, lax *[]string) ([]int, error) {
	var ks []int
	for _, p := range strings.Split(params, ",") {
		c, err := strconv.Atoi(p)
		if err != nil && lax != nil {
			if ip, ok := decimalIntPart(p); ok {
				c, err = strconv.Atoi(ip)
				if err == nil && c > 0 {
					*lax = append(*lax, fmt.Sprintf("measure %q: cutoff %q truncated to %d, as trec_eval reads it (C atol keeps the leading integer); output name %s_%d", name, p, c, strings.SplitN(name, ".", 2)[0], c))
				}
			}
		}
		if err != nil || c <= 0 {
			return nil, fmt.Errorf("measure %q: cutoff %q is not a positive integer", name, p)
		}
		ks = append(ks, c)
	}
	slices.Sort(ks) // trec_eval prints parameters in ascending order
	return slices.Compact(ks), nil
}

func parseRanx(name, base, ks string) ([]Measure, error) {
	k, err := strconv.Atoi(ks)
	if err != nil || k <= 0 {
		return nil, fmt.Errorf("measure %q: cutoff %q is not a positive integer", name, ks)
	}
	var trecBase string
	switch base {
	case "ndcg":
		trecBase = "ndcg_cut"
	case "ndcg_burges", "ndcg_exp":
		trecBase = "ndcg_exp_cut"
	case "hit_rate", "success", "hitrate":
		trecBase = "success"
	case "mrr", "rr", "recip_rank":
		trecBase = "recip_rank_cut"
	case "recall", "r":
		trecBase = "recall"
	case "precision", "p":
		trecBase = "P"
	case "map", "ap":
		trecBase = "map_cut"
	case "judged":
		trecBase = "judged"
	default:
		return nil, fmt.Errorf("unknown measure %q (ranx-style names: ndcg@k ndcg_burges@k hit_rate@k mrr@k recall@k precision@k map@k judged@k)", name)
	}
	return parseMeasure(fmt.Sprintf("%s.%d", trecBase, k), nil)
}

// decimalIntPart returns the integer part of p when p is a plain decimal
// number with a fractional part: an optional '+', digits, '.', and
// optional digits ("23.4" → "23", "7." → "7").
func decimalIntPart(p string) (string, bool) {
	ip, frac, ok := strings.Cut(strings.TrimPrefix(p, "+"), ".")
	if !ok || ip == "" || strings.Trim(ip, "0123456789") != "" || strings.Trim(frac, "0123456789") != "" {
		return "", false
	}
	return ip, true
}
