//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris)

package corpus

import (
	"errors"
	"os"
)

// canSpill: no mmap and madvise here (or, on Windows, no unlinking an open
// file): LoadSpilled keeps the texts on the heap (see Texts).
const canSpill = false

func mapFile(*os.File, int) ([]byte, error) { return nil, errors.ErrUnsupported }

func release([]byte) {}
