package encoder

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// CachedEmbedder wraps an Embedder with an on-disk embedding cache,
// content-addressed by (model fingerprint, query or passage side, text):
// a text already embedded by the same model and config, in this run or an
// earlier one, is read back instead of tokenized and embedded again. Each
// entry stores the token ids fed and the vector.
//
// Layout: DIR/<fingerprint[:16]>/pack-N.rbe and pack-N.idx, a few large
// append-only pack files per model (see cachepack.go: entries, each with a
// CRC-32, and fixed-size checksummed index records naming them), never one
// file per text: a million texts are a few files, not a million. Processes
// sharing DIR each append to a pack of their own (flock), so none ever
// exposes a partial entry to another; entries written by another process
// are seen from the next Embed call on. A damaged entry (wrong size, magic
// or checksum) is counted in CacheStats.Corrupt and recomputed, never
// returned. Caches of the earlier layout, one file per text
// (DIR/<fingerprint[:16]>/<key[:2]>/<key>.emb), are still read: a text not
// in the packs is looked up there (new entries go to the packs only).
type CachedEmbedder struct {
	e   *Embedder
	dir string // DIR/<fingerprint[:16]>
	// embedBatch runs the model on one batch of tokenized texts (e.EmbedTokens;
	// tests replace it to cancel mid-way).
	embedBatch func(ctx context.Context, toks []Tokens) ([][]float32, error)

	mu     sync.Mutex // guards st
	st     *store
	legacy bool // dir holds entries of the one-file-per-text layout

	hits, misses, corrupt atomic.Int64
}

// CacheStats counts cache lookups since NewCachedEmbedder: texts served
// from disk, texts embedded, and damaged entries replaced.
type CacheStats struct {
	Hits, Misses, Corrupt int64
}

// NewCachedEmbedder returns a caching wrapper around e storing entries
// under dir (created if needed), reading the index of the packs already
// there. The Embedder stays owned by the caller; Close releases the
// cache's files.
func NewCachedEmbedder(e *Embedder, dir string) (*CachedEmbedder, error) {
	if dir == "" {
		return nil, errors.New("embedding cache: empty directory")
	}
	sub := filepath.Join(dir, e.Fingerprint()[:16])
	if err := os.MkdirAll(sub, 0o755); err != nil {
		// A symbolic link to a folder that does not exist makes MkdirAll
		// say only "file exists": name the link and its target.
		if target, lerr := os.Readlink(dir); lerr == nil {
			if _, serr := os.Stat(dir); serr != nil {
				return nil, fmt.Errorf("embedding cache: %s is a symbolic link to %s, which does not exist: create that folder or remove the link", dir, target)
			}
		}
		return nil, fmt.Errorf("embedding cache: %w", err)
	}
	st, err := openStore(sub)
	if err != nil {
		return nil, fmt.Errorf("embedding cache: %s: %w", sub, err)
	}
	return &CachedEmbedder{e: e, dir: sub, embedBatch: e.EmbedTokens, st: st, legacy: hasLegacyEntries(sub)}, nil
}

// hasLegacyEntries reports whether dir has a two-letter subfolder of the
// one-file-per-text layout.
func hasLegacyEntries(dir string) bool {
	names, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range names {
		if e.IsDir() && len(e.Name()) == 2 {
			return true
		}
	}
	return false
}

// Close releases the cache's files (and the pack this wrapper appends
// to). The wrapper must not be used afterwards; the Embedder stays open.
func (c *CachedEmbedder) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st.close()
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

// lookup is one EmbedProgress call's state: the texts' keys and vectors so
// far, and the misses (first occurrences of uncached keys).
type lookup struct {
	keys     [][32]byte
	out      [][]float32
	missIdx  []int    // index in texts of each miss
	missText []string // its text
	pending  int      // texts waiting for the model (misses and their duplicates)
	dupes    []int    // per miss, its later duplicates
}

// EmbedProgress is Embed that also reports, after the cache lookup and
// after each model batch, how many of texts (0..len(texts)) have their
// vector so far (cache hits and duplicates of them count at once), so a
// progress bar moves batch by batch rather than once per call. progress
// may be nil; it is called from the calling goroutine. Vectors and errors
// are Embed's.
func (c *CachedEmbedder) EmbedProgress(ctx context.Context, texts []string, query bool, progress func(done int)) ([][]float32, error) {
	l := c.lookupAll(texts, query)
	report := func() {
		if progress != nil {
			progress(len(texts) - l.pending)
		}
	}
	report()
	if len(l.missIdx) > 0 {
		if err := c.embedMisses(ctx, l, query, report); err != nil {
			return nil, err
		}
	}
	// Fill duplicates from their first occurrence.
	first := make(map[[32]byte]int, len(l.missIdx))
	for i, k := range l.keys {
		if l.out[i] != nil {
			if _, ok := first[k]; !ok {
				first[k] = i
			}
		}
	}
	for i := range l.out {
		if l.out[i] == nil {
			l.out[i] = l.out[first[l.keys[i]]]
		}
	}
	return l.out, nil
}

