package sweep

import (
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestRunSpillsTexts: the run's own dataset load puts the corpus's texts
// in a spill file of the cache folder (corpus.LoadSpilled, on Linux), the
// documents read the same as the heap load's, and no spill file is left
// in the cache folder after the run.
func TestRunSpillsTexts(t *testing.T) {
	dir := t.TempDir()
	cfg := loadSmall(t, dir)
	rep, err := Check(t.Context(), cfg, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" && !rep.ds.texts.Spilled() {
		t.Errorf("texts not spilled (note %q)", rep.ds.texts.Note())
	}
	heap, _, err := loadDataset(cfg, defaultBackend())
	if err != nil {
		t.Fatal(err)
	}
	if heap.texts.Spilled() || len(heap.docs) != len(rep.ds.docs) {
		t.Fatal("loadDataset spilled, or read another corpus")
	}
	for i, d := range heap.docs {
		if rep.ds.docs[i] != d {
			t.Errorf("document %d: spilled %+q, heap %+q", i, rep.ds.docs[i], d)
		}
	}
	if _, err := Run(t.Context(), cfg, Options{NoHistory: true}); err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(cfg.CacheDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".spill") {
			t.Errorf("spill file left in the cache folder: %s", p)
		}
		return nil
	})
}
