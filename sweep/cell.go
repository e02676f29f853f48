package sweep

import (
	"context"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/results"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/hashkey"
	"github.com/ragbench/ragbench/kinds"
	"github.com/ragbench/ragbench/passages"
	"github.com/ragbench/ragbench/retrievers"
)

// backend is the seam between the sweep and the packages that load data
// and run retrievers. Tests replace fields to inject retrievers whose
// rankings are known by hand.
type backend struct {
	// loadQueries reads a BEIR queries.jsonl: query id → text
	// (eval.ReadQueryTexts).
	loadQueries func(path string) (map[string]string, error)
	// readQrels reads qrels or a labelled-query JSONL, with the line of
	// each judgement (eval.ReadQrelsLines).
	readQrels func(path string) (eval.Qrels, map[string]eval.QueryMeta, map[eval.Judgement]int, error)
	// wrapSearch and wrapRerank, when set, are kinds.Env's: they replace
	// a first stage's retriever build, and a rerank.
	wrapSearch func(c *kinds.Cell, s kinds.Settings, build func() (retrievers.Retriever, error)) (retrievers.Retriever, error)
	wrapRerank func(c *kinds.Cell, r *kinds.Rerank, rerank func() (eval.Run, error)) (eval.Run, error)
}

func defaultBackend() backend {
	return backend{loadQueries: eval.ReadQueryTexts, readQrels: eval.ReadQrelsLines}
}

// cellRun is one cell's chunk-level run, its run-cache key (which the
// cells that take it as input include in theirs) and its timings.
type cellRun struct {
	key    string
	run    eval.Run
	timing results.Timing
	tuning *results.Tuning // a tuned cell's grid search (tuningrun.go)
	// passages, set for a kind that brings a pipeline's own passages
	// (kinds.Cell.Passages), are what run's ids name; passageNotes are
	// what the report should say of them (passages.go).
	passages     *passages.Scored
	passageNotes []string
	notes        []string // kinds.Cell.Notes (cached beside the run), report warnings
}

// cellRunner produces the cells' chunk-level runs of one sweep. It holds
// what every cell shares; chunkCells holds what the cells of one chunking
// share.
type cellRunner struct {
	cfg        *Config
	ds         *dataset
	prog       *progress
	env        *kinds.Env        // cache folder, models, engine indexes
	corpusHash string            // corpus.Hash of the documents, for run-cache keys
	queriesKey string            // sha256 of the evaluated queries, for run-cache keys
	modelHash  map[string]string // model folder → kinds.FolderHash, for run-cache keys

	res    *results.Results // the cells' results, appended as they are scored
	scored []scoredCell     // each cell's final run and scores, in res.Cells' order
	nCells int              // cells of the sweep, for the progress lines
	diag   *missDiagnoser   // the misses' diagnoses (diagnosis.go)
	// truncMemo holds an embedder's truncation per model and chunking
	// (cost.go): the cells sharing them count once.
	truncMemo map[string]results.Truncation
}

// chunkCells is one chunking's state while its cells run.
type chunkCells struct {
	chunks corpus.Chunks
	// chunkByID is chunks' positions by chunk id (dataset.chunkIndex),
	// shared with the cells (kinds.Cell.ChunkByID).
	chunkByID *corpus.IDIndex
	depth     int                 // chunk-level search depth (see chunking)
	runs      map[string]*cellRun // retriever name → run, for hybrid and rerank inputs
	level     corpus.Level        // qrels level for this chunking (tuned cells score as the cell)
	docOf     func(chunkID string) string
	spans     *spanCells         // the chunking's span judgements (nil without span labels): tuned cells score on them too
	costs     map[string]ownCost // retriever name → its cost, for the cells over it (cost.go)
}

// kindCell is the kinds.Cell of cell over cc's chunks: its inputs' runs,
// the cell's depth, and its progress under scope.
func (r *cellRunner) kindCell(cc *chunkCells, cell config.Cell, scope string) *kinds.Cell {
	rc := cell.Retriever
	kc := &kinds.Cell{Retriever: rc.Name, Chunking: cell.Chunking.Name, Docs: r.ds.docs, Chunks: cc.chunks, ChunkByID: cc.chunkByID, Queries: r.ds.queries,
		Depth: cc.depth, Env: r.env, Progress: cellProgress{r.prog, scope}}
	for _, in := range rc.InputNames() {
		kc.Inputs = append(kc.Inputs, cc.runs[in].run)
	}
	return kc
}

