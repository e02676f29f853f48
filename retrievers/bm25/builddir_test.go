package bm25

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func buildDirs(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), buildPrefix) {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestRemoveStaleBuilds: which build folders are left alone and which are
// removed, case by case.
func TestRemoveStaleBuilds(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	mk := func(name string, lock bool, age time.Duration) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Join(p, "index"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(p, "index", "seg"), []byte("half an index"), 0o644)
		if lock {
			os.WriteFile(filepath.Join(p, buildLockName), nil, 0o644)
		}
		os.Chtimes(p, now.Add(-age), now.Add(-age))
		return p
	}
	mk(buildPrefix+"dead", true, 0)                        // lock file nobody holds: a dead builder → removed
	mk(buildPrefix+"oldnolock", false, 2*time.Hour)        // no lock file, 2h old > StaleBuildAge → removed
	mk(buildPrefix+"newnolock", false, time.Minute)        // no lock file, 1 min old → kept
	mk("bm25-0123456789abcdef01234567", true, 3*time.Hour) // a finished index: not a build folder → kept
	live, release, err := newBuildDir(dir)                 // held by this process → kept
	if err != nil {
		t.Fatal(err)
	}
	removed, err := RemoveStaleBuilds(dir, now)
	if err != nil {
		t.Fatal(err)
	}
	for i := range removed {
		removed[i] = filepath.Base(removed[i])
	}
	slices.Sort(removed)
	if want := []string{buildPrefix + "dead", buildPrefix + "oldnolock"}; !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	left := buildDirs(t, dir)
	if want := []string{filepath.Base(live), buildPrefix + "newnolock"}; !slices.Equal(left, want) && !slices.Equal(left, []string{want[1], want[0]}) {
		t.Errorf("left %v, want %v", left, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "bm25-0123456789abcdef01234567", "index", "seg")); err != nil {
		t.Errorf("finished index touched: %v", err)
	}
	// Released (lock file gone, as just before the rename into place), the
	// folder is young and still kept; an hour later it is stale.
	release()
	if removed, _ := RemoveStaleBuilds(dir, now); len(removed) != 0 {
		t.Errorf("removed %v right after release, want nothing", removed)
	}
	if removed, _ := RemoveStaleBuilds(dir, time.Now().Add(StaleBuildAge+time.Minute)); len(removed) != 2 {
		t.Errorf("removed %v an hour later, want the released and the newnolock folders", removed)
	}
	if removed, err := RemoveStaleBuilds(filepath.Join(dir, "missing"), now); err != nil || removed != nil {
		t.Errorf("missing dir: %v, %v; want nothing and no error", removed, err)
	}
}

// TestStaleBuildOfKilledProcess: a build folder locked by another process
// is kept while that process lives and removed once it is killed (as by a
// second Ctrl-C), since the kernel drops the lock with the process.
func TestStaleBuildOfKilledProcess(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldBuildDir$")
	cmd.Env = append(os.Environ(), "BM25_HOLD_BUILD_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "built ") {
		t.Fatalf("helper said %q, %v", line, err)
	}
	held := strings.TrimSpace(strings.TrimPrefix(line, "built "))
	if removed, err := RemoveStaleBuilds(dir, time.Now()); err != nil || len(removed) != 0 {
		t.Fatalf("while the builder lives: removed %v, %v; want nothing", removed, err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	removed, err := RemoveStaleBuilds(dir, time.Now())
	if err != nil || len(removed) != 1 || removed[0] != held {
		t.Fatalf("after the builder was killed: removed %v, %v; want [%s]", removed, err, held)
	}
}

// TestHelperHoldBuildDir is the other process of TestStaleBuildOfKilledProcess.
func TestHelperHoldBuildDir(t *testing.T) {
	dir := os.Getenv("BM25_HOLD_BUILD_DIR")
	if dir == "" {
		t.Skip("helper process only")
	}
	p, _, err := newBuildDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("built %s\n", p)
	time.Sleep(time.Minute) // killed by the parent
}

// TestBuildCleanup: a cancelled build leaves no build folder; a build
// folder left by a dead process is removed by the next New; a finished
// index folder holds no lock file.
func TestBuildCleanup(t *testing.T) {
	dir := t.TempDir()
	chunks := chunksOf(t, false, synthetic(50, 2)...)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New(ctx, chunks, Options{Dir: dir}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled New: err = %v, want context.Canceled", err)
	}
	if left := buildDirs(t, dir); len(left) != 0 {
		t.Errorf("cancelled build left %v", left)
	}
	dead := filepath.Join(dir, buildPrefix+"123")
	os.MkdirAll(filepath.Join(dead, "index"), 0o755)
	os.WriteFile(filepath.Join(dead, buildLockName), nil, 0o644)
	r := newRetriever(t, chunks, Options{Dir: dir})
	if left := buildDirs(t, dir); len(left) != 0 {
		t.Errorf("after New: build folders %v left, want none", left)
	}
	key, _, err := cacheKey(context.Background(), Chunks(chunks), r.opts)
	if err != nil {
		t.Fatal(err)
	}
	final := filepath.Join(dir, "bm25-"+key[:24])
	if _, err := os.Stat(filepath.Join(final, buildLockName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("index folder holds a lock file (err %v)", err)
	}
}

// TestStaleRemovedWhenOpeningCached: a New that only opens a cached index
// also removes build folders left by dead processes.
func TestStaleRemovedWhenOpeningCached(t *testing.T) {
	dir := t.TempDir()
	chunks := chunksOf(t, false, synthetic(30, 4)...)
	newRetriever(t, chunks, Options{Dir: dir})
	dead := filepath.Join(dir, buildPrefix+"456")
	os.MkdirAll(dead, 0o755)
	os.WriteFile(filepath.Join(dead, buildLockName), nil, 0o644)
	newRetriever(t, chunks, Options{Dir: dir})
	if left := buildDirs(t, dir); len(left) != 0 {
		t.Errorf("build folders %v left after opening the cached index", left)
	}
}
