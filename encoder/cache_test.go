package encoder

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// cacheFiles counts the entries the packs under dir name (whole index
// records) and the files that are neither packs nor legacy entries.
func cacheFiles(t *testing.T, dir string) (entries, others int) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			switch {
			case strings.HasSuffix(p, packIndex):
				if info, err := d.Info(); err == nil {
					entries += int(info.Size() / recordSize)
				}
			case strings.HasSuffix(p, packData), strings.HasSuffix(p, ".emb"):
			default:
				others++
			}
		}
		return nil
	})
	return
}

// TestCachedEmbedder: the cache returns exactly the vectors of an uncached
// Embed, embeds each distinct text once, and serves a second "run" (a new
// wrapper over the same folder) entirely from disk with the ids stored.
func TestCachedEmbedder(t *testing.T) {
	e, ref := useLiteEmbedder(t, Options{TextNormalization: TextCollapseWhitespace})
	ctx := context.Background()
	texts := append(append([]string{}, ref.Sentences...), ref.Sentences[0]) // one duplicate
	want, err := e.Embed(ctx, texts, false)
	if err != nil {
		t.Fatal(err)
	}
	cdir := t.TempDir()
	c, err := NewCachedEmbedder(e, cdir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Embed(ctx, texts, false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("cached vectors differ from Embed:\n%s", diff)
	}
	if s := c.Stats(); s != (CacheStats{Hits: 0, Misses: 6}) {
		t.Errorf("first run stats %+v, want 6 misses (6 distinct texts)", s)
	}
	// Second run: a fresh wrapper reads everything from disk.
	c2, _ := NewCachedEmbedder(e, cdir)
	before := e.Stats().Texts
	got2, err := c2.Embed(ctx, texts, false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got2); diff != "" {
		t.Fatalf("second-run vectors differ:\n%s", diff)
	}
	if s := c2.Stats(); s.Hits != 6 || s.Misses != 0 || e.Stats().Texts != before {
		t.Errorf("second run: %+v, model ran on %d texts; want 6 hits and no model run", s, e.Stats().Texts-before)
	}
	ids, ok := c2.CachedIDs(ref.Sentences[2], false)
	if !ok || !cmp.Equal(ids, ref.InputIDs[2]) {
		t.Errorf("CachedIDs = %v %v, want reference ids %v", ids, ok, ref.InputIDs[2])
	}
	// The query side is a different key.
	if _, ok := c2.CachedIDs(ref.Sentences[2], true); ok {
		t.Error("query side found in cache though only passages were embedded")
	}
	if n, tmp := cacheFiles(t, cdir); n != 6 || tmp != 0 {
		t.Errorf("%d entries and %d temp files on disk, want 6 and 0", n, tmp)
	}
}

// TestCachedEmbedderCorrupt: a damaged entry is counted and recomputed,
// never returned.
func TestCachedEmbedderCorrupt(t *testing.T) {
	_, ref, _, c, want := embedInNewCache(t, 2, true)
	ctx := context.Background()
	flip := func(text string, at func(n uint32) int64) {
		l := c.st.index[c.key(text, true)]
		f, err := os.OpenFile(c.st.path(int(l.pack), packData), os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		b := []byte{0}
		f.ReadAt(b, l.off+at(l.n))
		b[0] ^= 0xff
		f.WriteAt(b, l.off+at(l.n))
	}
	flip(ref.Sentences[1], func(n uint32) int64 { return int64(n / 2) }) // inside the vector
	flip(ref.Sentences[0], func(uint32) int64 { return 0 })              // the magic
	got, err := c.Embed(ctx, ref.Sentences[:2], true)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("vectors after corruption differ:\n%s", diff)
	}
	if s := c.Stats(); s.Corrupt != 2 || s.Misses != 4 {
		t.Errorf("stats %+v, want 2 corrupt entries recomputed (4 misses in all)", s)
	}
}

// TestCachedEmbedderConcurrent: several writers (two wrappers, as two
// processes would be) embedding overlapping texts into one folder get
// identical vectors and leave one complete entry per text.
func TestCachedEmbedderConcurrent(t *testing.T) {
	e, ref := useLiteEmbedder(t, Options{BatchSize: 2, TextNormalization: TextCollapseWhitespace})
	ctx := context.Background()
	want, err := e.Embed(ctx, ref.Sentences, false)
	if err != nil {
		t.Fatal(err)
	}
	cdir := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 6)
	res := make([][][]float32, 6)
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := NewCachedEmbedder(e, cdir)
			if err != nil {
				errs[w] = err
				return
			}
			res[w], errs[w] = c.Embed(ctx, ref.Sentences, false)
		}()
	}
	wg.Wait()
	for w := range res {
		if errs[w] != nil {
			t.Fatal(errs[w])
		}
		for i := range want {
			if !cmp.Equal(want[i], res[w][i], cmpApprox(1e-6)) {
				t.Fatalf("writer %d text %d differs", w, i)
			}
		}
	}
	// Writers racing on the same texts may each append them (to packs of
	// their own); a new reader finds every text, complete.
	c, err := NewCachedEmbedder(e, cdir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Embed(ctx, ref.Sentences, false)
	if err != nil {
		t.Fatal(err)
	}
	if s := c.Stats(); s.Hits != int64(len(ref.Sentences)) || s.Misses != 0 || s.Corrupt != 0 {
		t.Errorf("reader after the writers: %+v, want %d hits", s, len(ref.Sentences))
	}
	for i := range want {
		if !cmp.Equal(want[i], got[i], cmpApprox(1e-6)) {
			t.Fatalf("text %d read back differs", i)
		}
	}
	if n, other := cacheFiles(t, cdir); n < len(ref.Sentences) || other != 0 {
		t.Errorf("%d entries, %d other files; want ≥ %d and 0", n, other, len(ref.Sentences))
	}
}

