// Package fileutil holds the small file helpers several ragbench packages
// share: a content hash and an atomic write that creates folders.
package fileutil

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// SHA256 returns the SHA-256 of the file's bytes as 64 lowercase hex digits.
// Errors: the file cannot be opened (the *os.PathError as is) or read
// ("path: error").
func SHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// WriteAtomic creates path's folder (mode 0755) and writes data atomically
// with renameio (temporary file in the same folder, fsync, rename), so
// readers see the old content or the new, never a part. New files get mode
// 0644 regardless of the umask; an existing file keeps its mode. Errors from
// the write name the path ("path: error").
func WriteAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := renameio.WriteFile(path, data, 0o644, renameio.WithTempDir(dir), renameio.IgnoreUmask()); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
