package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/gate"
	"github.com/ragbench/ragbench/internal/testenv"
)

// writeChunkingFixture writes a dataset where the chunk size matters, and
// the configs of two chunkings of it, fixed-4 and fixed-64 (words), with
// two BM25 retrievers each, gated on nDCG@1 with the paired t-test and
// Student-t intervals (so that scipy and statsmodels can say what the gate
// must find). Each of 35 questions asks for two words of its gold
// document: for 15 the words stand side by side at its start (any chunking
// finds it first), for 20 they stand 30 words apart, and a four-word
// distractor repeats the first word. Chunks of 4 words then split the gold
// pair and the distractor's chunk wins; a 64-word chunk holds the whole
// document and the gold pair wins. It returns the two configs' paths.
func writeChunkingFixture(t *testing.T, dir string) (small, large string) {
	t.Helper()
	var corpus, queries []string
	filler := strings.Repeat("the river town kept its old stone bridge and a quiet market square ", 3)
	filler = strings.Join(strings.Fields(filler)[:30], " ")
	add := func(id, text string) {
		b, _ := json.Marshal(map[string]string{"id": id, "title": "", "text": text})
		corpus = append(corpus, string(b))
	}
	for q := range 35 {
		id := fmt.Sprintf("q%02d", q+1)
		a, b := word("ca", q, 0), word("cb", q, 1)
		if q < 15 {
			add("g-"+id, a+" "+b+" "+filler)
		} else {
			add("g-"+id, a+" "+filler+" "+b)
			add("d-"+id, a+" "+a+" stone bridge")
		}
		row, _ := json.Marshal(map[string]any{"id": id, "question": a + " " + b, "gold": []string{"g-" + id}})
		queries = append(queries, string(row))
	}
	for name, lines := range map[string][]string{"corpus.jsonl": corpus, "queries.jsonl": queries} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	config := func(size int) string {
		p := filepath.Join(dir, fmt.Sprintf("fixed-%d.yaml", size))
		yaml := fmt.Sprintf(`name: chunk-size
dataset:
  corpus: corpus.jsonl
  queries: queries.jsonl
chunking:
  - {strategy: fixed, sizes: [%d], overlaps: [0]}
retrievers:
  - {name: bm25, type: bm25}
  - {name: bm25-b, type: bm25, k1: 1.2, b: 0.75}
k: [1, 5]
prompt_k: 1
significance:
  test: t
  interval: t
`, size)
		if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return config(4), config(64)
}

// gateOracle computes with scipy and statsmodels what the gate must find
// for the mapped pairs (baseline cell, cell now) of two runs' results.json
// on metric m: per pair the mean difference now − baseline, the paired
// t-test's p (scipy.stats.ttest_rel), its Holm-corrected p over the pairs
// not identical (statsmodels.stats.multitest.multipletests), the 95%
// Student-t interval (scipy.stats.t.interval) and the verdict by
// docs/ci.md's rules. It returns one line per pair: "cell Δ [lo, hi] p
// verdict", numbers as the summary prints them.
func gateOracle(t *testing.T, basePath, nowPath, m string, pairs [][2]string) []string {
	t.Helper()
	py := testenv.Python(t)
	script := `
import json, sys
import numpy as np
from scipy import stats
from statsmodels.stats.multitest import multipletests
base, now, m, pairs = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3], json.loads(sys.argv[4])
cells = lambda r: {c["name"]: c["per_query"] for c in r["cells"]}
b, n = cells(base), cells(now)
rows, ps = [], []
for old, new in pairs:
    ids = sorted(set(b[old]) & set(n[new]))
    d = np.array([n[new][q][m] - b[old][q][m] for q in ids])
    ident = bool(np.all(d == 0))
    p = 1.0 if ident else stats.ttest_rel([n[new][q][m] for q in ids], [b[old][q][m] for q in ids]).pvalue
    lo, hi = stats.t.interval(0.95, len(d) - 1, loc=d.mean(), scale=stats.sem(d)) if d.std() > 0 else (d.mean(), d.mean())
    rows.append([new, d.mean(), lo, hi, p, ident])
    if not ident:
        ps.append(p)
adj = list(multipletests(ps, method="holm")[1]) if ps else []
for r in rows:
    new, mean, lo, hi, p, ident = r
    pa = None if ident else adj.pop(0)
    v = "unchanged (identical)" if ident else ("improved" if pa <= 0.05 and lo > 0 else "regressed" if pa <= 0.05 and hi < 0 else "no evidence either way")
    f = lambda x: ("+" if x >= 0 else "\u2212") + "%.4f" % abs(x)
    print(new, f(mean), "[%s, %s]" % (f(lo), f(hi)), "-" if pa is None else "<0.0001" if pa < 0.0001 else "%.4f" % pa, v)
`
	pj, _ := json.Marshal(pairs)
	out, err := exec.Command(py, "-c", script, basePath, nowPath, m, string(pj)).CombinedOutput()
	if err != nil {
		t.Fatalf("oracle: %v\n%s", err, out)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// checkAgainstOracle checks that the gate's summary out has, for each
// oracle line, the cell's row with the same difference, interval,
// corrected p and verdict, and returns whether the oracle finds a
// regression.
func checkAgainstOracle(t *testing.T, what, out string, oracle []string) bool {
	t.Helper()
	regressed := false
	for _, line := range oracle {
		f := strings.Fields(line) // cell Δ [lo, hi] p verdict…
		cell, diff, iv, p, v := f[0], f[1], f[2]+" "+f[3], f[4], strings.Join(f[5:], " ")
		switch p {
		case "-":
			p = "–"
		case "<0.0001":
			p = "< 0.0001"
		}
		if v == "regressed" {
			regressed, v = true, `\*\*regressed\*\*`
		}
		re := regexp.MustCompile(`\| ` + regexp.QuoteMeta(cell) + ` \| \S+ \| ndcg@1 \| [0-9.]+ \| [0-9.]+ \| ` + regexp.QuoteMeta(diff+" "+iv) + ` \| ` + regexp.QuoteMeta(p) + ` \| ` + v + ` \|`)
		if !re.MatchString(out) {
			t.Errorf("%s: no row %s %s %s %s (scipy/statsmodels) in:\n%s", what, cell, diff+" "+iv, p, v, out)
		}
	}
	return regressed
}

// TestGateChunkSizeChange is issue 22 item 4's acceptance: a chunk-size
// change gated through the CLI. The baseline swept chunking fixed-4, the
// change sweeps fixed-64: gated by name there is nothing to compare (exit
// 1, the message pointing at --gate-map); mapped with --gate-map
// fixed-4=fixed-64, each retriever's fixed-64 cell is compared with its
// fixed-4 cell, and the exit status is what the data says, by an
// independent computation (scipy's paired t-test and t interval,
// statsmodels' Holm): the larger chunks find the 20 split gold pairs, an
// improvement (exit 0); the change reverted (fixed-64 baseline, fixed-4
// now, mapped back) regresses (exit 3). A cell mapping
// (fixed-4/bm25=fixed-64/bm25) gates that cell alone, the others listed
// as not gated.
func TestGateChunkSizeChange(t *testing.T) {
	dir := t.TempDir()
	small, large := writeChunkingFixture(t, dir)
	runCfg := func(cfg, out string, extra ...string) (int, string, string) {
		args := append([]string{"run", "--progress", "none", "--data-dir", dir, "--output", filepath.Join(dir, out),
			"--cache-dir", filepath.Join(dir, "cache"), "--no-history"}, extra...)
		return runBench(append(args, cfg)...)
	}
	for cfg, out := range map[string]string{small: "fixed-4", large: "fixed-64"} {
		if code, _, errOut := runCfg(cfg, out); code != 0 {
			t.Fatalf("%s: exit %d\n%s", cfg, code, errOut)
		}
	}
	code, _, errOut := runCfg(large, "unmapped", "--baseline", filepath.Join(dir, "fixed-4"))
	if code != 1 || !strings.Contains(errOut, "gate: no cell is present in both the baseline and this run") || !strings.Contains(errOut, "--gate-map") {
		t.Errorf("unmapped: exit %d, stderr %q; want 1 naming --gate-map", code, errOut)
	}
	res := func(run string) string { return filepath.Join(dir, run, "results.json") }

	code, out, errOut := runCfg(large, "changed", "--baseline", filepath.Join(dir, "fixed-4"), "--gate-map", "fixed-4=fixed-64")
	oracle := gateOracle(t, res("fixed-4"), res("fixed-64"), "ndcg@1", [][2]string{{"fixed-4/bm25", "fixed-64/bm25"}, {"fixed-4/bm25-b", "fixed-64/bm25-b"}})
	want := 0
	if checkAgainstOracle(t, "fixed-4 → fixed-64", out, oracle) {
		want = gate.ExitRegressed
	}
	if code != want || want != 0 || !strings.Contains(out, "| fixed-64/bm25 | fixed-4/bm25 | ndcg@1 |") {
		t.Errorf("fixed-4 → fixed-64: exit %d, want %d (the data: %q)\n%s\n%s", code, want, oracle, out, errOut)
	}

	code, out, errOut = runCfg(small, "reverted", "--baseline", filepath.Join(dir, "fixed-64"), "--gate-map", "fixed-64=fixed-4")
	oracle = gateOracle(t, res("fixed-64"), res("fixed-4"), "ndcg@1", [][2]string{{"fixed-64/bm25", "fixed-4/bm25"}, {"fixed-64/bm25-b", "fixed-4/bm25-b"}})
	want = 0
	if checkAgainstOracle(t, "fixed-64 → fixed-4", out, oracle) {
		want = gate.ExitRegressed
	}
	if code != want || want != gate.ExitRegressed || !strings.Contains(errOut, "regressed against the baseline: fixed-4/bm25 (ndcg@1)") {
		t.Errorf("fixed-64 → fixed-4: exit %d, want %d (the data: %q)\n%s\n%s", code, want, oracle, out, errOut)
	}

	code, out, errOut = runCfg(large, "one-cell", "--baseline", filepath.Join(dir, "fixed-4"), "--gate-map", "fixed-4/bm25=fixed-64/bm25")
	if code != 0 || !strings.Contains(out, "| fixed-64/bm25 | fixed-4/bm25 |") || !strings.Contains(out, "Not gated, in the baseline only: fixed-4/bm25-b.") || !strings.Contains(out, "Not gated, new in this run: fixed-64/bm25-b.") {
		t.Errorf("cell mapping: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut := runCfg(large, "x", "--gate-map", "fixed-4=fixed-64"); code != 2 || !strings.Contains(errOut, "--gate-map and --equivalence go with --baseline") {
		t.Errorf("--gate-map without --baseline: exit %d, %q; want a usage error", code, errOut)
	}
	if code, _, errOut := runCfg(large, "x", "--baseline", filepath.Join(dir, "fixed-4"), "--gate-map", "fixed-8=fixed-64"); code != 1 || !strings.Contains(errOut, "the baseline has no chunking fixed-8 (its chunkings: fixed-4)") {
		t.Errorf("--gate-map of an absent chunking: exit %d, %q", code, errOut)
	}
}
