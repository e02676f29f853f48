// Package hybrid fuses N ranked lists into one, the way search engines and
// ranx ship it: reciprocal rank fusion (RRF) with per-input weights and rank
// constant; CombSUM (weighted sum) and CombMNZ over the normalisations
// min-max, z-score, max, sum, rank and Borda; Qdrant's distribution-based
// score fusion (DBSF); OpenSearch's harmonic and geometric combinations. Fuse
// works on eval.Run values (runs read from files, or produced by retrievers);
// New wraps any retrievers as one retrievers.Retriever; Grid expands a set of
// settings to tune over. docs/fusion.md is the manual, with every
// definition's source and where ranx differs.
//
// # Order and determinism
//
// Every input list is first put in rank order by eval.Sort with
// eval.TieDocIDDesc — score descending, equal scores by doc id descending in
// byte order, trec_eval's order and the one every ragbench ranking uses — and
// cut to Options.Depth. Ranks (RRF, rank, Borda) are positions in that order,
// from 1. Fused scores are summed input by input in argument order, and the
// fused list is sorted in the same order (eval.Sort, eval.TieDocIDDesc), so the
// output is the same on every run and whatever GOMAXPROCS is.
//
// # Documents missing from an input
//
// Implementations differ exactly here, so the policy is an option
// (Options.Missing): a document that an input did not return in its top Depth
// contributes nothing (MissingZero: 0 after normalisation, Fox & Shaw's and
// ranx's rule for score methods; RRF's sum skips it), the input's lowest
// normalised score for the query (MissingMin), rank Depth + 1 in that input
// (MissingRank, RRF only), or the mean of the Borda points that input did not
// award (MissingBorda, the Borda count's rule and ranx's). The default,
// DefaultMissing, is MissingBorda for Borda normalisation and MissingZero
// otherwise, which is ranx's behaviour for every method it shares.
package hybrid

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/ragbench/ragbench/eval"
)

// Method names a fusion method. Names are the field's (and ranx's where ranx
// has the method).
type Method string

const (
	// RRF is reciprocal rank fusion (Cormack, Clarke & Büttcher, "Reciprocal
	// rank fusion outperforms Condorcet and individual rank learning methods",
	// SIGIR 2009), weighted as Elasticsearch's weighted RRF: score(d) =
	// Σᵢ wᵢ / (K + rankᵢ(d)), ranks from 1, over the inputs whose top Depth
	// contain d (MissingRank: the others count rank Depth + 1). Scores are
	// used only to rank. ranx's rrf is this with every weight 1.
	RRF Method = "rrf"
	// CombSUM is the weighted sum score(d) = Σᵢ wᵢ · normᵢ(d) (Fox & Shaw,
	// "Combination of multiple searches", TREC-2, 1994; ranx's wsum, and its
	// comb_sum when every weight is 1), normᵢ(d) per Options.Norm and, for a
	// document missing from input i, per Options.Missing.
	CombSUM Method = "combsum"
	// CombMNZ is CombSUM multiplied by the number of inputs of weight > 0
	// whose top Depth contain d (Fox & Shaw 1994; ranx's comb_mnz when
	// every weight is 1; a weight-0 input takes no part, Options.Weights).
	// Under MissingBorda every input awards d Borda points and so counts, as
	// in ranx (whose Borda normalisation adds every candidate to every run).
	// ranx's wmnz weighs differently (Σ scores × Σ weights of the inputs
	// containing d); that is not this method.
	CombMNZ Method = "combmnz"
	// DBSF is Qdrant's distribution-based score fusion (Qdrant 1.11,
	// lib/segment/src/common/score_fusion.rs): each input's scores for the
	// query are mapped by s ↦ (s − (μ − 3σ)) / 6σ, μ the mean and σ the sample
	// standard deviation (n − 1) of that input's top Depth scores — not
	// clipped, as in Qdrant, so a score beyond 3σ maps outside [0, 1]; a list
	// of one score, or σ = 0, gives 0.5 — and summed with weights as CombSUM.
	// It takes no Norm.
	DBSF Method = "dbsf"
	// Harmonic is OpenSearch's harmonic_mean combination (neural-search
	// HarmonicMeanScoreCombinationTechnique): score(d) = Σᵢ wᵢ / Σᵢ (wᵢ / vᵢ)
	// over the inputs with a normalised score vᵢ(d) > 0; 0 when there is none.
	// Its Norm is one of MeanNorms (non-negative values).
	Harmonic Method = "harmonic"
	// Geometric is OpenSearch's geometric_mean combination (neural-search
	// GeometricMeanScoreCombinationTechnique): score(d) =
	// exp(Σᵢ wᵢ ln vᵢ / Σᵢ wᵢ) over the inputs with vᵢ(d) > 0; 0 when none.
	// Its Norm is one of MeanNorms (non-negative values).
	Geometric Method = "geometric"
)

