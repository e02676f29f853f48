// Package fileutil owns how ragbench puts files on disk, so that every
// package writes, locks and swaps them one way:
//
//   - WriteAtomic and WriteStream replace a file atomically (renameio: a
//     temporary file in the same folder, fsync, rename), creating its
//     folder: a reader sees the old content or the new, never a part, and a
//     failed or interrupted write leaves the old file as it was. New files
//     get mode 0644 whatever the umask; an existing file keeps its mode.
//   - Lock takes an exclusive lock file (flock(2) on Unix, retried on
//     EINTR; the kernel drops it when the process dies), Flock locks an
//     open file the same way.
//   - Exchange swaps two paths in one step where the platform can
//     (renameat2 RENAME_EXCHANGE on Linux; sweep's output commit builds
//     its all-or-nothing replacement on it); SyncDir makes renames in a
//     folder durable.
//   - SHA256 is the content hash of a file (model, dataset and config
//     fingerprints).
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
	if err := notDir(path); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := renameio.WriteFile(path, data, 0o644, renameio.WithTempDir(dir), renameio.IgnoreUmask()); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// WriteStream is WriteAtomic for output produced by a writer: write's
// bytes go to a pending file beside path (buffering them is write's
// concern), and path is replaced only when write returns nil and the file
// is synced. When write or the replacement fails, the pending file is
// removed and path is unchanged. Errors: write's own as is; those of
// creating and replacing the file name the path ("path: error").
func WriteStream(path string, write func(io.Writer) error) error {
	if err := notDir(path); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := renameio.NewPendingFile(path, renameio.WithTempDir(dir), renameio.WithPermissions(0o644), renameio.IgnoreUmask())
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer f.Cleanup() // a no-op after CloseAtomicallyReplace succeeded
	if err := write(f); err != nil {
		return err
	}
	if err := f.CloseAtomicallyReplace(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// notDir refuses a path that is an existing folder: renaming a written file
// onto it would fail only after the write, with a confusing "file exists".
func notDir(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s: is a directory, want a file path", path)
	}
	return nil
}
