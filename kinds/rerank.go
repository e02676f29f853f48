package kinds

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/ragbench/ragbench/encoder"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/rerank"
	"github.com/ragbench/ragbench/retrievers/hybrid"
)

// Rerank is a type rerank retriever: its input's top Depth results
// rescored by an ONNX cross-encoder (package rerank).
type Rerank struct {
	ONNXModel `yaml:",inline"`
	// Input is the retriever whose results are reranked (defined
	// earlier).
	Input string `yaml:"input" json:"input,omitempty"`
	// Mode is "ce" (cross-encoder logit alone, default) or "interpolate"
	// (Alpha·z(CE) + (1−Alpha)·z(first stage), per-query z-scores).
	Mode string `yaml:"mode" json:"mode,omitempty" empty:"empty: ce or interpolate; remove the line to use the default (ce)"`
	// Alpha is the cross-encoder's weight in interpolate mode, in [0, 1].
	Alpha *float64 `yaml:"alpha" json:"alpha,omitempty"`
	// Depth is how many of the input's top results are rescored
	// (default 100).
	Depth int `yaml:"depth" json:"depth,omitempty" empty:"depth 0: must be ≥ 1; remove the line to use the default (100)"`
	// Tune holds an alpha grid given in place of a value (mode
	// interpolate); nil when the retriever is not tuned.
	Tune *TuneGrid `yaml:"-" json:"tune,omitempty"`

	settings []TuneSetting // the expanded grid (Check)
}

// Check fills r from rerank.DefaultOptions and validates it with
// rerank.Options.Validate; an alpha grid is checked by checkGrid.
func (r *Rerank) Check(c Checker) {
	c.Only(keysOf(r)...)
	if r.Input == "" {
		c.Bad("input", "missing: the retriever whose results are reranked")
	}
	if r.Model == "" {
		c.Bad("model", "missing: a cross-encoder model folder (relative to the models root)")
	}
	d := rerank.DefaultOptions()
	if r.BatchSize == 0 {
		r.BatchSize = defaultInferenceBatch(encoder.KindCrossEncoder)
	}
	if r.Depth == 0 {
		r.Depth = d.Depth
	}
	r.Mode = cmp.Or(r.Mode, string(d.Mode))
	switch rerank.Mode(r.Mode) {
	case rerank.ModeCE:
		if r.Alpha != nil {
			c.Bad("alpha", "applies to mode interpolate only")
		}
	case rerank.ModeInterpolate:
		if r.Alpha == nil && r.Tune == nil {
			c.Bad("alpha", "missing: mode interpolate needs alpha (the cross-encoder's weight, e.g. %g)", d.Alpha)
		}
	}
	if err := r.Options().Validate(); err != nil {
		key, msg := optionField(err)
		c.Bad(key, "%s", msg)
	}
	if r.Tune != nil {
		r.checkGrid(c)
	}
}

// Options is r's rerank.Options (defaults filled by Check). Alpha is 0 in
// mode ce, where rerank ignores it.
func (r *Rerank) Options() rerank.Options {
	o := rerank.Options{Depth: r.Depth, BatchSize: r.BatchSize, Mode: rerank.Mode(r.Mode)}
	if r.Alpha != nil {
		o.Alpha = *r.Alpha
	}
	return o
}

// checkGrid checks r's alpha grid (mode interpolate, each alpha valid
// for rerank.Options.Validate) and keeps the settings.
func (r *Rerank) checkGrid(c Checker) {
	g := r.Tune
	if len(g.Alpha) == 0 {
		c.Bad("alpha", "empty grid: list at least one alpha, or give one value")
		return
	}
	if r.Mode != string(rerank.ModeInterpolate) {
		c.Bad("alpha", "an alpha grid tunes mode interpolate only (mode is %s)", r.Mode)
		return
	}
	if len(g.Alpha) > hybrid.MaxGridSettings {
		c.Bad("alpha", "grid of %d settings: more than %d (hybrid.MaxGridSettings); narrow the grid", len(g.Alpha), hybrid.MaxGridSettings)
		return
	}
	r.settings = nil
	seen := map[string]bool{}
	for i, a := range g.Alpha {
		o := r.Options()
		o.Alpha = a
		if err := o.Validate(); err != nil {
			_, msg := optionField(err)
			c.Bad("alpha."+strconv.Itoa(i), "%s", msg)
			return
		}
		s := TuneSetting{Name: rerankSettingName(a, r.Depth), value: a}
		if !seen[s.Name] {
			seen[s.Name] = true
			r.settings = append(r.settings, s)
		}
	}
}

func rerankSettingName(alpha float64, depth int) string {
	return "interpolate alpha=" + strconv.FormatFloat(alpha, 'g', -1, 64) + " depth=" + strconv.Itoa(depth)
}

// Describe is "bm25 top 100 by cross-encoder logit, model NAME", the
// interpolation's weights, or the tuned form.
func (r *Rerank) Describe() string {
	if r.Tune != nil {
		return fmt.Sprintf("%s top %d by α·z(CE) + (1−α)·z(first stage), model %s, tuned over %d settings on the tuning queries (see Tuning)", r.Input, r.Depth, baseName(r.Model), len(r.settings))
	}
	model := filepath.Base(r.Model)
	if r.Mode == "interpolate" {
		return fmt.Sprintf("%s top %d by %g·z(CE) + %g·z(first stage), model %s", r.Input, r.Depth, *r.Alpha, 1-*r.Alpha, model)
	}
	return fmt.Sprintf("%s top %d by cross-encoder logit, model %s", r.Input, r.Depth, model)
}

