package history

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// benchRow is one run of a 20-cell × 6-metric sweep.
func benchRow() Row {
	row := Row{Time: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), ConfigHash: "c", DatasetHash: "d",
		Metrics: map[string]map[string]float64{}}
	for c := range 20 {
		ms := map[string]float64{}
		for _, m := range []string{"ndcg@10", "recall@100", "mrr@10", "map@100", "hit_rate@5", "precision@5"} {
			ms[m] = 0.123456789 * float64(c+1) / 20
		}
		row.Metrics[fmt.Sprintf("chunking-%d/retriever-%d", c/5, c%5)] = ms
	}
	return row
}

// BenchmarkAppend appends one 120-line run to a history that already holds
// 1,000 such runs (120,000 lines): Append re-reads and rewrites the whole
// file, so this is the cost of a bench run's history step after a long life.
func BenchmarkAppend(b *testing.B) {
	path := filepath.Join(b.TempDir(), "h.csv")
	row := benchRow()
	writeRuns(b, path, row, 1000)
	b.ResetTimer()
	for b.Loop() {
		if err := Append(path, row); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRead reads a history of 1,000 runs × 120 lines.
func BenchmarkRead(b *testing.B) {
	path := filepath.Join(b.TempDir(), "h.csv")
	row := benchRow()
	writeRuns(b, path, row, 1000)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Read(path); err != nil {
			b.Fatal(err)
		}
	}
}

// writeRuns writes n copies of row as runs 1..n (in one go: setting up with
// Append would copy the growing file n times).
func writeRuns(b *testing.B, path string, row Row, n int) {
	var sb strings.Builder
	w := csv.NewWriter(&sb)
	w.Write(Header)
	for i := 1; i <= n; i++ {
		row.Run = i
		w.WriteAll(records(row))
	}
	w.Flush()
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
}
