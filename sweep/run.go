package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ragbench/ragbench/compare"
	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/encoder"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/fileutil"
	"github.com/ragbench/ragbench/retrievers"
	"github.com/ragbench/ragbench/stats"
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

	backend *backend // nil: defaultBackend()
	// clock times the progress lines; nil means time.Now (tests fix it).
	clock func() time.Time
}

// Results is everything a sweep measured; results.json is its JSON form.
// All parts but Timings are deterministic: the same config and seed give
// byte-identical JSON.
type Results struct {
	// Config is the resolved config (output, cache and history paths
	// blanked: they do not change the numbers).
	Config Config `json:"config"`
	// Dataset summarises the queries evaluated.
	Dataset DatasetSummary `json:"dataset"`
	// Metrics are the metric names evaluated, "family@k", in report order.
	Metrics []string `json:"metrics"`
	// Cells are the chunking × retriever cells in grid order.
	Cells []CellResult `json:"cells"`
	// Significance is the paired tests of every pair of cells on
	// Significance.Metric over all answerable queries.
	Significance Significance `json:"significance"`
	// Best is, per chunking, the cell with the highest tuning mean of the
	// significance metric, with its held-out mean.
	Best []Best `json:"best_per_chunking"`
	// Warnings are counted, reported policies (empty documents, queries
	// without text, ...).
	Warnings []string `json:"warnings"`
	// Timings are wall times per cell: the only part that changes between
	// runs of the same config.
	Timings []Timing `json:"timings"`
}

// DatasetSummary describes the evaluated queries.
type DatasetSummary struct {
	Name         string   `json:"name"`
	Documents    int      `json:"documents"`
	Queries      int      `json:"queries"`      // queries in the qrels
	Answerable   int      `json:"answerable"`   // with ≥ 1 relevant doc
	Unanswerable int      `json:"unanswerable"` // with none (reported apart)
	Tuning       int      `json:"tuning"`       // answerable, not held out
	HeldOut      int      `json:"held_out"`     // answerable, held out
	Slices       []string `json:"slices"`       // slice labels, sorted, with NoSlice when some queries have none; empty when no query has one
	Level        string   `json:"qrels_level"`  // "document" or "chunk"
}

// Group names used in CellResult.Means: "all", "tuning", "heldout", and
// "slice:<label>" for each slice (DatasetSummary.Slices), NoSlice included.
const (
	GroupAll     = "all"
	GroupTuning  = "tuning"
	GroupHeldOut = "heldout"
)

// NoSlice is the slice of the queries without a slice label when other
// queries have one: "(none)", the label bench eval uses. It sorts before
// any label starting with a letter or digit; a query labelled "(none)"
// itself falls in the same slice (with a warning).
const NoSlice = "(none)"

// sliceOf is the query's slice for the per-slice groups: its label, or
// NoSlice when it has none and labelled (some query has a label); "" when
// no query has one.
func (ds *dataset) sliceOf(id string, labelled bool) string {
	if s := ds.slice[id]; s != "" || !labelled {
		return s
	}
	return NoSlice
}

// CellResult is one cell's numbers. Metric names are "family@k" (see
// Config.Metrics), values in [0, 1].
type CellResult struct {
	Name      string          `json:"name"`      // "<chunking>/<retriever>"
	Chunking  Chunking        `json:"chunking"`  // the cell's chunking
	Retriever RetrieverConfig `json:"retriever"` // the cell's retriever, defaults filled in
	Chunks    int             `json:"chunks"`    // chunks indexed
	// Means maps group → metric → mean over the group's answerable queries
	// (a query missing from the run scores 0).
	Means map[string]map[string]float64 `json:"means"`
	// Counts maps group → number of answerable queries averaged.
	Counts map[string]int `json:"counts"`
	// PerQuery maps query id → metric → value (answerable queries only).
	PerQuery map[string]map[string]float64 `json:"per_query"`
	// Unanswerable lists, per unanswerable query, what came back.
	Unanswerable []UnanswerableHits `json:"unanswerable"`
	// Threshold is the top-1 score threshold analysis (nil without
	// unanswerable queries).
	Threshold *Threshold `json:"threshold,omitempty"`

	run    eval.Run                      // document-level (or chunk-level) run at Config.Depth
	scores map[string]map[string]float64 // PerQuery as compare reads it: metric → query → value
}

