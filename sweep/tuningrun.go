package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ragbench/ragbench/compare"
	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/fileutil"
	"github.com/ragbench/ragbench/internal/hashkey"
	"github.com/ragbench/ragbench/kinds"
	"github.com/ragbench/ragbench/results"
	"github.com/ragbench/ragbench/stats"
)

// runTuned produces a tuned cell's run: each setting's run from the
// inputs' runs (a hybrid fuses them once ranked, hybrid.RankRuns; a rerank
// reinterpolates the cross-encoder's scores, which the sweep's cross-scorer
// memo computes once), evaluated on the primary metric; the chosen
// setting's run is the cell's. The run and the results.Tuning are cached under the
// cell's run-cache key.
func (r *cellRunner) runTuned(ctx context.Context, cc *chunkCells, cell config.Cell, scope string) (*cellRun, error) {
	rc := cell.Retriever
	key := r.cacheKey(cc, cell)
	cr := &cellRun{key: key, timing: results.Timing{Cell: cell.Name}}
	runPath := filepath.Join(r.env.CacheDir, "runs", key[:2], key+".json")
	tunePath := filepath.Join(r.env.CacheDir, "runs", key[:2], key+".tuning.json")
	ev := r.tuneEvaluator(cc)
	if run, tc, ok := readTunedCache(runPath, tunePath); ok {
		if err := tc.test(r.cfg, ev); err != nil {
			return nil, err
		}
		cr.run, cr.tuning, cr.timing.Cached = run, tc.Tuning, true
		cc.runs[rc.Name] = cr
		return cr, nil
	}
	t0 := time.Now()
	kc := r.kindCell(cc, cell, scope)
	tunable := rc.Settings.(kinds.Tunable)
	tuner, err := tunable.Tuner(ctx, kc)
	if err != nil {
		return nil, err
	}
	g, err := r.searchGrid(ctx, tunable, tuner, scope, ev)
	if err != nil {
		return nil, err
	}
	t := g.tuning
	tc := tunedCache{Tuning: t, Chosen: held(ev, g.chosenCol), Default: held(ev, g.defCol)}
	if err := tc.test(r.cfg, ev); err != nil {
		return nil, err
	}
	tuner.Time(&kc.Stats, time.Since(t0).Seconds())
	setStats(&cr.timing, kc.Stats)
	cr.run, cr.tuning = g.chosenRun, t
	for _, q := range r.ds.queries {
		if cr.run[q.ID] == nil {
			cr.run[q.ID] = []eval.Result{}
		}
	}
	if err := fileutil.WriteAtomic(runPath, hashkey.JSON(cachedRun(cr.run))); err != nil {
		return nil, fmt.Errorf("run cache: %w", err)
	}
	if err := fileutil.WriteAtomic(tunePath, hashkey.JSON(tc.withoutTest())); err != nil {
		return nil, fmt.Errorf("run cache: %w", err)
	}
	cc.runs[rc.Name] = cr
	return cr, nil
}

// tunedCache is a tuned cell's runs/<key>.tuning.json: the grid search
// (its Test left out) and the chosen and default settings' held-out
// per-query values of the metric, from which the test is made again with
// the significance settings of each run (a change of test, seed or
// interval must not be read from the cache).
type tunedCache struct {
	Tuning  *results.Tuning    `json:"tuning"`
	Chosen  map[string]float64 `json:"heldout_chosen"`
	Default map[string]float64 `json:"heldout_default"`
}

// withoutTest is tc as cached: the Tuning without its Test.
func (tc tunedCache) withoutTest() tunedCache {
	t := *tc.Tuning
	t.Test = nil
	tc.Tuning = &t
	return tc
}

// test sets tc.Tuning.Test: the chosen setting against the default on the
// held-out queries (none when the default is chosen or nothing is held
// out).
func (tc tunedCache) test(cfg *Config, ev *tuneEvaluator) error {
	t := tc.Tuning
	t.Test = nil
	if t.Chosen.Name == t.Default.Name || len(ev.heldout) == 0 {
		return nil
	}
	p, err := tuneTest(cfg, ev, t.Chosen.Name, t.Default.Name, tc.Chosen, tc.Default)
	if err != nil {
		return err
	}
	t.Test = p
	return nil
}

// held is col restricted to the held-out queries (a query col lacks
// scores 0, as in the means).
func held(ev *tuneEvaluator, col map[string]float64) map[string]float64 {
	m := make(map[string]float64, len(ev.heldout))
	for _, id := range ev.heldout {
		m[id] = col[id]
	}
	return m
}

// readTunedCache reads a tuned cell's cached run and tunedCache; ok is
// false when either is missing or does not parse, or is of the format
// before the held-out values were kept (the cell is then tuned again and
// the cache rewritten).
func readTunedCache(runPath, tunePath string) (eval.Run, *tunedCache, bool) {
	run, err := readCachedRun(runPath)
	if err != nil {
		return nil, nil, false
	}
	data, err := os.ReadFile(tunePath)
	if err != nil {
		return nil, nil, false
	}
	var tc tunedCache
	if json.Unmarshal(data, &tc) != nil || tc.Tuning == nil {
		return nil, nil, false
	}
	return run, &tc, true
}

// gridResult is a grid search's outcome: the results.Tuning (Test not yet set),
// the chosen setting's run, and the chosen and default settings'
// per-query values of the metric (the paired test's inputs).
type gridResult struct {
	tuning            *results.Tuning
	chosenRun         eval.Run
	chosenCol, defCol map[string]float64
}

