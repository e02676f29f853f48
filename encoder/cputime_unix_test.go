//go:build unix

package encoder

import (
	"syscall"
	"time"
)

// cpuTime is the process's user + system CPU time so far (getrusage
// RUSAGE_SELF). On a loaded machine it measures the work a computation
// costs, whatever share of the cores the scheduler gave it.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