// Methods lists every Method, in documentation order.
var Methods = []Method{RRF, CombSUM, CombMNZ, DBSF, Harmonic, Geometric}

// Normalization names the per-query normalisation CombSUM, CombMNZ,
// Harmonic and Geometric apply to each input's top Depth before combining.
// Names follow ranx's ("zmuv" is our ZScore). RRF and DBSF take none.
type Normalization string

const (
	// MinMax maps s to (s − min) / (max − min) over the query's list, into
	// [0, 1]; when max = min (one result, or equal scores) every score
	// becomes 0, a flat list that FuseWithNotes counts (Notes). ranx divides
	// by max(max − min, 1e-9) instead, which differs only when 0 < max − min
	// < 1e-9.
	MinMax Normalization = "minmax"
	// ZScore (ranx's zmuv) maps s to (s − mean) / σ with σ the population
	// standard deviation (ddof = 0, numpy's default); when σ = 0 every score
	// becomes 0. ranx divides by max(σ, 1e-9).
	ZScore Normalization = "zscore"
	// Max maps s to s / max (ranx's max); the query's top score must be > 0,
	// else Fuse returns an error naming the query (ranx divides by
	// max(max, 1e-9), which flips or blows up non-positive scores).
	Max Normalization = "max"
	// Sum maps s to (s − min) / Σ(s − min) over the query's list (ranx's
	// sum); when every score is the minimum every score becomes 0.
	Sum Normalization = "sum"
	// Rank maps the document at rank r of a list of n to 1 − (r − 1)/n
	// (ranx's rank): 1 for the top, 1/n for the last.
	Rank Normalization = "rank"
	// Borda maps the document at rank r to (c − r + 1)/c, c the number of
	// distinct documents in all inputs' top Depth for the query (the Borda
	// count scaled to (0, 1], ranx's borda). A document missing from a list of
	// n gets (c − n + 1)/(2c) under MissingBorda: the mean of the points the
	// input did not award.
	Borda Normalization = "borda"
	// None combines raw scores (only meaningful when the inputs share a scale).
	None Normalization = "none"
)

// Normalizations lists every Normalization, in documentation order.
var Normalizations = []Normalization{MinMax, ZScore, Max, Sum, Rank, Borda, None}

// Missing names the policy for a document one input did not return in its top
// Depth for a query (see the package comment).
type Missing string

const (
	// MissingZero: the document's normalised score in that input is 0 (RRF:
	// no term). Fox & Shaw's and ranx's rule for every method but Borda.
	MissingZero Missing = "zero"
	// MissingMin: the document gets the input's lowest normalised score for
	// the query (0 for an empty list). Score methods only, not RRF.
	MissingMin Missing = "min"
	// MissingRank: the document counts as ranked Depth + 1 in that input, so
	// RRF adds wᵢ / (K + Depth + 1). RRF only.
	MissingRank Missing = "rank"
	// MissingBorda: the mean of the Borda points the input did not award,
	// (c − n + 1)/(2c) (ranx's borda). Borda normalisation only.
	MissingBorda Missing = "borda"
)

