package main

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/ragbench/ragbench/internal/every"
)

// BenchmarkScaleRun runs `bench run` on $RAGBENCH_SCALE_CONFIG (the config
// scripts/bench-scale.sh writes, e.g. .bench-scale/run-1000000-t1/scale.yaml)
// in-process with a fresh cache and output folder, so that pprof can profile
// the whole command (issue 27, docs/benchmarks/bm25.md):
//
//	RAGBENCH_SCALE_CONFIG=$PWD/.bench-scale/run-1000000-t1/scale.yaml RAGBENCH_SCALE_HEAP=/tmp/heap.out \
//	  GOMAXPROCS=1 go test -run '^$' -bench ScaleRun -benchtime 1x -timeout 2h -cpuprofile /tmp/cpu.out ./cmd/bench
//
// $RAGBENCH_SCALE_HEAP, when set, receives the heap profile taken when the
// live heap was largest (sampled every 200 ms): what the memory is at the
// peak, not at the end. Skipped without $RAGBENCH_SCALE_CONFIG.
func BenchmarkScaleRun(b *testing.B) { scaleRun(b) }

// BenchmarkScaleCheck runs `bench run --check` on the same config: loading
// and checking the dataset alone (-bench ScaleCheck, as above).
func BenchmarkScaleCheck(b *testing.B) { scaleRun(b, "--check") }

func scaleRun(b *testing.B, flags ...string) {
	cfg := os.Getenv("RAGBENCH_SCALE_CONFIG")
	if cfg == "" {
		b.Skip("set RAGBENCH_SCALE_CONFIG to a bench run config (scripts/bench-scale.sh writes one)")
	}
	for b.Loop() {
		dir := b.TempDir()
		stop := heapAtPeak(b, os.Getenv("RAGBENCH_SCALE_HEAP"))
		args := append([]string{"run", "--no-history", "--progress", "plain"}, flags...)
		code := run(io.Discard, os.Stderr, append(args,
			"--cache-dir", filepath.Join(dir, "cache"), "--output", filepath.Join(dir, "out"), cfg))
		stop()
		if code != 0 {
			b.Fatalf("bench run exited %d", code)
		}
	}
}

// heapAtPeak writes a heap profile to path (when not empty) each time the
// live heap exceeds its largest value so far by 20 %, until stop is called.
func heapAtPeak(b *testing.B, path string) (stop func()) {
	if path == "" {
		return func() {}
	}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	return every.Start(200*time.Millisecond, func() bool {
		metrics.Read(sample)
		if v := sample[0].Value.Uint64(); v > peak+peak/5 {
			peak = v
			runtime.GC() // the profile's in-use figures are as of the last GC
			if f, err := os.Create(path); err == nil {
				pprof.WriteHeapProfile(f)
				f.Close()
			}
		}
		return true
	})
}
