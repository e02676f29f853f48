package fuzzwatch

import (
	"testing"
	"time"
)

// TestStopDisarms: a stopped watch never fires (if it did, its panic would
// crash this test binary).
func TestStopDisarms(t *testing.T) {
	stop := Start(20 * time.Millisecond)
	stop()
	stop()
	time.Sleep(60 * time.Millisecond)
}