// Defaults, as data: DefaultOptions uses them, callers name them.
const (
	DefaultK     = 60  // RRF rank constant (Cormack et al. 2009; ranx, Elasticsearch, OpenSearch)
	DefaultDepth = 100 // results taken from each input per query
)

// Options configure a fusion. Build one from DefaultOptions and change what
// you need: every numeric field is taken literally (K = 0 is RRF with no
// constant, a weight 0 drops an input: see Weights), and Validate rejects
// what has no meaning.
type Options struct {
	// Method is the fusion method; required.
	Method Method
	// K is RRF's rank constant, finite and ≥ 0 (DefaultK = 60). Used by RRF
	// only; other methods ignore it.
	K float64
	// Norm is the normalisation for CombSUM, CombMNZ, Harmonic and Geometric
	// (required for them; Harmonic and Geometric take MeanNorms only); RRF
	// and DBSF take none and reject one.
	Norm Normalization
	// Missing is the policy for a document missing from an input; "" means
	// DefaultMissing(Norm). Validate rejects a policy the method cannot apply.
	Missing Missing
	// Weights are per-input weights (finite, ≥ 0), one per input in order;
	// nil means 1 for every input. An input of weight 0 takes no part: the
	// fusion is that of the other inputs alone (their weights unchanged),
	// for every method — its documents are no candidates, it adds no
	// term, it is not counted by CombMNZ's "number of inputs that returned
	// d" (nor, under MissingBorda, among the inputs awarding points), and
	// its documents do not enter Borda's candidate count c. ranx has no
	// weighted comb_mnz; its wmnz likewise multiplies by the sum of the
	// weights of the runs holding d, to which a weight 0 adds nothing.
	// Only the query set differs from leaving the input out: a query that
	// only a weight-0 input holds gets an empty list.
	Weights []float64
	// Depth is how many top results of each input are fused per query, ≥ 1
	// (DefaultDepth = 100). To fuse whole lists set it to at least the
	// longest list.
	Depth int
}

// DefaultOptions returns RRF with K = DefaultK, depth DefaultDepth, equal
// weights and MissingZero: Cormack et al.'s RRF as ranx and Elasticsearch
// ship it.
func DefaultOptions() Options {
	return Options{Method: RRF, K: DefaultK, Depth: DefaultDepth, Missing: MissingZero}
}

// DefaultMissing is the policy used when Options.Missing is "": MissingBorda
// for Borda, MissingZero otherwise (ranx's behaviour for every method).
func DefaultMissing(n Normalization) Missing {
	if n == Borda {
		return MissingBorda
	}
	return MissingZero
}

// Validate checks o for fusing inputs runs (≥ 1). Errors name the field:
// an unknown or empty method, normalisation or missing policy; a Norm given
// to RRF or DBSF, or none to the other methods; a Norm outside MeanNorms
// for Harmonic or Geometric (naming the allowed ones); a policy the method cannot
// apply; K negative or not finite (RRF); Depth < 1; a weight count other
// than inputs, a weight negative or not finite, or every weight 0.
func (o Options) Validate(inputs int) error {
	_, err := o.resolve(inputs)
	return err
}