// run produces cell's chunk-level run, from the run cache when the same
// inputs were run before, and records it in cc.runs. The kind's Run shows
// its stages under scope (kinds.Progress); a cell read from the run cache
// has no stage.
func (r *cellRunner) run(ctx context.Context, cc *chunkCells, cell config.Cell, scope string) (*cellRun, error) {
	rc := cell.Retriever
	if kinds.IsTuned(rc.Settings) {
		return r.runTuned(ctx, cc, cell, scope)
	}
	key := r.cacheKey(cc, cell)
	cr := &cellRun{key: key, timing: results.Timing{Cell: cell.Name}}
	cachePath := filepath.Join(r.env.CacheDir, "runs", key[:2], key+".json")
	cacheable := rc.Settings.Cacheable()
	_, noter := rc.Settings.(kinds.Noter)
	if run, err := readCachedRun(cachePath); err == nil && cacheable {
		if notes, ok := readNotes(cachePath, noter); ok {
			cr.run, cr.notes = run, notes
			cr.timing.Cached = true
			cc.runs[rc.Name] = cr
			return cr, nil
		}
	}
	kc := r.kindCell(cc, cell, scope)
	if err := rc.Settings.Run(ctx, kc); err != nil {
		return nil, err
	}
	if err := finiteRun(kc.Run); err != nil {
		return nil, err
	}
	cr.run, cr.notes = kc.Run, kc.Notes
	cr.passages, cr.passageNotes = kc.Passages, kc.PassageNotes
	setStats(&cr.timing, kc.Stats)
	for _, q := range r.ds.queries {
		if cr.run[q.ID] == nil {
			cr.run[q.ID] = []eval.Result{}
		}
	}
	if !cacheable || cr.timing.QueryErrors > 0 {
		// Keyed by the run it got (see kinds.Settings.Cacheable), never
		// written; a run with queries scored as misses after errors is
		// not what the config would get, so it is not cached either.
		cr.key = hashkey.Of(map[string]any{"key": key, "run": cachedRun(cr.run)})
		cc.runs[rc.Name] = cr
		return cr, nil
	}
	if err := writeCacheJSON(cachePath, cachedRun(cr.run)); err != nil {
		return nil, err
	}
	if err := writeNotes(cachePath, noter, cr.notes); err != nil {
		return nil, err
	}
	cc.runs[rc.Name] = cr
	return cr, nil
}

// finiteRun checks that every score of a run a kind made is a finite
// number: a NaN ranks nowhere (its list's order would be arbitrary), and
// no output can hold it (JSON has no NaN, the run cache and results.json
// are JSON, TREC readers refuse it). The error names the first query (in
// id order) and doc.
func finiteRun(run eval.Run) error {
	for _, q := range slices.Sorted(maps.Keys(run)) {
		for _, r := range run[q] {
			if math.IsNaN(r.Score) || math.IsInf(r.Score, 0) {
				return fmt.Errorf("query %q: doc %q: score %v is not a finite number: a retriever's scores must be finite", q, r.DocID, r.Score)
			}
		}
	}
	return nil
}

// setStats copies a kind's measured timings and counters into t.
func setStats(t *results.Timing, s kinds.Stats) {
	t.Build, t.Embed, t.Search, t.QueryEmbed, t.Fuse, t.Rerank = s.Build, s.Embed, s.Search, s.QueryEmbed, s.Fuse, s.Rerank
	t.IndexBytes, t.IndexDocs, t.LatencyP50, t.LatencyP95 = s.IndexBytes, s.IndexDocs, s.LatencyP50, s.LatencyP95
	t.QueryErrors, t.FailedQueries = s.QueryErrors, s.FailedQueries
}

// cellProgress is the sweep's progress as a kind sees it: its stages
// under the cell's scope ("[3/15] fixed-128o32/dense").
type cellProgress struct {
	p     *progress
	scope string
}

func (c cellProgress) Begin(stage string, total int, unit string) {
	c.p.begin(c.scope, stage, total, unit)
}
func (c cellProgress) Set(done, total int)                 { c.p.set(done, total) }
func (c cellProgress) End(note string)                     { c.p.end(note) }
func (c cellProgress) Updated() bool                       { return c.p.updatedStage() }
func (c cellProgress) Count(stage string, done, total int) { c.p.stageProgress(stage, done, total) }
