package encoder

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/ragbench/ragbench/internal/fileutil"
)

// CachedEmbedder wraps an Embedder with an on-disk embedding cache,
// content-addressed by (model fingerprint, query or passage side, text):
// a text already embedded by the same model and config, in this run or an
// earlier one, is read back instead of tokenized and embedded again. Each
// entry stores the token ids fed and the vector.
//
// Layout: DIR/<fingerprint[:16]>/<key[:2]>/<key>.emb, one file per text,
// written to a temporary file in the same folder then renamed, so
// concurrent writers (goroutines or processes) never expose a partial
// entry; two writers of one key write identical bytes. A damaged entry
// (wrong size, magic or checksum) is counted in CacheStats.Corrupt and
// recomputed, never returned.
type CachedEmbedder struct {
	e   *Embedder
	dir string // DIR/<fingerprint[:16]>
	// embedBatch runs the model on one batch of tokenized texts (e.EmbedTokens;
	// tests replace it to cancel mid-way).
	embedBatch func(ctx context.Context, toks []Tokens) ([][]float32, error)

	hits, misses, corrupt atomic.Int64
}

// CacheStats counts cache lookups since NewCachedEmbedder: texts served
// from disk, texts embedded, and damaged entries replaced.
type CacheStats struct {
	Hits, Misses, Corrupt int64
}

// NewCachedEmbedder returns a caching wrapper around e storing entries
// under dir (created if needed). The Embedder stays owned by the caller.
func NewCachedEmbedder(e *Embedder, dir string) (*CachedEmbedder, error) {
	if dir == "" {
		return nil, errors.New("embedding cache: empty directory")
	}
	sub := filepath.Join(dir, e.Fingerprint()[:16])
	if err := os.MkdirAll(sub, 0o755); err != nil {
		return nil, fmt.Errorf("embedding cache: %w", err)
	}
	return &CachedEmbedder{e: e, dir: sub, embedBatch: e.EmbedTokens}, nil
}

// Embedder returns the wrapped embedder.
func (c *CachedEmbedder) Embedder() *Embedder { return c.e }

// Dim is the wrapped embedder's dimension.
func (c *CachedEmbedder) Dim() int { return c.e.Dim() }

// Fingerprint is the wrapped embedder's fingerprint.
func (c *CachedEmbedder) Fingerprint() string { return c.e.Fingerprint() }

// Dir is the folder holding this model's entries.
func (c *CachedEmbedder) Dir() string { return c.dir }

// Stats returns the cache counters.
func (c *CachedEmbedder) Stats() CacheStats {
	return CacheStats{Hits: c.hits.Load(), Misses: c.misses.Load(), Corrupt: c.corrupt.Load()}
}

// Embed behaves as Embedder.Embed (same vectors, same errors) but reads
// cached vectors and embeds only the texts not yet cached, each distinct
// text once. Entries are written batch by batch (Options.BatchSize texts,
// longest first, as Embedder.EmbedTokens runs them): when ctx is cancelled
// mid-way Embed returns ctx's error and nothing else, but the batches
// finished before stay cached (CacheStats.Misses counts them), so calling
// Embed again embeds only the rest. Write failures are errors (a cache
// that silently stops caching would make a sweep re-embed everything).
func (c *CachedEmbedder) Embed(ctx context.Context, texts []string, query bool) ([][]float32, error) {
	return c.EmbedProgress(ctx, texts, query, nil)
}

// EmbedProgress is Embed that also reports, after the cache lookup and
// after each model batch, how many of texts (0..len(texts)) have their
// vector so far (cache hits and duplicates of them count at once), so a
// progress bar moves batch by batch rather than once per call. progress
// may be nil; it is called from the calling goroutine. Vectors and errors
// are Embed's.
func (c *CachedEmbedder) EmbedProgress(ctx context.Context, texts []string, query bool, progress func(done int)) ([][]float32, error) {
	out := make([][]float32, len(texts))
	keys := make([]string, len(texts))
	first := map[string]int{} // key → index of its first occurrence among misses
	var missIdx []int
	var missText []string
	for i, t := range texts {
		keys[i] = c.key(t, query)
		if _, dup := first[keys[i]]; dup {
			continue
		}
		v, err := c.read(keys[i])
		if err == nil {
			out[i] = v
			c.hits.Add(1)
			first[keys[i]] = -1
			continue
		}
		if !errors.Is(err, os.ErrNotExist) {
			c.corrupt.Add(1)
		}
		first[keys[i]] = len(missIdx)
		missIdx = append(missIdx, i)
		missText = append(missText, t)
	}
	// pending: texts whose vector waits for the model (the misses and
	// their duplicates); dupes: per miss, its later duplicates.
	pending := 0
	dupes := make([]int, len(missIdx))
	for i, k := range keys {
		if j := first[k]; j >= 0 {
			pending++
			if missIdx[j] != i {
				dupes[j]++
			}
		}
	}
	report := func() {
		if progress != nil {
			progress(len(texts) - pending)
		}
	}
	report()
	if len(missIdx) > 0 {
		toks, err := c.e.Tokenize(ctx, missText, query)
		if err != nil {
			return nil, remapIndex(err, missIdx)
		}
		// Run the misses in the model's own batches (the order and batch
		// composition Embedder.EmbedTokens uses, so the vectors are the
		// same) and write each batch's entries as soon as it is done: when
		// ctx is cancelled or a later batch fails, the finished batches
		// stay cached and a rerun embeds only the rest.
		seqs := make([][]int64, len(toks))
		for j, t := range toks {
			seqs[j] = t.IDs
		}
		order := lengthOrder(seqs)
		bs := max(c.e.m.opts.BatchSize, 1)
		for lo := 0; lo < len(order); lo += bs {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			batch := order[lo:min(lo+bs, len(order))]
			bt := make([]Tokens, len(batch))
			for b, j := range batch {
				bt[b] = toks[j]
			}
			vecs, err := c.embedBatch(ctx, bt)
			if err != nil {
				var te *TextError
				if errors.As(err, &te) && te.Index >= 0 && te.Index < len(batch) {
					err = &TextError{te.Field, missIdx[batch[te.Index]], te.Err}
				}
				return nil, err
			}
			for b, j := range batch {
				i := missIdx[j]
				out[i] = vecs[b]
				if err := c.write(keys[i], toks[j].IDs, vecs[b]); err != nil {
					return nil, err
				}
			}
			c.misses.Add(int64(len(batch)))
			for _, j := range batch {
				pending -= 1 + dupes[j]
			}
			report()
		}
	}
	// Fill duplicates from their first occurrence.
	for i := range out {
		if out[i] == nil {
			for j := 0; j < i; j++ {
				if keys[j] == keys[i] && out[j] != nil {
					out[i] = out[j]
					break
				}
			}
		}
	}
	return out, nil
}

