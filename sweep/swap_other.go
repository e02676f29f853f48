//go:build !linux

package sweep

import "errors"

// exchange is not available on this platform: swapDir falls back to two
// renames.
func exchange(a, b string) error { return errors.New("atomic exchange not supported") }
