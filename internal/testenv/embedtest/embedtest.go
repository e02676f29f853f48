// Package embedtest loads ONNX embedders for end-to-end tests the one way
// they share: all cores, behind the on-disk embedding cache. It lives apart
// from package testenv and testenv/beir so that only tests that embed link
// ONNX Runtime's bindings (package encoder).
package embedtest

import (
	"runtime"
	"testing"

	"github.com/ragbench/ragbench/encoder"
	"github.com/ragbench/ragbench/internal/testenv"
)

// Cached loads the embedder in model folder dir with IntraOpThreads =
// GOMAXPROCS, wraps it in an encoder.CachedEmbedder on
// testenv.EmbeddingCache(), and closes the embedder when t and its subtests
// finish (t.Cleanup). ONNX Runtime must already be initialised
// (encoder.Init). Any error fails the test.
func Cached(t testing.TB, dir string) *encoder.CachedEmbedder {
	t.Helper()
	e, err := encoder.LoadEmbedder(dir, encoder.Options{IntraOpThreads: runtime.GOMAXPROCS(0)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	c, err := encoder.NewCachedEmbedder(e, testenv.EmbeddingCache())
	if err != nil {
		t.Fatal(err)
	}
	return c
}
