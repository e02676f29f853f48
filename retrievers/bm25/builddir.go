package bm25

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ragbench/ragbench/internal/fileutil"
)

// Build folders. New builds an on-disk index in a temporary folder
// Dir/.bm25-build-<random> and renames it into place when complete. While
// it builds, the folder holds a lock file (.lock) on which the building
// process keeps an exclusive flock; the kernel releases the lock when that
// process ends, however it ends (a second Ctrl-C, kill -9, a crash). A
// folder whose lock can be taken is therefore left over by a dead process.
const (
	buildPrefix   = ".bm25-build-"
	buildLockName = ".lock"
	// StaleBuildAge is how old (modification time) a build folder without
	// a lock file must be before RemoveStaleBuilds removes it: such folders
	// were left by versions that did not lock, or by a builder stopped
	// between creating the folder and its lock (a window of microseconds).
	StaleBuildAge = time.Hour
)

// newBuildDir creates a locked build folder under dir. release removes
// the lock file (before the folder is renamed into place) and unlocks; it
// is safe to call twice.
func newBuildDir(dir string) (path string, release func(), err error) {
	for attempt := 0; attempt < 3; attempt++ {
		tmp, err := os.MkdirTemp(dir, buildPrefix)
		if err != nil {
			return "", nil, err
		}
		lockPath := filepath.Join(tmp, buildLockName)
		f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			os.RemoveAll(tmp)
			return "", nil, err
		}
		// Without flock (fileutil.ErrNoFlock) builders do not lock: New
		// still builds, and RemoveStaleBuilds never takes a folder with a
		// lock file for stale.
		if err := fileutil.Flock(f, true); err != nil && !errors.Is(err, fileutil.ErrNoFlock) {
			f.Close()
			os.RemoveAll(tmp)
			return "", nil, fmt.Errorf("lock %s: %w", lockPath, err)
		}
		// A cleaner may have taken the lock between our create and lock and
		// removed the folder: then the file we hold is gone; start again.
		if st, err := os.Stat(lockPath); err != nil || !sameFile(f, st) {
			f.Close()
			continue
		}
		done := false
		return tmp, func() {
			if !done {
				done = true
				os.Remove(lockPath)
				f.Close() // closing the descriptor releases the flock
			}
		}, nil
	}
	return "", nil, errors.New("could not create a locked build folder (removed by another process three times)")
}

func sameFile(f *os.File, st fs.FileInfo) bool {
	fst, err := f.Stat()
	return err == nil && os.SameFile(fst, st)
}

// RemoveStaleBuilds removes the build folders under dir (Dir/.bm25-build-*)
// left by builds whose process has ended: those whose lock file is not
// locked by a live process, and those without a lock file whose
// modification time is more than StaleBuildAge before now. A folder being
// built by a live process (this one or another) is never touched. It
// returns the folders removed; a missing dir is not an error. New calls
// it on Dir before opening or building an index there.
func RemoveStaleBuilds(dir string, now time.Time) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), buildPrefix) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		stale, unlock := staleBuild(p, now)
		if !stale {
			continue
		}
		err := os.RemoveAll(p)
		unlock()
		if err != nil {
			errs = append(errs, fmt.Errorf("remove stale build folder: %w", err))
			continue
		}
		removed = append(removed, p)
	}
	return removed, errors.Join(errs...)
}

// staleBuild reports whether the build folder p was left by a dead
// process; when it was, the caller holds its lock until unlock is called.
func staleBuild(p string, now time.Time) (stale bool, unlock func()) {
	nop := func() {}
	f, err := os.OpenFile(filepath.Join(p, buildLockName), os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		st, err := os.Stat(p)
		return err == nil && now.Sub(st.ModTime()) > StaleBuildAge, nop
	}
	if err != nil {
		return false, nop
	}
	if fileutil.Flock(f, false) != nil {
		f.Close() // locked by a live builder, or locking unsupported
		return false, nop
	}
	return true, func() { f.Close() }
}
