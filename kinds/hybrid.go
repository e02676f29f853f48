package kinds

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/retrievers/hybrid"
)

// Hybrid is a type hybrid retriever: the fusion of its inputs' runs
// (package hybrid). Every number is taken literally (rrf_k 0 is RRF
// without a constant), so Check fills rrf_k and depth from hybrid's
// defaults when absent.
type Hybrid struct {
	// Inputs are the retrievers fused (≥ 2 names, defined earlier).
	Inputs []string `yaml:"inputs" json:"inputs,omitempty"`
	// Fusion is rrf (default), combsum, combmnz, dbsf, harmonic or
	// geometric.
	Fusion string `yaml:"fusion" json:"fusion,omitempty" empty:"empty: rrf, combsum, combmnz, dbsf, harmonic or geometric; remove the line to use the default (rrf)"`
	// RRFK is RRF's k constant (default 60, Cormack et al. 2009).
	RRFK *float64 `yaml:"rrf_k" json:"rrf_k,omitempty"`
	// Normalization is the score normalisation of the score fusions:
	// minmax (default), zscore, max, sum, rank, borda or none.
	Normalization string `yaml:"normalization" json:"normalization,omitempty" empty:"empty: minmax, zscore, max, sum, rank, borda or none; remove the line to use the default (minmax)"`
	// Weights are per-input weights of the score fusions (default all 1).
	Weights []float64 `yaml:"weights" json:"weights,omitempty" empty:"empty weights list: one weight per input; remove the line to use the default (all 1)"`
	// Missing is the policy for a document missing from an input
	// (hybrid.Missing: zero, min, rank, borda; default hybrid.DefaultMissing).
	Missing string `yaml:"missing" json:"missing,omitempty" empty:"empty: zero, min, rank or borda; remove the line to use the default (zero; borda under normalization borda)"`
	// Depth is how many results of each input are fused (default 100).
	Depth int `yaml:"depth" json:"depth,omitempty" empty:"depth 0: must be ≥ 1; remove the line to use the default (100)"`
	// Tune holds the grids given in place of values (fusion,
	// normalization, missing, weights as a list of lists, rrf_k, depth);
	// nil when the retriever is not tuned.
	Tune *TuneGrid `yaml:"-" json:"tune,omitempty"`

	settings []TuneSetting // the expanded grid (Check)
}

// hybridGridKeys are the keys a hybrid tunes, in docs/config.md's order.
var hybridGridKeys = []string{"fusion", "normalization", "missing", "weights", "rrf_k", "depth"}

// Check fills h from hybrid.DefaultOptions and validates it with
// hybrid.Options.Validate (one owner of fusion's rules); a tuned hybrid
// (grids) is expanded by checkGrid instead.
func (h *Hybrid) Check(c Checker) {
	c.Only(keysOf(h)...)
	if len(h.Inputs) < 2 {
		c.Bad("inputs", "a hybrid fuses at least two retrievers, e.g. inputs: [bm25, dense]")
	}
	if h.Tune != nil {
		h.checkGrid(c)
		return
	}
	d := hybrid.DefaultOptions()
	if h.Fusion == "" {
		h.Fusion = string(d.Method)
	}
	m := hybrid.Method(h.Fusion)
	if m == hybrid.RRF {
		if h.RRFK == nil {
			h.RRFK = ptr(d.K)
		}
	} else if c.Has("rrf_k") {
		c.Bad("rrf_k", "applies to fusion rrf only")
	}
	if h.Normalization == "" && m != hybrid.RRF && m != hybrid.DBSF && slices.Contains(hybrid.Methods, m) {
		h.Normalization = string(hybrid.MinMax)
	}
	if h.Depth == 0 {
		h.Depth = d.Depth
	}
	o, n := h.Options(), len(h.Inputs)
	if n < 2 {
		o.Weights, n = nil, 2 // the inputs error is reported; check the rest
	}
	if err := o.Validate(n); err != nil {
		key, msg := hybridField(err)
		c.Bad(key, "%s", msg)
	}
}

