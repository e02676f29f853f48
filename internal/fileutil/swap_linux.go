package fileutil

import "golang.org/x/sys/unix"

// Exchange swaps the paths a and b (both must exist; files or folders) in
// one atomic step with renameat2(RENAME_EXCHANGE) (Linux 3.15+). An error
// (EINVAL on a file system without the flag, ENOENT, ...) means nothing
// was changed.
func Exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
