package eval

import (
	"os"
	"strconv"
	"syscall"
	"testing"

	"github.com/ragbench/ragbench/eval/internal/synth"
)

// BenchmarkEvaluateRunFile measures the speed case — a synthetic run
// with 1,000 results per query and 20 relevant judged docs per query,
// evaluated for map, ndcg_cut.10, P.10, recall.100 and recip_rank, parsing
// included — at 1,000 and 10,000 queries (set RAGBENCH_BENCH_QUERIES to a
// comma-free number to add a size, e.g. 100000). It reports results/s (wall)
// and results/cpu-s (user + system CPU time of the process during the timed
// loop; the synthetic files are written before it).
func BenchmarkEvaluateRunFile(b *testing.B) {
	sizes := []int{1000, 10000}
	if s := os.Getenv("RAGBENCH_BENCH_QUERIES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		sizes = append(sizes, n)
	}
	ms, err := ParseMeasures([]string{"map", "ndcg_cut.10", "P.10", "recall.100", "recip_rank"})
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range sizes {
		b.Run("queries="+strconv.Itoa(n), func(b *testing.B) {
			dir := b.TempDir()
			qp, rp, err := synth.Write(dir, synth.Config{Queries: n, Docs: 1000, Rel: 20, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			qrels, _, err := ReadQrels(qp)
			if err != nil {
				b.Fatal(err)
			}
			cpu0 := cpuSeconds()
			b.ResetTimer()
			for b.Loop() {
				if _, _, err := EvaluateRunFile(qrels, rp, ms, DefaultOptions()); err != nil {
					b.Fatal(err)
				}
			}
			cpu := cpuSeconds() - cpu0
			b.ReportMetric(float64(n*1000)*float64(b.N)/b.Elapsed().Seconds(), "results/s")
			b.ReportMetric(float64(n*1000)*float64(b.N)/cpu, "results/cpu-s")
		})
	}
}

// cpuSeconds is the user + system CPU time of the process so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
