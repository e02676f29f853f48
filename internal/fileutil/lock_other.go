//go:build !unix

package fileutil

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// Flock is not available here: it returns ErrNoFlock.
func Flock(f *os.File, wait bool) error { return ErrNoFlock }

// lockWait is how long Lock waits for a lock file held by another process.
const lockWait = 30 * time.Second

// Lock creates the lock file at path exclusively, retrying for up to 30 s,
// and returns its release (which removes it). Unlike the flock used on
// Unix, a lock file left by a crashed process must be removed by hand; the
// error says so.
func Lock(path string) (release func(), err error) {
	deadline := time.Now().Add(lockWait)
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("lock: %w", err)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s held for over 30 s; remove it if no process is using it", path)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
