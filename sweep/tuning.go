package sweep

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ragbench/ragbench/rerank"
	"github.com/ragbench/ragbench/retrievers/hybrid"
)

// This file is tuning inside the sweep (issue 15): a hybrid or rerank
// retriever may give a list where a value is expected, and the list is a
// grid. The sweep evaluates every setting of the grid on the tuning queries
// only, picks the best by the primary metric at prompt_k (ties: the earlier
// setting in grid order), reports the chosen setting's run as the cell's,
// and tests it against the untuned default on the held-out queries
// (tuningrun.go).

// TuneGrid holds the lists a retriever gave in place of values: each
// non-empty field is an axis of the grid. A hybrid tunes Fusion,
// Normalization, Missing, Weights (a list of lists: a flat list stays one
// value), RRFK and Depth; a rerank in mode interpolate tunes Alpha.
type TuneGrid struct {
	Fusion        []string    `json:"fusion,omitempty"`
	Normalization []string    `json:"normalization,omitempty"`
	Missing       []string    `json:"missing,omitempty"`
	Weights       [][]float64 `json:"weights,omitempty"`
	RRFK          []float64   `json:"rrf_k,omitempty"`
	Depth         []int       `json:"depth,omitempty"`
	Alpha         []float64   `json:"alpha,omitempty"`
}

// Grid keys per tuned type, in docs/config.md's order.
var (
	hybridGridKeys = []string{"fusion", "normalization", "missing", "weights", "rrf_k", "depth"}
	rerankGridKeys = []string{"alpha"}
)

// tuneSetting is one setting of a tuned retriever: its name (Options.String
// for a hybrid, "interpolate alpha=… depth=…" for a rerank) and options.
type tuneSetting struct {
	name   string
	hybrid hybrid.Options
	alpha  float64 // rerank
}

// UnmarshalYAML decodes a retriever strictly (an unknown key is an error,
// as for the rest of the config) and takes a list given where the field
// holds one value — or a list of lists for weights — as a grid (Tune); the
// check reports a grid on a field or type that is not tuned.
func (r *RetrieverConfig) UnmarshalYAML(n *yaml.Node) error {
	type plain RetrieverConfig
	if n.Kind != yaml.MappingNode {
		return n.Decode((*plain)(r))
	}
	t := reflect.TypeFor[RetrieverConfig]()
	rest := *n
	rest.Content = nil
	var terrs []string
	var g TuneGrid
	var keys []string
	tuned := false
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		f, ok := yamlField(t, k.Value)
		if !ok {
			terrs = append(terrs, fmt.Sprintf("line %d: field %s not found in type sweep.RetrieverConfig", k.Line, k.Value))
			continue
		}
		if !isGridNode(f.Type, k.Value, v) {
			rest.Content = append(rest.Content, k, v)
			continue
		}
		keys = append(keys, k.Value)
		var err error
		switch axis := g.axis(k.Value); {
		case k.Value == "depth": // decoded as floats, so that a fraction is named by its line
			var ds []float64
			if err = v.Decode(&ds); err == nil {
				for j, d := range ds {
					if d != math.Trunc(d) || math.IsInf(d, 0) {
						terrs = append(terrs, fmt.Sprintf("line %d: cannot unmarshal !!float `%s` into int", v.Content[j].Line, v.Content[j].Value))
					}
					g.Depth = append(g.Depth, int(d))
				}
			}
			tuned = true
		case axis != nil:
			err, tuned = v.Decode(axis), true
		}
		if te, ok := err.(*yaml.TypeError); ok {
			terrs = append(terrs, te.Errors...)
		} else if err != nil {
			return err
		}
	}
	err := rest.Decode((*plain)(r))
	if te, ok := err.(*yaml.TypeError); ok {
		terrs = append(terrs, te.Errors...)
	} else if err != nil {
		return err
	}
	r.gridKeys = keys
	if tuned {
		r.Tune = &g
	}
	if len(terrs) > 0 {
		return &yaml.TypeError{Errors: terrs}
	}
	return nil
}

// isGridNode tells whether v, the value of key (a field of type ft), is a
// grid: a list where the field holds one value, or a list of lists for
// weights.
func isGridNode(ft reflect.Type, key string, v *yaml.Node) bool {
	if v.Kind != yaml.SequenceNode {
		return false
	}
	for ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
	}
	if ft.Kind() != reflect.Slice {
		return true
	}
	return key == "weights" && len(v.Content) > 0 && v.Content[0].Kind == yaml.SequenceNode
}