// resolve validates o for n inputs and fills Weights and Missing.
func (o Options) resolve(n int) (Options, error) {
	if n < 1 {
		return o, errors.New("hybrid: no inputs to fuse")
	}
	if !slices.Contains(Methods, o.Method) {
		return o, fmt.Errorf("hybrid: method: unknown fusion method %q (want %s)", o.Method, list(Methods))
	}
	switch o.Method {
	case RRF, DBSF:
		if o.Norm != "" {
			return o, fmt.Errorf("hybrid: norm: %s takes no normalization, got %q", o.Method, o.Norm)
		}
	default:
		if o.Norm == "" {
			return o, fmt.Errorf("hybrid: norm: %s needs a normalization (%s)", o.Method, list(Normalizations))
		}
		if !slices.Contains(Normalizations, o.Norm) {
			return o, fmt.Errorf("hybrid: norm: unknown normalization %q (want %s)", o.Norm, list(Normalizations))
		}
		if err := meanNorm(o.Method, o.Norm); err != nil {
			return o, err
		}
	}
	if o.Missing == "" {
		o.Missing = DefaultMissing(o.Norm)
	}
	switch o.Missing {
	case MissingZero:
	case MissingMin:
		if o.Method == RRF {
			return o, errors.New(`hybrid: missing: "min" applies to score methods, not rrf (use "zero" or "rank")`)
		}
	case MissingRank:
		if o.Method != RRF {
			return o, fmt.Errorf(`hybrid: missing: "rank" applies to rrf only, not %s`, o.Method)
		}
	case MissingBorda:
		if o.Norm != Borda {
			return o, errors.New(`hybrid: missing: "borda" applies to the borda normalization only`)
		}
	default:
		return o, fmt.Errorf("hybrid: missing: unknown policy %q (want zero, min, rank or borda)", o.Missing)
	}
	if o.Method == RRF && (!(o.K >= 0) || math.IsInf(o.K, 0)) {
		return o, fmt.Errorf("hybrid: k: RRF rank constant must be a finite number ≥ 0, got %v", o.K)
	}
	if o.Depth < 1 {
		return o, fmt.Errorf("hybrid: depth: must be ≥ 1, got %d", o.Depth)
	}
	if o.Weights == nil {
		o.Weights = make([]float64, n)
		for i := range o.Weights {
			o.Weights[i] = 1
		}
	} else {
		if len(o.Weights) != n {
			return o, fmt.Errorf("hybrid: weights: %d weights for %d inputs", len(o.Weights), n)
		}
		for i, w := range o.Weights {
			if !(w >= 0) || math.IsInf(w, 0) {
				return o, fmt.Errorf("hybrid: weights[%d]: must be finite and ≥ 0, got %v", i, w)
			}
		}
		if slices.Max(o.Weights) == 0 {
			return o, errors.New("hybrid: weights: every weight is 0, which drops every input (every fused score would be 0 and the ranking mere doc-id order): give at least one weight > 0")
		}
		o.Weights = slices.Clone(o.Weights)
	}
	return o, nil
}

// MeanNorms are the normalisations Harmonic and Geometric accept: those
// whose values are never negative (min-max and sum into [0, 1], rank and
// Borda into (0, 1]). Both means are defined on positive values only —
// OpenSearch's normalization-processor combines harmonic_mean and
// geometric_mean with min_max or l2 (non-negative) scores, and z_score with
// arithmetic_mean only — and skip a score ≤ 0, as OpenSearch does its
// min-max floor; over z-scores, raw scores or s/max of negative scores a
// list's negative tail would all become 0 and its order reverse (d1 −1,
// d2 −2, d3 −3 fused alone by geometric without normalisation gave d3, d2,
// d1).
var MeanNorms = []Normalization{MinMax, Sum, Rank, Borda}

// meanNorm refuses a normalisation Harmonic and Geometric cannot take
// (MeanNorms); nil for other methods.
func meanNorm(m Method, n Normalization) error {
	if (m != Harmonic && m != Geometric) || slices.Contains(MeanNorms, n) {
		return nil
	}
	return fmt.Errorf("hybrid: norm: %s takes a non-negative normalization (%s), not %s: it skips scores ≤ 0, which would reverse the order of a list's negative scores (OpenSearch defines %s_mean on min_max and l2 scores only)",
		m, list(MeanNorms), n, m)
}

// list joins names as "a, b or c".
func list[T ~string](names []T) string {
	s := ""
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			s += " or "
		default:
			s += ", "
		}
		s += string(n)
	}
	return s
}

