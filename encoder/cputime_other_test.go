//go:build !unix

package encoder

import "time"

// cpuTime is 0 where getrusage is not available: the cpu_* metrics are
// then not reported.
func cpuTime() time.Duration { return 0 }
