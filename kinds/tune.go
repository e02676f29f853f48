package kinds

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ragbench/ragbench/eval"
)

// This file is tuning inside the sweep (issue 15): a hybrid or rerank
// retriever may give a list where a value is expected, and the list is a
// grid. The sweep evaluates every setting of the grid on the tuning
// queries only, picks the best by the primary metric at prompt_k (ties:
// the earlier setting in grid order), reports the chosen setting's run as
// the cell's, and tests it against the untuned default on the held-out
// queries (sweep's tuning run).

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

// TuneSetting is one setting of a tuned retriever: its name (Options.String
// for a hybrid, "interpolate alpha=… depth=…" for a rerank) and options.
type TuneSetting struct {
	Name  string
	value any // hybrid.Options (hybrid) or float64 alpha (rerank)
}

// Tunable is implemented by the kinds that may give grids in place of
// values (hybrid, rerank).
type Tunable interface {
	Settings
	// GridKeys are the keys a grid may tune, in docs/config.md's order.
	GridKeys() []string
	// SetGrid takes the grids decoded from the config (config.Load).
	SetGrid(g *TuneGrid)
	// TuneSettings is the expanded grid once checked (empty: not tuned).
	TuneSettings() []TuneSetting
	// TuneDefault is the untuned default the chosen setting is tested
	// against (hybrid.DefaultOptions, or rerank's default alpha).
	TuneDefault() TuneSetting
	// Tuner makes each setting's run from the cell's inputs.
	Tuner(ctx context.Context, c *Cell) (*Tuner, error)
}

// Tuner is how a tuned cell's settings get their runs (chunk level, cut to
// the cell's depth).
type Tuner struct {
	// Produce is the run of one setting.
	Produce func(s TuneSetting) (eval.Run, error)
	// Stage is the progress stage of the grid search: "fuse" (one stage
	// over the settings, timed as Stats.Fuse) or "rerank" (one stage per
	// setting, counted in pairs, timed as Stats.Rerank).
	Stage string
	// PerSetting says that each setting is its own stage (rerank);
	// Unit is what a stage counts ("settings" over the grid, "pairs" per
	// rerank setting).
	PerSetting bool
	Unit       string
	// Time records the grid search's wall time (seconds) in the stats.
	Time func(st *Stats, seconds float64)
	// Notes, when set, are the Cell.Notes of a setting's run (by its
	// name) once Produce made it: the chosen setting's are the cell's.
	Notes func(setting string) []string
}

// IsTuned reports whether s is a tuned retriever (a Tunable with a grid).
func IsTuned(s Settings) bool {
	t, ok := s.(Tunable)
	return ok && len(t.TuneSettings()) > 0
}

// IsGridNode tells whether v, the value of key (a field of type ft), is a
// grid: a list where the field holds one value, or a list of lists for
// weights.
func IsGridNode(ft reflect.Type, key string, v *yaml.Node) bool {
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

// DecodeAxis decodes the grid v of key into g when key is an axis of a
// grid (tuned false otherwise: the check reports a grid no kind tunes).
// Type errors come back as yaml.v3's "line N: cannot unmarshal …" texts;
// other errors as err.
func (g *TuneGrid) DecodeAxis(key string, v *yaml.Node) (tuned bool, terrs []string, err error) {
	switch axis := g.axis(key); {
	case key == "depth": // decoded as floats, so that a fraction is named by its line
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
		return tuned, append(terrs, te.Errors...), nil
	}
	return tuned, terrs, err
}

// axis is a pointer to grid axis key's values (nil: key is no grid axis):
// the one mapping of config keys to TuneGrid's fields, for decoding
// (DecodeAxis) and for the empty-grid check (axisLen).
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

// CheckGridKeys reports, on c, each grid given on a key that kind s does
// not tune (s nil or not Tunable: a kind that tunes nothing). Grids name
// the tuned kinds' keys in their messages.
func CheckGridKeys(c Checker, s Settings) {
	var allowed []string
	if t, ok := s.(Tunable); ok {
		allowed = t.GridKeys()
	}
	for _, k := range c.GridKeys() {
		switch {
		case len(allowed) == 0:
			c.Bad(k, "a list here is a grid, and type %s is not tuned: give one value (grids tune %s)", c.Type(), tunedKinds())
		case !slices.Contains(allowed, k):
			c.Bad(k, "a list here is a grid, and %s does not tune %s: give one value (type %s tunes %s)", c.Type(), k, c.Type(), strings.Join(allowed, ", "))
		}
	}
}

// tunedKinds is "hybrid fusion, normalization, … and rerank alpha": what
// each tunable kind of the registry tunes.
func tunedKinds() string {
	var parts []string
	for _, k := range registry {
		if t, ok := k.New().(Tunable); ok {
			parts = append(parts, k.Name+" "+strings.Join(t.GridKeys(), ", "))
		}
	}
	return strings.Join(parts, " and ")
}