// Fuse fuses runs (one per input system) query by query and returns the fused
// run: for every query id present in any input, all documents found in any
// input's top Depth, with their fused scores, in eval.Sort order (score
// descending, ties by doc id descending). A query missing from an input
// counts as an empty list there (ranx instead requires equal query sets); a
// query whose lists are all empty gets an empty, non-nil list.
//
// Errors: no inputs; bad options (Validate); a NaN or infinite score, a doc
// id twice in one list, or a non-positive top score under Max normalisation
// (each naming the input index, query id and doc id); finite scores whose
// fused score overflows (*OverflowError, naming query, doc and inputs).
// The inputs are not modified.
func Fuse(runs []eval.Run, opts Options) (eval.Run, error) {
	run, _, err := FuseWithNotes(runs, opts)
	return run, err
}

// FuseWithNotes is Fuse that also returns the fusion's Notes: the lists a
// normalisation found flat (one result, or every score equal), which it
// maps to one constant (min-max: 0, as ranx does), counted per input for
// the caller to report (Notes.Lines).
func FuseWithNotes(runs []eval.Run, opts Options) (eval.Run, Notes, error) {
	if len(runs) == 0 {
		return nil, Notes{}, errors.New("hybrid: no runs to fuse")
	}
	if _, err := opts.resolve(len(runs)); err != nil {
		return nil, Notes{}, err
	}
	r, err := RankRuns(runs)
	if err != nil {
		return nil, Notes{}, err
	}
	return r.FuseWithNotes(opts)
}

// Ranked is a set of runs checked and put in rank order once, to be fused
// under many settings (tuning) without sorting them again. It is read-only:
// concurrent Fuse calls are safe.
type Ranked struct {
	inputs int
	qids   []string          // byte order
	lists  [][][]eval.Result // [query][input]: the whole list in rank order
}

// RankRuns checks runs (one per input system) and returns them in rank order
// (eval.Sort, eval.TieDocIDDesc), over the union of their query ids; a query
// missing from an input is an empty list there. Errors: no runs; a NaN or
// infinite score or a doc id twice in one list, naming the input index,
// query id and doc id. The runs are not modified.
func RankRuns(runs []eval.Run) (*Ranked, error) {
	if len(runs) == 0 {
		return nil, errors.New("hybrid: no runs to fuse")
	}
	var qids []string
	seen := map[string]bool{}
	for _, r := range runs {
		for q := range r {
			if !seen[q] {
				seen[q] = true
				qids = append(qids, q)
			}
		}
	}
	slices.Sort(qids)
	out := &Ranked{inputs: len(runs), qids: qids, lists: make([][][]eval.Result, len(qids))}
	for k, q := range qids {
		out.lists[k] = make([][]eval.Result, len(runs))
		for i, r := range runs {
			l, err := rankOrder(r[q], math.MaxInt)
			if err != nil {
				return nil, fmt.Errorf("hybrid: input %d, query %q: %w", i, q, err)
			}
			out.lists[k][i] = l
		}
	}
	return out, nil
}

// InputError is a fusion that failed on one input's list of one query (a
// non-positive top score under Max normalisation): Input is the input's
// index in the runs given, so that a caller can name its file.
type InputError struct {
	Input int
	Query string
	Err   error
}

func (e *InputError) Error() string {
	return fmt.Sprintf("hybrid: query %q: input %d: %v", e.Query, e.Input, e.Err)
}

func (e *InputError) Unwrap() error { return e.Err }

// OverflowError is a fused score that is not a finite number although
// every input score is: the weighted sum (or CombMNZ's product, or a
// harmonic term w/v) of finite scores overflowed float64, as raw scores
// near ±1.8e308 do under Norm None. Fuse refuses it rather than rank the
// document first (+Inf) or last, or write a score no reader accepts.
// Inputs are the indexes, in the runs given, of the inputs whose top Depth
// hold Doc for Query, so that a caller can name their files.
type OverflowError struct {
	Query, Doc string
	Inputs     []int
	Score      float64 // the non-finite result: +Inf, -Inf or NaN
}

func (e *OverflowError) Error() string {
	return fmt.Sprintf("hybrid: query %q: doc %q: the fused score is %v (the scores of inputs %v overflow float64 when combined); normalise them (a Norm other than none) or scale them down", e.Query, e.Doc, e.Score, e.Inputs)
}

