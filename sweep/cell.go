package sweep

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/fileutil"
)

// cellRun is one cell's chunk-level run, its run-cache key (which the
// cells that take it as input include in theirs) and its timings.
type cellRun struct {
	key    string
	run    eval.Run
	timing Timing
	tuning *Tuning // a tuned cell's grid search (tuningrun.go)
}

// cellRunner produces the cells' chunk-level runs of one sweep. It holds
// what every cell shares; chunkCells holds what the cells of one chunking
// share.
type cellRunner struct {
	cfg        *Config
	ds         *dataset
	be         backend
	prog       *progress
	env        buildEnv          // cache folder, corpus hash, models; chunking set per chunking
	queriesKey string            // sha256 of the evaluated queries, for run-cache keys
	modelHash  map[string]string // model folder → folderHash, for run-cache keys
}

// chunkCells is one chunking's state while its cells run.
type chunkCells struct {
	chunks []corpus.Chunk
	depth  int                 // chunk-level search depth (see sweep)
	runs   map[string]*cellRun // retriever name → run, for hybrid and rerank inputs
	level  corpus.Level        // qrels level for this chunking (tuned cells score as the cell)
	docOf  func(chunkID string) string
}

// run produces cell's chunk-level run, from the run cache when the same
// inputs were run before, and records it in cc.runs.
//
// r.prog shows the stages under scope: "index" (bm25) or "embed" (dense,
// the count of chunks embedded as the backend reports it), "search"
// (queries, in blocks of searchBlock), "fuse" (hybrid) or "rerank"
// (query–passage pairs). A cell read from the run cache has no stage.
func (r *cellRunner) run(ctx context.Context, cc *chunkCells, cell Cell, scope string) (*cellRun, error) {
	rc := cell.Retriever
	if len(rc.settings) > 0 {
		return r.runTuned(ctx, cc, cell, scope)
	}
	key := r.cacheKey(cc, cell)
	cr := &cellRun{key: key, timing: Timing{Cell: cell.Name}}
	cachePath := filepath.Join(r.env.cacheDir, "runs", key[:2], key+".json")
	cacheable := engineCacheable(rc)
	if run, err := readCachedRun(cachePath); err == nil && cacheable {
		cr.run = run
		cr.timing.Cached = true
		cc.runs[rc.Name] = cr
		return cr, nil
	}
	var err error
	switch rc.Type {
	case "bm25", "dense", "elasticsearch", "opensearch":
		err = r.firstStage(ctx, cc, rc, cr, scope)
	case "hybrid":
		in := make([]eval.Run, len(rc.Inputs))
		for i, name := range rc.Inputs {
			in[i] = cc.runs[name].run
		}
		t0 := time.Now()
		r.prog.begin(scope, "fuse", len(r.ds.queries), "queries")
		cr.run, err = r.be.fuse(in, rc)
		cr.run = truncate(cr.run, cc.depth)
		cr.timing.Fuse = time.Since(t0).Seconds()
	case "rerank":
		t0 := time.Now()
		pairs := 0
		for _, l := range cc.runs[rc.Input].run {
			pairs += min(len(l), rc.Depth)
		}
		r.prog.begin(scope, "rerank", pairs, "pairs")
		cr.run, err = r.be.rerank(ctx, cc.runs[rc.Input].run, r.ds.queries, cc.chunks, rc, r.env)
		cr.timing.Rerank = time.Since(t0).Seconds()
	}
	if err != nil {
		return nil, err
	}
	if rc.Type == "hybrid" || rc.Type == "rerank" {
		r.prog.end("")
	}
	for _, q := range r.ds.queries {
		if cr.run[q.ID] == nil {
			cr.run[q.ID] = []eval.Result{}
		}
	}
	if !cacheable || cr.timing.QueryErrors > 0 {
		// Keyed by the run it got (see engineCacheable), never written; a
		// run with queries scored as misses after errors is not what the
		// config would get, so it is not cached either.
		cr.key = sha256Hex(mustJSON(map[string]any{"key": key, "run": cachedRun(cr.run)}))
		cc.runs[rc.Name] = cr
		return cr, nil
	}
	if err := fileutil.WriteAtomic(cachePath, mustJSON(cachedRun(cr.run))); err != nil {
		return nil, fmt.Errorf("run cache: %w", err)
	}
	cc.runs[rc.Name] = cr
	return cr, nil
}

// firstStage builds a bm25 or dense retriever over cc's chunks and
// searches every query, filling cr's run and timings.
func (r *cellRunner) firstStage(ctx context.Context, cc *chunkCells, rc RetrieverConfig, cr *cellRun, scope string) error {
	t0 := time.Now()
	if rc.Type == "dense" {
		r.prog.begin(scope, "embed", len(cc.chunks), "chunks")
	} else {
		r.prog.begin(scope, "index", len(cc.chunks), "chunks")
	}
	var embed time.Duration
	env := r.env
	env.embedded = func(d time.Duration) { embed += d } // dense calls embed from one goroutine at a time
	ret, err := r.be.newFirstStage(ctx, cc.chunks, rc, env)
	if err != nil {
		return err
	}
	if c, ok := ret.(io.Closer); ok {
		defer c.Close()
	}
	note := ""
	if rc.Type == "dense" && !r.prog.updatedStage() {
		note = "index read from the cache, nothing embedded"
	}
	r.prog.end(note)
	cr.timing.Embed = embed.Seconds()
	cr.timing.Build = time.Since(t0).Seconds() - cr.timing.Embed
	embed = 0
	t1 := time.Now()
	r.prog.begin(scope, "search", len(r.ds.queries), "queries")
	cr.run, err = searchBlocks(ctx, ret, r.ds.queries, cc.depth, r.prog)
	cr.timing.Search = time.Since(t1).Seconds()
	if err != nil {
		return err
	}
	note = ""
	if ec, ok := ret.(*engineCell); ok {
		cr.timing.IndexDocs = ec.loaded
		failed := ec.Failed()
		for _, f := range failed {
			cr.timing.QueryErrors++
			cr.timing.FailedQueries = append(cr.timing.FailedQueries, f.ID)
		}
		if len(failed) > 0 {
			note = fmt.Sprintf("%d queries failed after the retries and score as misses (on_query_error: miss); first: %s", len(failed), failed[0].Err)
		}
	}
	r.prog.end(note)
	cr.timing.QueryEmbed = embed.Seconds()
	st := ret.Stats()
	cr.timing.IndexBytes = st.IndexBytes
	cr.timing.LatencyP50 = st.LatencyP50.Seconds() * 1000
	cr.timing.LatencyP95 = st.LatencyP95.Seconds() * 1000
	return nil
}
