//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris)

package mapped

// CanRelease reports whether Release drops pages on this platform: not
// here (no madvise).
const CanRelease = false

// Release does nothing where madvise is unavailable: the pages stay
// resident until the mapping is closed.
func Release([]byte) {}

// Anon has no anonymous mappings here: it returns nil, false.
func Anon(int) ([]byte, bool) { return nil, false }

// Free does nothing here (Anon returns nothing).
func Free([]byte) {}
