package hybrid

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// MaxGridSettings is the most settings a Grid may expand to. Each setting
// is one fusion of runs already computed (no retrieval), but each is also
// evaluated and tested, so a grid larger than this is almost certainly a
// mistake in a config.
const MaxGridSettings = 1000

// Grid is a set of fusion settings to tune over: Expand returns every
// combination of its values that a method can use. An empty field means the
// value of DefaultOptions (Norms: MinMax; Missing: DefaultMissing). Axes
// apply only where they mean something: Norms to CombSUM, CombMNZ,
// Harmonic and Geometric; K to RRF; so {Methods: [rrf, combsum], Norms:
// [minmax, zscore], K: [20, 60]} is 2 RRF settings + 2 CombSUM settings.
type Grid struct {
	Methods []Method
	Norms   []Normalization
	Missing []Missing
	Weights [][]float64 // each one weight per input
	K       []float64
	Depths  []int
}

// Expand returns the grid's settings for fusing inputs runs, each valid
// (Options.Validate), without duplicates, in a fixed order: methods, then
// normalisations, missing policies, weights, K and depths, each in the
// order given. Norms apply to Harmonic and Geometric only where they are
// non-negative (MeanNorms). Errors: an empty Methods list; more than
// MaxGridSettings settings; an invalid value, named by axis and index
// ("weights[2][1]: must be finite and ≥ 0, got -1": weight 1 of the grid's
// weights 2; "k[1]: RRF rank constant must be …"); a harmonic or geometric
// method none of the grid's normalisations applies to; a policy valid for
// none of the methods.
func (g Grid) Expand(inputs int) ([]Options, error) {
	if len(g.Methods) == 0 {
		return nil, fmt.Errorf("hybrid: grid: no methods")
	}
	ax, err := g.axes(inputs)
	if err != nil {
		return nil, err
	}
	var out []Options
	seen := map[string]bool{}
	add := func(o Options) error {
		if key := o.String(); !seen[key] {
			seen[key] = true
			out = append(out, o)
		}
		if len(out) > MaxGridSettings {
			return fmt.Errorf("hybrid: grid: more than %d settings (MaxGridSettings); narrow the grid", MaxGridSettings)
		}
		return nil
	}
	for i, m := range g.Methods {
		if err := ax.settings(i, m, g.Missing, inputs, add); err != nil {
			return nil, err
		}
	}
	for i, mi := range g.Missing {
		used := false
		for _, o := range out {
			used = used || o.Missing == mi
		}
		if !used {
			return nil, fmt.Errorf("hybrid: grid: missing[%d]: policy %q applies to none of the grid's methods and normalizations", i, mi)
		}
	}
	return out, nil
}

// gridAxes are a Grid's value axes with their defaults filled in, each
// value checked on its own.
type gridAxes struct {
	norms   []Normalization
	weights [][]float64
	ks      []float64
	depths  []int
}

// axes fills g's empty axes with DefaultOptions' values (Norms: MinMax)
// and checks each weight list, K and depth by axis and index before they
// are combined.
func (g Grid) axes(inputs int) (gridAxes, error) {
	d := DefaultOptions()
	ax := gridAxes{norms: orDefault(g.Norms, MinMax), weights: g.Weights, ks: orDefault(g.K, d.K), depths: orDefault(g.Depths, d.Depth)}
	if len(ax.weights) == 0 {
		ax.weights = [][]float64{nil}
	}
	for i, w := range ax.weights {
		if err := (Options{Method: RRF, K: d.K, Depth: d.Depth, Weights: w}).Validate(inputs); err != nil {
			return ax, fmt.Errorf("hybrid: grid: %s", axisErr("weights", i, err))
		}
	}
	for i, k := range ax.ks {
		if err := (Options{Method: RRF, K: k, Depth: d.Depth}).Validate(inputs); err != nil {
			return ax, fmt.Errorf("hybrid: grid: %s", axisErr("k", i, err))
		}
	}
	for i, dp := range ax.depths {
		if dp < 1 {
			return ax, fmt.Errorf("hybrid: grid: depths[%d]: must be ≥ 1, got %d", i, dp)
		}
	}
	return ax, nil
}