// Options is h's hybrid.Options (defaults filled by Check).
func (h *Hybrid) Options() hybrid.Options {
	o := hybrid.Options{Method: hybrid.Method(h.Fusion), Depth: h.Depth, Weights: h.Weights}
	if h.RRFK != nil {
		o.K = *h.RRFK
	}
	if h.Normalization != "" {
		o.Norm = hybrid.Normalization(h.Normalization)
	}
	o.Missing = hybrid.Missing(h.Missing)
	return o
}

// hybridConfigNames maps hybrid.Options.Validate's field names to the
// config's.
var hybridConfigNames = map[string]string{"method": "fusion", "k": "rrf_k", "norm": "normalization"}

// hybridField is optionField for hybrid's errors ("hybrid: k: ...",
// "hybrid: weights[1]: ..."), with the config's names for its fields.
func hybridField(err error) (key, msg string) {
	text := strings.TrimPrefix(err.Error(), "hybrid: ")
	name, rest, ok := strings.Cut(text, ": ")
	if !ok || strings.ContainsAny(name, " \"") {
		return "", text
	}
	if base, idx, isList := strings.Cut(strings.TrimSuffix(name, "]"), "["); isList {
		name = base + "." + idx
	}
	if n, ok := hybridConfigNames[name]; ok {
		name = n
	}
	return name, rest
}

// Describe is "RRF(k=60) of bm25 + dense, top 100 each", "combsum (minmax)
// of bm25 + dense, top 100 each" — with weights other than all 1 each
// input's weight ("combsum (zscore) of 0.6·bm25 + 0.4·dense, top 100
// each"), and a missing policy other than the default appended (",
// missing: min") —, or the tuned form.
func (h *Hybrid) Describe() string {
	if h.Tune != nil {
		return fmt.Sprintf("fusion of %s, tuned over %d settings on the tuning queries (see Tuning)", strings.Join(h.Inputs, " + "), len(h.settings))
	}
	inputs := strings.Join(h.Inputs, " + ")
	if len(h.Weights) == len(h.Inputs) && slices.ContainsFunc(h.Weights, func(w float64) bool { return w != 1 }) {
		parts := make([]string, len(h.Inputs))
		for i, in := range h.Inputs {
			parts[i] = strconv.FormatFloat(h.Weights[i], 'g', -1, 64) + "·" + in
		}
		inputs = strings.Join(parts, " + ")
	}
	var s string
	if h.Fusion == "rrf" {
		s = fmt.Sprintf("RRF(k=%g) of %s, top %d each", *h.RRFK, inputs, h.Depth)
	} else {
		s = fmt.Sprintf("%s (%s) of %s, top %d each", h.Fusion, h.Normalization, inputs, h.Depth)
	}
	if h.Missing != "" && hybrid.Missing(h.Missing) != hybrid.DefaultMissing(hybrid.Normalization(h.Normalization)) {
		s += ", missing: " + h.Missing
	}
	return s
}

// NeedsRuntime is false.
func (h *Hybrid) NeedsRuntime() bool { return false }

// Cacheable is true.
func (h *Hybrid) Cacheable() bool { return true }

// InputNames are the fused retrievers.
func (h *Hybrid) InputNames() []string { return h.Inputs }

// InputKey is "inputs".
func (h *Hybrid) InputKey() string { return "inputs" }

func (h *Hybrid) withoutInputs() Settings {
	c := *h
	c.Inputs = nil
	return &c
}

// ChunkDepth is the deepest fusion depth, of the settings when tuned.
func (h *Hybrid) ChunkDepth() int {
	d := h.Depth
	for _, s := range h.settings {
		d = max(d, s.value.(hybrid.Options).Depth)
	}
	if len(h.settings) > 0 {
		d = max(d, h.TuneDefault().value.(hybrid.Options).Depth)
	}
	return d
}

