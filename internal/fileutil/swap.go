package fileutil

import "os"

// SyncDir fsyncs the folder dir so that renames in it survive a crash. It
// is best effort: some platforms and file systems cannot sync a folder, and
// a failure is not reported.
func SyncDir(dir string) {
	if f, err := os.Open(dir); err == nil {
		f.Sync()
		f.Close()
	}
}
