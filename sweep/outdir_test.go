package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runFiles lists the .trec files in out/runs, sorted.
func runFiles(t *testing.T, out string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(out, "runs", "*.trec"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range m {
		m[i] = filepath.Base(m[i])
	}
	slices.Sort(m)
	return m
}

// TestOutputStaleRuns: a 6-cell sweep (2 chunkings × 3 retrievers) and then
// a 2-cell sweep (the same chunkings × bm25 only) into one folder leave
// exactly the 2 run files of the second, the ones results.json lists; a
// file of the user's beside them stays, and no staging folder is left.
func TestOutputStaleRuns(t *testing.T) {
	dir := t.TempDir()
	cfg := loadSmall(t, dir)
	if _, err := Run(t.Context(), cfg, Options{NoHistory: true}); err != nil {
		t.Fatal(err)
	}
	if got := runFiles(t, cfg.Output); len(got) != 6 {
		t.Fatalf("first run: %d run files %v, want 6", len(got), got)
	}
	notes := filepath.Join(cfg.Output, "notes.txt")
	if err := os.WriteFile(notes, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg2 := loadSmall(t, dir)
	cfg2.Retrievers = cfg2.Retrievers[:1] // bm25 only
	if _, err := Run(t.Context(), cfg2, Options{NoHistory: true}); err != nil {
		t.Fatal(err)
	}
	want := []string{"doc__bm25.trec", "fixed-4o1__bm25.trec"}
	if got := runFiles(t, cfg.Output); !slices.Equal(got, want) {
		t.Errorf("runs/ after the 2-cell run = %v, want %v", got, want)
	}
	b, err := os.ReadFile(filepath.Join(cfg.Output, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct{ Cells []struct{ Name string } }
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	var cells []string
	for _, c := range res.Cells {
		cells = append(cells, cellFile(c.Name)+".trec")
	}
	slices.Sort(cells)
	if !slices.Equal(cells, want) {
		t.Errorf("results.json cells %v, want %v", cells, want)
	}
	if b, err := os.ReadFile(notes); err != nil || string(b) != "mine" {
		t.Errorf("user file notes.txt: %q, %v; want kept", b, err)
	}
	if tmp, _ := filepath.Glob(filepath.Join(cfg.Output, stagePrefix+"*")); len(tmp) > 0 {
		t.Errorf("staging folders left: %v", tmp)
	}
}

// TestOutputRefusesForeignFolder: a non-empty output folder without a
// bench run manifest.json is refused before any work (nothing written, the
// user's file untouched); an empty folder, and one holding only bench
// run's own file names (a first run killed before its manifest), are
// accepted.
func TestOutputRefusesForeignFolder(t *testing.T) {
	dir := t.TempDir()
	cfg := loadSmall(t, dir)
	if err := os.MkdirAll(cfg.Output, 0o755); err != nil {
		t.Fatal(err)
	}
	thesis := filepath.Join(cfg.Output, "thesis.tex")
	if err := os.WriteFile(thesis, []byte("\\section{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Run(t.Context(), cfg, Options{NoHistory: true})
	if err == nil || !strings.Contains(err.Error(), "no manifest.json") || !strings.Contains(err.Error(), cfg.Output) {
		t.Fatalf("foreign folder: error %v, want one naming the folder and the missing manifest.json", err)
	}
	entries, _ := os.ReadDir(cfg.Output)
	if len(entries) != 1 {
		t.Errorf("foreign folder now holds %d entries, want only thesis.tex", len(entries))
	}
	if _, err := os.Stat(cfg.CacheDir); !os.IsNotExist(err) {
		t.Errorf("cache folder created before the refusal (stat: %v): the check must come before any work", err)
	}
	// A manifest.json that is not ours does not make the folder ours.
	if err := os.WriteFile(filepath.Join(cfg.Output, "manifest.json"), []byte(`{"name": "other tool"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(t.Context(), cfg, Options{NoHistory: true}); err == nil || !strings.Contains(err.Error(), "not a bench run manifest") {
		t.Errorf("foreign manifest.json: error %v", err)
	}

	// Only our own names: accepted.
	cfg2 := loadSmall(t, t.TempDir())
	if err := os.MkdirAll(filepath.Join(cfg2.Output, "runs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg2.Output, "results.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(t.Context(), cfg2, Options{NoHistory: true}); err != nil {
		t.Errorf("folder with only bench run's names: %v", err)
	}
	// With our manifest.json, other files beside it are fine (and kept).
	if err := os.WriteFile(filepath.Join(cfg2.Output, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(t.Context(), cfg2, Options{NoHistory: true}); err != nil {
		t.Errorf("folder with a bench run manifest.json and a user file: %v", err)
	}
}

// TestOutputCancelMidWrite: Ctrl-C while the outputs are being written
// (after the first run file is staged) leaves the earlier run's outputs
// byte for byte, runs/ included, and no staging folder.
func TestOutputCancelMidWrite(t *testing.T) {
	dir := t.TempDir()
	cfg := loadSmall(t, dir)
	if _, err := Run(t.Context(), cfg, Options{NoHistory: true}); err != nil {
		t.Fatal(err)
	}
	snapshot := func() map[string][]byte {
		m := map[string][]byte{}
		filepath.WalkDir(cfg.Output, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(p)
				m[p] = b
			}
			return nil
		})
		return m
	}
	before := snapshot()
	cfg2 := loadSmall(t, dir)
	cfg2.Retrievers = cfg2.Retrievers[:1]
	cfg2.K = []int{1, 2, 3}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	staged := 0
	testHookStaged = func(string) {
		if staged++; staged == 1 {
			cancel()
		}
	}
	defer func() { testHookStaged = nil }()
	if _, err := Run(ctx, cfg2, Options{NoHistory: true}); err == nil {
		t.Fatal("run cancelled mid-write: no error")
	}
	if staged != 1 {
		t.Errorf("%d files staged after the cancel, want 1 (writing stops)", staged)
	}
	after := snapshot()
	if len(after) != len(before) {
		t.Errorf("%d files after the cancelled write, want %d", len(after), len(before))
	}
	for p, b := range before {
		if !bytes.Equal(after[p], b) {
			t.Errorf("%s changed by the cancelled write", p)
		}
	}
	if tmp, _ := filepath.Glob(filepath.Join(cfg.Output, ".*")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}