// searchGrid evaluates every setting of t in grid order, choosing the
// highest tuning mean (ties: the earlier), then the untuned default when
// the grid does not hold it. Progress: one stage over the settings, or
// one per setting (tuner.PerSetting). Errors: the context's, or a
// setting's run or evaluation, naming the setting.
func (r *cellRunner) searchGrid(ctx context.Context, t kinds.Tunable, tuner *kinds.Tuner, scope string, ev *tuneEvaluator) (*gridResult, error) {
	tg := &results.Tuning{Metric: ev.metric, TuningQueries: len(ev.tuning), HeldOutQueries: len(ev.heldout)}
	g := &gridResult{tuning: tg}
	def := t.TuneDefault()
	settings := t.TuneSettings()
	best := -1
	// produce is a setting's run, in a stage of its own (scope (label))
	// when the tuner has one per setting.
	produce := func(label string, s kinds.TuneSetting) (eval.Run, error) {
		if tuner.PerSetting {
			r.prog.begin(scope+" ("+label+")", tuner.Stage, 0, tuner.Unit)
		}
		run, err := tuner.Produce(s)
		if err == nil && tuner.PerSetting {
			r.prog.end("")
		}
		return run, err
	}
	if !tuner.PerSetting {
		r.prog.begin(scope, tuner.Stage, len(settings), tuner.Unit)
	}
	for i, s := range settings {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		run, err := produce(s.Name, s)
		if err != nil {
			return nil, fmt.Errorf("setting %s: %w", s.Name, err)
		}
		ts, col, err := ev.eval(s.Name, run)
		if err != nil {
			return nil, err
		}
		tg.Settings = append(tg.Settings, ts)
		if best < 0 || ts.Tuning > tg.Settings[best].Tuning {
			best, g.chosenRun, g.chosenCol = i, run, col
		}
		if s.Name == def.Name {
			tg.Default, g.defCol = ts, col
		}
		if !tuner.PerSetting {
			r.prog.set(i+1, 0)
		}
	}
	if !tuner.PerSetting {
		r.prog.end("")
	}
	tg.Chosen = tg.Settings[best]
	if g.defCol != nil {
		return g, nil
	}
	run, err := produce("default "+def.Name, def)
	if err != nil {
		return nil, fmt.Errorf("default %s: %w", def.Name, err)
	}
	if tg.Default, g.defCol, err = ev.eval(def.Name, run); err != nil {
		return nil, err
	}
	return g, nil
}

// tuneEvaluator scores a setting's chunk-level run as the cell would be
// scored (MaxP for document-level qrels, cut to the config's depth), on
// the primary metric at prompt_k only.
type tuneEvaluator struct {
	cfg             Config // Metrics and K reduced to the primary metric at prompt_k
	qrels           eval.Qrels
	metric          string
	tuning, heldout []string // answerable query ids
	docOf           func(string) string
	docLevel        bool
	depth           int
}

func (r *cellRunner) tuneEvaluator(cc *chunkCells) *tuneEvaluator {
	ev := &tuneEvaluator{cfg: *r.cfg, qrels: r.ds.qrels, metric: config.MetricName(r.cfg.PrimaryMetric, r.cfg.PromptK),
		docOf: cc.docOf, docLevel: cc.level == corpus.DocLevel, depth: r.cfg.Depth}
	ev.cfg.Metrics = []string{r.cfg.PrimaryMetric}
	ev.cfg.K = []int{r.cfg.PromptK}
	for _, id := range r.ds.answerable {
		if r.ds.heldout[id] {
			ev.heldout = append(ev.heldout, id)
		} else {
			ev.tuning = append(ev.tuning, id)
		}
	}
	return ev
}

// eval returns the setting's means and its per-query values of the metric.
func (ev *tuneEvaluator) eval(name string, run eval.Run) (results.TuningSetting, map[string]float64, error) {
	final := run
	if ev.docLevel {
		final = corpus.MaxP(final, ev.docOf)
	}
	final = kinds.Truncate(final, ev.depth)
	scores, err := evaluateRun(&ev.cfg, ev.qrels, final)
	if err != nil {
		return results.TuningSetting{}, nil, fmt.Errorf("setting %s: %w", name, err)
	}
	col := scores[ev.metric]
	mean := func(ids []string) float64 {
		if len(ids) == 0 {
			return 0
		}
		s := 0.0
		for _, id := range ids {
			s += col[id]
		}
		return s / float64(len(ids))
	}
	return results.TuningSetting{Name: name, Tuning: mean(ev.tuning), HeldOut: mean(ev.heldout)}, col, nil
}

// tuneTest is the paired test of setting a against b on the held-out
// queries, with the config's test, correction, alpha, permutations and seed.
func tuneTest(cfg *Config, ev *tuneEvaluator, a, b string, colA, colB map[string]float64) (*results.PairTest, error) {
	opts, err := cfg.Significance.CompareOptions()
	if err != nil {
		return nil, err
	}
	in := compare.Input{Systems: []string{a, b}, Metrics: []string{ev.metric}, Queries: ev.heldout,
		Scores: compare.Scores{a: {ev.metric: held(ev, colA)}, b: {ev.metric: held(ev, colB)}}}
	opts.Plan, opts.Noun = compare.Plan{Kind: compare.VsBaseline, Baseline: b}, "setting"
	rep, err := compare.Compare(in, opts)
	if err != nil {
		return nil, fmt.Errorf("tuning test: %w", err)
	}
	if len(rep.Pairs) != 1 {
		return nil, fmt.Errorf("tuning test: %d comparisons, want 1", len(rep.Pairs))
	}
	p := pairTest(rep, rep.Pairs[0])
	if w := stats.SmallSampleWarning(len(ev.heldout), "held-out test"); w != "" && !slices.Contains(p.Warnings, w) {
		p.Warnings = append(p.Warnings, w)
	}
	return &p, nil
}
