//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris

package mapped

import "golang.org/x/sys/unix"

// CanRelease reports whether Release drops pages on this platform (the
// Unix systems with madvise); elsewhere it does nothing.
const CanRelease = true

// Release drops the process's page-table entries of b, all or part of a
// read-only shared file mapping (see the package comment). An error only
// leaves the pages resident, so it is ignored; an empty b is nothing.
func Release(b []byte) {
	if len(b) > 0 {
		_ = unix.Madvise(b, unix.MADV_DONTNEED)
	}
}
