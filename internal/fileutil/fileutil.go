// Package fileutil owns how ragbench puts files on disk, so that every
// package writes, locks and swaps them one way:
//
//   - WriteAtomic and WriteStream replace a file atomically (renameio: a
//     temporary file in the same folder, fsync, rename), creating its
//     folder: a reader sees the old content or the new, never a part, and a
//     failed or interrupted write leaves the old file as it was. New files
//     get mode 0644 whatever the umask; an existing file keeps its mode.
//     A symbolic link is written through (the file it points at is
//     replaced, the link stays); a device, named pipe or this process's
//     stdout/stderr is appended to in place, never replaced (writeTarget).
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
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

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
// 0644 regardless of the umask; an existing file keeps its mode. A path
// that is a symbolic link, a device, a named pipe or stdout is handled as
// writeTarget says (never replaced by a regular file). Errors from the
// write name the path ("path: error").
func WriteAtomic(path string, data []byte) error {
	target, special, err := writeTarget(path)
	if err != nil {
		return err
	}
	if special {
		return writeInPlace(path, func(w io.Writer) error { _, err := w.Write(data); return err })
	}
	path = target
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
	target, special, err := writeTarget(path)
	if err != nil {
		return err
	}
	if special {
		return writeInPlace(path, write)
	}
	path = target
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

// writeTarget decides how WriteAtomic and WriteStream write path, whose
// replacement by a rename must not destroy what the path names:
//
//   - an existing folder is an error ("is a directory": the rename would
//     fail only after the write, with a confusing "file exists");
//   - a symbolic link to a file: target is the file it points at, which is
//     replaced (renaming over the link made it a regular file and left the
//     file it pointed at unchanged); a link to nothing is an error naming
//     path (which file was meant is unknown);
//   - special: an existing file that is not a regular file (a device such
//     as /dev/null or /dev/full, a named pipe, /dev/stdout on a terminal or
//     pipe) or that is this process's stdout or stderr (/dev/stdout
//     redirected to a file) is written in place by writeInPlace, since a
//     rename would replace it by a regular file and report success;
//   - otherwise target is path.
func writeTarget(path string) (target string, special bool, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		if lfi, lerr := os.Lstat(path); lerr == nil && lfi.Mode()&os.ModeSymlink != 0 {
			return "", false, fmt.Errorf("%s: a symbolic link to a file that cannot be opened (%v): remove the link or point it at a file", path, err)
		}
		return path, false, nil // a new file (or an error the write reports)
	}
	switch {
	case fi.IsDir():
		return "", false, fmt.Errorf("%s: is a directory, want a file path", path)
	case !fi.Mode().IsRegular() || isStdio(fi):
		return path, true, nil
	}
	if lfi, err := os.Lstat(path); err == nil && lfi.Mode()&os.ModeSymlink != 0 {
		resolved, err := filepath.EvalSymlinks(path)
		if err != nil {
			return "", false, fmt.Errorf("%s: %w", path, err)
		}
		return resolved, false, nil
	}
	return path, false, nil
}

// isStdio reports whether fi is the file of this process's stdout or
// stderr.
func isStdio(fi os.FileInfo) bool {
	for _, f := range []*os.File{os.Stdout, os.Stderr} {
		if sfi, err := f.Stat(); err == nil && os.SameFile(fi, sfi) {
			return true
		}
	}
	return false
}

// writeInPlace writes to path, a special file (writeTarget), as a shell's
// ">>" does: appending (so stdout redirected to a file keeps what was
// written before), never creating or replacing it. It is opened
// non-blocking, so that a named pipe with no reader is an error at once
// (ENXIO) instead of a wait for a reader; writes still wait for room in
// the pipe (Go's poller). Errors name the path; a device's own (ENOSPC
// from /dev/full) are returned, not lost.
func writeInPlace(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ENXIO) {
		return fmt.Errorf("%s: a named pipe that nothing reads (%w): start its reader first, or give a file path", path, err)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil && !strings.HasPrefix(err.Error(), path) {
		return fmt.Errorf("%s: %w", path, err)
	}
	return err
}
