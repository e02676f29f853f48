//go:build linux || darwin || freebsd

package bm25

import "golang.org/x/sys/unix"

// releaseMapped drops the process's page-table entries of mapped, a
// read-only shared file mapping (zap's mapping of a segment file), with
// madvise(MADV_DONTNEED): nothing is lost, since the pages are the file's
// and stay in the page cache, and the next read of mapped faults them back
// in from there. The page cache, not the process, then holds the index:
// the kernel keeps it while memory allows and drops it under pressure. An
// error only leaves the pages resident, so it is ignored.
func releaseMapped(mapped []byte) {
	if len(mapped) > 0 {
		_ = unix.Madvise(mapped, unix.MADV_DONTNEED)
	}
}
