package gcpace

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		live, headroom uint64
		floor, ceiling int
		want           int
	}{
		{0, 256 * mb, 25, 100, 100},        // nothing live yet
		{100 * mb, 256 * mb, 25, 100, 100}, // headroom over live: GOGC's own
		{512 * mb, 256 * mb, 25, 100, 50},  // 3 M documents' corpus: half
		{1024 * mb, 256 * mb, 25, 100, 25},
		{4096 * mb, 256 * mb, 25, 100, 25}, // the floor
		{300 * mb, 256 * mb, 25, 80, 80},   // a user's lower GOGC is the ceiling
		{300 * mb, 256 * mb, 25, 200, 85},
	} {
		if got := Percent(c.live, c.headroom, c.floor, c.ceiling); got != c.want {
			t.Errorf("Percent(%d MB, %d MB, %d, %d) = %d, want %d", c.live/mb, c.headroom/mb, c.floor, c.ceiling, got, c.want)
		}
	}
}

// TestStart: with 64 MB live and a 16 MB headroom the percentage goes to
// 25 within a few intervals, and stop restores the setting in force before.
func TestStart(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	live := make([][]byte, 64)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	stop := Start(16<<20, 10)
	runtime.GC()
	var got int
	for range 40 {
		time.Sleep(interval)
		got = debug.SetGCPercent(100)
		debug.SetGCPercent(got)
		if got < 30 {
			break
		}
	}
	stop()
	runtime.KeepAlive(live)
	if got < 20 || got > 30 {
		t.Fatalf("GOGC %d with 64 MB live and a 16 MB headroom, want about 25", got)
	}
	if p := debug.SetGCPercent(100); p != 100 {
		t.Fatalf("GOGC %d after stop, want 100 restored", p)
	}
}

// TestStartRespectsUser: GOGC or GOMEMLIMIT in the environment leaves the
// collector alone.
func TestStartRespectsUser(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, "100")
			live := make([]byte, 64<<20)
			stop := Start(1<<20, 10)
			runtime.GC()
			time.Sleep(3 * interval)
			p := debug.SetGCPercent(100)
			stop()
			runtime.KeepAlive(live)
			if p != 100 {
				t.Fatalf("GOGC %d with %s set, want 100 left alone", p, env)
			}
		})
	}
}

// TestStartOverlapping: two runs in one process (tests calling bench run
// from several goroutines) whose pacing overlaps and ends in the order it
// began leave the collector as it was before the first: the second Start
// must not take the first's lowered percentage for the one to restore.
func TestStartOverlapping(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	live := make([][]byte, 64)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	stopA := Start(16<<20, 10)
	runtime.GC()
	for range 40 {
		time.Sleep(interval)
		p := debug.SetGCPercent(100)
		debug.SetGCPercent(p)
		if p < 30 {
			break
		}
	}
	stopB := Start(16<<20, 10)
	time.Sleep(2 * interval)
	stopA()
	time.Sleep(2 * interval)
	stopB()
	runtime.KeepAlive(live)
	if p := debug.SetGCPercent(100); p != 100 {
		t.Fatalf("GOGC %d after both runs stopped, want 100 restored", p)
	}
	stopB() // a second call does nothing (no panic, nothing changed)
	if p := debug.SetGCPercent(100); p != 100 {
		t.Fatalf("GOGC %d after a second stop, want 100", p)
	}
}