// TestCachedEmbedderErrorIndex: a bad text among cached ones is reported
// with its index in the caller's slice.
func TestCachedEmbedderErrorIndex(t *testing.T) {
	e, ref := useLiteEmbedder(t, Options{})
	c, _ := NewCachedEmbedder(e, t.TempDir())
	ctx := context.Background()
	if _, err := c.Embed(ctx, ref.Sentences[:2], false); err != nil {
		t.Fatal(err)
	}
	_, err := c.Embed(ctx, []string{ref.Sentences[0], ref.Sentences[1], "  "}, false)
	var te *TextError
	if !errors.As(err, &te) || te.Index != 2 || !errors.Is(err, ErrEmptyText) {
		t.Fatalf("err = %v, want TextError index 2 wrapping ErrEmptyText", err)
	}
}

// TestCachedEmbedderCancelKeepsBatches: a context cancelled while Embed is
// running keeps the batches finished before it on disk, and a second call
// embeds only the rest. Batch size 2 over the 6 reference sentences gives
// 3 batches; the fake model runner cancels ctx after the second batch,
// so 2×2 = 4 entries are written, the call returns context.Canceled, and
// the rerun reads 4 entries and runs the model on the last 2 texts only.
func TestCachedEmbedderCancelKeepsBatches(t *testing.T) {
	e, ref := useLiteEmbedder(t, Options{BatchSize: 2, TextNormalization: TextCollapseWhitespace})
	if bs := e.m.opts.BatchSize; bs != 2 || len(ref.Sentences) != 6 {
		t.Fatalf("batch size %d and %d sentences; the counts below assume 2 and 6", bs, len(ref.Sentences))
	}
	want, err := e.Embed(context.Background(), ref.Sentences, false)
	if err != nil {
		t.Fatal(err)
	}
	cdir := t.TempDir()
	c, err := NewCachedEmbedder(e, cdir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var sizes []int
	c.embedBatch = func(ctx context.Context, toks []Tokens) ([][]float32, error) {
		sizes = append(sizes, len(toks))
		v, err := e.EmbedTokens(ctx, toks)
		if len(sizes) == 2 {
			cancel() // Ctrl-C while the second batch runs: it still completes
		}
		return v, err
	}
	got, err := c.Embed(ctx, ref.Sentences, false)
	if !errors.Is(err, context.Canceled) || got != nil {
		t.Fatalf("cancelled Embed = %d vectors, %v; want nil, context.Canceled", len(got), err)
	}
	if !cmp.Equal(sizes, []int{2, 2}) {
		t.Errorf("model ran on batches %v, want [2 2] (stopped before the third)", sizes)
	}
	if n, tmp := cacheFiles(t, cdir); n != 4 || tmp != 0 {
		t.Errorf("after cancel: %d entries, %d temp files; want 4 (two finished batches) and 0", n, tmp)
	}
	if s := c.Stats(); s.Misses != 4 || s.Hits != 0 {
		t.Errorf("after cancel: stats %+v, want 4 misses", s)
	}
	// The rerun (a new wrapper, as a new process) resumes.
	c2, _ := NewCachedEmbedder(e, cdir)
	before := e.Stats().Texts
	got, err = c2.Embed(context.Background(), ref.Sentences, false)
	if err != nil {
		t.Fatal(err)
	}
	if ran := e.Stats().Texts - before; ran != 2 {
		t.Errorf("rerun ran the model on %d texts, want 2 (the unfinished batch)", ran)
	}
	if s := c2.Stats(); s.Hits != 4 || s.Misses != 2 {
		t.Errorf("rerun stats %+v, want 4 hits and 2 misses", s)
	}
	// Same batches as one uncached Embed, so the same vectors exactly.
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("resumed vectors differ from Embed:\n%s", diff)
	}
	if n, _ := cacheFiles(t, cdir); n != 6 {
		t.Errorf("%d entries after the rerun, want 6", n)
	}
}