// settings passes to add, in the grid's order, each setting of method m
// (the grid's methods[i]) over the axes that apply to it, validated; it
// stops at add's first error.
func (ax gridAxes) settings(i int, m Method, missing []Missing, inputs int, add func(Options) error) error {
	if !slices.Contains(Methods, m) {
		return fmt.Errorf("hybrid: grid: methods[%d]: unknown fusion method %q (want %s)", i, m, list(Methods))
	}
	norms := []Normalization{""}
	if m != RRF && m != DBSF {
		norms = slices.DeleteFunc(slices.Clone(ax.norms), func(n Normalization) bool { return meanNorm(m, n) != nil })
		if len(norms) == 0 {
			return fmt.Errorf("hybrid: grid: methods[%d]: none of the grid's normalizations (%s) applies to %s, which takes %s", i, list(ax.norms), m, list(MeanNorms))
		}
	}
	ks := ax.ks
	if m != RRF {
		ks = []float64{DefaultK}
	}
	for _, n := range norms {
		for _, mi := range missingFor(missing, m, n) {
			for _, w := range ax.weights {
				for _, k := range ks {
					for _, dp := range ax.depths {
						o := Options{Method: m, Norm: n, Missing: mi, Weights: slices.Clone(w), K: k, Depth: dp}
						if err := o.Validate(inputs); err != nil {
							return fmt.Errorf("hybrid: grid: %s: %w", o, trim(err))
						}
						if err := add(o); err != nil {
							return err
						}
					}
				}
			}
		}
	}
	return nil
}

// missingFor returns the policies of ps that method m with normalisation n
// can apply (DefaultMissing(n) when ps is empty).
func missingFor(ps []Missing, m Method, n Normalization) []Missing {
	if len(ps) == 0 {
		return []Missing{DefaultMissing(n)}
	}
	var out []Missing
	for _, p := range ps {
		if (Options{Method: m, Norm: n, Missing: p, K: DefaultK, Depth: DefaultDepth}).Validate(1) == nil {
			out = append(out, p)
		}
	}
	return out
}

func orDefault[T any](v []T, d T) []T {
	if len(v) == 0 {
		return []T{d}
	}
	return v
}

// axisErr names Options.Validate's error about one value of a grid axis by
// the axis and index, merging the axis name Validate already starts with:
// "weights[1]: must be …" of entry 2 is "weights[2][1]: must be …",
// "k: RRF rank constant …" of entry 1 is "k[1]: RRF rank constant …".
func axisErr(axis string, i int, err error) string {
	msg := trim(err).Error()
	at := fmt.Sprintf("%s[%d]", axis, i)
	if rest, ok := strings.CutPrefix(msg, axis+"["); ok {
		return at + "[" + rest
	}
	if rest, ok := strings.CutPrefix(msg, axis+": "); ok {
		return at + ": " + rest
	}
	return at + ": " + msg
}

// trim drops the "hybrid: " prefix of an error from Validate (the caller
// adds its own).
func trim(err error) error {
	return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "hybrid: "))
}

// String names the setting, stably and with only the fields its method
// uses: "rrf k=60 depth=100 missing=zero", "combsum norm=minmax
// missing=zero weights=0.7,0.3 depth=100". Equal settings have equal
// names (a cache key, a row of a results table).
func (o Options) String() string {
	var b strings.Builder
	b.WriteString(string(o.Method))
	if o.Norm != "" {
		b.WriteString(" norm=" + string(o.Norm))
	}
	if o.Method == RRF {
		b.WriteString(" k=" + strconv.FormatFloat(o.K, 'g', -1, 64))
	}
	m := o.Missing
	if m == "" {
		m = DefaultMissing(o.Norm)
	}
	b.WriteString(" missing=" + string(m))
	if o.Weights != nil {
		w := make([]string, len(o.Weights))
		for i, x := range o.Weights {
			w[i] = strconv.FormatFloat(x, 'g', -1, 64)
		}
		b.WriteString(" weights=" + strings.Join(w, ","))
	}
	b.WriteString(" depth=" + strconv.Itoa(o.Depth))
	return b.String()
}
