//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris)

package mapped

// CanRelease reports whether Release drops pages on this platform: not
// here (no madvise).
const CanRelease = false

// Release does nothing where madvise is unavailable: the pages stay
// resident until the mapping is closed.
func Release([]byte) {}
