//go:build !unix

package history

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// lock creates path+".lock" exclusively, retrying for up to 30 s, and
// returns its release (which removes it). Unlike the flock used on Unix, a
// lock file left by a crashed process must be removed by hand; the error
// says so.
func lock(path string) (func(), error) {
	name := path + ".lock"
	deadline := time.Now().Add(30 * time.Second)
	for {
		f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			f.Close()
			return func() { os.Remove(name) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("history: lock: %w", err)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("history: %s held for over 30 s; remove it if no bench run is writing the history", name)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
