//go:build unix

package fileutil

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Flock takes an exclusive flock(2) on f: waiting for it when wait is
// true, else failing at once with ErrLocked when another open file
// description holds it. A call interrupted by a signal (EINTR) is retried:
// Go's own handlers restart flock (SA_RESTART), but a handler installed by
// C code (cgo, the ONNX runtime) need not.
// The lock lasts until f is closed (or the process ends, however it ends).
// Errors: ErrLocked, or the flock error as a *os.SyscallError.
func Flock(f *os.File, wait bool) error {
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return ErrLocked
		}
		return os.NewSyscallError("flock", err)
	}
}

// Lock takes an exclusive lock on the lock file at path, created (mode
// 0644) if needed and left in place, waiting while another process holds
// it, and returns its release. Because the lock is a flock(2), the kernel
// drops it if the process dies, so a crash never leaves path locked. A
// second Lock of the same path in one process waits for the first release.
// Errors: "lock: " and the *os.PathError of opening path, or
// "lock path: error" from flock.
func Lock(path string) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	if err := Flock(f, true); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil // closing the descriptor releases the flock
}
