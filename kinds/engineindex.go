package kinds

import (
	"context"
	"sync"

	"github.com/ragbench/ragbench/internal/hashkey"
	"github.com/ragbench/ragbench/retrievers/dense"
	"github.com/ragbench/ragbench/retrievers/engine"
)

// engineIndexes holds the managed indexes loaded in one sweep, keyed by
// chunk content, connection and index settings, so the cells querying one
// index (BM25, kNN, hybrid over the same settings) load it once.
type engineIndexes struct {
	mu sync.Mutex
	m  map[string]*engine.Index
}

// engineIndexKey is the key of the managed index e queries over the
// cell's chunks, with its model folder's hash.
func engineIndexKey(c *Cell, e *Engine, modelHash string) string {
	conn := e.Conn()
	return hashkey.Of(map[string]any{"type": string(e.dialect), "chunks": chunksKey(c.Chunks), "urls": conn.URLs, "managed": e.Managed(), "model": modelHash})
}

// load returns the managed index of e over the cell's chunks, loading it
// unless an earlier cell of this sweep did, and how many documents this
// call loaded.
func (x *engineIndexes) load(ctx context.Context, c *Cell, e *Engine, emb dense.EmbedFunc) (*engine.Index, int, error) {
	mh := ""
	if e.Model != "" {
		h, err := FolderHash(e.Model)
		if err != nil {
			return nil, 0, err
		}
		mh = h
	}
	key := engineIndexKey(c, e, mh)
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.m == nil {
		x.m = map[string]*engine.Index{}
	}
	if ix := x.m[key]; ix != nil {
		return ix, 0, nil
	}
	var vecs [][]float32
	if emb != nil {
		n := c.Chunks.Len()
		texts := make([]string, n)
		for i, ch := range c.Chunks.All() {
			texts[i] = ch.IndexText()
		}
		var err error
		c.Progress.Count(StageEmbed, 0, n)
		if vecs, err = emb(ctx, texts, false); err != nil {
			return nil, 0, err
		}
		c.Progress.Count(StageEmbed, n, n)
	}
	ix, err := engine.LoadChunks(ctx, e.Conn(), e.dialect, c.Chunks, vecs, e.Managed())
	if err != nil {
		return nil, 0, err
	}
	x.m[key] = ix
	loaded := 0
	if !ix.Reused() {
		loaded = ix.Docs()
	}
	return ix, loaded, nil
}
