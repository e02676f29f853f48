package sweep

import (
	"context"
	"errors"
	"fmt"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/retrievers"
	"github.com/ragbench/ragbench/retrievers/hybrid"
)

// backend is the seam between the sweep and the packages that load data,
// build retrievers and rerank. Tests replace fields to inject retrievers
// whose rankings are known by hand.
type backend struct {
	// loadQueries reads a BEIR queries.jsonl: query id → text.
	loadQueries func(path string) (map[string]string, error)
	// readQrels reads qrels or a labelled-query JSONL.
	readQrels func(path string) (eval.Qrels, map[string]eval.QueryMeta, error)
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
}

func defaultBackend() backend {
	return backend{
		loadQueries:   builtinLoadQueries,
		readQrels:     eval.ReadQrels,
		newFirstStage: newFirstStage,
		fuse:          fuse,
		rerank:        rerankRun,
	}
}

func newFirstStage(ctx context.Context, chunks []corpus.Chunk, rc RetrieverConfig, env buildEnv) (retrievers.Retriever, error) {
	switch rc.Type {
	case "bm25":
		if rc.Scoring != "lucene" {
			return nil, fmt.Errorf("retriever %q: scoring %q needs retrievers/bm25, which this build does not have yet", rc.Name, rc.Scoring)
		}
		return newBuiltinBM25(chunks, *rc.K1, *rc.B), nil
	case "dense":
		return nil, errNotAvailable("dense retrievers (retrievers/dense + encoder)")
	}
	return nil, fmt.Errorf("retriever %q: type %q is not a first-stage retriever", rc.Name, rc.Type)
}

func errNotAvailable(what string) error {
	return fmt.Errorf("%s are not in this build yet; remove them from the config", what)
}

func fuse(runs []eval.Run, rc RetrieverConfig) (eval.Run, error) {
	opts := hybrid.Options{Method: hybrid.Method(rc.Fusion), Depth: rc.Depth, Weights: rc.Weights}
	if rc.RRFK != nil {
		opts.K = *rc.RRFK
	}
	if rc.Normalization != "" {
		opts.Norm = hybrid.Normalization(rc.Normalization)
	}
	return hybrid.Fuse(runs, opts)
}

func rerankRun(ctx context.Context, first eval.Run, queries []retrievers.Query, chunks []corpus.Chunk, rc RetrieverConfig, env buildEnv) (eval.Run, error) {
	return nil, errNotAvailable("rerank retrievers (rerank + encoder)")
}

var errCanceled = errors.New("interrupted")
