package kinds

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/encoder"
	"github.com/ragbench/ragbench/internal/hashkey"
	"github.com/ragbench/ragbench/retrievers"
	"github.com/ragbench/ragbench/retrievers/dense"
)

// Dense is a type dense retriever: exact cosine over the chunks'
// embeddings (package dense, chromem-go) by an ONNX embedder.
type Dense struct {
	ONNXModel `yaml:",inline"`
}

// Check requires a model and defaults the batch size to encoder's.
func (d *Dense) Check(c Checker) {
	c.Only(keysOf(d)...)
	if d.Model == "" {
		c.Bad("model", "missing: a model folder (relative to the models root)")
	}
	if d.BatchSize == 0 {
		d.BatchSize = defaultInferenceBatch(encoder.KindEmbedder)
	}
	if d.BatchSize < 1 {
		c.Bad("batch_size", "batch_size %d must be ≥ 1", d.BatchSize)
	}
}

// Describe is "model NAME, exact cosine (chromem-go)".
func (d *Dense) Describe() string {
	return fmt.Sprintf("model %s, exact cosine (chromem-go)", filepath.Base(d.Model))
}

// NeedsRuntime is true: the embedder runs on ONNX Runtime.
func (d *Dense) NeedsRuntime() bool { return true }

// Cacheable is true.
func (d *Dense) Cacheable() bool { return true }

// ModelRef is d's model.
func (d *Dense) ModelRef() *ONNXModel { return &d.ONNXModel }

// ModelKind is encoder.KindEmbedder.
func (d *Dense) ModelKind() string { return encoder.KindEmbedder }

// Run embeds the chunks (stage "embed", counted as the embedder reports
// them; the index cached under the cache folder's dense/, keyed by the
// model's fingerprint and the chunks) and searches every query, embedded
// in batches of SearchBlock.
func (d *Dense) Run(ctx context.Context, c *Cell) error {
	return searchCell(ctx, c, d, StageEmbed, "index read from the cache, nothing embedded", func() (retrievers.Retriever, error) {
		return d.build(ctx, c)
	})
}

// build loads d's index from the cache, or embeds the chunks and saves it.
func (d *Dense) build(ctx context.Context, c *Cell) (retrievers.Retriever, error) {
	e, err := c.Env.embedder(c.Retriever, &d.ONNXModel)
	if err != nil {
		return nil, err
	}
	n := c.Chunks.Len()
	done := 0 // passages embedded by earlier calls; dense.New calls embed from one goroutine
	embed := func(ctx context.Context, texts []string, query bool) ([][]float32, error) {
		var batch func(int)
		if !query {
			batch = func(k int) { c.Progress.Count(StageEmbed, min(done+k, n), n) }
		}
		t0 := time.Now()
		v, err := e.EmbedProgress(ctx, texts, query, batch)
		c.AddEmbedTime(time.Since(t0))
		if !query && err == nil {
			done = min(done+len(texts), n)
		}
		return v, err
	}
	opts := dense.Options{BatchSize: SearchBlock, Model: e.Fingerprint()}
	key := hashkey.Hex([]byte(e.Fingerprint() + "\x00" + chunksKey(c.Chunks)))
	path := filepath.Join(c.Env.CacheDir, "dense", key+".idx")
	if r, err := dense.Load(ctx, path, embed, opts); err == nil {
		return r, nil
	}
	r, err := dense.NewChunks(ctx, c.Chunks, embed, opts)
	if err != nil {
		return nil, wrapName(c.Retriever, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	if err := r.Save(path); err != nil {
		return nil, fmt.Errorf("dense index cache: %w", err)
	}
	return r, nil
}

// chunksKey is a sha256 over chunk ids and indexed texts.
func chunksKey(chunks corpus.Chunks) string {
	h := sha256.New()
	for _, c := range chunks.All() {
		fmt.Fprintf(h, "%d:%s%d:%s", len(c.ID), c.ID, len(c.IndexText()), c.IndexText())
	}
	return hex.EncodeToString(h.Sum(nil))
}
