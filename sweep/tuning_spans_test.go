package sweep

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/results"
)

// TestTunedCellOnSpanLabels: a tuned hybrid with span labels scores its
// settings as the sweep scores cells — on the chunking's derived chunk
// judgements and the span measures. Before, the grid search scored every
// setting on the dataset's qrels: with a span metric as the primary metric
// the run failed ("setting rrf …: no measure given"), and with nDCG the
// settings were scored on judgements that name no chunk of the chunking.
// The check is the cell's own scoring: the chosen setting's tuning and
// held-out means must equal the tuned cell's means in the main table, which
// come from the untuned scoring path. The labels are part of the tuning's
// cache key: a moved gold span tunes again.
func TestTunedCellOnSpanLabels(t *testing.T) {
	src, err := filepath.Abs("../examples/sotu")
	if err != nil {
		t.Fatal(err)
	}
	for _, primary := range []string{"span_recall", "ndcg"} {
		t.Run(primary, func(t *testing.T) {
			dir := t.TempDir()
			data := filepath.Join(dir, "data")
			if err := os.MkdirAll(filepath.Join(data, "corpus"), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"corpus/state_of_the_union.md", "questions.jsonl"} {
				b, err := os.ReadFile(filepath.Join(src, f))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(data, f), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cfgPath := filepath.Join(dir, "t.yaml")
			yaml := `name: tune
dataset: {corpus: corpus, queries: questions.jsonl, title: false}
chunking: [{strategy: sentence, sizes: [60]}]
retrievers:
  - {name: bm25, type: bm25}
  - {name: bm25b, type: bm25, k1: 1.5, b: 0.9}
  - {name: hy, type: hybrid, inputs: [bm25, bm25b], fusion: [rrf, combsum], weights: [[1, 1], [1, 0.2]]}
k: [1, 5]
metrics: [span_recall, ndcg]
primary_metric: PRIMARY
prompt_k: 5
significance: {permutations: 200}
`
			if err := os.WriteFile(cfgPath, []byte(strings.Replace(yaml, "PRIMARY", primary, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := loadConfig(t, cfgPath, data, dir)
			res, err := Run(t.Context(), cfg, Options{NoHistory: true})
			if err != nil {
				t.Fatal(err)
			}
			m := primary + "@5"
			cell := findCell(t, res, "sent-60/hy")
			if cell.Tuning == nil {
				t.Fatal("sent-60/hy has no tuning")
			}
			for group, got := range map[string]float64{results.GroupTuning: cell.Tuning.Chosen.Tuning, results.GroupHeldOut: cell.Tuning.Chosen.HeldOut} {
				if want := cell.Means[group][m]; math.Abs(got-want) > 1e-12 {
					t.Errorf("chosen setting's %s mean of %s = %.6f, the cell's = %.6f", group, m, got, want)
				}
			}

			// The same labels read back the tuning; a moved gold span
			// (one character later) tunes again.
			res, err = Run(t.Context(), cfg, Options{NoHistory: true})
			if err != nil {
				t.Fatal(err)
			}
			if !timing(t, res, "sent-60/hy").Cached {
				t.Error("a second run with the same labels tuned again")
			}
			labels := filepath.Join(data, "questions.jsonl")
			b, err := os.ReadFile(labels)
			if err != nil {
				t.Fatal(err)
			}
			// sotu-001's first span: "My administration announced …" at
			// 27346; shifted by one code point, its text dropped (offsets
			// only), so the labels still check.
			edited := strings.Replace(string(b), `"start": 27346, "end": 27425, "text": "My administration announced we’re cutting credit card late fees from $32 to $8."`, `"start": 27347, "end": 27425`, 1)
			if edited == string(b) {
				t.Fatal("fixture: sotu-001's first span not found")
			}
			if err := os.WriteFile(labels, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg = loadConfig(t, cfgPath, data, dir)
			if res, err = Run(t.Context(), cfg, Options{NoHistory: true}); err != nil {
				t.Fatal(err)
			}
			if timing(t, res, "sent-60/hy").Cached {
				t.Error("a moved gold span read back the tuning made on the old labels")
			}
		})
	}
}

func findCell(t *testing.T, res *results.Results, name string) results.CellResult {
	t.Helper()
	for _, c := range res.Cells {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no cell %s", name)
	return results.CellResult{}
}

func timing(t *testing.T, res *results.Results, name string) results.Timing {
	t.Helper()
	for _, tm := range res.Timings {
		if tm.Cell == name {
			return tm
		}
	}
	t.Fatalf("no timing of %s", name)
	return results.Timing{}
}
