package sweep

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/internal/hashkey"
	"github.com/ragbench/ragbench/report"
	"github.com/ragbench/ragbench/results"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/kinds"
	"github.com/ragbench/ragbench/retrievers"
)

// Options are the run-time settings of Run that are not part of the config.
type Options struct {
	// Stderr receives the progress output (nil: discarded).
	Stderr io.Writer
	// Progress is how progress is shown on Stderr: ProgressNone (the zero
	// value), ProgressBar (callers choose it when Stderr is a terminal) or
	// ProgressPlain (one line per stage start and end, for logs).
	Progress ProgressMode
	// Now stamps the history row; nil means time.Now.
	Now func() time.Time
	// NoHistory skips the history CSV row.
	NoHistory bool
	// ONNXRuntime is the ONNX Runtime library for dense and rerank
	// retrievers ("" = $ONNXRUNTIME_LIB, else the project-local default).
	ONNXRuntime string
	// CheckInputs, when not nil, is called once the dataset is loaded and
	// checked and before the first cell runs, with the dataset's files
	// hashed as manifest.json will list them (roles corpus, queries,
	// qrels); an error from it stops the run, nothing written. bench run
	// --baseline checks there that the baseline read the same queries
	// and qrels, so a changed qrels fails before the sweep, not after.
	CheckInputs func(files []results.FileHash) error

	backend *backend // nil: defaultBackend()
	// clock times the progress lines; nil means time.Now (tests fix it).
	clock func() time.Time
}

