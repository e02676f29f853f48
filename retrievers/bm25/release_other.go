//go:build !linux && !darwin && !freebsd

package bm25

// releaseMapped does nothing where madvise is unavailable: a segment's
// pages stay mapped into the process until Close (see release_madvise.go).
func releaseMapped([]byte) {}
