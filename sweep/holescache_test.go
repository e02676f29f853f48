package sweep

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
)

// TestJudgedHolesCached: a sweep's holes are written to the cache and read
// back by a second scoring of the same inputs (a hole planted in the entry
// comes out: nothing was compared again); a changed text of a compared
// result is another key, and a damaged entry is found again and rewritten.
func TestJudgedHolesCached(t *testing.T) {
	build := func(copyText string) (*dataset, cellInputs) {
		docs := []corpus.Document{
			{ID: "gold", Text: "Passwords expire after 90 days."},
			{ID: "copy", Text: copyText},
			{ID: "other", Text: "The canteen opens at noon and closes at three."},
		}
		ds := &dataset{docs: docs, docByID: corpus.IndexDocs(docs), qrels: eval.Qrels{"q": {"gold": 1}}, answerable: []string{"q"}}
		chunks := corpus.DocChunks(docs, false)
		run := eval.Run{"q": {{DocID: "copy", Score: 3}, {DocID: "other", Score: 2}, {DocID: "gold", Score: 1}}}
		return ds, cellInputs{run: run, chunks: chunks, chunkByID: ds.chunkIndex(chunks)}
	}
	cfg := &Config{K: []int{1, 3}, CacheDir: t.TempDir()}
	ds, in := build("Reminder: passwords expire after 90 days!")
	first, err := cellJudged(t.Context(), cfg, ds, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.HoleList) != 1 || first.HoleList[0].ID != "copy" {
		t.Fatalf("holes %+v, want copy", first.HoleList)
	}
	files, _ := filepath.Glob(filepath.Join(cfg.CacheDir, "holes", "*", "*.json"))
	if len(files) != 1 {
		t.Fatalf("cache files %v, want one", files)
	}
	// Read back, not found again: a hole planted in the entry comes out.
	planted := []byte(`[{"Query":"q","Rank":1,"ID":"copy","Gold":"gold","Similarity":0.875}]`)
	if err := os.WriteFile(files[0], planted, 0o644); err != nil {
		t.Fatal(err)
	}
	ds2, in2 := build("Reminder: passwords expire after 90 days!")
	again, err := cellJudged(t.Context(), cfg, ds2, in2)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.HoleList) != 1 || again.HoleList[0].Similarity != 0.875 || again.Holes["all"]["holes@3"] != 1 {
		t.Fatalf("second scoring: holes %+v, want the cached entry's", again.HoleList)
	}
	// Another text: another key, holes found again.
	ds3, in3 := build("Nothing like the passage at all, really.")
	other, err := cellJudged(t.Context(), cfg, ds3, in3)
	if err != nil || len(other.HoleList) != 0 {
		t.Fatalf("changed text: holes %+v, %v; want none", other.HoleList, err)
	}
	// A damaged entry is found again and rewritten.
	if err := os.WriteFile(files[0], []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	ds4, in4 := build("Reminder: passwords expire after 90 days!")
	fixed, err := cellJudged(t.Context(), cfg, ds4, in4)
	if err != nil || len(fixed.HoleList) != 1 || fixed.HoleList[0] != first.HoleList[0] {
		t.Fatalf("damaged cache: holes %+v, %v", fixed.HoleList, err)
	}
	if _, ok := readHoles(files[0]); !ok {
		t.Error("damaged cache entry not rewritten")
	}
}
