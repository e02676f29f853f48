package testenv

import (
	"context"
	"sync/atomic"
)

// CancelAt is a context whose Err is context.Canceled from its At-th call
// on (Calls counts the calls, safely from any goroutine): a cancellation
// at a known point of a computation that polls ctx.Err, without timing.
// Done is the embedded context's: code that waits on it is not cancelled.
type CancelAt struct {
	context.Context
	At    int64
	Calls atomic.Int64
}

// Err is context.Canceled once Err has been called At times or more,
// else nil.
func (c *CancelAt) Err() error {
	if c.Calls.Add(1) >= c.At {
		return context.Canceled
	}
	return nil
}