// TestCachedEmbedderProgress: EmbedProgress reports the texts with a
// vector after the lookup and after each model batch. 7 texts (the 6
// reference sentences, the last twice), the first 2 cached, batch size 2:
// 2 are known at once, then each batch of 2 misses adds 2, or 3 for the
// batch holding the duplicated sentence.
func TestCachedEmbedderProgress(t *testing.T) {
	e, ref := useLiteEmbedder(t, Options{BatchSize: 2, TextNormalization: TextCollapseWhitespace})
	c, err := NewCachedEmbedder(e, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.Embed(ctx, ref.Sentences[:2], false); err != nil {
		t.Fatal(err)
	}
	texts := append(append([]string{}, ref.Sentences...), ref.Sentences[5]) // 7 texts, 4 misses
	var got []int
	vecs, err := c.EmbedProgress(ctx, texts, false, func(done int) { got = append(got, done) })
	if err != nil {
		t.Fatal(err)
	}
	// Misses 2..5 run longest first in 2 batches; sentence 5's duplicate
	// is done with it.
	if len(got) != 3 || got[0] != 2 || got[2] != 7 || got[1] != 4 && got[1] != 5 {
		t.Errorf("progress %v, want [2 4|5 7]", got)
	}
	if len(vecs) != 7 || !cmp.Equal(vecs[6], vecs[5]) {
		t.Errorf("%d vectors (want 7), the duplicate's equal to its first: %v", len(vecs), len(vecs) == 7 && cmp.Equal(vecs[6], vecs[5]))
	}
}

// TestCachedEmbedderLegacy: entries of the one-file-per-text layout
// (DIR/<fingerprint[:16]>/<key[:2]>/<key>.emb, written before the packs)
// are still read — hits with their vectors and token ids — and new entries
// go to the packs.
func TestCachedEmbedderLegacy(t *testing.T) {
	e, ref := useLiteEmbedder(t, Options{TextNormalization: TextCollapseWhitespace})
	ctx := context.Background()
	want, err := e.Embed(ctx, ref.Sentences[:3], false)
	if err != nil {
		t.Fatal(err)
	}
	toks, err := e.Tokenize(ctx, ref.Sentences[:2], false)
	if err != nil {
		t.Fatal(err)
	}
	cdir := t.TempDir()
	c0, err := NewCachedEmbedder(e, cdir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 { // what the earlier layout wrote for two texts
		p := c0.legacyPath(c0.key(ref.Sentences[i], false))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, encodeEntry(toks[i].IDs, want[i]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := NewCachedEmbedder(e, cdir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Embed(ctx, ref.Sentences[:3], false)
	if err != nil {
		t.Fatal(err)
	}
	if s := c.Stats(); s.Hits != 2 || s.Misses != 1 {
		t.Errorf("stats %+v, want 2 hits (legacy files) and 1 miss", s)
	}
	if diff := cmp.Diff(want, got, cmpApprox(1e-6)); diff != "" {
		t.Errorf("vectors (-want +got):\n%s", diff)
	}
	if ids, ok := c.CachedIDs(ref.Sentences[1], false); !ok || !cmp.Equal(ids, ref.InputIDs[1]) {
		t.Errorf("CachedIDs of a legacy entry = %v %v, want %v", ids, ok, ref.InputIDs[1])
	}
	if n, _ := cacheFiles(t, cdir); n != 1 {
		t.Errorf("%d pack entries, want 1 (the miss)", n)
	}
}

// TestCachedEmbedderTornTail: a writer killed while appending leaves a partial
// entry and a partial index record at the ends of its pack; a new wrapper
// reads every whole entry, and when it appends to that pack it first cuts
// the torn tail, so a third wrapper reads old and new entries alike.
func TestCachedEmbedderTornTail(t *testing.T) {
	e, ref, cdir, c1, want := embedInNewCache(t, 3, false)
	ctx := context.Background()
	c1.Close() // the writer dies: its lock is released
	appendTo := func(path string, b []byte) {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(b)
		f.Close()
	}
	appendTo(c1.st.path(0, packData), []byte("RBE1 half an entry"))
	appendTo(c1.st.path(0, packIndex), make([]byte, recordSize/2))
	c2, _ := NewCachedEmbedder(e, cdir)
	if _, err := c2.Embed(ctx, ref.Sentences[:4], false); err != nil {
		t.Fatal(err)
	}
	if s := c2.Stats(); s.Hits != 3 || s.Misses != 1 || s.Corrupt != 0 {
		t.Errorf("after a torn tail: %+v, want 3 hits and 1 miss", s)
	}
	c3, _ := NewCachedEmbedder(e, cdir)
	got, err := c3.Embed(ctx, ref.Sentences[:4], false)
	if err != nil {
		t.Fatal(err)
	}
	if s := c3.Stats(); s.Hits != 4 || s.Misses != 0 || s.Corrupt != 0 {
		t.Errorf("third wrapper: %+v, want 4 hits", s)
	}
	if diff := cmp.Diff(want, got[:3]); diff != "" {
		t.Errorf("entries before the tear (-want +got):\n%s", diff)
	}
	if n, other := cacheFiles(t, cdir); n != 4 || other != 0 {
		t.Errorf("%d entries, %d other files; want 4 in one pack and 0", n, other)
	}
}

// embedInNewCache embeds the first n use-lite reference sentences (query
// side or not) through a CachedEmbedder over a new folder and returns the
// embedder, the reference, the folder, the cache and the vectors.
func embedInNewCache(t *testing.T, n int, query bool) (*Embedder, useLiteRef, string, *CachedEmbedder, [][]float32) {
	t.Helper()
	e, ref := useLiteEmbedder(t, Options{TextNormalization: TextCollapseWhitespace})
	cdir := t.TempDir()
	c, err := NewCachedEmbedder(e, cdir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := c.Embed(context.Background(), ref.Sentences[:n], query)
	if err != nil {
		t.Fatal(err)
	}
	return e, ref, cdir, c, want
}

// TestCacheDanglingLink: a cache folder that is a symbolic link to nothing
// (a shared cache not created yet) is named with its target, not reported
// as MkdirAll's bare "file exists".
func TestCacheDanglingLink(t *testing.T) {
	e, _ := useLiteEmbedder(t, Options{})
	dir := t.TempDir()
	link, target := filepath.Join(dir, "embeddings"), filepath.Join(dir, "nowhere")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	_, err := NewCachedEmbedder(e, link)
	want := "embedding cache: " + link + " is a symbolic link to " + target + ", which does not exist"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want %q", err, want)
	}
}