// lookupAll reads the cached vector of each text and lists the misses,
// each distinct key once.
func (c *CachedEmbedder) lookupAll(texts []string, query bool) *lookup {
	l := &lookup{keys: make([][32]byte, len(texts)), out: make([][]float32, len(texts))}
	first := map[[32]byte]int{} // key → its miss number, or −1 for a hit
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.st.refresh(); err != nil {
		c.corrupt.Add(1) // an unreadable pack index: its entries are recomputed
	}
	for i, t := range texts {
		l.keys[i] = c.key(t, query)
		if _, dup := first[l.keys[i]]; dup {
			continue
		}
		v, err := c.readLocked(l.keys[i])
		if err == nil {
			l.out[i] = v
			c.hits.Add(1)
			first[l.keys[i]] = -1
			continue
		}
		if !errors.Is(err, os.ErrNotExist) {
			c.corrupt.Add(1)
		}
		first[l.keys[i]] = len(l.missIdx)
		l.missIdx = append(l.missIdx, i)
		l.missText = append(l.missText, t)
	}
	l.dupes = make([]int, len(l.missIdx))
	for i, k := range l.keys {
		if j := first[k]; j >= 0 {
			l.pending++
			if l.missIdx[j] != i {
				l.dupes[j]++
			}
		}
	}
	return l
}

// embedMisses tokenizes the misses and runs them in the model's own
// batches (the order and batch composition Embedder.EmbedTokens uses, so
// the vectors are the same), writing each batch's entries as soon as it is
// done: when ctx is cancelled or a later batch fails, the finished batches
// stay cached and a rerun embeds only the rest.
func (c *CachedEmbedder) embedMisses(ctx context.Context, l *lookup, query bool, report func()) error {
	toks, err := c.e.Tokenize(ctx, l.missText, query)
	if err != nil {
		return remapIndex(err, l.missIdx)
	}
	seqs := make([][]int64, len(toks))
	for j, t := range toks {
		seqs[j] = t.IDs
	}
	order := lengthOrder(seqs)
	bs := max(c.e.m.opts.BatchSize, 1)
	for lo := 0; lo < len(order); lo += bs {
		if err := ctx.Err(); err != nil {
			return err
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
				err = &TextError{te.Field, l.missIdx[batch[te.Index]], te.Err}
			}
			return err
		}
		keys := make([][32]byte, len(batch))
		entries := make([][]byte, len(batch))
		for b, j := range batch {
			i := l.missIdx[j]
			l.out[i] = vecs[b]
			keys[b], entries[b] = l.keys[i], encodeEntry(toks[j].IDs, vecs[b])
		}
		c.mu.Lock()
		err = c.st.put(keys, entries)
		c.mu.Unlock()
		if err != nil {
			return err
		}
		c.misses.Add(int64(len(batch)))
		for _, j := range batch {
			l.pending -= 1 + l.dupes[j]
		}
		report()
	}
	return nil
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

// key is the sha256 of (fingerprint, side, text).
func (c *CachedEmbedder) key(text string, query bool) [32]byte {
	h := sha256.New()
	side := "p"
	if query {
		side = "q"
	}
	fmt.Fprintf(h, "%s\x00%s\x00", c.e.Fingerprint(), side)
	h.Write([]byte(text))
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// legacyPath is key's file in the one-file-per-text layout.
func (c *CachedEmbedder) legacyPath(key [32]byte) string {
	h := hex.EncodeToString(key[:])
	return filepath.Join(c.dir, h[:2], h+".emb")
}

// Entry format (little endian): "RBE1", uint32 dim, uint32 nids,
// nids × int32 token ids, dim × float32 vector, uint32 CRC-32 (IEEE) of
// everything before it — a pack entry, and a whole file in the
// one-file-per-text layout.
var cacheMagic = []byte("RBE1")

// entryBytes returns key's entry: from the packs, else (legacy folders) its
// own file; os.ErrNotExist when it is in neither. c.mu must be held.
func (c *CachedEmbedder) entryBytes(key [32]byte) ([]byte, error) {
	b, err := c.st.get(key)
	if errors.Is(err, fs.ErrNotExist) && c.legacy {
		return os.ReadFile(c.legacyPath(key))
	}
	return b, err
}

// readLocked returns key's cached vector; c.mu must be held.
func (c *CachedEmbedder) readLocked(key [32]byte) ([]float32, error) {
	b, err := c.entryBytes(key)
	if err != nil {
		return nil, err
	}
	_, v, ok := decodeEntry(b)
	if !ok || len(v) != c.e.Dim() {
		return nil, errors.New("damaged cache entry")
	}
	return v, nil
}

// CachedIDs returns the token ids stored with text's entry, or ok=false
// when the text is not cached (or its entry is damaged).
func (c *CachedEmbedder) CachedIDs(text string, query bool) (ids []int64, ok bool) {
	c.mu.Lock()
	b, err := c.entryBytes(c.key(text, query))
	c.mu.Unlock()
	if err != nil {
		return nil, false
	}
	ids, _, ok = decodeEntry(b)
	return ids, ok
}

// decodeEntry checks an entry's size, magic and checksum and returns its
// token ids and vector.
func decodeEntry(b []byte) (ids []int64, v []float32, ok bool) {
	if len(b) < 16 || string(b[:4]) != string(cacheMagic) {
		return nil, nil, false
	}
	dim := int(binary.LittleEndian.Uint32(b[4:]))
	nids := int(binary.LittleEndian.Uint32(b[8:]))
	if uint64(len(b)) != 12+4*uint64(nids)+4*uint64(dim)+4 ||
		crc32.ChecksumIEEE(b[:len(b)-4]) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil, nil, false
	}
	ids = make([]int64, nids)
	for k := range ids {
		ids[k] = int64(int32(binary.LittleEndian.Uint32(b[12+4*k:])))
	}
	v = make([]float32, dim)
	off := 12 + 4*nids
	for k := range v {
		v[k] = math.Float32frombits(binary.LittleEndian.Uint32(b[off+4*k:]))
	}
	return ids, v, true
}

// encodeEntry returns the entry of token ids and vector v.
func encodeEntry(ids []int64, v []float32) []byte {
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
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}