// NeedsRuntime is true: the cross-encoder runs on ONNX Runtime.
func (r *Rerank) NeedsRuntime() bool { return true }

// Cacheable is true.
func (r *Rerank) Cacheable() bool { return true }

// ModelRef is r's model.
func (r *Rerank) ModelRef() *ONNXModel { return &r.ONNXModel }

// ModelKind is encoder.KindCrossEncoder.
func (r *Rerank) ModelKind() string { return encoder.KindCrossEncoder }

// InputNames is the reranked retriever (none before the input is given).
func (r *Rerank) InputNames() []string {
	if r.Input == "" {
		return nil
	}
	return []string{r.Input}
}

// InputKey is "input".
func (r *Rerank) InputKey() string { return "input" }

func (r *Rerank) withoutInputs() Settings {
	c := *r
	c.Input = ""
	return &c
}

// Reorders is the input and the depth rescored.
func (r *Rerank) Reorders() (string, int) { return r.Input, r.Depth }

// ChunkDepth is the rerank depth.
func (r *Rerank) ChunkDepth() int { return r.Depth }

// CacheKeyParts marks alpha = 0 in mode interpolate: ragbench before the
// explicit-zero fix ran it as the default 0.4, so such cells get a
// run-cache key of their own; every other key is unchanged.
func (r *Rerank) CacheKeyParts() map[string]string {
	if r.Mode == string(rerank.ModeInterpolate) && r.Alpha != nil && *r.Alpha == 0 {
		return map[string]string{"zero": "explicit"}
	}
	return nil
}

// Run rescores the input's top Depth results of every query (stage
// "rerank", counted in query–passage pairs).
func (r *Rerank) Run(ctx context.Context, c *Cell) error {
	t0 := time.Now()
	c.Progress.Begin(StageRerank, pairs(c.Inputs[0], r.Depth), "pairs")
	run, err := r.rerank(ctx, c)
	c.Stats.Rerank = time.Since(t0).Seconds()
	if err != nil {
		return err
	}
	c.Run = run
	c.Progress.End("")
	return nil
}

// pairs is the number of (query, passage) pairs of the top depth of run.
func pairs(run eval.Run, depth int) int {
	n := 0
	for _, l := range run {
		n += min(len(l), depth)
	}
	return n
}

// rerank is the reranked run of the cell's input at r's settings, through
// Env.WrapRerank when set.
func (r *Rerank) rerank(ctx context.Context, c *Cell) (eval.Run, error) {
	if c.Env.WrapRerank != nil {
		return c.Env.WrapRerank(c, r, func() (eval.Run, error) { return r.rerankRun(ctx, c) })
	}
	return r.rerankRun(ctx, c)
}

// rerankRun scores the top Depth of the input's lists with the sweep's
// cross-scorer (each pair once per sweep, and once per model across
// sweeps: the score cache) and saves the new scores.
func (r *Rerank) rerankRun(ctx context.Context, c *Cell) (eval.Run, error) {
	first := c.Inputs[0]
	cs, err := c.Env.cross(c.Retriever, &r.ONNXModel)
	if err != nil {
		return nil, err
	}
	// Passages by position (the chunks' index), not a map of every
	// chunk's text: a text is made only for the pairs scored.
	passage := c.Chunks.Passages(c.ChunkIndex())
	total := pairs(first, r.Depth)
	var mu sync.Mutex // guards done
	done := 0
	score := func(ctx context.Context, query string, passages []string) ([]float32, error) {
		v, err := cs.score(ctx, query, passages)
		if err == nil && total > 0 {
			mu.Lock()
			done = min(done+len(passages), total)
			c.Progress.Count(StageRerank, done, total)
			mu.Unlock()
		}
		return v, err
	}
	rr, err := rerank.New(StaticRetriever{first}, score, passage, r.Options())
	if err != nil {
		return nil, wrapName(c.Retriever, err)
	}
	depth := 0
	for _, l := range first {
		depth = max(depth, len(l))
	}
	run, err := rr.Search(ctx, c.Queries, max(depth, 1))
	if err != nil {
		return nil, err
	}
	if err := cs.saveScores(); err != nil {
		return nil, fmt.Errorf("cross-encoder score cache: %w", err)
	}
	return run, nil
}

// GridKeys is alpha.
func (r *Rerank) GridKeys() []string { return []string{"alpha"} }

// SetGrid takes the grids of the config.
func (r *Rerank) SetGrid(g *TuneGrid) { r.Tune = g }

// TuneSettings is the expanded alpha grid (Check).
func (r *Rerank) TuneSettings() []TuneSetting { return r.settings }

// TuneDefault is rerank's default alpha at r's depth.
func (r *Rerank) TuneDefault() TuneSetting {
	a := rerank.DefaultOptions().Alpha
	return TuneSetting{Name: rerankSettingName(a, r.Depth), value: a}
}

// Tuner reinterpolates the cross-encoder's scores of the input's run at
// each alpha (the cross-scorer scores each pair once), one "rerank" stage
// per setting.
func (r *Rerank) Tuner(ctx context.Context, c *Cell) (*Tuner, error) {
	produce := func(s TuneSetting) (eval.Run, error) {
		one := *r
		one.Tune, one.settings = nil, nil
		a := s.value.(float64)
		one.Alpha = &a
		return one.rerank(ctx, c)
	}
	return &Tuner{Produce: produce, Stage: StageRerank, PerSetting: true, Unit: "pairs", Time: func(st *Stats, s float64) { st.Rerank = s }}, nil
}