// CacheKeyParts marks a hybrid with an input of weight 0, as its weights
// or in its weights grid: its fused runs changed when a weight-0 input
// stopped taking part (hybrid.Options.Weights), so such cells get a
// run-cache key of their own; every other key is unchanged.
func (h *Hybrid) CacheKeyParts() map[string]string {
	grids := [][]float64{h.Weights}
	if h.Tune != nil {
		grids = append(grids, h.Tune.Weights...)
	}
	for _, ws := range grids {
		if slices.Contains(ws, 0) {
			return map[string]string{"zero_weight": "absent"}
		}
	}
	return nil
}

// NotesRun marks a hybrid as a Noter: its Run counts the flat lists.
func (h *Hybrid) NotesRun() {}

// inputLabels name the inputs in notes: "input bm25".
func (h *Hybrid) inputLabels() []string {
	out := make([]string, len(h.Inputs))
	for i, in := range h.Inputs {
		out[i] = "input " + in
	}
	return out
}

// Run fuses the inputs' runs (stage "fuse", counted in queries) and cuts
// the fused lists to the cell's depth. Lists a normalisation found flat
// (one result, or equal scores: min-max gives them 0) are counted per
// input in c.Notes (hybrid.Notes.Lines, naming the inputs).
func (h *Hybrid) Run(ctx context.Context, c *Cell) error {
	t0 := time.Now()
	c.Progress.Begin(StageFuse, len(c.Queries), "queries")
	run, notes, err := hybrid.FuseWithNotes(c.Inputs, h.Options())
	if err != nil {
		return namedInputs(err, h.Inputs)
	}
	c.Notes = notes.Lines(h.inputLabels())
	c.Run = Truncate(run, c.Depth)
	c.Stats.Fuse = time.Since(t0).Seconds()
	c.Progress.End("")
	return nil
}

// namedInputs words a fusion error of the hybrid over inputs (retriever
// names, in hybrid.Fuse's order) with the names of the inputs at fault
// instead of their indexes; other errors are returned as they are.
func namedInputs(err error, inputs []string) error {
	name := func(i int) string {
		if i >= 0 && i < len(inputs) {
			return strconv.Quote(inputs[i])
		}
		return strconv.Itoa(i)
	}
	var ie *hybrid.InputError
	if errors.As(err, &ie) {
		return fmt.Errorf("query %q: input %s: %w", ie.Query, name(ie.Input), ie.Err)
	}
	var oe *hybrid.OverflowError
	if errors.As(err, &oe) {
		names := make([]string, len(oe.Inputs))
		for k, i := range oe.Inputs {
			names[k] = name(i)
		}
		return fmt.Errorf("query %q: doc %q: the fused score is %v: the scores of inputs %s overflow float64 when combined; normalise them (normalization: minmax) or scale them down", oe.Query, oe.Doc, oe.Score, strings.Join(names, " and "))
	}
	return err
}

// GridKeys are fusion, normalization, missing, weights, rrf_k and depth.
func (h *Hybrid) GridKeys() []string { return hybridGridKeys }

// SetGrid takes the grids of the config.
func (h *Hybrid) SetGrid(g *TuneGrid) { h.Tune = g }

// TuneSettings is the expanded grid (Check).
func (h *Hybrid) TuneSettings() []TuneSetting { return h.settings }

// TuneDefault is hybrid.DefaultOptions.
func (h *Hybrid) TuneDefault() TuneSetting {
	o := hybrid.DefaultOptions()
	return TuneSetting{Name: o.String(), value: o}
}

