//go:build !unix

package fileutil

import "os"

// Inode has no inode number to give on this platform: 0, false.
func Inode(fi os.FileInfo) (uint64, bool) { return 0, false }
