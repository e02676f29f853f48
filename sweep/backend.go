package sweep

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ragbench/ragbench/encoder"
	"github.com/ragbench/ragbench/rerank"
	"github.com/ragbench/ragbench/retrievers/bm25"
	"github.com/ragbench/ragbench/retrievers/dense"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/retrievers"
	"github.com/ragbench/ragbench/retrievers/hybrid"
)

// backend is the seam between the sweep and the packages that load data,
// build retrievers and rerank. Tests replace fields to inject retrievers
// whose rankings are known by hand.
type backend struct {
	// loadQueries reads a BEIR queries.jsonl: query id → text
	// (eval.ReadQueryTexts).
	loadQueries func(path string) (map[string]string, error)
	// readQrels reads qrels or a labelled-query JSONL, with the line of
	// each judgement (eval.ReadQrelsLines).
	readQrels func(path string) (eval.Qrels, map[string]eval.QueryMeta, map[eval.Judgement]int, error)
	// newFirstStage builds a bm25 or dense retriever over chunks.
	newFirstStage func(ctx context.Context, chunks []corpus.Chunk, rc RetrieverConfig, env buildEnv) (retrievers.Retriever, error)
	// fuse fuses the inputs' chunk runs for a hybrid retriever.
	fuse func(runs []eval.Run, rc RetrieverConfig) (eval.Run, error)
	// rerank rescores the top rc.Depth of first for a rerank retriever.
	rerank func(ctx context.Context, first eval.Run, queries []retrievers.Query, chunks []corpus.Chunk, rc RetrieverConfig, env buildEnv) (eval.Run, error)
}

// buildEnv is what a retriever builder may use besides its config.
type buildEnv struct {
	cacheDir   string // the sweep's cache folder (subfolders per kind)
	corpusHash string // corpus.Hash of the documents
	chunking   Chunking
	models     *models
	// progress, when not nil, reports the count of a long build step:
	// done of total items finished (0 ≤ done ≤ total, total > 0) of stage
	// "embed" (chunks embedded by a dense build) or "rerank" (query–passage
	// pairs scored). Calls for one stage come from one goroutine at a time,
	// with done not decreasing.
	progress func(stage string, done, total int)
	// embedded, when not nil, is told the wall time of each embedding
	// call of a dense retriever (building and searching), from one
	// goroutine at a time, so the cell's timings can show it apart.
	embedded func(time.Duration)
	// engines holds the sweep's managed engine indexes (engine.go).
	engines *engineIndexes
}

func defaultBackend() backend {
	return backend{
		loadQueries:   eval.ReadQueryTexts,
		readQrels:     eval.ReadQrelsLines,
		newFirstStage: newFirstStage,
		fuse:          fuse,
		rerank:        rerankRun,
	}
}

// models loads each model folder once per sweep and closes them at the end.
type models struct {
	lib       string // ONNX Runtime library ("" = encoder's default search)
	embedders map[string]*encoder.CachedEmbedder
	cacheDir  string // the sweep's cache folder; embeddings go under embeddings/
	crosses   map[string]*crossScorer
}

// crossScorer is a cross-encoder with an in-memory score memo, so the two
// rerank modes over the same first stage score each (query, passage) once.
type crossScorer struct {
	ce   *encoder.CrossEncoder
	mu   sync.Mutex // guards memo
	memo map[[2]string]float32
	disk *ceDisk // the scores of earlier runs (cescores.go); nil: none
}

func (m *models) embedder(rc RetrieverConfig) (*encoder.CachedEmbedder, error) {
	if e := m.embedders[rc.Model]; e != nil {
		return e, nil
	}
	if err := encoder.Init(m.lib); err != nil {
		return nil, fmt.Errorf("retriever %q: %w (run ./scripts/setup.sh to install ONNX Runtime)", rc.Name, err)
	}
	e, err := encoder.LoadEmbedder(rc.Model, encoder.Options{BatchSize: rc.BatchSize, IntraOpThreads: runtime.NumCPU()})
	if err != nil {
		return nil, fmt.Errorf("retriever %q: %w", rc.Name, err)
	}
	c, err := encoder.NewCachedEmbedder(e, filepath.Join(m.cacheDir, "embeddings"))
	if err != nil {
		e.Close()
		return nil, fmt.Errorf("retriever %q: embedding cache: %w", rc.Name, err)
	}
	m.embedders[rc.Model] = c
	return c, nil
}

func (m *models) cross(rc RetrieverConfig) (*crossScorer, error) {
	if c := m.crosses[rc.Model]; c != nil {
		return c, nil
	}
	if err := encoder.Init(m.lib); err != nil {
		return nil, fmt.Errorf("retriever %q: %w (run ./scripts/setup.sh to install ONNX Runtime)", rc.Name, err)
	}
	ce, err := encoder.LoadCrossEncoder(rc.Model, encoder.Options{BatchSize: rc.BatchSize, IntraOpThreads: runtime.NumCPU()})
	if err != nil {
		return nil, fmt.Errorf("retriever %q: %w", rc.Name, err)
	}
	c := &crossScorer{ce: ce, memo: map[[2]string]float32{}, disk: loadCEDisk(m.cacheDir, rc.Model)}
	m.crosses[rc.Model] = c
	return c, nil
}

func (m *models) close() {
	for _, e := range m.embedders {
		e.Embedder().Close()
	}
	for _, c := range m.crosses {
		c.ce.Close()
	}
}

