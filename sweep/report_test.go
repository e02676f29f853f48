package sweep

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/report"
	"github.com/ragbench/ragbench/results"
)

// TestBestUsesTuningOnly: the best cell per chunking is the one with the
// highest tuning mean, even when another cell is better on held-out queries.
func TestBestUsesTuningOnly(t *testing.T) {
	cfg := &config.Config{PrimaryMetric: "ndcg", PromptK: 10}
	mk := func(name, ch string, tuning, held float64) results.CellResult {
		return results.CellResult{Name: ch + "/" + name, Chunking: config.Chunking{Name: ch}, Means: map[string]map[string]float64{
			results.GroupTuning: {"ndcg@10": tuning}, results.GroupHeldOut: {"ndcg@10": held}}}
	}
	cells := []results.CellResult{
		mk("a", "doc", 0.60, 0.70), // best held-out, not best tuning
		mk("b", "doc", 0.65, 0.50), // best tuning
		mk("a", "fixed-128", 0.40, 0.45),
	}
	best := bestPerChunking(cfg, cells)
	if len(best) != 2 || best[0].Cell != "doc/b" || best[0].HeldOut != 0.50 || best[1].Cell != "fixed-128/a" {
		t.Errorf("best = %+v, want doc/b (tuning 0.65, held-out 0.50) and fixed-128/a", best)
	}
}

// TestNoSliceGroup: queries without a slice label, beside labelled ones,
// form the slice "(none)" (bench eval's label) in results.json's groups,
// the dataset's slice list and report.md. The fixture is testdata/small
// with the kind of q3 and q4 removed; per query at k = 3 (see
// TestSmallSweep, every cell returns the same passages):
//
//	q3: hit 1, recall 1/2, P 1/3, RR 1, AP 1/2, nDCG 1/(1 + 1/log2 3)
//	q4: all 0
//
// so "(none)" = {q3, q4} has hit 1/2, recall 1/4, P 1/6, RR 1/2, AP 1/4,
// nDCG 0.613147/2 = 0.306574; "multi" keeps only q2 (all 1, P 2/3).
func TestNoSliceGroup(t *testing.T) {
	cfg, res := runSmallEdited(t, t.TempDir(), func(queries string) string {
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(queries), "\n") {
			if strings.Contains(l, `"q3"`) || strings.Contains(l, `"q4"`) {
				l = regexp.MustCompile(`, "kind": "[a-z]+"`).ReplaceAllString(l, "")
			}
			lines = append(lines, l)
		}
		return strings.Join(lines, "\n") + "\n"
	})
	if got := strings.Join(res.Dataset.Slices, ","); got != "(none),multi,single,unanswerable" {
		t.Errorf("slices %q, want (none),multi,single,unanswerable", got)
	}
	ndcgQ3 := 1 / (1 + 1/math.Log2(3))
	want := map[string]map[string]float64{
		"slice:(none)": {"hit_rate@3": 0.5, "recall@3": 0.25, "precision@3": 1.0 / 6, "mrr@3": 0.5, "map@3": 0.25, "ndcg@3": ndcgQ3 / 2},
		"slice:multi":  {"hit_rate@3": 1, "recall@3": 1, "precision@3": 2.0 / 3, "mrr@3": 1, "map@3": 1, "ndcg@3": 1},
	}
	for _, c := range res.Cells {
		for g, metrics := range want {
			for m, v := range metrics {
				if got := c.Means[g][m]; math.Abs(got-v) > 1e-12 {
					t.Errorf("%s %s %s = %.6f, want %.6f", c.Name, g, m, got, v)
				}
			}
		}
		if c.Counts["slice:(none)"] != 2 || c.Counts["slice:multi"] != 1 || c.Counts["slice:single"] != 1 {
			t.Errorf("%s counts %v, want (none) 2, multi 1, single 1", c.Name, c.Counts)
		}
	}
	b, err := os.ReadFile(filepath.Join(cfg.Output, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"slice:(none)": {`) {
		t.Error(`results.json: no "slice:(none)" group`)
	}
	rep := report.Markdown(res)
	if !strings.Contains(rep, "### (none) (2 answerable queries)\n\nQueries with no `kind` label.") {
		t.Errorf("report.md: no (none) slice section:\n%s", rep)
	}
	if !strings.Contains(rep, "| ndcg@3 ") || !strings.Contains(rep, "0.3066") {
		t.Error("report.md: (none) slice table lacks ndcg@3 = 0.3066")
	}
}

// TestReportNoVarianceWording: in testdata/small every cell returns the
// same passages for every query, so every pair's per-query differences
// are all zero; the notes must call the minimum detectable difference
// undefined, not "below 0.000 are noise".
func TestReportNoVarianceWording(t *testing.T) {
	cfg := loadSmall(t, t.TempDir())
	res, err := Run(t.Context(), cfg, Options{NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	rep := report.Markdown(res)
	if strings.Contains(rep, "is 0.000") || strings.Contains(rep, "noise") {
		t.Error("report.md gives a zero minimum detectable difference or calls differences noise")
	}
	if !strings.Contains(rep, "What 4 queries can show in ndcg@3 (α = 0.05, 80% power, paired t approximation): nothing to estimate (no counted comparison with per-query variance).") {
		t.Errorf("report.md lacks the undefined-MDD sentence:\n%s", rep)
	}
}

// TestReportNoHeldOut: with heldout.fraction 0 there is no held-out query,
// so the held-out columns have no mean ("—") and the text says so; before
// the fix they printed 0.0000, a number for a group of no queries.
func TestReportNoHeldOut(t *testing.T) {
	cfg := loadSmall(t, t.TempDir())
	cfg.HeldOut.Fraction = ptr(0.0)
	res, err := Run(t.Context(), cfg, Options{NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Dataset.HeldOut != 0 {
		t.Fatalf("%d held-out queries with fraction 0", res.Dataset.HeldOut)
	}
	rep := report.Markdown(res)
	sec := rep[strings.Index(rep, "## Best cell per chunking"):strings.Index(rep, "## Slices")]
	if !strings.Contains(sec, "there is no held-out query") {
		t.Errorf("no sentence about the missing held-out queries:\n%s", sec)
	}
	// Held-out is column 4 of the best-cell table, column 3 of the
	// tuning vs held-out table; data rows start "| doc" or "| fixed".
	best, vs, _ := strings.Cut(sec, "## Tuning vs held-out")
	for _, tc := range []struct {
		table string
		col   int
	}{{best, 4}, {vs, 3}} {
		rows := 0
		for _, l := range strings.Split(tc.table, "\n") {
			if !strings.HasPrefix(l, "| doc") && !strings.HasPrefix(l, "| fixed") {
				continue
			}
			rows++
			if cells := strings.Split(l, "|"); strings.TrimSpace(cells[tc.col]) != "—" {
				t.Errorf("held-out cell %q, want —: %s", strings.TrimSpace(cells[tc.col]), l)
			}
		}
		if rows == 0 {
			t.Errorf("no data rows in:\n%s", tc.table)
		}
	}
}

func ptr[T any](v T) *T { return &v }
