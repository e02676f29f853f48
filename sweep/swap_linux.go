package sweep

import "golang.org/x/sys/unix"

// exchange swaps the paths a and b (both must exist) in one atomic step
// with renameat2(RENAME_EXCHANGE) (Linux 3.15+). An error (for example
// EINVAL on a file system without the flag) means nothing was changed.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