// Tuner ranks the inputs' runs once (hybrid.RankRuns) and fuses them per
// setting, in one "fuse" stage over the settings; each setting's flat
// lists are its Notes, as Run's.
func (h *Hybrid) Tuner(ctx context.Context, c *Cell) (*Tuner, error) {
	ranked, err := hybrid.RankRuns(c.Inputs)
	if err != nil {
		return nil, err
	}
	notes := map[string][]string{}
	produce := func(s TuneSetting) (eval.Run, error) {
		run, n, err := ranked.FuseWithNotes(s.value.(hybrid.Options))
		if err != nil {
			return nil, err
		}
		notes[s.Name] = n.Lines(h.inputLabels())
		return Truncate(run, c.Depth), nil
	}
	return &Tuner{Produce: produce, Stage: StageFuse, Unit: "settings", Time: func(st *Stats, s float64) { st.Fuse = s },
		Notes: func(name string) []string { return notes[name] }}, nil
}

// hybridGridNames maps hybrid.Grid's axis names to the config's.
var hybridGridNames = map[string]string{"methods": "fusion", "norms": "normalization", "missing": "missing", "weights": "weights", "k": "rrf_k", "depths": "depth"}

// checkGrid builds h's hybrid.Grid (a value given beside the grid is a
// one-value axis), expands it with hybrid.Grid.Expand and keeps the
// settings; Expand's errors are reported on the grid value they name.
func (h *Hybrid) checkGrid(c Checker) {
	g := h.Tune
	for _, k := range c.GridKeys() {
		if g.axisLen(k) == 0 {
			c.Bad(k, "empty grid: list at least one value, or give one value")
			return
		}
	}
	hg := h.grid()
	if len(h.Inputs) < 2 {
		return // reported by Check
	}
	opts, err := hg.Expand(len(h.Inputs))
	if err != nil {
		key, msg := gridField(err)
		c.Bad(key, "%s", msg)
		return
	}
	h.settings = nil
	for _, o := range opts {
		h.settings = append(h.settings, TuneSetting{Name: o.String(), value: o})
	}
}

// grid is h's hybrid.Grid: each axis from the grid, else from the value
// given beside it (a one-value axis), else absent (hybrid's default).
func (h *Hybrid) grid() hybrid.Grid {
	g := h.Tune
	var hg hybrid.Grid
	for _, m := range axisOr(g.Fusion, cmp.Or(h.Fusion, string(hybrid.DefaultOptions().Method))) {
		hg.Methods = append(hg.Methods, hybrid.Method(m))
	}
	for _, n := range axisOr(g.Normalization, h.Normalization) {
		hg.Norms = append(hg.Norms, hybrid.Normalization(n))
	}
	for _, m := range axisOr(g.Missing, h.Missing) {
		hg.Missing = append(hg.Missing, hybrid.Missing(m))
	}
	hg.Weights = g.Weights
	if len(hg.Weights) == 0 && h.Weights != nil {
		hg.Weights = [][]float64{h.Weights}
	}
	hg.K = g.RRFK
	if len(hg.K) == 0 && h.RRFK != nil {
		hg.K = []float64{*h.RRFK}
	}
	hg.Depths = g.Depth
	if len(hg.Depths) == 0 && h.Depth != 0 {
		hg.Depths = []int{h.Depth}
	}
	return hg
}

// axisOr is the grid axis, else the one value given ("" : none).
func axisOr(axis []string, value string) []string {
	if len(axis) == 0 && value != "" {
		return []string{value}
	}
	return axis
}

// gridField places an error of hybrid.Grid.Expand ("hybrid: grid:
// weights[1][0]: must be …", "hybrid: grid: k[1]: …") on the config key of
// the axis and indices it names (weights.1.0), else on the retriever.
func gridField(err error) (key, msg string) {
	text := strings.TrimPrefix(err.Error(), "hybrid: grid: ")
	name, rest, ok := strings.Cut(text, ": ")
	if ok {
		if base, idx, isList := strings.Cut(strings.TrimSuffix(name, "]"), "["); isList {
			if n, known := hybridGridNames[base]; known {
				return n + "." + strings.ReplaceAll(idx, "][", "."), rest
			}
		}
	}
	return "", "grid: " + text
}
