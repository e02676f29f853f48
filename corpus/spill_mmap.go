//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris

package corpus

import (
	"os"

	"github.com/blevesearch/mmap-go"
	"golang.org/x/sys/unix"
)

// canSpill: this platform maps files and takes madvise (see Texts).
const canSpill = true

// mapFile maps the first size bytes of f read-only and shared.
func mapFile(f *os.File, size int) ([]byte, error) {
	m, err := mmap.MapRegion(f, size, mmap.RDONLY, 0, 0)
	return m, err
}

// release drops mem's pages from the process's page tables (MADV_DONTNEED:
// on a read-only shared file mapping the data stay in the page cache).
func release(mem []byte) { _ = unix.Madvise(mem, unix.MADV_DONTNEED) }
