package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/ragbench/ragbench/compare"
	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/hashkey"
	"github.com/ragbench/ragbench/kinds"
	"github.com/ragbench/ragbench/results"
	"github.com/ragbench/ragbench/spans"
	"github.com/ragbench/ragbench/stats"
)

// runTuned produces a tuned cell's run: each setting's run from the
// inputs' runs (a hybrid fuses them once ranked, hybrid.RankRuns; a rerank
// reinterpolates the cross-encoder's scores, which the sweep's cross-scorer
// memo computes once), evaluated on the primary metric; the chosen
// setting's run is the cell's. The run and the results.Tuning are cached under
// tuningKey: the cell's run-cache key and everything the choice depends on
// besides (the split, the qrels, the metric, the test).
func (r *cellRunner) runTuned(ctx context.Context, cc *chunkCells, cell config.Cell, scope string) (*cellRun, error) {
	rc := cell.Retriever
	ev := r.tuneEvaluator(cc)
	key := tuningKey(r.cacheKey(cc, cell), ev.keyInputs(r.cfg.Significance))
	cr := &cellRun{key: key, timing: results.Timing{Cell: cell.Name}}
	runPath := filepath.Join(r.env.CacheDir, "runs", key[:2], key+".json")
	tunePath := filepath.Join(r.env.CacheDir, "runs", key[:2], key+".tuning.json")
	_, noter := rc.Settings.(kinds.Noter)
	if run, t, ok := readTunedCache(runPath, tunePath); ok {
		if notes, ok := readNotes(runPath, noter); ok {
			cr.run, cr.tuning, cr.notes, cr.timing.Cached = run, t, notes, true
			cc.runs[rc.Name] = cr
			return cr, nil
		}
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
	if t.Chosen.Name != t.Default.Name && len(ev.heldout) > 0 {
		p, err := tuneTest(r.cfg, ev, t.Chosen.Name, t.Default.Name, g.chosenCol, g.defCol)
		if err != nil {
			return nil, err
		}
		t.Test = p
	}
	tuner.Time(&kc.Stats, time.Since(t0).Seconds())
	setStats(&cr.timing, kc.Stats)
	cr.run, cr.tuning = g.chosenRun, t
	if tuner.Notes != nil {
		for _, n := range tuner.Notes(t.Chosen.Name) {
			cr.notes = append(cr.notes, "chosen setting "+t.Chosen.Name+": "+n)
		}
	}
	for _, q := range r.ds.queries {
		if cr.run[q.ID] == nil {
			cr.run[q.ID] = []eval.Result{}
		}
	}
	if err := writeCacheJSON(runPath, cachedRun(cr.run)); err != nil {
		return nil, err
	}
	if err := writeCacheJSON(tunePath, t); err != nil {
		return nil, err
	}
	if err := writeNotes(runPath, noter, cr.notes); err != nil {
		return nil, err
	}
	cc.runs[rc.Name] = cr
	return cr, nil
}

// readTunedCache reads a tuned cell's cached run and Tuning; ok is false
// when either is missing or does not parse (the cell is then tuned again
// and the cache rewritten).
func readTunedCache(runPath, tunePath string) (eval.Run, *results.Tuning, bool) {
	run, err := readCachedRun(runPath)
	if err != nil {
		return nil, nil, false
	}
	data, err := os.ReadFile(tunePath)
	if err != nil {
		return nil, nil, false
	}
	var t results.Tuning
	if json.Unmarshal(data, &t) != nil {
		return nil, nil, false
	}
	return run, &t, true
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
		if err == nil {
			err = finiteRun(run)
		}
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

// tuningInputs are what a tuned cell's choice depends on besides its
// run-cache key's parts (the inputs' runs, the grid): the split of the
// answerable queries into tuning and held-out ids, the qrels they are
// scored on and at which level, the metric and depth, and the test of the
// chosen setting against the default (its options are in the cached
// Tuning). A seed or fraction of heldout that moves one query changes the
// key, so a choice made on queries now held out is never read back.
type tuningInputs struct {
	Metric       string                    `json:"metric"`
	Depth        int                       `json:"depth"`
	DocLevel     bool                      `json:"doc_level"`
	Tuning       []string                  `json:"tuning"`  // sorted, never null
	HeldOut      []string                  `json:"heldout"` // sorted, never null
	Qrels        string                    `json:"qrels"`   // qrelsKey
	Significance config.SignificanceConfig `json:"significance"`
	// Spans are the span labels (spans.Digest) and the cover share the
	// settings are scored on: with span labels the choice rests on them,
	// not on the dataset's qrels. Empty without span labels, so those
	// keys are unchanged.
	Spans      string  `json:"spans,omitempty"`
	CoverShare float64 `json:"span_cover_share,omitempty"`
}

// tuningKey is a tuned cell's cache key: its run-cache key (base) with
// the tuning's own inputs. Equal inputs give equal keys (the id lists are
// sets: sorted, repeats dropped; nil and empty are one); distinct ones
// distinct keys (FuzzTuningKey). Ids are quoted (strconv.Quote) before
// they enter the JSON: a TREC qrels id need not be UTF-8, and JSON would
// turn every invalid byte into the same U+FFFD.
func tuningKey(base string, in tuningInputs) string {
	norm := func(ids []string) []string {
		out := []string{}
		for _, id := range slices.Compact(slices.Sorted(slices.Values(ids))) {
			out = append(out, strconv.Quote(id))
		}
		return out
	}
	in.Tuning, in.HeldOut = norm(in.Tuning), norm(in.HeldOut)
	if in.Significance.Metrics == nil {
		in.Significance.Metrics = []string{}
	}
	return hashkey.Of(map[string]any{"run": base, "tuning": in})
}

// qrelsKey is the key of qrels in tuningKey: its judgements sorted, each
// query and doc id quoted (see tuningKey), with its grade.
func qrelsKey(q eval.Qrels) string {
	var rows [][3]any
	for _, qid := range slices.Sorted(maps.Keys(q)) {
		for _, doc := range slices.Sorted(maps.Keys(q[qid])) {
			rows = append(rows, [3]any{strconv.Quote(qid), strconv.Quote(doc), q[qid][doc]})
		}
	}
	return hashkey.Of(rows)
}

// keyInputs are ev's tuningInputs under the significance settings sig.
func (ev *tuneEvaluator) keyInputs(sig config.SignificanceConfig) tuningInputs {
	in := tuningInputs{Metric: ev.metric, Depth: ev.depth, DocLevel: ev.docLevel, Tuning: ev.tuning, HeldOut: ev.heldout,
		Qrels: qrelsKey(ev.qrels), Significance: sig}
	if ev.spans != nil {
		in.Spans, in.CoverShare = spans.Digest(ev.ds.spanQueries), ev.cfg.Dataset.SpanCoverShare
	}
	return in
}

// tuneEvaluator scores a setting's chunk-level run as the cell would be
// scored (MaxP for document-level qrels, cut to the config's depth), on
// the primary metric at prompt_k only.
type tuneEvaluator struct {
	cfg             Config // Metrics and K reduced to the primary metric at prompt_k
	qrels           eval.Qrels
	spans           *spanCells // the chunking's span judgements, nil without span labels
	ds              *dataset
	metric          string
	tuning, heldout []string // answerable query ids
	docOf           func(string) string
	docLevel        bool
	depth           int
}

func (r *cellRunner) tuneEvaluator(cc *chunkCells) *tuneEvaluator {
	ev := &tuneEvaluator{cfg: *r.cfg, qrels: r.ds.qrels, spans: cc.spans, ds: r.ds, metric: config.MetricName(r.cfg.PrimaryMetric, r.cfg.PromptK),
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
	// Scored as the cell is (cellScores): with span labels on the
	// chunking's derived judgements and the span measures, not the
	// dataset's qrels (which hold no chunk of this chunking).
	scores, err := cellScores(context.Background(), &ev.cfg, ev.ds, ev.spans, final)
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
// queries, with the config's test, correction, alpha, permutations, seed
// and interval (plan: a against the baseline b), with a warning when fewer
// than stats.SmallSample queries are held out.
func tuneTest(cfg *Config, ev *tuneEvaluator, a, b string, colA, colB map[string]float64) (*results.PairTest, error) {
	opts, err := cfg.Significance.CompareOptions()
	if err != nil {
		return nil, err
	}
	held := func(col map[string]float64) map[string]map[string]float64 {
		m := make(map[string]float64, len(ev.heldout))
		for _, id := range ev.heldout {
			m[id] = col[id]
		}
		return map[string]map[string]float64{ev.metric: m}
	}
	in := compare.Input{Systems: []string{a, b}, Metrics: []string{ev.metric}, Queries: ev.heldout,
		Scores: compare.Scores{a: held(colA), b: held(colB)}}
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
