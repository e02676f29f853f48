package every

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestStart: f runs repeatedly, never after stop has returned, and stops by
// itself when it returns false.
func TestStart(t *testing.T) {
	var n atomic.Int64
	stop := Start(time.Millisecond, func() bool { n.Add(1); return true })
	for n.Load() < 3 {
		time.Sleep(time.Millisecond)
	}
	stop()
	after := n.Load()
	time.Sleep(10 * time.Millisecond)
	if n.Load() != after {
		t.Fatalf("f ran %d times after stop returned", n.Load()-after)
	}
	stop() // twice: harmless

	var m atomic.Int64
	stop = Start(time.Millisecond, func() bool { return m.Add(1) < 2 })
	time.Sleep(20 * time.Millisecond)
	if got := m.Load(); got != 2 {
		t.Fatalf("f ran %d times, want 2 (it returned false on the second)", got)
	}
	stop()
}
