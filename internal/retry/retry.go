// Package retry is the one retry loop and backoff of ragbench's HTTP
// clients: the Elasticsearch/OpenSearch client (retrievers/engine) and the
// user's retriever service (kinds' type http). A request that failed in a
// way worth retrying is sent again after a wait that doubles from
// Policy.Backoff (capped at MaxWait), or the server's Retry-After when it
// asks for longer, at most Policy.Retries times.
package retry

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// MaxWait caps every wait: the doubling backoff and a server's
// Retry-After.
const MaxWait = 30 * time.Second

// Policy says how often and how patiently a request is retried.
type Policy struct {
	// Retries is how many times a request is sent again after a failure
	// the caller's retry function accepts, ≥ 0 (0: never).
	Retries int
	// Backoff is the wait before the first retry, ≥ 0; retry i (from 1)
	// waits Backoff·2^(i−1), at most MaxWait.
	Backoff time.Duration
}

// After is implemented by errors that carry a server's Retry-After: the
// wait the server asked for (0 when none).
type After interface {
	RetryAfter() time.Duration
}

// Do calls send until it succeeds, fails with an error retry does not
// accept (or after ctx ended), or p.Retries retries are spent, waiting
// (Wait) before each retry. Errors: send's last, with "(after N retries)"
// when they were spent or "(interrupted: …)" when ctx ended during a wait.
func (p Policy) Do(ctx context.Context, send func() ([]byte, error), retry func(error) bool) ([]byte, error) {
	var last error
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			if attempt > p.Retries {
				return nil, fmt.Errorf("%w (after %d retries)", last, p.Retries)
			}
			if err := p.Wait(ctx, attempt, last); err != nil {
				return nil, fmt.Errorf("%w (interrupted: %v)", last, err)
			}
		}
		b, err := send()
		if err == nil {
			return b, nil
		}
		if ctx.Err() != nil || !retry(err) {
			return nil, err
		}
		last = err
	}
}

// Wait waits before retry attempt (≥ 1) after error last (nil when there
// is none to read): p.Backoff doubled per earlier retry, at most MaxWait,
// or last's Retry-After (After) when longer. Errors: ctx's, when it ends
// first.
func (p Policy) Wait(ctx context.Context, attempt int, last error) error {
	wait := p.Backoff << (attempt - 1)
	if wait > MaxWait || wait < 0 {
		wait = MaxWait
	}
	var ra After
	if errors.As(last, &ra) && ra.RetryAfter() > wait {
		wait = ra.RetryAfter()
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// ParseRetryAfter reads a Retry-After header given in seconds ("5",
// "0.5"), at most MaxWait; 0 for an empty or unreadable value (an HTTP
// date is not read: the backoff applies).
func ParseRetryAfter(h string) time.Duration {
	d, err := time.ParseDuration(h + "s")
	if err != nil || d < 0 {
		return 0
	}
	return min(d, MaxWait)
}
