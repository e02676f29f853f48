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

// Anon returns n bytes of zeroed, writable memory outside the Go heap (an
// anonymous private mapping), for a long-lived table whose bytes hold no
// pointer into the Go heap: the collector neither counts it in the live
// heap (whose size sets how far the heap may grow before the next
// collection) nor scans it. Its pages count in the process's RSS (RssAnon)
// once written, not before. Free unmaps it. ok is false when the mapping
// is refused (or n ≤ 0).
func Anon(n int) (b []byte, ok bool) {
	if n <= 0 {
		return nil, false
	}
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	return b, err == nil
}

// Free unmaps b, exactly a slice Anon returned; nothing may use its
// memory afterwards. An error (b not such a slice) is ignored.
func Free(b []byte) {
	if len(b) > 0 {
		_ = unix.Munmap(b)
	}
}
