package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/gate"
)

// word is a made-up token of the newcomer fixture (letters only, so the
// English analyzer keeps it whole): its own for each (kind, query, i).
func word(kind string, q, i int) string {
	const abc = "bcdfghjklmnpqrstvwz" // each letter once: two numbers, two words
	w := kind
	for _, n := range []int{q, i} {
		w += string(abc[n%len(abc)]) + string(abc[(n/len(abc))%len(abc)]) + "o"
	}
	return w
}

// writeNewcomer writes the newcomer fixture of issue 23 into dir: 35
// answerable questions over 53 short documents — 17 "easy" questions whose
// two words only their gold document holds (every retriever finds it
// first: nDCG@5 = 1 in every cell) and 18 "hard" ones whose words only a
// distractor holds (the gold document is never retrieved: 0) — and
// newcomer.yaml, 9 chunkings (fixed 4, 6, 8 words × overlap 0, 1, 2) × 4
// retrievers (three BM25s and an RRF) = 36 cells, gated on nDCG@5. It
// returns the config's path.
func writeNewcomer(t *testing.T, dir string) string {
	t.Helper()
	var corpus, queries []string
	filler := "the river town kept its old stone bridge and a quiet market square"
	for q := range 35 {
		easy := q < 17
		id := fmt.Sprintf("e%02d", q+1)
		if !easy {
			id = fmt.Sprintf("h%02d", q-16)
		}
		a, b := word("qa", q, 0), word("qb", q, 1)
		gold := fmt.Sprintf("g-%s", id)
		text := filler
		if easy {
			text = a + " " + filler + " " + b
		} else {
			d, _ := json.Marshal(map[string]string{"id": "d-" + id, "title": "", "text": a + " " + b + " " + filler})
			corpus = append(corpus, string(d))
		}
		g, _ := json.Marshal(map[string]string{"id": gold, "title": "", "text": text + " " + word("own", q, 2)})
		corpus = append(corpus, string(g))
		row, _ := json.Marshal(map[string]any{"id": id, "question": a + " " + b, "gold": []string{gold}})
		queries = append(queries, string(row))
	}
	for name, lines := range map[string][]string{"corpus.jsonl": corpus, "queries.jsonl": queries} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(dir, "newcomer.yaml")
	yaml := `name: newcomer
dataset:
  corpus: corpus.jsonl
  queries: queries.jsonl
chunking:
  - strategy: fixed
    sizes: [4, 6, 8]
    overlaps: [0, 1, 2]
retrievers:
  - {name: bm25, type: bm25}
  - {name: bm25-b, type: bm25, k1: 1.2, b: 0.75}
  - {name: bm25-c, type: bm25, k1: 2, b: 0.2}
  - {name: rrf, type: hybrid, inputs: [bm25, bm25-b]}
k: [1, 5]
prompt_k: 5
`
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// newcomerRun runs bench run on the fixture with extra flags.
func newcomerRun(t *testing.T, dir, cfg, out string, extra ...string) (int, string, string) {
	t.Helper()
	args := append([]string{"run", "--progress", "none", "--data-dir", dir, "--output", filepath.Join(dir, out),
		"--cache-dir", filepath.Join(dir, "cache"), "--no-history"}, extra...)
	return runBench(append(args, cfg)...)
}

// editBaseline copies the run in dir/from (results.json, manifest.json)
// to dir/to with edit applied to its cells' per-query values.
func editBaseline(t *testing.T, dir, from, to string, edit func(cell string, perQuery map[string]map[string]float64)) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, to), 0o755); err != nil {
		t.Fatal(err)
	}
	man, err := os.ReadFile(filepath.Join(dir, from, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, to, "manifest.json"), man, 0o644)
	raw, err := os.ReadFile(filepath.Join(dir, from, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range doc["cells"].([]any) {
		c := c.(map[string]any)
		pq := map[string]map[string]float64{}
		b, _ := json.Marshal(c["per_query"])
		json.Unmarshal(b, &pq)
		edit(c["name"].(string), pq)
		c["per_query"] = pq
	}
	out, _ := json.MarshalIndent(doc, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, to, "results.json"), out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGateNewcomerCase is issue 23's newcomer case as a gate fixture: 36
// cells, 35 questions, one cell (fixed-6o1/rrf, a hybrid as in the issue)
// moved by a change, 17 other cells of two retrievers changed by noise,
// the 18 cells of the other two retrievers unchanged (served from the
// cache in the issue). The sweep's real run is "now"; the baseline is the
// same run with the change taken out of its per-query nDCG@5:
//
//   - the change: fixed-6o1/rrf gains 0.9 on the 10 questions e01–e10 (the
//     baseline holds 0.1 where the run has 1): Δ = +9/35 = +0.2571, exact
//     sign-flip p = 2/2^10 = 0.001953 (ten equal positive differences: only
//     the all-plus and all-minus sign vectors reach the mean), Holm over the
//     18 counted comparisons 18 × 0.001953 = 0.0352 ≤ 0.05: improved. Had
//     the 18 identical cells been counted, as before issue 23, Holm over 36
//     would give 0.0703 > 0.05: "unchanged" (the complaint);
//   - the noise: +0.05 on e11–e13 and −0.05 on h01–h03, mean 0, p = 1;
//   - the 18 identical cells: "unchanged (identical)", not counted, no p.
//
// Reverting the change (the baseline holds 0.9 on h01–h10, where the run
// has 0: Δ = −0.2571, the same p = 0.001953, the one counted comparison:
// the other 35 cells are identical) fails the gate through the test, exit
// 3, without --max-drop.
func TestGateNewcomerCase(t *testing.T) {
	dir := t.TempDir()
	cfg := writeNewcomer(t, dir)
	if code, _, errOut := newcomerRun(t, dir, cfg, "run"); code != 0 {
		t.Fatalf("bench run: exit %d\n%s", code, errOut)
	}
	changed := func(cell string) bool {
		return strings.HasSuffix(cell, "/rrf") || strings.HasSuffix(cell, "/bm25-c")
	}
	const x, m = "fixed-6o1/rrf", "ndcg@5"
	q := func(kind string, i int) string { return fmt.Sprintf("%s%02d", kind, i) }
	editBaseline(t, dir, "run", "before", func(cell string, pq map[string]map[string]float64) {
		switch {
		case cell == x:
			for i := 1; i <= 10; i++ {
				if pq[q("e", i)][m] != 1 {
					t.Fatalf("%s %s: nDCG@5 %v in the run, want 1 (an easy question)", cell, q("e", i), pq[q("e", i)][m])
				}
				pq[q("e", i)][m] = 0.1
			}
		case changed(cell):
			for i := 11; i <= 13; i++ {
				pq[q("e", i)][m] = 0.95
			}
			for i := 1; i <= 3; i++ {
				pq[q("h", i)][m] = 0.05
			}
		}
	})
	code, out, errOut := newcomerRun(t, dir, cfg, "now", "--baseline", filepath.Join(dir, "before"))
	if code != 0 {
		t.Fatalf("the change gated: exit %d, want 0\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"Gate plan (decides the exit code): each cell against its baseline counterpart: 36 comparisons × 1 metric = 36; 18 identical (same score on every query) reported as unchanged and not counted, 18 counted.",
		"35 shared queries · randomization test, Holm–Bonferroni over 18 counted comparisons, α = 0.05.",
		"| fixed-6o1/rrf | ndcg@5 | 0.2286 | 0.4857 | +0.2571 [",
		"| 0.0352 | improved |",
		"| fixed-6o1/bm25-c | ndcg@5 | 0.4857 | 0.4857 | +0.0000 [",
		"| fixed-6o1/bm25 | ndcg@5 | 0.4857 | 0.4857 | +0.0000 [+0.0000, +0.0000] | – | unchanged (identical) |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the change's summary lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "| – | unchanged (identical) |"); n != 18 {
		t.Errorf("%d rows unchanged (identical), want 18", n)
	}
	if n := strings.Count(out, "| 1.0000 | no evidence either way |"); n != 17 {
		t.Errorf("%d noise rows with corrected p 1 and no evidence either way, want 17:\n%s", n, out)
	}
	row := regexp.MustCompile(`\| fixed-6o1/rrf \| ndcg@5 \| 0\.2286 \| 0\.4857 \| \+0\.2571 \[\+(0\.\d+), \+(0\.\d+)\] \|`).FindStringSubmatch(out)
	if row == nil || row[1] <= "0.0000" {
		t.Errorf("the changed cell's interval does not exclude 0: %v", row)
	}

	editBaseline(t, dir, "run", "with-change", func(cell string, pq map[string]map[string]float64) {
		if cell == x {
			for i := 1; i <= 10; i++ {
				pq[q("h", i)][m] = 0.9
			}
		}
	})
	code, out, errOut = newcomerRun(t, dir, cfg, "reverted", "--baseline", filepath.Join(dir, "with-change"))
	if code != gate.ExitRegressed || !strings.Contains(errOut, "regressed against the baseline: fixed-6o1/rrf (ndcg@5)") {
		t.Fatalf("the change reverted: exit %d, want %d naming fixed-6o1/rrf\n%s\n%s", code, gate.ExitRegressed, out, errOut)
	}
	for _, want := range []string{
		"35 identical (same score on every query) reported as unchanged and not counted, 1 counted.",
		"| fixed-6o1/rrf | ndcg@5 | 0.7429 | 0.4857 | −0.2571 [−0.",
		"| 0.0020 | **regressed** |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the revert's summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "max-drop") {
		t.Errorf("the revert failed through --max-drop, not the test:\n%s", out)
	}
}
