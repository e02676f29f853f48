package fileutil

import "errors"

// ErrLocked is returned by Flock without waiting when another open file
// description holds the lock.
var ErrLocked = errors.New("locked by another process")

// ErrNoFlock is returned by Flock on platforms without flock(2).
var ErrNoFlock = errors.New("file locks not supported on this platform")
