//go:build !linux

package fileutil

import "errors"

// Exchange is not available on this platform: it always fails, and callers fall
// back to two renames.
func Exchange(a, b string) error { return errors.New("atomic exchange not supported") }
