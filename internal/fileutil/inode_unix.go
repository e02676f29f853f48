//go:build unix

package fileutil

import (
	"os"
	"syscall"
)

// Inode returns the inode number of the file fi describes (from os.Stat or
// os.Lstat) and true, or 0 and false where the platform has none. Within
// one file system it tells an entry apart from another that has taken its
// name, as after a rename or Exchange; sweep's commit journal records it.
func Inode(fi os.FileInfo) (uint64, bool) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino), true
	}
	return 0, false
}
