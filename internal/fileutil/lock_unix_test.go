//go:build unix

package fileutil

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestLock: a second Lock waits until the first is released; Flock without
// waiting reports ErrLocked while the lock is held and succeeds after.
func TestLock(t *testing.T) {
	p := lockPath(t)
	release, lockErr := Lock(p)
	f, openErr := os.Open(p)
	if err := errors.Join(lockErr, openErr); err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := Flock(f, false); !errors.Is(err, ErrLocked) {
		t.Fatalf("Flock while held: %v, want ErrLocked", err)
	}
	got := make(chan error)
	go func() {
		r, err := Lock(p)
		if err == nil {
			r()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("second Lock returned (%v) while the first was held", err)
	case <-time.After(50 * time.Millisecond):
	}
	release()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if err := Flock(f, false); err != nil {
		t.Errorf("Flock after release: %v", err)
	}
}

// lockPath is a lock file path in a new temporary folder.
func lockPath(t *testing.T) string { return filepath.Join(t.TempDir(), "h.lock") }

// TestLockOpenError: a lock file that cannot be created is reported with
// its path.
func TestLockOpenError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "missing", "h.lock")
	if _, err := Lock(p); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Lock in a missing folder: %v", err)
	}
}