// score is a rerank.ScoreFunc that asks the model only for pairs it has
// not scored before in this sweep.
func (c *crossScorer) score(ctx context.Context, query string, passages []string) ([]float32, error) {
	out := make([]float32, len(passages))
	var todo []int
	c.mu.Lock()
	for i, p := range passages {
		if v, ok := c.memo[[2]string{query, p}]; ok {
			out[i] = v
		} else if v, ok := c.disk.get(query, p); ok {
			out[i] = v
			c.memo[[2]string{query, p}] = v
		} else {
			todo = append(todo, i)
		}
	}
	c.mu.Unlock()
	if len(todo) == 0 {
		return out, nil
	}
	ps := make([]string, len(todo))
	for j, i := range todo {
		ps[j] = passages[i]
	}
	got, err := c.ce.Score(ctx, query, ps)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	for j, i := range todo {
		out[i] = got[j]
		c.memo[[2]string{query, passages[i]}] = got[j]
		c.disk.put(query, passages[i], got[j])
	}
	c.mu.Unlock()
	return out, nil
}

// chunksKey is a sha256 over chunk ids and indexed texts.
func chunksKey(chunks []corpus.Chunk) string {
	h := sha256.New()
	for _, c := range chunks {
		fmt.Fprintf(h, "%d:%s%d:%s", len(c.ID), c.ID, len(c.IndexText()), c.IndexText())
	}
	return hex.EncodeToString(h.Sum(nil))
}

func newFirstStage(ctx context.Context, chunks []corpus.Chunk, rc RetrieverConfig, env buildEnv) (retrievers.Retriever, error) {
	switch rc.Type {
	case "bm25":
		return bm25.New(ctx, chunks, rc.bm25Options(filepath.Join(env.cacheDir, "bm25")))
	case "elasticsearch", "opensearch":
		return newEngineRetriever(ctx, chunks, rc, env)
	case "dense":
		e, err := env.models.embedder(rc)
		if err != nil {
			return nil, err
		}
		done := 0 // passages embedded by earlier calls; dense.New calls embed from one goroutine
		embed := func(ctx context.Context, texts []string, query bool) ([][]float32, error) {
			var batch func(int)
			if !query && env.progress != nil {
				batch = func(n int) { env.progress("embed", min(done+n, len(chunks)), len(chunks)) }
			}
			t0 := time.Now()
			v, err := e.EmbedProgress(ctx, texts, query, batch)
			if env.embedded != nil {
				env.embedded(time.Since(t0))
			}
			if !query && err == nil {
				done = min(done+len(texts), len(chunks))
			}
			return v, err
		}
		opts := dense.Options{BatchSize: searchBlock, Model: e.Fingerprint()}
		key := sha256Hex([]byte(e.Fingerprint() + "\x00" + chunksKey(chunks)))
		path := filepath.Join(env.cacheDir, "dense", key+".idx")
		if r, err := dense.Load(ctx, path, embed, opts); err == nil {
			return r, nil
		}
		r, err := dense.New(ctx, chunks, embed, opts)
		if err != nil {
			return nil, fmt.Errorf("retriever %q: %w", rc.Name, err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := r.Save(path); err != nil {
			return nil, fmt.Errorf("dense index cache: %w", err)
		}
		return r, nil
	}
	return nil, fmt.Errorf("retriever %q: type %q is not a first-stage retriever", rc.Name, rc.Type)
}

func fuse(runs []eval.Run, rc RetrieverConfig) (eval.Run, error) {
	run, err := hybrid.Fuse(runs, rc.hybridOptions())
	return run, namedInputs(err, rc.Inputs)
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

// staticRetriever serves a run computed earlier (a rerank's first stage).
type staticRetriever struct{ run eval.Run }

func (s staticRetriever) Search(ctx context.Context, queries []retrievers.Query, k int) (eval.Run, error) {
	out := make(eval.Run, len(queries))
	for _, q := range queries {
		l := s.run[q.ID]
		if len(l) > k {
			l = l[:k]
		}
		out[q.ID] = append([]eval.Result{}, l...)
	}
	return out, nil
}

func (s staticRetriever) Stats() retrievers.Stats { return retrievers.Stats{} }

func rerankRun(ctx context.Context, first eval.Run, queries []retrievers.Query, chunks []corpus.Chunk, rc RetrieverConfig, env buildEnv) (eval.Run, error) {
	c, err := env.models.cross(rc)
	if err != nil {
		return nil, err
	}
	texts := make(map[string]string, len(chunks))
	for _, ch := range chunks {
		texts[ch.ID] = ch.IndexText()
	}
	opts := rc.rerankOptions()
	total := 0
	for _, l := range first {
		total += min(len(l), rc.Depth)
	}
	var mu sync.Mutex // guards done
	done := 0
	score := func(ctx context.Context, query string, passages []string) ([]float32, error) {
		v, err := c.score(ctx, query, passages)
		if err == nil && env.progress != nil && total > 0 {
			mu.Lock()
			done = min(done+len(passages), total)
			env.progress("rerank", done, total)
			mu.Unlock()
		}
		return v, err
	}
	r, err := rerank.New(staticRetriever{first}, score, rerank.PassagesFromMap(texts), opts)
	if err != nil {
		return nil, fmt.Errorf("retriever %q: %w", rc.Name, err)
	}
	depth := 0
	for _, l := range first {
		depth = max(depth, len(l))
	}
	run, err := r.Search(ctx, queries, max(depth, 1))
	if err != nil {
		return nil, err
	}
	if err := c.saveScores(); err != nil {
		return nil, fmt.Errorf("cross-encoder score cache: %w", err)
	}
	return run, nil
}
