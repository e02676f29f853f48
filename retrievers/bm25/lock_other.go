//go:build !unix

package bm25

import (
	"errors"
	"os"
)

// lockFile is not supported here: builders do not lock (New still builds),
// and RemoveStaleBuilds never takes a folder with a lock file for stale.
func lockFile(f *os.File, wait bool) error {
	if wait {
		return nil
	}
	return errors.New("file locks not supported on this platform")
}