// Fuse fuses the ranked runs with opts; the result equals hybrid.Fuse of the
// runs given to RankRuns. Errors: bad options (Validate); a non-positive top
// score under Max normalisation, naming the query and input (*InputError);
// a fused score that overflows (*OverflowError).
func (r *Ranked) Fuse(opts Options) (eval.Run, error) {
	run, _, err := r.FuseWithNotes(opts)
	return run, err
}

// FuseWithNotes is Fuse that also returns the fusion's Notes (its flat
// lists), for the caller to report.
func (r *Ranked) FuseWithNotes(opts Options) (eval.Run, Notes, error) {
	o, err := opts.resolve(r.inputs)
	if err != nil {
		return nil, Notes{}, err
	}
	out := make(eval.Run, len(r.qids))
	notes := newNotes(o, r.inputs)
	cut := make([][]eval.Result, r.inputs)
	for k, q := range r.qids {
		for i, l := range r.lists[k] {
			cut[i] = l[:min(len(l), o.Depth)]
		}
		f, flat, err := fuseQuery(cut, o)
		if err != nil {
			if ie, ok := err.(*InputError); ok {
				ie.Query = q
				return nil, Notes{}, ie
			}
			if oe, ok := err.(*OverflowError); ok {
				oe.Query = q
				return nil, Notes{}, oe
			}
			return nil, Notes{}, fmt.Errorf("hybrid: query %q: %w", q, err)
		}
		notes.add(q, flat)
		out[q] = f
	}
	return out, notes, nil
}

// rankOrder returns a copy of l in rank order (eval.Sort, TieDocIDDesc) cut
// to depth, after checking scores and duplicate ids.
func rankOrder(l []eval.Result, depth int) ([]eval.Result, error) {
	ids := make(map[string]struct{}, len(l))
	for _, r := range l {
		if math.IsNaN(r.Score) || math.IsInf(r.Score, 0) {
			return nil, fmt.Errorf("doc %q: score is %v (want a finite number)", r.DocID, r.Score)
		}
		if _, dup := ids[r.DocID]; dup {
			return nil, fmt.Errorf("doc %q: listed twice", r.DocID)
		}
		ids[r.DocID] = struct{}{}
	}
	c := slices.Clone(l)
	eval.Sort(c, eval.TieDocIDDesc)
	if len(c) > depth {
		c = c[:depth]
	}
	return c, nil
}

// fuseQuery fuses one query's rank-ordered, depth-cut lists with resolved
// options. flat[i] reports that input i's list was flat (normalized).
func fuseQuery(lists [][]eval.Result, o Options) (fused []eval.Result, flat []bool, err error) {
	a := newAccum(lists, o)
	flat = make([]bool, len(lists))
	for i, l := range lists {
		if o.Weights[i] == 0 {
			continue
		}
		if flat[i], err = a.add(l, o.Weights[i], o); err != nil {
			return nil, nil, &InputError{Input: i, Err: err}
		}
	}
	fused, err = a.results(lists, o)
	return fused, flat, err
}

// accum holds one query's fusion in progress: the candidates (every
// document of an input of weight > 0) in first-seen order (input, then
// rank), a map-independent summation order, and per candidate its sums.
type accum struct {
	index   map[string]int // doc id → candidate
	order   []string       // candidates' doc ids
	active  int            // inputs of weight > 0
	score   []float64      // the weighted sum (Harmonic: Σ w/v; Geometric: Σ w ln v)
	wsum    []float64      // Harmonic and Geometric: Σ w of the terms in score
	hits    []int          // inputs whose list holds the candidate
	present []bool         // scratch: the candidate is in the input being added
}