// Run runs the sweep described by cfg and writes its outputs into
// cfg.Output (see WriteOutputs). Validation happens first: a missing file
// or model stops the run before any work. Cancelling ctx stops the
// current step (an embedding or rerank batch finishes; scoring and the
// significance tests stop within milliseconds); caches and earlier outputs
// are left intact.
func Run(ctx context.Context, cfg *Config, opts Options) (*results.Results, error) {
	be := defaultBackend()
	if opts.backend != nil {
		be = *opts.backend
	}
	rep, err := check(ctx, cfg, CheckOptions{History: !opts.NoHistory, ONNXRuntime: opts.ONNXRuntime}, be)
	if err != nil {
		return nil, err
	}
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	if rep.Recovered != "" {
		fmt.Fprintf(opts.Stderr, "bench run: %s\n", rep.Recovered)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	ds, warns := rep.ds, rep.warns
	if opts.CheckInputs != nil {
		files, err := ds.inputFiles()
		if err != nil {
			return nil, err
		}
		if err := opts.CheckInputs(files); err != nil {
			return nil, err
		}
	}
	prog := newProgress(opts.Progress, opts.Stderr, opts.clock)
	defer prog.abort()
	res, scored, err := sweep(ctx, cfg, ds, be, opts, prog)
	if err != nil {
		return nil, err
	}
	res.Warnings = append(append(cfg.FallbackWarnings(), warns...), res.Warnings...)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	prog.begin("all cells", "write outputs", len(res.Cells), "cells")
	if err := writeOutputs(ctx, cfg, ds, res, scored, opts); err != nil {
		return nil, err
	}
	prog.end("")
	return res, nil
}

// sweep runs every cell of cfg over ds and scores it, then the paired
// tests between cells: the Results, and each cell's final run and
// per-query scores (scoredCell, in Results.Cells' order).
func sweep(ctx context.Context, cfg *Config, ds *dataset, be backend, opts Options, prog *progress) (*results.Results, []scoredCell, error) {
	res := &results.Results{Config: cfg.Recorded(), Metrics: cfg.MetricNames(), Groups: ds.answerableGroups()}
	var warns []string
	res.Dataset, warns = ds.summary(cfg)
	res.Labels = ds.labelNotes
	res.Warnings = append(res.Warnings, warns...)
	modelHash := map[string]string{}
	for _, rc := range cfg.Retrievers {
		if m := rc.Model(); m != "" && modelHash[m] == "" {
			h, err := kinds.FolderHash(m)
			if err != nil {
				return nil, nil, err
			}
			modelHash[m] = h
		}
	}
	chunkings := cfg.Chunkings()
	env := kinds.NewEnv(cfg.CacheDir, opts.ONNXRuntime)
	env.WrapSearch, env.WrapRerank = pacedBuild(ds.texts, be.wrapSearch), be.wrapRerank
	defer env.Close()
	// The last of the dataset's passes over every text (after Summarize
	// and the label checks in loadDataset): Paced leaves none of the
	// spilled texts' pages resident after it.
	var corpusHash string
	ds.texts.Paced(func() { corpusHash = corpus.Hash(ds.docs) })
	cells := &cellRunner{cfg: cfg, ds: ds, prog: prog, env: env, corpusHash: corpusHash, queriesKey: hashkey.Of(ds.queries), modelHash: modelHash,
		res: res, nCells: len(chunkings) * len(cfg.Retrievers), diag: newMissDiagnoser(cfg, ds)}
	levels := map[string]bool{}
	for _, ch := range chunkings {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		level, err := cells.chunking(ctx, ch)
		if err != nil {
			return nil, nil, err
		}
		levels[level.String()] = true
	}
	if levels["chunk"] {
		res.Dataset.Level = "chunk"
	} else {
		res.Dataset.Level = "document"
	}
	prog.begin("all cells", "significance", comparisonCount(cfg, len(res.Cells)), "paired comparisons")
	var err error
	if res.Significance, err = significance(ctx, cfg, ds, cells.scored, res.Cells); err != nil {
		return nil, nil, err
	}
	prog.end("")
	res.Best = bestPerChunking(cfg, res.Cells)
	if res.BudgetVerdict, err = budgetVerdict(ctx, cfg, ds, res); err != nil {
		return nil, nil, err
	}
	return res, cells.scored, nil
}

// pacedBuild is the sweep's kinds.Env.WrapSearch: wrap's build (the
// plain build when wrap is nil), paced by texts.Paced. Every first stage's
// build goes through it (kinds.searchCell), and a build is the one pass of
// a cell over every chunk's text, in order; the search after it reads
// none, scoring's random lookups read back by offset (Texts.Detach), and a
// reranker's passages fault back in the few pages they touch. Without a
// spill (texts on the heap) it is wrap itself.
func pacedBuild(texts *corpus.Texts, wrap searchWrap) searchWrap {
	if !texts.Spilled() {
		return wrap
	}
	return func(c *kinds.Cell, s kinds.Settings, build func() (retrievers.Retriever, error)) (r retrievers.Retriever, err error) {
		texts.Paced(func() {
			if wrap != nil {
				r, err = wrap(c, s, build)
			} else {
				r, err = build()
			}
		})
		return r, err
	}
}

// searchWrap is kinds.Env.WrapSearch's type.
type searchWrap = func(c *kinds.Cell, s kinds.Settings, build func() (retrievers.Retriever, error)) (retrievers.Retriever, error)

// scoredCell is what the outputs need of a cell besides its
// results.CellResult: its final run (runs/<cell>.trec) and its per-query
// scores as compare reads them (the significance tests' input).
type scoredCell struct {
	name   string
	run    eval.Run                      // document-level (or chunk-level) run at the config's depth
	scores map[string]map[string]float64 // metric → query id → value
}

// cellInputs are what scoreCell scores: one cell of one chunking.
type cellInputs struct {
	cell Cell
	// run is the cell's final run: MaxP'd to documents for document-level
	// qrels, cut to the config's depth.
	run eval.Run
	// chunks are the chunking's chunks (their count is the cell's Chunks),
	// chunkByID their index by chunk id: the snippets' source.
	chunks    corpus.Chunks
	chunkByID *corpus.IDIndex
	// spans is the chunking's span state, nil without span labels (see
	// cellScores).
	spans *spanCells
	// chunkRun is the cell's chunk-level run (before MaxP), prompt the
	// chunking's token counts (the prompt's size), diag the sweep's miss
	// diagnoser (nil: a new one).
	chunkRun eval.Run
	prompt   *promptTokens
	diag     *missDiagnoser
}

// scoreCell scores a cell's final run over the sweep's dataset: per-query
// values, group means, unanswerable queries' top hits, the threshold
// analysis and the misses. Cancelling ctx stops it between metrics and
// query blocks, with ctx's error. Errors: the evaluation's, or an
// answerable query it did not score.
func scoreCell(ctx context.Context, cfg *Config, ds *dataset, in cellInputs) (results.CellResult, scoredCell, error) {
	cell, run, sc := in.cell, in.run, in.spans
	cr := results.CellResult{Name: cell.Name, Chunking: cell.Chunking, Retriever: cell.Retriever, Chunks: in.chunks.Len(),
		Means: map[string]map[string]float64{}, Counts: map[string]int{}, PerQuery: map[string]map[string]float64{},
		Unanswerable: []results.UnanswerableHits{}}
	scored := scoredCell{name: cell.Name, run: run}
	if err := cellMisses(ctx, cfg, ds, in, &cr); err != nil {
		return cr, scored, err
	}
	scores, err := cellScores(ctx, cfg, ds, sc, run)
	if err != nil {
		return cr, scored, err
	}
	if err := cellPrompts(ctx, cfg, ds, in, &cr); err != nil {
		return cr, scored, err
	}
	scored.scores = scores
	if err := cellMeans(ctx, cfg, ds, scores, &cr); err != nil {
		return cr, scored, err
	}
	if cr.Judged, err = cellJudged(ctx, cfg, ds, in); err != nil {
		return cr, scored, err
	}
	for _, id := range ds.unanswer {
		u := results.UnanswerableHits{QueryID: id, Query: ds.text[id], Slice: ds.slice[id], Top: []results.Hit{}}
		for i, r := range run[id] {
			if i == 3 {
				break
			}
			u.Top = append(u.Top, results.Hit{Rank: i + 1, ID: r.DocID, Score: r.Score, Snippet: ds.snippet(r.DocID, cfg.Snippet, in.chunkByID, in.chunks)})
		}
		cr.Unanswerable = append(cr.Unanswerable, u)
	}
	if len(ds.unanswer) > 0 {
		qrels := ds.qrels
		if sc != nil {
			if qrels, err = sc.judgements(run); err != nil {
				return cr, scored, err
			}
		}
		cr.Threshold = thresholdAnalysis(cfg, ds, qrels, run)
	}
	return cr, scored, nil
}

// cellMisses fills cr's misses.jsonl rows: with span labels the gold
// spans missed (and their count, Precision Ω and the spans' total), else
// the queries missing a gold id; each diagnosed (diagnosis.go). A
// cancelled ctx stops the diagnoses, with its error.
func cellMisses(ctx context.Context, cfg *Config, ds *dataset, in cellInputs, cr *results.CellResult) error {
	sc := in.spans
	if in.diag == nil {
		in.diag = newMissDiagnoser(cfg, ds)
	}
	if sc == nil {
		cr.Misses = docMisses(cfg, ds, in.cell.Name, in.run)
		return in.diag.diagnoseMisses(ctx, in, cr)
	}
	ms, err := spanMisses(cfg, ds, sc, in.cell.Name, in.run, in.chunkByID, in.chunks)
	if err != nil {
		return err
	}
	missed := len(ms)
	cr.SpanMisses, cr.SpansTotal = ms, sc.total
	cr.PrecisionOmega, cr.SpansMissed = &sc.omega, &missed
	return in.diag.diagnoseMisses(ctx, in, cr)
}

// cellMeans fills cr's per-query values (every answerable query must have
// every metric) and each group's means and counts.
func cellMeans(ctx context.Context, cfg *Config, ds *dataset, scores map[string]map[string]float64, cr *results.CellResult) error {
	for i, id := range ds.answerable {
		if i%256 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		m := make(map[string]float64, len(scores))
		for name, col := range scores {
			v, ok := col[id]
			if !ok {
				return fmt.Errorf("evaluation: no %s for answerable query %q", name, id)
			}
			m[name] = v
		}
		cr.PerQuery[id] = m
	}
	names := cfg.MetricNames()
	for g, ids := range ds.answerableGroups() {
		m := map[string]float64{}
		for _, name := range names {
			if err := ctx.Err(); err != nil {
				return err
			}
			sum := 0.0
			for _, id := range ids {
				sum += cr.PerQuery[id][name]
			}
			m[name] = sum / float64(len(ids))
		}
		cr.Means[g] = m
		cr.Counts[g] = len(ids)
	}
	return nil
}

// answerableGroups are the answerable queries' ids (in ds.answerable's
// order) by group: GroupAll, GroupTuning, GroupHeldOut and "slice:NAME"
// for each slice (with "(none)" for unlabelled queries once some judged
// query has a slice label: ds.sliceOf).
func (ds *dataset) answerableGroups() map[string][]string {
	groups := map[string][]string{}
	labelled := false // as in sweep: some judged query has a slice label
	for _, id := range ds.sortedIDs() {
		labelled = labelled || ds.slice[id] != ""
	}
	for _, id := range ds.answerable {
		groups[results.GroupAll] = append(groups[results.GroupAll], id)
		if ds.heldout[id] {
			groups[results.GroupHeldOut] = append(groups[results.GroupHeldOut], id)
		} else {
			groups[results.GroupTuning] = append(groups[results.GroupTuning], id)
		}
		if s := ds.sliceOf(id, labelled); s != "" {
			groups[results.SliceGroup(s)] = append(groups[results.SliceGroup(s)], id)
		}
	}
	return groups
}

// chunking cuts the documents by ch and runs every retriever's cell on the
// chunks, appending each cell's result and timing to r.res and its
// scoredCell to r.scored (cell numbers out of r.nCells for the progress
// lines). It returns whether the qrels are
// document- or chunk-level for ch (chunkingLevel, the label rule --check
// applies too).
func (r *cellRunner) chunking(ctx context.Context, ch config.Chunking) (corpus.Level, error) {
	t0 := time.Now()
	r.prog.begin("chunking "+ch.Name, "chunk", len(r.ds.docs), "documents")
	chunks, err := r.ds.chunk(ctx, ch)
	if err != nil {
		return 0, fmt.Errorf("chunking %s: %w", ch.Name, err)
	}
	level, err := r.ds.chunkingLevel(ch, chunks)
	if err != nil {
		return 0, err
	}
	sc, err := r.ds.newSpanCells(r.cfg, chunks)
	if err != nil {
		return 0, fmt.Errorf("chunking %s: %w", ch.Name, err)
	}
	if sc != nil {
		if w := sc.uncoverableWarning(ch.Name, r.cfg.Dataset.SpanCoverShare); w != "" {
			r.res.Warnings = append(r.res.Warnings, w)
		}
	}
	chunkTime := time.Since(t0).Seconds()
	r.prog.end(report.GroupDigits(chunks.Len()) + " chunks")
	chunkByID := r.ds.chunkIndex(chunks)
	docOf := corpus.DocOfIndex(chunks, chunkByID)
	// Search deep enough in chunks that MaxP leaves Depth documents.
	perDoc := int(math.Ceil(float64(chunks.Len()) / float64(len(r.ds.docs))))
	depth := r.cfg.Depth * perDoc
	for _, rc := range r.cfg.Retrievers {
		if d, ok := rc.Settings.(kinds.Deep); ok {
			depth = max(depth, d.ChunkDepth())
		}
	}
	cc := &chunkCells{chunks: chunks, chunkByID: chunkByID, depth: depth, runs: map[string]*cellRun{}, level: level, docOf: docOf, spans: sc}
	prompt, err := newPromptTokens(r.cfg, r.ds, chunks, chunkByID)
	if err != nil {
		return 0, err
	}
	for _, rc := range r.cfg.Retrievers {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		cell := config.Cell{Name: ch.Name + "/" + rc.Name, Chunking: ch, Retriever: rc}
		scope := fmt.Sprintf("[%d/%d] %s", len(r.res.Cells)+1, r.nCells, cell.Name)
		cellStart := r.prog.now()
		cr, err := r.run(ctx, cc, cell, scope)
		if err != nil {
			return 0, fmt.Errorf("cell %s: %w", cell.Name, err)
		}
		if cr.timing.Cached {
			r.prog.line(scope, "run read from the run cache (nothing built or searched)")
		}
		for _, n := range cr.notes { // counted remarks on the run (kinds.Cell.Notes)
			r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("cell %s: %s", cell.Name, n))
		}
		cr.timing.Chunk = chunkTime
		t1 := time.Now()
		r.prog.begin(scope, "score", len(r.ds.answerable), "queries")
		final := cr.run
		if level == corpus.DocLevel {
			final = corpus.MaxP(final, docOf)
		}
		final = kinds.Truncate(final, r.cfg.Depth)
		in := cellInputs{cell: cell, run: final, chunks: chunks, chunkByID: chunkByID, spans: sc, chunkRun: cr.run, prompt: prompt, diag: r.diag}
		if cr.passages != nil { // a pipeline's own passages (passages.go)
			if in, err = r.passageInputs(cell, cr, level); err != nil {
				return 0, fmt.Errorf("cell %s: %w", cell.Name, err)
			}
			in.chunkRun, in.diag = cr.run, r.diag
			if in.prompt, err = newPromptTokens(r.cfg, r.ds, in.chunks, in.chunkByID); err != nil {
				return 0, err
			}
		}
		result, scored, err := scoreCell(ctx, r.cfg, r.ds, in)
		if err != nil {
			return 0, fmt.Errorf("cell %s: %w", cell.Name, err)
		}
		if err := r.cellCosts(ctx, cc, cell, cr, &result); err != nil {
			return 0, fmt.Errorf("cell %s: %w", cell.Name, err)
		}
		if cr.passages != nil {
			result.PrecisionOmega = nil // the pipeline's whole chunking is unknown
		}
		r.scored = append(r.scored, scored)
		result.Tuning = cr.tuning
		cr.timing.Score = time.Since(t1).Seconds()
		r.prog.end("")
		if w := budgetRanOutWarning(&result, cc.depth, len(r.ds.answerable)); w != "" {
			r.res.Warnings = append(r.res.Warnings, w)
		}
		r.res.Cells = append(r.res.Cells, result)
		r.res.Timings = append(r.res.Timings, cr.timing)
		if r.prog.mode == ProgressBar {
			r.prog.line(scope, "done in "+formatDuration(r.prog.now().Sub(cellStart)))
		}
	}
	return level, nil
}