// UnanswerableHits is what a cell returned for a query with no relevant
// document.
type UnanswerableHits struct {
	QueryID string `json:"query_id"`
	Query   string `json:"query"`
	Slice   string `json:"slice,omitempty"`
	Top     []Hit  `json:"top"`
}

// Hit is one retrieved item with a snippet of its text.
type Hit struct {
	Rank     int     `json:"rank"`
	ID       string  `json:"id"`
	Score    float64 `json:"score"`
	Relevant bool    `json:"relevant,omitempty"`
	Snippet  string  `json:"snippet"`
}

// Best is the best cell of one chunking, chosen on tuning queries only
// (highest tuning mean of Metric, the primary metric at prompt_k; ties to
// the earlier cell), with its held-out mean: the honest estimate.
type Best struct {
	Chunking string  `json:"chunking"`
	Cell     string  `json:"cell"`
	Metric   string  `json:"metric"`
	Tuning   float64 `json:"tuning"`
	HeldOut  float64 `json:"heldout"`
}

// Timing is one cell's wall times in seconds. Cached says the cell's run
// came from the run cache (nothing was built or searched).
type Timing struct {
	Cell   string  `json:"cell"`
	Cached bool    `json:"cached"`
	Chunk  float64 `json:"chunk_s"`
	Build  float64 `json:"build_s"` // index build (or cache load), embedding excluded
	Embed  float64 `json:"embed_s"` // embedding the chunks (dense; 0 when the index came from the cache)
	Search float64 `json:"search_s"`
	// QueryEmbed is the part of Search spent embedding queries (dense).
	QueryEmbed float64 `json:"query_embed_s"`
	// IndexBytes, LatencyP50 and LatencyP95 (milliseconds per query) are
	// the first-stage retriever's retrievers.Stats (0 for cached runs,
	// hybrid and rerank).
	IndexBytes int64   `json:"index_bytes"`
	LatencyP50 float64 `json:"latency_p50_ms"`
	LatencyP95 float64 `json:"latency_p95_ms"`
	Fuse       float64 `json:"fuse_s"`
	Rerank     float64 `json:"rerank_s"`
	Score      float64 `json:"score_s"`
}

// dataset is the loaded data.
type dataset struct {
	docs       []corpus.Document
	docByID    map[string]int
	queries    []retrievers.Query // evaluated queries (all in qrels), by id
	text       map[string]string
	qrels      eval.Qrels
	slice      map[string]string
	answerable []string // sorted
	unanswer   []string // sorted
	heldout    map[string]bool
	files      map[string]string // role → path, for the manifest
	hash       string            // sha256 over corpus, queries, qrels files
}

// Run runs the sweep described by cfg and writes its outputs into
// cfg.Output (see WriteOutputs). Validation happens first: a missing file
// or model stops the run before any work. Cancelling ctx stops between
// steps; caches and earlier outputs are left intact.
func Run(ctx context.Context, cfg *Config, opts Options) (*Results, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.CheckWritable(!opts.NoHistory); err != nil {
		return nil, err
	}
	for _, rc := range cfg.Retrievers {
		if rc.Type == "dense" || rc.Type == "rerank" {
			// Load ONNX Runtime now, so a missing library stops the run
			// before any work.
			if err := encoder.Init(opts.ONNXRuntime); err != nil {
				return nil, fmt.Errorf("retriever %q needs ONNX Runtime: %w; run ./scripts/setup.sh (it installs the library) or pass --onnxruntime", rc.Name, err)
			}
			break
		}
	}
	be := defaultBackend()
	if opts.backend != nil {
		be = *opts.backend
	}
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	ds, warns, err := loadDataset(cfg, be)
	if err != nil {
		return nil, err
	}
	prog := newProgress(opts.Progress, opts.Stderr, opts.clock)
	defer prog.abort()
	res, err := sweep(ctx, cfg, ds, be, opts, prog)
	if err != nil {
		return nil, err
	}
	res.Warnings = append(append(fallbackWarnings(cfg), warns...), res.Warnings...)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	prog.begin("all cells", "write outputs", len(res.Cells), "cells")
	if err := writeOutputs(ctx, cfg, ds, res, opts); err != nil {
		return nil, err
	}
	prog.end("")
	return res, nil
}

