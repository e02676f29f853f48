package fileutil

import (
	"errors"
	"io/fs"
	"os"
)

// SwapDir moves the folder newDir to dst. When dst does not exist it is a
// rename. Otherwise the two are exchanged in one atomic step where the
// platform and file system can (Exchange), so that a reader of dst sees
// the old folder or the new, never none; newDir then holds the old
// content, for the caller to remove. Where they cannot, dst is first
// renamed to newDir+".old" and newDir to dst (the old content is left in
// newDir+".old"; if the second rename fails the first is undone). Errors
// are the renames' *os.LinkError.
func SwapDir(newDir, dst string) error {
	if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
		return os.Rename(newDir, dst)
	}
	if Exchange(newDir, dst) == nil {
		return nil
	}
	old := newDir + ".old"
	if err := os.Rename(dst, old); err != nil {
		return err
	}
	err := os.Rename(newDir, dst)
	if err != nil {
		os.Rename(old, dst) // put the old folder back; err says what failed
	}
	return err
}

// SyncDir fsyncs the folder dir so that renames in it survive a crash. It
// is best effort: some platforms and file systems cannot sync a folder, and
// a failure is not reported.
func SyncDir(dir string) {
	if f, err := os.Open(dir); err == nil {
		f.Sync()
		f.Close()
	}
}