// gridded tells whether the dotted field ("retrievers.2.fusion") holds a
// grid, so that the empty-value checks leave it to the grid's own.
func (ck *configCheck) gridded(field string) bool {
	parts := strings.Split(field, ".")
	if len(parts) != 3 || parts[0] != "retrievers" {
		return false
	}
	i, err := strconv.Atoi(parts[1])
	if err != nil || i < 0 || i >= len(ck.c.Retrievers) {
		return false
	}
	return slices.Contains(ck.c.Retrievers[i].gridKeys, parts[2])
}

// tuneKeys reports, for retriever r at f, each grid on a field its type
// does not tune, and whether r has a grid left to check.
func (ck *configCheck) tuneKeys(f string, r *RetrieverConfig) bool {
	if r.Type != "hybrid" && ck.has(f+".missing") {
		ck.bad(f+".missing", "does not apply to type %s", r.Type) // only's list, for the key added with tuning
	}
	if len(r.gridKeys) == 0 {
		return false
	}
	var allowed []string
	switch r.Type {
	case "hybrid":
		allowed = hybridGridKeys
	case "rerank":
		allowed = rerankGridKeys
	}
	for _, k := range r.gridKeys {
		switch {
		case len(allowed) == 0:
			ck.bad(f+"."+k, "a list here is a grid, and type %s is not tuned: give one value (grids tune hybrid %s and rerank %s)", r.Type, strings.Join(hybridGridKeys, ", "), strings.Join(rerankGridKeys, ", "))
		case !slices.Contains(allowed, k):
			ck.bad(f+"."+k, "a list here is a grid, and %s does not tune %s: give one value (type %s tunes %s)", r.Type, k, r.Type, strings.Join(allowed, ", "))
		}
	}
	return r.Tune != nil && len(allowed) > 0
}

// hybridGridNames maps hybrid.Grid's axis names to the config's.
var hybridGridNames = map[string]string{"methods": "fusion", "norms": "normalization", "missing": "missing", "weights": "weights", "k": "rrf_k", "depths": "depth"}

// hybridGrid builds r's hybrid.Grid (a value given beside the grid is a
// one-value axis), expands it with hybrid.Grid.Expand and keeps the
// settings; Expand's errors are reported on the grid value they name.
func (ck *configCheck) hybridGrid(f string, r *RetrieverConfig) {
	g := r.Tune
	for _, k := range r.gridKeys {
		if g.axisLen(k) == 0 {
			ck.bad(f+"."+k, "empty grid: list at least one value, or give one value")
			return
		}
	}
	var hg hybrid.Grid
	fusion := g.Fusion
	if len(fusion) == 0 {
		fusion = []string{firstNonEmpty(r.Fusion, string(hybrid.DefaultOptions().Method))}
	}
	for _, m := range fusion {
		hg.Methods = append(hg.Methods, hybrid.Method(m))
	}
	norms := g.Normalization
	if len(norms) == 0 && r.Normalization != "" {
		norms = []string{r.Normalization}
	}
	for _, n := range norms {
		hg.Norms = append(hg.Norms, hybrid.Normalization(n))
	}
	miss := g.Missing
	if len(miss) == 0 && r.Missing != "" {
		miss = []string{r.Missing}
	}
	for _, m := range miss {
		hg.Missing = append(hg.Missing, hybrid.Missing(m))
	}
	hg.Weights = g.Weights
	if len(hg.Weights) == 0 && r.Weights != nil {
		hg.Weights = [][]float64{r.Weights}
	}
	hg.K = g.RRFK
	if len(hg.K) == 0 && r.RRFK != nil {
		hg.K = []float64{*r.RRFK}
	}
	hg.Depths = g.Depth
	if len(hg.Depths) == 0 && r.Depth != 0 {
		hg.Depths = []int{r.Depth}
	}
	if len(r.Inputs) < 2 {
		return // reported by hybrid
	}
	opts, err := hg.Expand(len(r.Inputs))
	if err != nil {
		field, msg := gridField(f, err)
		ck.bad(field, "%s", msg)
		return
	}
	r.settings = nil
	for _, o := range opts {
		r.settings = append(r.settings, tuneSetting{name: o.String(), hybrid: o})
	}
}