func loadDataset(cfg *Config, be backend) (*dataset, []string, error) {
	d := cfg.Dataset
	ds := &dataset{files: map[string]string{}}
	corpusPath, queriesPath, qrelsPath := d.Corpus, d.Queries, d.Qrels
	if d.BEIR != "" {
		corpusPath = filepath.Join(d.BEIR, "corpus.jsonl")
		queriesPath = filepath.Join(d.BEIR, "queries.jsonl")
		qrelsPath = filepath.Join(d.BEIR, "qrels", d.Split+".tsv")
	}
	var warns []string
	docs, err := corpus.Load(corpusPath)
	if err != nil {
		return nil, nil, err
	}
	ds.docs = docs
	ds.docByID = make(map[string]int, len(docs))
	for i, doc := range docs {
		ds.docByID[doc.ID] = i
	}
	if w := corpus.Summarize(docs).Warnings(); len(w) > 0 {
		warns = append(warns, w...)
	}
	ds.files["corpus"] = corpusPath
	var slices map[string]string
	if f := d.SliceField; f != "" {
		// The named field only: a typo never falls back to kind/slice.
		labelled := firstNonEmpty(queriesPath, qrelsPath)
		var keys []string
		if slices, keys, err = readSliceField(labelled, f); err != nil {
			return nil, nil, err
		}
		if len(slices) == 0 {
			return nil, nil, cfg.errf("dataset.slice_field", "no query of %s has a %q field (keys seen: %s); name one of those, or remove slice_field", labelled, f, strings.Join(keys, ", "))
		}
	}
	ds.slice = map[string]string{}
	ds.text = map[string]string{}
	if qrelsPath != "" {
		ds.files["qrels"] = qrelsPath
		q, meta, err := be.readQrels(qrelsPath)
		if err != nil {
			return nil, nil, err
		}
		ds.qrels = q
		for id, m := range meta {
			ds.slice[id] = m.Slice
			ds.text[id] = m.Text
		}
		if queriesPath != "" {
			ds.files["queries"] = queriesPath
			texts, err := be.loadQueries(queriesPath)
			if err != nil {
				return nil, nil, err
			}
			for id, t := range texts {
				if _, ok := ds.qrels[id]; ok {
					ds.text[id] = t
				}
			}
		}
	} else {
		ds.files["queries"] = queriesPath
		q, meta, err := be.readQrels(queriesPath) // eval keeps other keys, so slice_field may name any field
		if err != nil {
			return nil, nil, beirQueriesHint(cfg, queriesPath, err)
		}
		ds.qrels = q
		for id, m := range meta {
			ds.slice[id] = m.Slice
			ds.text[id] = m.Text
		}
	}
	if slices != nil {
		ds.slice = slices
	}
	w, err := checkGold(ds, firstNonEmpty(qrelsPath, queriesPath), corpusPath, d.UnknownGold, cfg.path)
	if err != nil {
		return nil, nil, err
	}
	if w != "" {
		warns = append(warns, w)
	}
	ids := sortedKeys(ds.qrels)
	if len(ids) == 0 {
		return nil, nil, fmt.Errorf("%s: no judged queries", firstNonEmpty(qrelsPath, queriesPath))
	}
	noText := 0
	ds.heldout = map[string]bool{}
	for _, id := range ids {
		t, ok := ds.text[id]
		if !ok || strings.TrimSpace(t) == "" {
			noText++
			if !ok {
				return nil, nil, fmt.Errorf("%s: query %q has qrels but no text in %s", firstNonEmpty(qrelsPath, queriesPath), id, queriesPath)
			}
		}
		ds.queries = append(ds.queries, retrievers.Query{ID: id, Text: t})
		if ds.qrels.Answerable(id) {
			ds.answerable = append(ds.answerable, id)
			ds.heldout[id] = IsHeldOut(id, *cfg.HeldOut.Seed, *cfg.HeldOut.Fraction)
		} else {
			ds.unanswer = append(ds.unanswer, id)
		}
	}
	if noText > 0 {
		warns = append(warns, fmt.Sprintf("%d queries have empty text (searched as empty queries)", noText))
	}
	var hashes []string
	for _, role := range []string{"corpus", "queries", "qrels"} {
		if p := ds.files[role]; p != "" {
			h, err := fileutil.SHA256(p)
			if err != nil {
				return nil, nil, err
			}
			hashes = append(hashes, role+":"+h)
		}
	}
	ds.hash = sha256Hex([]byte(strings.Join(hashes, "\n")))
	return ds, warns, nil
}

