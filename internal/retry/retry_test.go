package retry

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

type afterErr struct{ d time.Duration }

func (e afterErr) Error() string             { return "busy" }
func (e afterErr) RetryAfter() time.Duration { return e.d }

// TestDo checks the loop: retries counted, a refused error not retried,
// the last error named with the retries spent, and a wait cut by ctx.
func TestDo(t *testing.T) {
	p := Policy{Retries: 2, Backoff: time.Millisecond}
	n := 0
	_, err := p.Do(context.Background(), func() ([]byte, error) { n++; return nil, errors.New("down") }, func(error) bool { return true })
	if n != 3 || err == nil || err.Error() != "down (after 2 retries)" {
		t.Errorf("%d sends, %v; want 3 and \"down (after 2 retries)\"", n, err)
	}
	n = 0
	b, err := p.Do(context.Background(), func() ([]byte, error) {
		n++
		if n < 3 {
			return nil, errors.New("down")
		}
		return []byte("ok"), nil
	}, func(error) bool { return true })
	if string(b) != "ok" || err != nil || n != 3 {
		t.Errorf("%q, %v after %d sends", b, err, n)
	}
	n = 0
	_, err = p.Do(context.Background(), func() ([]byte, error) { n++; return nil, errors.New("bad request") }, func(error) bool { return false })
	if n != 1 || err.Error() != "bad request" {
		t.Errorf("not retried: %d sends, %v", n, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, err = Policy{Retries: 5, Backoff: time.Hour}.Do(ctx, func() ([]byte, error) { return nil, errors.New("down") }, func(error) bool { return true })
	if took := time.Since(t0); took > time.Second || err == nil || !strings.Contains(err.Error(), "down (interrupted: context deadline exceeded)") {
		t.Errorf("interrupted after %v: %v", took, err)
	}
}

// TestWait checks the doubling backoff, its cap, and a longer
// Retry-After taking over.
func TestWait(t *testing.T) {
	p := Policy{Backoff: 10 * time.Millisecond}
	for _, c := range []struct {
		attempt  int
		last     error
		min, max time.Duration
	}{
		{1, nil, 10 * time.Millisecond, 200 * time.Millisecond},
		{3, nil, 40 * time.Millisecond, 300 * time.Millisecond},
		{1, afterErr{100 * time.Millisecond}, 100 * time.Millisecond, 400 * time.Millisecond},
		{3, afterErr{time.Millisecond}, 40 * time.Millisecond, 300 * time.Millisecond},
	} {
		t0 := time.Now()
		if err := p.Wait(context.Background(), c.attempt, c.last); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(t0); took < c.min || took > c.max {
			t.Errorf("attempt %d after %v: waited %v, want [%v, %v]", c.attempt, c.last, took, c.min, c.max)
		}
	}
}

// TestParseRetryAfter checks seconds, the cap and what is not read.
func TestParseRetryAfter(t *testing.T) {
	for h, want := range map[string]time.Duration{"": 0, "2": 2 * time.Second, "0.5": 500 * time.Millisecond, "600": MaxWait,
		"-1": 0, "Wed, 21 Oct 2015 07:28:00 GMT": 0} {
		if got := ParseRetryAfter(h); got != want {
			t.Errorf("ParseRetryAfter(%q) = %v, want %v", h, got, want)
		}
	}
}
