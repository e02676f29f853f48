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
// order given. Errors: an empty Methods list; more than MaxGridSettings
// settings; an invalid value, named by axis and index ("weights[2][1]:
// must be finite and ≥ 0, got -1": weight 1 of the grid's weights 2;
// "k[1]: RRF rank constant must be …"); a policy valid for none of the
// methods.
func (g Grid) Expand(inputs int) ([]Options, error) {
	if len(g.Methods) == 0 {
		return nil, fmt.Errorf("hybrid: grid: no methods")
	}
	d := DefaultOptions()
	norms := orDefault(g.Norms, MinMax)
	ks := orDefault(g.K, d.K)
	depths := orDefault(g.Depths, d.Depth)
	weights := g.Weights
	if len(weights) == 0 {
		weights = [][]float64{nil}
	}
	// Check each value once, by axis and index, before combining.
	for i, w := range weights {
		if err := (Options{Method: RRF, K: d.K, Depth: d.Depth, Weights: w}).Validate(inputs); err != nil {
			return nil, fmt.Errorf("hybrid: grid: %s", axisErr("weights", i, err))
		}
	}
	for i, k := range ks {
		if err := (Options{Method: RRF, K: k, Depth: d.Depth}).Validate(inputs); err != nil {
			return nil, fmt.Errorf("hybrid: grid: %s", axisErr("k", i, err))
		}
	}
	for i, dp := range depths {
		if dp < 1 {
			return nil, fmt.Errorf("hybrid: grid: depths[%d]: must be ≥ 1, got %d", i, dp)
		}
	}
	var out []Options
	seen := map[string]bool{}
	add := func(o Options) error {
		key := o.String()
		if seen[key] {
			return nil
		}
		seen[key] = true
		out = append(out, o)
		if len(out) > MaxGridSettings {
			return fmt.Errorf("hybrid: grid: more than %d settings (MaxGridSettings); narrow the grid", MaxGridSettings)
		}
		return nil
	}
	for i, m := range g.Methods {
		if !slices.Contains(Methods, m) {
			return nil, fmt.Errorf("hybrid: grid: methods[%d]: unknown fusion method %q (want %s)", i, m, list(Methods))
		}
		mNorms := norms
		if m == RRF || m == DBSF {
			mNorms = []Normalization{""}
		}
		mKs := ks
		if m != RRF {
			mKs = []float64{d.K}
		}
		for _, n := range mNorms {
			for _, mi := range missingFor(g.Missing, m, n) {
				for _, w := range weights {
					for _, k := range mKs {
						for _, dp := range depths {
							o := Options{Method: m, Norm: n, Missing: mi, Weights: slices.Clone(w), K: k, Depth: dp}
							if err := o.Validate(inputs); err != nil {
								return nil, fmt.Errorf("hybrid: grid: %s: %w", o, trim(err))
							}
							if err := add(o); err != nil {
								return nil, err
							}
						}
					}
				}
			}
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

// trim drops the "hybrid: " prefix of an error from Validate (the caller
// adds its own).
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