// newAccum collects the candidates of lists: an input of weight 0 takes no
// part (Options.Weights), its documents are no candidates.
func newAccum(lists [][]eval.Result, o Options) *accum {
	a := &accum{index: map[string]int{}}
	for i, l := range lists {
		if o.Weights[i] == 0 {
			continue
		}
		a.active++
		for _, r := range l {
			if _, ok := a.index[r.DocID]; !ok {
				a.index[r.DocID] = len(a.order)
				a.order = append(a.order, r.DocID)
			}
		}
	}
	n := len(a.order)
	a.score, a.wsum, a.hits, a.present = make([]float64, n), make([]float64, n), make([]int, n), make([]bool, n)
	return a
}

// add adds the terms of one input's list l, of weight w > 0: each listed
// document's (its RRF term or normalised score), then the missing value
// for every other candidate. flat: the list was flat (normalized).
func (a *accum) add(l []eval.Result, w float64, o Options) (flat bool, err error) {
	clear(a.present)
	var v []float64
	var miss float64
	if o.Method != RRF {
		if v, miss, flat, err = normalized(l, o, len(a.order)); err != nil {
			return false, err
		}
	} else if o.Missing == MissingRank {
		miss = 1 / (o.K + float64(o.Depth) + 1)
	}
	for j, r := range l {
		k := a.index[r.DocID]
		a.present[k] = true
		a.hits[k]++
		if o.Method == RRF {
			combine(o.Method, &a.score[k], &a.wsum[k], w, 1/(o.K+float64(j+1)))
		} else {
			combine(o.Method, &a.score[k], &a.wsum[k], w, v[j])
		}
	}
	if miss == 0 && o.Method != Harmonic && o.Method != Geometric {
		return flat, nil // a zero term changes no sum
	}
	for k := range a.order {
		if !a.present[k] {
			combine(o.Method, &a.score[k], &a.wsum[k], w, miss)
		}
	}
	return flat, nil
}

// results is the fused list: each candidate's final score (CombMNZ's
// product, Harmonic's and Geometric's means), in eval.Sort order. Errors: a
// non-finite fused score (*OverflowError, Query left to the caller).
func (a *accum) results(lists [][]eval.Result, o Options) ([]eval.Result, error) {
	out := make([]eval.Result, len(a.order))
	for k, id := range a.order {
		s := a.score[k]
		if math.IsInf(s, 0) || math.IsNaN(s) {
			return nil, overflow(lists, o, id, s)
		}
		switch o.Method {
		case CombMNZ:
			if o.Missing == MissingBorda {
				s *= float64(a.active) // every input awarded d points (ranx)
			} else {
				s *= float64(a.hits[k])
			}
		case Harmonic:
			if s > 0 {
				s = a.wsum[k] / s
			}
		case Geometric:
			if a.wsum[k] > 0 {
				s = math.Exp(s / a.wsum[k])
			} else {
				s = 0
			}
		}
		if math.IsInf(s, 0) || math.IsNaN(s) {
			return nil, overflow(lists, o, id, s)
		}
		out[k] = eval.Result{DocID: id, Score: s}
	}
	eval.Sort(out, eval.TieDocIDDesc)
	return out, nil
}

// overflow is the *OverflowError for doc id's non-finite fused score s,
// listing the inputs of weight > 0 whose lists hold it (Query is filled by
// the caller).
func overflow(lists [][]eval.Result, o Options, id string, s float64) error {
	e := &OverflowError{Doc: id, Score: s}
	for i, l := range lists {
		if o.Weights[i] == 0 {
			continue
		}
		for _, r := range l {
			if r.DocID == id {
				e.Inputs = append(e.Inputs, i)
				break
			}
		}
	}
	return e
}

// combine adds input weight w's term for value x to a document's sums: the
// weighted sum for RRF, CombSUM, CombMNZ and DBSF; Σ w/x and Σ w for
// Harmonic, Σ w ln x and Σ w for Geometric, over x > 0 (OpenSearch skips
// zero scores).
func combine(m Method, s, ws *float64, w, x float64) {
	switch m {
	case Harmonic:
		if x > 0 {
			*s += w / x
			*ws += w
		}
	case Geometric:
		if x > 0 {
			*s += w * math.Log(x)
			*ws += w
		}
	default:
		*s += w * x
	}
}
