//go:build unix

package history

import (
	"fmt"
	"os"
	"syscall"
)

// lock takes an exclusive flock(2) on path+".lock" (created if needed and
// left in place) and returns its release. The kernel drops the lock if the
// process dies, so a crash never leaves the history locked.
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
