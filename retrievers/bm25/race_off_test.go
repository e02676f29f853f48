//go:build !race

package bm25

// raceDetector is true in a -race build (see race_on_test.go).
const raceDetector = false