func sweep(ctx context.Context, cfg *Config, ds *dataset, be backend, opts Options, prog *progress) (*Results, error) {
	res := &Results{Config: cfg.recorded(), Metrics: cfg.metricNames()}
	var warns []string
	res.Dataset, warns = ds.summary(cfg)
	res.Warnings = append(res.Warnings, warns...)

	modelHash := map[string]string{}
	for _, rc := range cfg.Retrievers {
		if rc.Model != "" && modelHash[rc.Model] == "" {
			h, err := folderHash(rc.Model)
			if err != nil {
				return nil, err
			}
			modelHash[rc.Model] = h
		}
	}
	chunkings := cfg.Chunkings()
	mdl := &models{lib: opts.ONNXRuntime, cacheDir: cfg.CacheDir, embedders: map[string]*encoder.CachedEmbedder{}, crosses: map[string]*crossScorer{}}
	defer mdl.close()
	cells := &cellRunner{cfg: cfg, ds: ds, be: be, prog: prog, queriesKey: sha256Hex(mustJSON(ds.queries)), modelHash: modelHash,
		env: buildEnv{cacheDir: cfg.CacheDir, corpusHash: corpus.Hash(ds.docs), models: mdl, progress: prog.stageProgress}}
	nCells := len(chunkings) * len(cfg.Retrievers)
	levels := map[string]bool{}
	var err error
	for _, ch := range chunkings {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t0 := time.Now()
		prog.begin("chunking "+ch.Name, "chunk", len(ds.docs), "documents")
		chunks, err := ch.Spec().Chunk(ds.docs)
		if err != nil {
			return nil, fmt.Errorf("chunking %s: %w", ch.Name, err)
		}
		level, err := corpus.CheckLabels(ds.qrels, ds.docs, ch.Spec(), chunks)
		if err != nil {
			return nil, fmt.Errorf("chunking %s: %w", ch.Name, err)
		}
		levels[level.String()] = true
		chunkTime := time.Since(t0).Seconds()
		prog.end(groupDigits(len(chunks)) + " chunks")
		docOf := corpus.DocOf(chunks)
		chunkByID := make(map[string]int, len(chunks))
		for i, c := range chunks {
			chunkByID[c.ID] = i
		}
		// Search deep enough in chunks that MaxP leaves Depth documents.
		perDoc := int(math.Ceil(float64(len(chunks)) / float64(len(ds.docs))))
		depth := cfg.Depth * perDoc
		for _, rc := range cfg.Retrievers {
			if rc.Type == "hybrid" || rc.Type == "rerank" {
				depth = max(depth, rc.Depth)
			}
		}
		cc := &chunkCells{chunks: chunks, depth: depth, runs: map[string]*cellRun{}}
		cells.env.chunking = ch
		for _, rc := range cfg.Retrievers {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			cell := Cell{Name: ch.Name + "/" + rc.Name, Chunking: ch, Retriever: rc}
			scope := fmt.Sprintf("[%d/%d] %s", len(res.Cells)+1, nCells, cell.Name)
			cellStart := prog.now()
			cr, err := cells.run(ctx, cc, cell, scope)
			if err != nil {
				return nil, fmt.Errorf("cell %s: %w", cell.Name, err)
			}
			if cr.timing.Cached {
				prog.line(scope, "run read from the run cache (nothing built or searched)")
			}
			cr.timing.Chunk = chunkTime
			t1 := time.Now()
			prog.begin(scope, "score", len(ds.answerable), "queries")
			final := cr.run
			if level == corpus.DocLevel {
				final = corpus.MaxP(final, docOf)
			}
			final = truncate(final, cfg.Depth)
			result, err := scoreCell(cfg, ds, cell, final, len(chunks), chunkByID, chunks)
			if err != nil {
				return nil, fmt.Errorf("cell %s: %w", cell.Name, err)
			}
			cr.timing.Score = time.Since(t1).Seconds()
			prog.end("")
			res.Cells = append(res.Cells, result)
			res.Timings = append(res.Timings, cr.timing)
			if prog.mode == ProgressBar {
				prog.line(scope, "done in "+formatDuration(prog.now().Sub(cellStart)))
			}
		}
	}
	if levels["chunk"] {
		res.Dataset.Level = "chunk"
	} else {
		res.Dataset.Level = "document"
	}
	n := len(res.Cells)
	prog.begin("all cells", "significance", n*(n-1)/2*len(cfg.Significance.Metrics), "paired comparisons")
	if res.Significance, err = significance(cfg, ds, res.Cells); err != nil {
		return nil, err
	}
	prog.end("")
	res.Best = bestPerChunking(cfg, res.Cells)
	return res, nil
}

