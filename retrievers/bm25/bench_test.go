package bm25

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/retrievers"
)

// Benchmarks for docs/benchmarks/bm25.md. Run each alone so the process's
// peak RSS belongs to it, e.g.
//
//	go test ./retrievers/bm25 -run '^$' -bench 'Index/scifact' -benchtime 3x
//
// Metrics: docs/s indexed (index benchmarks), queries/s (search benchmarks,
// all queries of the set per op, Workers = GOMAXPROCS), peak-heap-MB (Go
// heap objects sampled every 5 ms during the op), peak-RSS-MB (the process's
// VmHWM at the end, Linux only), and per CPU-second rates (docs/cpu-s,
// queries/cpu-s: user + system time of the whole process, which stay
// meaningful when other processes share the cores).

// peakHeap samples live Go heap bytes until stop is called and returns the
// maximum seen.
func peakHeap() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 { close(done); wg.Wait(); return peak }
}

// cpuSeconds is the process's user + system CPU time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// vmHWM is the process's peak resident set in MB (0 when unknown).
func vmHWM() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// rssSampler samples the process's anonymous and file-backed resident
// memory (RssAnon, RssFile of /proc/self/status, Linux) every 20 ms until
// stop, which returns the largest of each in MB (0 when unknown): VmHWM
// counts both, and file-backed pages (the mapped segment files) are the
// page cache's, which the kernel drops under memory pressure.
func rssSampler() (stop func() (anon, file float64)) {
	read := func() (anon, file float64) {
		data, err := os.ReadFile("/proc/self/status")
		if err != nil {
			return 0, 0
		}
		for _, line := range strings.Split(string(data), "\n") {
			for name, v := range map[string]*float64{"RssAnon:": &anon, "RssFile:": &file} {
				if rest, ok := strings.CutPrefix(line, name); ok {
					kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
					*v = kb / 1024
				}
			}
		}
		return anon, file
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	var maxAnon, maxFile float64
	wg.Go(func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			a, f := read()
			maxAnon, maxFile = max(maxAnon, a), max(maxFile, f)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	return func() (float64, float64) { close(done); wg.Wait(); return maxAnon, maxFile }
}

type benchSet struct {
	chunks  []corpus.Chunk
	queries []retrievers.Query
}

func benchData(b *testing.B, name string) benchSet {
	b.Helper()
	switch name {
	case "scifact":
		chunks, qs, _ := scifact(b)
		return benchSet{chunks, qs}
	case "synthetic50k":
		chunksView, err := corpus.Spec{Strategy: corpus.Whole, Title: true}.Chunk(synthetic(50000, 42))
		if err != nil {
			b.Fatal(err)
		}
		chunks := chunksView.Slice()
		return benchSet{chunks, syntheticQueries(300, 43)}
	}
	b.Fatalf("unknown bench set %q", name)
	return benchSet{}
}

// syntheticQueries returns n queries of 3–10 Zipf-distributed words drawn
// like synthetic's documents.
func syntheticQueries(n int, seed uint64) []retrievers.Query {
	rng := rand.New(rand.NewPCG(seed, 1))
	zipf := rand.NewZipf(rng, 1.1, 1, 20000)
	qs := make([]retrievers.Query, n)
	for i := range qs {
		var words []string
		for w := 0; w < 3+rng.IntN(8); w++ {
			words = append(words, fmt.Sprintf("w%d", zipf.Uint64()))
		}
		qs[i] = retrievers.Query{ID: strconv.Itoa(i), Text: strings.Join(words, " ")}
	}
	return qs
}

func BenchmarkIndex(b *testing.B) {
	for _, set := range []string{"scifact", "synthetic50k"} {
		for _, fields := range []string{FieldsFlat, FieldsMulti} {
			b.Run(set+"/"+fields, func(b *testing.B) {
				d := benchData(b, set)
				var peak uint64
				b.ResetTimer()
				cpu0 := cpuSeconds()
				for b.Loop() {
					stop := peakHeap()
					r, err := New(context.Background(), d.chunks, Options{Fields: fields})
					if err != nil {
						b.Fatal(err)
					}
					peak = max(peak, stop())
					r.Close()
				}
				b.ReportMetric(float64(len(d.chunks))*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
				b.ReportMetric(float64(len(d.chunks))*float64(b.N)/(cpuSeconds()-cpu0), "docs/cpu-s")
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
				b.ReportMetric(vmHWM(), "peak-RSS-MB")
			})
		}
	}
}

func BenchmarkSearch(b *testing.B) {
	for _, set := range []string{"scifact", "synthetic50k"} {
		for _, scoring := range []string{ScoringLucene, ScoringBleve} {
			b.Run(set+"/"+scoring, func(b *testing.B) {
				d := benchData(b, set)
				r, err := New(context.Background(), d.chunks, Options{Scoring: scoring})
				if err != nil {
					b.Fatal(err)
				}
				defer r.Close()
				var peak uint64
				b.ResetTimer()
				cpu0 := cpuSeconds()
				for b.Loop() {
					stop := peakHeap()
					if _, err := r.Search(context.Background(), d.queries, 100); err != nil {
						b.Fatal(err)
					}
					peak = max(peak, stop())
				}
				st := r.Stats()
				b.ReportMetric(float64(len(d.queries))*float64(b.N)/b.Elapsed().Seconds(), "queries/s")
				b.ReportMetric(float64(len(d.queries))*float64(b.N)/(cpuSeconds()-cpu0), "queries/cpu-s")
				b.ReportMetric(float64(st.LatencyP50.Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(st.LatencyP95.Microseconds())/1000, "p95-ms")
				b.ReportMetric(float64(st.IndexBytes)/(1<<20), "index-MB")
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
				b.ReportMetric(vmHWM(), "peak-RSS-MB")
			})
		}
	}
}
