package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragbench/ragbench/internal/fileutil"
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

// sameOutputs reports each file of before that after lacks or holds with
// other bytes, and each file of after that before lacks: the folder an
// interrupted or failed commit must leave as it was.
func sameOutputs(t *testing.T, label string, before, after map[string][]byte) {
	t.Helper()
	for p, b := range before {
		if !bytes.Equal(after[p], b) {
			t.Errorf("%s: %s not the earlier run's (%d bytes, want %d)", label, p, len(after[p]), len(b))
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s: %s left, not the earlier run's", label, p)
		}
	}
}

// outputSnapshot maps every file under dir (staging folders and the
// folders themselves aside) to its bytes.
func outputSnapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), stagePrefix) {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			m[rel] = b
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestOutputRollback: when moving a finished output into place fails after
// runs/ was swapped in (the rename or exchange of report.md, the third
// entry), the folder is rolled back whole: the earlier run's runs/ (6
// cells), results.json, report.md, manifest.json... byte for byte, no file
// of the new 2-cell sweep, and the error names the folder and the entry.
// Both commit paths: with the atomic exchange, and with it unavailable
// (two renames per entry). A first run into a new folder that fails the
// same way leaves none of the outputs.
func TestOutputRollback(t *testing.T) {
	failOn := func(name string) func(a, b string) error {
		return func(a, b string) error {
			if filepath.Base(a) == name || filepath.Base(b) == name {
				return &os.LinkError{Op: "rename", Old: a, New: b, Err: os.ErrPermission}
			}
			return os.Rename(a, b)
		}
	}
	for _, withExchange := range []bool{true, false} {
		dir := t.TempDir()
		cfg := loadSmall(t, dir)
		if _, err := Run(t.Context(), cfg, Options{NoHistory: true}); err != nil {
			t.Fatal(err)
		}
		before := outputSnapshot(t, cfg.Output)
		cfg2 := loadSmall(t, dir)
		cfg2.Retrievers = cfg2.Retrievers[:1]
		cfg2.K = []int{1, 2, 3}
		rename = failOn("report.md")
		if withExchange {
			exchange = func(a, b string) error {
				if filepath.Base(b) == "report.md" {
					return &os.LinkError{Op: "renameat2", Old: a, New: b, Err: os.ErrPermission}
				}
				return fileutil.Exchange(a, b)
			}
		} else {
			exchange = func(a, b string) error { return errors.New("no exchange here") }
		}
		_, err := Run(t.Context(), cfg2, Options{NoHistory: true})
		rename, exchange = os.Rename, fileutil.Exchange
		if err == nil || !strings.Contains(err.Error(), cfg.Output) || !strings.Contains(err.Error(), "report.md") || !strings.Contains(err.Error(), "restored") {
			t.Errorf("exchange %v: error %v; want one naming the folder, report.md and the restored outputs", withExchange, err)
		}
		after := outputSnapshot(t, cfg.Output)
		sameOutputs(t, fmt.Sprintf("exchange %v", withExchange), before, after)
		if got := runFiles(t, cfg.Output); len(got) != 6 {
			t.Errorf("exchange %v: runs/ holds %d files after the rollback, want the earlier 6", withExchange, len(got))
		}
		if tmp, _ := filepath.Glob(filepath.Join(cfg.Output, stagePrefix+"*")); len(tmp) > 0 {
			t.Errorf("exchange %v: staging folders left: %v", withExchange, tmp)
		}
	}
	// A first run: nothing to restore, and nothing of it is left.
	cfg := loadSmall(t, t.TempDir())
	rename = failOn("manifest.json")
	_, err := Run(t.Context(), cfg, Options{NoHistory: true})
	rename = os.Rename
	if err == nil || !strings.Contains(err.Error(), "manifest.json") {
		t.Errorf("first run: error %v, want one naming manifest.json", err)
	}
	if left := outputSnapshot(t, cfg.Output); len(left) > 0 {
		t.Errorf("first run rolled back: %d files left in the output folder, want none", len(left))
	}
}

// TestOutputConcurrentRuns: two runs writing one new output folder at once
// do not interleave. The first holds the folder while it stages (held in
// the staging hook); the second waits for it instead of staging beside it
// or removing its staging folder, says so on stderr, then writes its own
// outputs. Both succeed, and the folder holds the second's (the last to
// finish) whole: its 2 run files, the cells its results.json lists.
func TestOutputConcurrentRuns(t *testing.T) {
	dir := t.TempDir()
	first, second := loadSmall(t, dir), loadSmall(t, dir)
	second.Retrievers = second.Retrievers[:1]
	var mu sync.Mutex
	staged := 0 // files staged, by both runs
	inFirst, release := make(chan struct{}), make(chan struct{})
	testHookStaged = func(string) {
		mu.Lock()
		staged++
		n := staged
		mu.Unlock()
		if n == 1 {
			close(inFirst)
			<-release
		}
	}
	defer func() { testHookStaged = nil }()
	errs := make(chan error, 2)
	go func() {
		_, err := Run(t.Context(), first, Options{NoHistory: true})
		errs <- err
	}()
	<-inFirst
	var stderr syncBuffer
	done2 := make(chan error, 1)
	go func() {
		_, err := Run(t.Context(), second, Options{NoHistory: true, Stderr: &stderr})
		done2 <- err
	}()
	time.Sleep(lockWaitNote + 500*time.Millisecond) // the second run reaches the lock and waits
	mu.Lock()
	calls := staged
	mu.Unlock()
	if calls != 1 {
		t.Errorf("the second run staged while the first held the folder (%d staging hook calls, want 1)", calls)
	}
	if !strings.Contains(stderr.String(), "another bench run is writing it") {
		t.Errorf("second run's stderr %q: want the waiting note", stderr.String())
	}
	close(release)
	if err := <-errs; err != nil {
		t.Errorf("first run: %v", err)
	}
	if err := <-done2; err != nil {
		t.Errorf("second run: %v", err)
	}
	want := []string{"doc__bm25.trec", "fixed-4o1__bm25.trec"}
	if got := runFiles(t, second.Output); !slices.Equal(got, want) {
		t.Errorf("runs/ = %v, want the second run's %v", got, want)
	}
	b, err := os.ReadFile(filepath.Join(second.Output, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct{ Cells []struct{ Name string } }
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Cells) != 2 {
		t.Errorf("results.json lists %d cells, want the second run's 2", len(res.Cells))
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestOutputRollbackFails: when a move fails and undoing the moves done
// fails too (every rename fails once report.md's did, exchange
// unavailable), the error says so, names the folder and where the earlier
// outputs are, and that staging folder is kept, holding the earlier
// results.json that could not be put back.
func TestOutputRollbackFails(t *testing.T) {
	dir := t.TempDir()
	cfg := loadSmall(t, dir)
	if _, err := Run(t.Context(), cfg, Options{NoHistory: true}); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(cfg.Output, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg2 := loadSmall(t, dir)
	cfg2.Retrievers = cfg2.Retrievers[:1]
	broken := false
	rename = func(a, b string) error {
		if broken || filepath.Base(b) == "report.md" {
			broken = true
			return &os.LinkError{Op: "rename", Old: a, New: b, Err: os.ErrPermission}
		}
		return os.Rename(a, b)
	}
	exchange = func(a, b string) error { return errors.New("no exchange here") }
	_, err = Run(t.Context(), cfg2, Options{NoHistory: true})
	rename, exchange = os.Rename, fileutil.Exchange
	if err == nil || !strings.Contains(err.Error(), "restoring the earlier outputs failed too") || !strings.Contains(err.Error(), cfg.Output) {
		t.Fatalf("error %v; want one saying the restore failed, naming the folder", err)
	}
	stages, _ := filepath.Glob(filepath.Join(cfg.Output, stagePrefix+"*"))
	if len(stages) != 1 || !strings.Contains(err.Error(), stages[0]) {
		t.Fatalf("staging folders %v, error %v; want the one kept named in the error", stages, err)
	}
	if kept, err := os.ReadFile(filepath.Join(stages[0], "results.json.old")); err != nil || !bytes.Equal(kept, before) {
		t.Errorf("kept staging folder: earlier results.json %d bytes, %v; want the earlier %d bytes", len(kept), err, len(before))
	}
	// The next run cleans up and writes a whole folder.
	if _, err := Run(t.Context(), cfg2, Options{NoHistory: true}); err != nil {
		t.Fatal(err)
	}
	if tmp, _ := filepath.Glob(filepath.Join(cfg.Output, stagePrefix+"*")); len(tmp) > 0 {
		t.Errorf("staging folders left after the next run: %v", tmp)
	}
}