func (ds *dataset) sortedIDs() []string {
	ids := make([]string, len(ds.queries))
	for i, q := range ds.queries {
		ids[i] = q.ID
	}
	return ids
}

// searchBlock is how many queries searchBlocks hands a retriever at once:
// also the dense retriever's query batch (newFirstStage), so dense query
// embeddings are computed in exactly the batches of a single Search call,
// and runs are identical to one call's.
const searchBlock = 256

// searchBlocks searches queries in blocks of searchBlock, reporting the
// queries done to prog after each block. Retrievers accumulate their
// latency statistics across calls, so Stats covers every query.
func searchBlocks(ctx context.Context, r retrievers.Retriever, queries []retrievers.Query, k int, prog *progress) (eval.Run, error) {
	run := make(eval.Run, len(queries))
	for b := 0; b < len(queries); b += searchBlock {
		e := min(b+searchBlock, len(queries))
		part, err := r.Search(ctx, queries[b:e], k)
		if err != nil {
			return nil, err
		}
		maps.Copy(run, part)
		prog.set(e, 0)
	}
	return run, nil
}

func withoutName(rc RetrieverConfig) RetrieverConfig {
	rc.Name = ""
	rc.Inputs = nil
	rc.Input = ""
	return rc
}

// cachedRun is a run's on-disk form in the run cache: query id → [[id,
// score]...]. Scores survive JSON exactly (shortest round-trip form).
func cachedRun(run eval.Run) map[string][][2]any {
	out := make(map[string][][2]any, len(run))
	for q, l := range run {
		rows := make([][2]any, len(l))
		for i, r := range l {
			rows[i] = [2]any{r.DocID, r.Score}
		}
		out[q] = rows
	}
	return out
}

func readCachedRun(path string) (eval.Run, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var raw map[string][][2]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	run := make(eval.Run, len(raw))
	for q, rows := range raw {
		l := make([]eval.Result, len(rows))
		for i, r := range rows {
			if err := json.Unmarshal(r[0], &l[i].DocID); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			if err := json.Unmarshal(r[1], &l[i].Score); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
		}
		run[q] = l
	}
	return run, nil
}

// truncate cuts each list, in rank order, to k.
func truncate(run eval.Run, k int) eval.Run {
	out := make(eval.Run, len(run))
	for q, l := range run {
		l = append([]eval.Result(nil), l...)
		sortResults(l)
		if len(l) > k {
			l = l[:k]
		}
		out[q] = l
	}
	return out
}

// metricNames are "family@k" for every family (config order) and k.
func (c *Config) metricNames() []string {
	var out []string
	for _, f := range c.Metrics {
		for _, k := range c.K {
			out = append(out, metricName(f, k))
		}
	}
	return out
}

func scoreCell(cfg *Config, ds *dataset, cell Cell, run eval.Run, nChunks int, chunkByID map[string]int, chunks []corpus.Chunk) (CellResult, error) {
	cr := CellResult{Name: cell.Name, Chunking: cell.Chunking, Retriever: cell.Retriever, Chunks: nChunks,
		Means: map[string]map[string]float64{}, Counts: map[string]int{}, PerQuery: map[string]map[string]float64{},
		Unanswerable: []UnanswerableHits{}, run: run}
	scores, err := evaluateRun(cfg, ds.qrels, run)
	if err != nil {
		return cr, err
	}
	cr.scores = scores
	for _, id := range ds.answerable {
		m := make(map[string]float64, len(scores))
		for name, col := range scores {
			v, ok := col[id]
			if !ok {
				return cr, fmt.Errorf("evaluation: no %s for answerable query %q", name, id)
			}
			m[name] = v
		}
		cr.PerQuery[id] = m
	}
	groups := map[string][]string{}
	labelled := false // as in sweep: some judged query has a slice label
	for _, id := range ds.sortedIDs() {
		labelled = labelled || ds.slice[id] != ""
	}
	for _, id := range ds.answerable {
		groups[GroupAll] = append(groups[GroupAll], id)
		if ds.heldout[id] {
			groups[GroupHeldOut] = append(groups[GroupHeldOut], id)
		} else {
			groups[GroupTuning] = append(groups[GroupTuning], id)
		}
		if s := ds.sliceOf(id, labelled); s != "" {
			groups["slice:"+s] = append(groups["slice:"+s], id)
		}
	}
	names := cfg.metricNames()
	for g, ids := range groups {
		m := map[string]float64{}
		for _, name := range names {
			sum := 0.0
			for _, id := range ids {
				sum += cr.PerQuery[id][name]
			}
			m[name] = sum / float64(len(ids))
		}
		cr.Means[g] = m
		cr.Counts[g] = len(ids)
	}
	for _, id := range ds.unanswer {
		u := UnanswerableHits{QueryID: id, Query: ds.text[id], Slice: ds.slice[id], Top: []Hit{}}
		for i, r := range run[id] {
			if i == 3 {
				break
			}
			u.Top = append(u.Top, Hit{Rank: i + 1, ID: r.DocID, Score: r.Score, Snippet: ds.snippet(r.DocID, cfg.Snippet, chunkByID, chunks)})
		}
		cr.Unanswerable = append(cr.Unanswerable, u)
	}
	if len(ds.unanswer) > 0 {
		cr.Threshold = thresholdAnalysis(cfg, ds, run)
	}
	return cr, nil
}

