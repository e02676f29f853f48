//go:build race

package bm25

// raceDetector is true in a -race build, where the exhaustive
// single-threaded checks (analysis, segment content) run on less input:
// they test no concurrency and the race set has a time budget.
const raceDetector = true
