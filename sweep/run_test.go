package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/history"
	"github.com/ragbench/ragbench/results"
)

// loadSmall loads testdata/small.yaml with every output under a temporary
// folder.
func loadSmall(t *testing.T, out string) *Config {
	t.Helper()
	return loadConfig(t, "testdata/small.yaml", "testdata/small", out)
}

// loadConfig loads config file cfgPath over the data in folder data, with
// every output (results, cache, history) under folder out.
func loadConfig(t *testing.T, cfgPath, data, out string) *Config {
	t.Helper()
	cfg, err := Load(cfgPath, LoadOptions{
		DataDir:  data,
		Output:   filepath.Join(out, "out"),
		CacheDir: filepath.Join(out, "cache"),
		History:  filepath.Join(out, "history.csv"),
	})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// runSmallEdited runs testdata/small.yaml's sweep (no history) over a copy
// of testdata/small whose queries.jsonl is edit(the original's text),
// every output under folder dir.
func runSmallEdited(t *testing.T, dir string, edit func(queries string) string) (*Config, *results.Results) {
	t.Helper()
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	corpus, err := os.ReadFile("testdata/small/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	queries, err := os.ReadFile("testdata/small/queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "corpus.jsonl"), corpus, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "queries.jsonl"), []byte(edit(string(queries))), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load("testdata/small.yaml", LoadOptions{DataDir: data, Output: filepath.Join(dir, "out"), CacheDir: filepath.Join(dir, "cache")})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(t.Context(), cfg, Options{NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	return cfg, res
}

// TestSmallSweep runs the small labelled-query fixture end to end and checks
// the per-kind tables and the unanswerable report against values computed by
// hand below.
//
// The corpus has six passages p-1…p-6 with disjoint content words, so every
// retriever (BM25 with any k1, b, and RRF of two BM25s; whole passages or
// 4-word windows with MaxP) returns exactly the passages sharing a word with
// the query:
//
//	q1 "eiffel tower"               gold p-1        → [p-1]
//	q2 "brandenburg gate colosseum" gold p-2, p-3   → [p-2, p-3] in some order
//	q3 "shibuya crossing"           gold p-4, p-5   → [p-4]
//	q4 "pyramids giza"              gold p-6        → [p-5]
//	q5 "capital of peru"            gold none       → [p-6]
//	q6 "quantum chromodynamics"     gold none       → []
//
// Kind "single" = {q1, q4}, "multi" = {q2, q3}, "unanswerable" = {q5, q6}.
// Per query at k = 3 (trec_eval definitions):
//
//	q1: hit 1, recall 1, P 1/3, RR 1, AP 1, nDCG 1
//	q2: hit 1, recall 1, P 2/3, RR 1, AP (1/1 + 2/2)/2 = 1, nDCG 1
//	q3: hit 1, recall 1/2, P 1/3, RR 1, AP (1/1)/2 = 1/2,
//	    nDCG = 1 / (1 + 1/log2(3)) = 0.613147
//	q4: all 0
//
// and at k = 1: q1 all 1; q2 and q3 hit 1, recall 1/2, P 1, RR 1, AP 1/2,
// nDCG 1 (the ideal top 1 holds one relevant passage); q4 all 0.
func TestSmallSweep(t *testing.T) {
	dir := t.TempDir()
	cfg := loadSmall(t, dir)
	res, err := Run(t.Context(), cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(res.Cells); got != 6 {
		t.Fatalf("%d cells, want 2 chunkings × 3 retrievers", got)
	}
	ndcgQ3 := 1 / (1 + 1/math.Log2(3))
	checkSmallCells(t, res)
	if got := strings.Join(res.Dataset.Slices, ","); got != "multi,single,unanswerable" {
		t.Errorf("slices %q", got)
	}
	if res.Dataset.Answerable != 4 || res.Dataset.Unanswerable != 2 || res.Dataset.Tuning+res.Dataset.HeldOut != 4 {
		t.Errorf("dataset summary %+v", res.Dataset)
	}
	// Held-out split: all = weighted mean of tuning and held-out.
	c := res.Cells[0]
	nt, nh := float64(c.Counts["tuning"]), float64(c.Counts["heldout"])
	for _, m := range res.Metrics {
		mix := (nt*c.Means["tuning"][m] + nh*c.Means["heldout"][m]) / (nt + nh)
		if nt > 0 && nh > 0 && math.Abs(mix-c.Means["all"][m]) > 1e-12 {
			t.Errorf("%s: tuning/held-out mix %.6f ≠ all %.6f", m, mix, c.Means["all"][m])
		}
	}

	checkSmallOutputs(t, cfg.Output)
	// History.
	rowsH, err := history.Read(cfg.History)
	if err != nil || len(rowsH) != 1 {
		t.Fatalf("history: %v, %d rows", err, len(rowsH))
	}
	if v, ok := rowsH[0].Value("doc/bm25", "ndcg@3"); !ok || math.Abs(v-(2+ndcgQ3)/4) > 1e-12 {
		t.Errorf("history doc/bm25 ndcg@3 = %v, %v", v, ok)
	}
	// The row's commit is the manifest's (the checkout holding the config,
	// under go test), "+modified" for a tree with changes.
	var man results.Manifest
	if b, err := os.ReadFile(filepath.Join(cfg.Output, "manifest.json")); err != nil || json.Unmarshal(b, &man) != nil {
		t.Fatalf("manifest.json: %v", err)
	}
	want := man.GitCommit
	if man.GitDirty {
		want += "+modified"
	}
	if _, err := exec.LookPath("git"); err == nil && man.GitCommit == "" {
		t.Error("manifest.json: no git_commit for a config inside the checkout")
	}
	if rowsH[0].Commit != want {
		t.Errorf("history commit %q, want manifest.json's %q", rowsH[0].Commit, want)
	}
}

// checkSmallCells checks every cell of the small sweep against the values
// worked by hand in TestSmallSweep's comment: the slice and all-query
// means and counts, the unanswerable report (q5 gets p-6 on top, q6
// nothing) and the threshold analysis's counts.
func checkSmallCells(t *testing.T, res *results.Results) {
	t.Helper()
	ndcgQ3 := 1 / (1 + 1/math.Log2(3))
	want := map[string]map[string]float64{
		"slice:single": {
			"hit_rate@1": 0.5, "recall@1": 0.5, "precision@1": 0.5, "mrr@1": 0.5, "map@1": 0.5, "ndcg@1": 0.5,
			"hit_rate@3": 0.5, "recall@3": 0.5, "precision@3": 1.0 / 6, "mrr@3": 0.5, "map@3": 0.5, "ndcg@3": 0.5,
		},
		"slice:multi": {
			"hit_rate@1": 1, "recall@1": 0.5, "precision@1": 1, "mrr@1": 1, "map@1": 0.5, "ndcg@1": 1,
			"hit_rate@3": 1, "recall@3": 0.75, "precision@3": 0.5, "mrr@3": 1, "map@3": 0.75, "ndcg@3": (1 + ndcgQ3) / 2,
		},
		"all": {
			"hit_rate@3": 0.75, "recall@3": 2.5 / 4, "precision@3": (1.0/3 + 2.0/3 + 1.0/3) / 4, "map@3": 2.5 / 4, "ndcg@3": (2 + ndcgQ3) / 4,
		},
	}
	for _, c := range res.Cells {
		for g, metrics := range want {
			for m, v := range metrics {
				if got := c.Means[g][m]; math.Abs(got-v) > 1e-12 {
					t.Errorf("%s %s %s = %.6f, want %.6f", c.Name, g, m, got, v)
				}
			}
		}
		if c.Counts["slice:single"] != 2 || c.Counts["slice:multi"] != 2 || c.Counts["all"] != 4 {
			t.Errorf("%s counts %v", c.Name, c.Counts)
		}
		if _, ok := c.Means["slice:unanswerable"]; ok {
			t.Errorf("%s: unanswerable queries averaged as a slice", c.Name)
		}
		// Unanswerable report: q5 gets p-6 on top, q6 nothing.
		if len(c.Unanswerable) != 2 {
			t.Fatalf("%s: %d unanswerable rows, want 2", c.Name, len(c.Unanswerable))
		}
		u5, u6 := c.Unanswerable[0], c.Unanswerable[1]
		if u5.QueryID != "q5" || len(u5.Top) != 1 || u5.Top[0].ID != "p-6" || u5.Slice != "unanswerable" {
			t.Errorf("%s: q5 got %+v, want only p-6", c.Name, u5)
		}
		if u6.QueryID != "q6" || len(u6.Top) != 0 {
			t.Errorf("%s: q6 got %+v, want nothing", c.Name, u6)
		}
		th := c.Threshold
		if th == nil || th.Unanswerable.Queries != 2 || th.Unanswerable.Scored != 1 || th.Answerable.Queries != 4 || th.Answerable.Scored != 4 {
			t.Errorf("%s: threshold %+v, want 2 unanswerable (1 scored), 4 answerable (4 scored)", c.Name, th)
		}
	}
}

// checkSmallOutputs checks the small sweep's output folder: every file
// written, report.md's sections, misses.jsonl's rows (per cell, q3 misses
// p-5 and q4 misses p-6 at k = 3), a TREC run file of document ids after
// MaxP, and the manifest's input files.
func checkSmallOutputs(t *testing.T, out string) {
	t.Helper()
	for _, f := range []string{"report.md", "results.json", "misses.jsonl", "manifest.json", "runs/doc__bm25.trec", "runs/fixed-4o1__rrf.trec"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing output: %v", err)
		}
	}
	report, _ := os.ReadFile(filepath.Join(out, "report.md"))
	for _, s := range []string{"## Comparison at prompt_k = 3", "### multi (2 answerable queries)", "### unanswerable (0 answerable queries)", "`q5` capital of peru (unanswerable)", "1. `p-6`", "`q6` quantum chromodynamics (unanswerable)", "(nothing)", "## Tuning vs held-out", "Plan: each cell against baseline doc/bm25: 5 comparisons × 1 metric = 5; 5 identical"} {
		if !strings.Contains(string(report), s) {
			t.Errorf("report.md lacks %q", s)
		}
	}
	// misses.jsonl: per cell, q3 misses p-5 and q4 misses p-6 at k = 3.
	misses, _ := os.ReadFile(filepath.Join(out, "misses.jsonl"))
	var rows []results.Miss
	for _, line := range bytes.Split(bytes.TrimSpace(misses), []byte("\n")) {
		var m results.Miss
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, m)
	}
	if len(rows) != 12 {
		t.Errorf("%d misses rows, want 6 cells × 2 queries", len(rows))
	}
	for _, m := range rows {
		switch m.QueryID {
		case "q3":
			if len(m.Missing) != 1 || m.Missing[0].ID != "p-5" || m.Missing[0].Rank != 0 || len(m.Returned) != 1 || m.Returned[0].ID != "p-4" || !m.Returned[0].Relevant {
				t.Errorf("q3 miss %+v", m)
			}
		case "q4":
			if len(m.Missing) != 1 || m.Missing[0].ID != "p-6" || len(m.Returned) != 1 || m.Returned[0].ID != "p-5" || m.Returned[0].Relevant || !strings.Contains(m.Returned[0].Snippet, "pyramids") {
				t.Errorf("q4 miss %+v", m)
			}
		default:
			t.Errorf("unexpected miss %+v", m)
		}
	}
	// Run file: TREC format, doc-level ids after MaxP.
	trec, _ := os.ReadFile(filepath.Join(out, "runs", "fixed-4o1__bm25.trec"))
	if !strings.HasPrefix(string(trec), "q1 Q0 p-1 1 ") {
		t.Errorf("run file starts %q", firstLine(trec))
	}
	// results.Manifest and history.
	var man results.Manifest
	mb, _ := os.ReadFile(filepath.Join(out, "manifest.json"))
	if err := json.Unmarshal(mb, &man); err != nil {
		t.Fatal(err)
	}
	if len(man.Files) != 2 || man.Files[0].Role != "corpus" || len(man.Files[0].SHA256) != 64 {
		t.Errorf("manifest files %+v", man.Files)
	}
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\n")
	return s
}

// TestDeterministicAndCached: two runs of the same config give byte-identical
// results.json apart from the timings section, and the second reads every
// cell from the run cache; a third with a fresh cache and GOMAXPROCS=1 gives
// the same bytes.
func TestDeterministicAndCached(t *testing.T) {
	dir := t.TempDir()
	cfg := loadSmall(t, dir)
	first, err := Run(t.Context(), cfg, Options{NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	a := withoutTimings(t, filepath.Join(cfg.Output, "results.json"))
	for _, tm := range first.Timings {
		if tm.Cached {
			t.Errorf("first run: %s cached", tm.Cell)
		}
	}
	second, err := Run(t.Context(), cfg, Options{NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tm := range second.Timings {
		if !tm.Cached {
			t.Errorf("second run: %s not from the cache", tm.Cell)
		}
	}
	b := withoutTimings(t, filepath.Join(cfg.Output, "results.json"))
	if !bytes.Equal(a, b) {
		t.Error("results.json differs between two runs of the same config")
	}
	// A fresh cache (nothing reused) on one thread gives the same bytes too.
	cfg2 := loadSmall(t, t.TempDir())
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	if _, err := Run(t.Context(), cfg2, Options{NoHistory: true}); err != nil {
		t.Fatal(err)
	}
	if c := withoutTimings(t, filepath.Join(cfg2.Output, "results.json")); !bytes.Equal(a, c) {
		t.Error("results.json differs with a fresh cache")
	}
}

// withoutTimings returns results.json with its "timings" member removed.
func withoutTimings(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["timings"]; !ok {
		t.Fatal("results.json has no timings section")
	}
	delete(m, "timings")
	out, _ := json.Marshal(m)
	return out
}

// TestCancelKeepsOutputs: a cancelled run (Ctrl-C) returns an error and
// leaves the outputs of the previous run and the caches as they were.
func TestCancelKeepsOutputs(t *testing.T) {
	dir := t.TempDir()
	cfg := loadSmall(t, dir)
	if _, err := Run(t.Context(), cfg, Options{NoHistory: true}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(cfg.Output, "results.json"))
	cacheBefore, _ := filepath.Glob(filepath.Join(cfg.CacheDir, "runs", "*", "*.json"))
	cfg.K = []int{1, 2, 3} // a different sweep, so nothing would be identical
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := Run(ctx, cfg, Options{NoHistory: true}); err == nil {
		t.Fatal("cancelled run: no error")
	}
	after, _ := os.ReadFile(filepath.Join(cfg.Output, "results.json"))
	if !bytes.Equal(before, after) {
		t.Error("results.json changed by a cancelled run")
	}
	cacheAfter, _ := filepath.Glob(filepath.Join(cfg.CacheDir, "runs", "*", "*.json"))
	notes := func(paths []string) int { // the hybrids' notes beside their runs
		n := 0
		for _, p := range paths {
			if strings.HasSuffix(p, ".notes.json") {
				n++
			}
		}
		return n
	}
	if len(cacheAfter) != len(cacheBefore) || len(cacheBefore)-notes(cacheBefore) != 6 {
		t.Errorf("run cache: %d entries before, %d after; want 6 runs and their notes files, unchanged", len(cacheBefore), len(cacheAfter))
	}
	// renameio names its temporary files "." + base + digits.
	if tmp, _ := filepath.Glob(filepath.Join(cfg.Output, ".*")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}