// snippet is the first n characters (runes) of an item's text: a chunk's
// own text when id is a chunk id, else the document's title and text.
func (ds *dataset) snippet(id string, n int, chunkByID map[string]int, chunks []corpus.Chunk) string {
	var s string
	if i, ok := chunkByID[id]; ok && chunks[i].ID != chunks[i].DocID {
		s = chunks[i].Text
	} else if i, ok := ds.docByID[id]; ok {
		d := ds.docs[i]
		s = strings.TrimSpace(d.Title + " " + d.Text)
	}
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// Significance holds the paired tests between cells (package compare):
// every pair of cells on every tested metric at prompt_k, over all
// answerable queries, with one correction over all comparisons.
type Significance struct {
	Test        string     `json:"test"`
	Correction  string     `json:"correction"`
	Alpha       float64    `json:"alpha"`
	Metrics     []string   `json:"metrics"`
	Queries     int        `json:"queries"`
	Comparisons int        `json:"comparisons"`
	Pairs       []PairTest `json:"pairs"`
	// Beats maps metric → cell → indexes (in Results.Cells) of the cells it
	// beats significantly after correction.
	Beats map[string]map[string][]int `json:"beats"`
	// Notes are compare's explanatory sentences (test, correction, minimum
	// detectable differences, warnings).
	Notes []string `json:"notes"`

	report *compare.Report
}

// PairTest is one comparison of cell A against cell B on one metric.
type PairTest struct {
	A           string  `json:"a"`
	B           string  `json:"b"`
	Metric      string  `json:"metric"`
	MeanA       float64 `json:"mean_a"`
	MeanB       float64 `json:"mean_b"`
	P           float64 `json:"p"`
	PAdjusted   float64 `json:"p_adjusted"`
	Significant bool    `json:"significant"`
	MeanDiff    float64 `json:"mean_diff"`
	CILow       float64 `json:"ci_low"`
	CIHigh      float64 `json:"ci_high"`
	Wins        int     `json:"wins"`
	Ties        int     `json:"ties"`
	Losses      int     `json:"losses"`
}

func significance(cfg *Config, ds *dataset, cells []CellResult) (Significance, error) {
	s := cfg.Significance
	sig := Significance{Test: s.Test, Correction: s.Correction, Alpha: s.Alpha,
		Queries: len(ds.answerable), Pairs: []PairTest{}, Beats: map[string]map[string][]int{}, Notes: []string{}}
	for _, f := range s.Metrics {
		sig.Metrics = append(sig.Metrics, metricName(f, cfg.PromptK))
	}
	if len(cells) == 0 || len(ds.answerable) == 0 {
		sig.Notes = append(sig.Notes, "No answerable query: nothing to compare.")
		return sig, nil
	}
	test, err := stats.ParseTest(s.Test)
	if err != nil {
		return sig, err
	}
	corr, err := stats.ParseCorrection(s.Correction)
	if err != nil {
		return sig, err
	}
	in := compare.Input{Metrics: sig.Metrics, Scores: compare.Scores{}}
	for _, c := range cells {
		in.Systems = append(in.Systems, c.Name)
		in.Scores[c.Name] = c.scores
	}
	rep, err := compare.Compare(in, compare.Options{Test: test, Correction: corr, Alpha: s.Alpha,
		Permutations: s.Permutations, Resamples: s.Permutations, Seed: uint64(*s.Seed)})
	if err != nil {
		return sig, fmt.Errorf("significance: %w", err)
	}
	sig.report = rep
	sig.Comparisons = rep.Comparisons
	sig.Notes = append(sig.Notes, rep.Notes()...)
	if (test == stats.Randomization || test == stats.Bootstrap) && corr != stats.None && rep.Comparisons > 0 && len(ds.answerable) > 20 {
		// (With ≤ 20 queries the randomization test is exact.) The
		// smallest Monte Carlo p-value is 1/(B+1); the correction
		// multiplies it by up to the number of comparisons.
		if floor := float64(rep.Comparisons) / float64(s.Permutations+1); floor >= s.Alpha {
			sig.Notes = append(sig.Notes, fmt.Sprintf("Warning: with %d permutations and %d comparisons no difference can reach significance (smallest adjusted p ≥ %.3g > α = %g); raise significance.permutations above %d or test fewer metrics.",
				s.Permutations, rep.Comparisons, floor, s.Alpha, int(float64(rep.Comparisons)/s.Alpha)))
		}
	}
	for _, p := range rep.Pairs {
		sig.Pairs = append(sig.Pairs, PairTest{A: p.A, B: p.B, Metric: p.Metric, MeanA: p.MeanA, MeanB: p.MeanB,
			P: p.P, PAdjusted: p.PAdjusted, Significant: p.Significant, MeanDiff: p.Effect.MeanDiff,
			CILow: p.Effect.CILow, CIHigh: p.Effect.CIHigh, Wins: p.Effect.Wins, Ties: p.Effect.Ties, Losses: p.Effect.Losses})
	}
	for mi, m := range rep.Metrics {
		bm := map[string][]int{}
		for si, sys := range rep.Systems {
			if b := rep.Beats[si][mi]; len(b) > 0 {
				bm[sys] = append([]int(nil), b...)
			}
		}
		sig.Beats[m] = bm
	}
	return sig, nil
}

func bestPerChunking(cfg *Config, cells []CellResult) []Best {
	metric := metricName(cfg.PrimaryMetric, cfg.PromptK)
	var out []Best
	index := map[string]int{}
	for _, c := range cells {
		t := c.Means[GroupTuning][metric]
		i, ok := index[c.Chunking.Name]
		if !ok {
			index[c.Chunking.Name] = len(out)
			out = append(out, Best{Chunking: c.Chunking.Name, Cell: c.Name, Metric: metric, Tuning: t, HeldOut: c.Means[GroupHeldOut][metric]})
			continue
		}
		if t > out[i].Tuning {
			out[i] = Best{Chunking: c.Chunking.Name, Cell: c.Name, Metric: metric, Tuning: t, HeldOut: c.Means[GroupHeldOut][metric]}
		}
	}
	return out
}

// folderHash is a sha256 over the sha256 of every regular file in dir
// (sorted by name), so any change to a model or tokenizer changes it.
func folderHash(dir string) (string, error) {
	files, err := hashFolder(dir)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, f := range files {
		b.WriteString(f.Path + " " + f.SHA256 + "\n")
	}
	return sha256Hex([]byte(b.String())), nil
}

// FileHash is one hashed input file of the manifest.
type FileHash struct {
	Role   string `json:"role,omitempty"`
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

func hashFolder(dir string) ([]FileHash, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []FileHash
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		h, err := fileutil.SHA256(p)
		if err != nil {
			return nil, err
		}
		info, _ := e.Info()
		out = append(out, FileHash{Path: p, SHA256: h, Bytes: info.Size()})
	}
	return out, nil
}

// fallbackWarnings names each retriever whose model was not found and was
// replaced by one of its fallback_models, so the report never presents a
// fallback's numbers as the requested model's.
func fallbackWarnings(cfg *Config) []string {
	var out []string
	for _, r := range cfg.Retrievers {
		if r.requested == "" || len(r.FallbackModels) == 0 {
			continue
		}
		if filepath.Base(r.Model) != filepath.Base(r.requested) {
			out = append(out, fmt.Sprintf("retriever %s: model %s not found; using fallback %s (%s) — its numbers are not %s's",
				r.Name, r.requested, filepath.Base(r.Model), r.Model, r.requested))
		}
	}
	return out
}