// remapIndex rewrites a TextError's index (into the misses) to the
// caller's index.
func remapIndex(err error, idx []int) error {
	var te *TextError
	if errors.As(err, &te) && te.Index >= 0 && te.Index < len(idx) {
		return &TextError{te.Field, idx[te.Index], te.Err}
	}
	return err
}

// key is the hex sha256 of (fingerprint, side, text).
func (c *CachedEmbedder) key(text string, query bool) string {
	h := sha256.New()
	side := "p"
	if query {
		side = "q"
	}
	fmt.Fprintf(h, "%s\x00%s\x00", c.e.Fingerprint(), side)
	h.Write([]byte(text))
	return hex.EncodeToString(h.Sum(nil))
}

func (c *CachedEmbedder) path(key string) string {
	return filepath.Join(c.dir, key[:2], key+".emb")
}

// Entry format (little endian): "RBE1", uint32 dim, uint32 nids,
// nids × int32 token ids, dim × float32 vector, uint32 CRC-32 (IEEE) of
// everything before it.
var cacheMagic = []byte("RBE1")

func (c *CachedEmbedder) read(key string) ([]float32, error) {
	b, err := os.ReadFile(c.path(key))
	if err != nil {
		return nil, err
	}
	bad := fmt.Errorf("%s: damaged cache entry", c.path(key))
	if len(b) < 16 || string(b[:4]) != string(cacheMagic) {
		return nil, bad
	}
	dim := int(binary.LittleEndian.Uint32(b[4:]))
	nids := int(binary.LittleEndian.Uint32(b[8:]))
	if dim != c.e.Dim() || len(b) != 12+4*nids+4*dim+4 {
		return nil, bad
	}
	body := b[:len(b)-4]
	if crc32.ChecksumIEEE(body) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil, bad
	}
	v := make([]float32, dim)
	off := 12 + 4*nids
	for k := range v {
		v[k] = math.Float32frombits(binary.LittleEndian.Uint32(b[off+4*k:]))
	}
	return v, nil
}

// CachedIDs returns the token ids stored with text's entry, or ok=false
// when the text is not cached (or its entry is damaged).
func (c *CachedEmbedder) CachedIDs(text string, query bool) (ids []int64, ok bool) {
	b, err := os.ReadFile(c.path(c.key(text, query)))
	if err != nil || len(b) < 16 || string(b[:4]) != string(cacheMagic) {
		return nil, false
	}
	dim := int(binary.LittleEndian.Uint32(b[4:]))
	nids := int(binary.LittleEndian.Uint32(b[8:]))
	if len(b) != 12+4*nids+4*dim+4 || crc32.ChecksumIEEE(b[:len(b)-4]) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil, false
	}
	ids = make([]int64, nids)
	for k := range ids {
		ids[k] = int64(int32(binary.LittleEndian.Uint32(b[12+4*k:])))
	}
	return ids, true
}

func (c *CachedEmbedder) write(key string, ids []int64, v []float32) error {
	b := make([]byte, 12, 12+4*len(ids)+4*len(v)+4)
	copy(b, cacheMagic)
	binary.LittleEndian.PutUint32(b[4:], uint32(len(v)))
	binary.LittleEndian.PutUint32(b[8:], uint32(len(ids)))
	for _, id := range ids {
		b = binary.LittleEndian.AppendUint32(b, uint32(int32(id)))
	}
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	return fileutil.WriteAtomic(c.path(key), b)
}