// axis is a pointer to grid axis key's values (nil: key is no grid axis):
// the one mapping of config keys to TuneGrid's fields, for decoding
// (UnmarshalYAML) and for the empty-grid check (axisLen).
func (g *TuneGrid) axis(key string) any {
	switch key {
	case "fusion":
		return &g.Fusion
	case "normalization":
		return &g.Normalization
	case "missing":
		return &g.Missing
	case "weights":
		return &g.Weights
	case "rrf_k":
		return &g.RRFK
	case "depth":
		return &g.Depth
	case "alpha":
		return &g.Alpha
	}
	return nil
}

// axisLen is the number of values of grid axis key (1 for a key that is
// no axis: a single value).
func (g *TuneGrid) axisLen(key string) int {
	a := g.axis(key)
	if a == nil {
		return 1
	}
	return reflect.ValueOf(a).Elem().Len()
}

// gridField places an error of hybrid.Grid.Expand ("hybrid: grid:
// weights[1][0]: must be …", "hybrid: grid: k[1]: …") on the config field
// of the axis and indices it names (retrievers.N.weights.1.0), else on the
// retriever.
func gridField(prefix string, err error) (field, msg string) {
	text := strings.TrimPrefix(err.Error(), "hybrid: grid: ")
	name, rest, ok := strings.Cut(text, ": ")
	if ok {
		if base, idx, isList := strings.Cut(strings.TrimSuffix(name, "]"), "["); isList {
			if n, known := hybridGridNames[base]; known {
				return prefix + "." + n + "." + strings.ReplaceAll(idx, "][", "."), rest
			}
		}
	}
	return prefix, "grid: " + text
}

// rerankGrid checks r's alpha grid (mode interpolate, each alpha valid
// for rerank.Options.Validate) and keeps the settings.
func (ck *configCheck) rerankGrid(f string, r *RetrieverConfig) {
	g := r.Tune
	if len(g.Alpha) == 0 {
		ck.bad(f+".alpha", "empty grid: list at least one alpha, or give one value")
		return
	}
	if r.Mode != string(rerank.ModeInterpolate) {
		ck.bad(f+".alpha", "an alpha grid tunes mode interpolate only (mode is %s)", r.Mode)
		return
	}
	if len(g.Alpha) > hybrid.MaxGridSettings {
		ck.bad(f+".alpha", "grid of %d settings: more than %d (hybrid.MaxGridSettings); narrow the grid", len(g.Alpha), hybrid.MaxGridSettings)
		return
	}
	r.settings = nil
	seen := map[string]bool{}
	for i, a := range g.Alpha {
		o := r.rerankOptions()
		o.Alpha = a
		if err := o.Validate(); err != nil {
			_, msg := optionField(f, err)
			ck.bad(fmt.Sprintf("%s.alpha.%d", f, i), "%s", msg)
			return
		}
		s := tuneSetting{name: rerankSettingName(a, r.Depth), alpha: a}
		if !seen[s.name] {
			seen[s.name] = true
			r.settings = append(r.settings, s)
		}
	}
}

func rerankSettingName(alpha float64, depth int) string {
	return "interpolate alpha=" + strconv.FormatFloat(alpha, 'g', -1, 64) + " depth=" + strconv.Itoa(depth)
}

// tuneDefault is the untuned default a tuned retriever is tested against:
// hybrid.DefaultOptions for a hybrid, rerank's default alpha for a rerank.
func (r RetrieverConfig) tuneDefault() tuneSetting {
	if r.Type == "rerank" {
		a := rerank.DefaultOptions().Alpha
		return tuneSetting{name: rerankSettingName(a, r.Depth), alpha: a}
	}
	o := hybrid.DefaultOptions()
	return tuneSetting{name: o.String(), hybrid: o}
}

// tuneDepth is the deepest hybrid depth of r's settings (0 when r is not a
// tuned hybrid).
func (r RetrieverConfig) tuneDepth() int {
	d := 0
	if r.Type == "hybrid" {
		for _, s := range r.settings {
			d = max(d, s.hybrid.Depth)
		}
		if len(r.settings) > 0 {
			d = max(d, r.tuneDefault().hybrid.Depth)
		}
	}
	return d
}

// describeTuned is describeRetriever's line for a tuned retriever.
func describeTuned(r RetrieverConfig) string {
	what := "fusion of " + strings.Join(r.Inputs, " + ")
	if r.Type == "rerank" {
		what = fmt.Sprintf("%s top %d by α·z(CE) + (1−α)·z(first stage), model %s", r.Input, r.Depth, baseName(r.Model))
	}
	return fmt.Sprintf("%s, tuned over %d settings on the tuning queries (see Tuning)", what, len(r.settings))
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}
