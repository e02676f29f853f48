package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/internal/testenv"
	"github.com/ragbench/ragbench/labels"
)

// poolFixture runs bench run on a copy of testdata/pool and returns the
// copy's folder, its config and the run's output folder.
func poolFixture(t *testing.T) (dir, cfg, out string) {
	t.Helper()
	dir = copyTree(t, "testdata/pool")
	cfg, out = filepath.Join(dir, "pool.yaml"), filepath.Join(dir, "out")
	if code, stdout, stderr := runBench("run", "--progress", "none", "--no-history", "--data-dir", dir, "--output", out,
		"--cache-dir", filepath.Join(dir, "cache"), cfg); code != 0 {
		t.Fatalf("bench run: exit %d\n%s%s", code, stdout, stderr)
	}
	return dir, cfg, out
}

func readPoolFile(t *testing.T, path string) []labels.PoolItem {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var items []labels.PoolItem
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var it labels.PoolItem
		if err := json.Unmarshal(line, &it); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		items = append(items, it)
	}
	return items
}

// TestLabelsPoolPython: bench labels pool on testdata/pool (four cells of
// two word-window chunkings that share windows, five span-labelled
// questions with a grade-0 judgement and an unanswerable one) writes, at
// depth 3 and 10, the review file that pool_ref.py — an independent
// reference written from docs/labelling.md's rule, which cuts the
// chunkings itself and ranks the runs in trec_eval's order, ties by doc id
// descending — writes from the same runs/ and results.json.
func TestLabelsPoolPython(t *testing.T) {
	python := testenv.Python(t)
	dir, cfg, out := poolFixture(t)
	for _, depth := range []string{"3", "10"} {
		review := filepath.Join(dir, "review-"+depth+".jsonl")
		code, stdout, stderr := runBench("labels", "pool", "--depth", depth, "--data-dir", dir, "--results", out, "--output", review, cfg)
		if code != 0 || !strings.HasPrefix(stdout, "wrote "+review+": ") {
			t.Fatalf("pool --depth %s: exit %d\n%s%s", depth, code, stdout, stderr)
		}
		ref := exec.Command(python, "testdata/pool/pool_ref.py", out, filepath.Join(dir, "corpus.jsonl"), filepath.Join(dir, "labels.jsonl"), depth)
		var refOut, refErr bytes.Buffer
		ref.Stdout, ref.Stderr = &refOut, &refErr
		if err := ref.Run(); err != nil {
			t.Fatalf("pool_ref.py: %v\n%s", err, refErr.String())
		}
		refPath := filepath.Join(dir, "ref-"+depth+".jsonl")
		os.WriteFile(refPath, refOut.Bytes(), 0o644)
		got, want := readPoolFile(t, review), readPoolFile(t, refPath)
		if len(want) < 10 {
			t.Fatalf("depth %s: the reference pools %d passages: the fixture no longer tests much", depth, len(want))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("depth %s: bench's pool differs from the reference:\n%s\nwant\n%s", depth, readFile(t, review), refOut.String())
		}
	}
}

// TestLabelsPoolMerge is the review loop from the CLI: pool, a reviewer's
// grades (one passage relevant with grade 2 for one question, another not
// relevant for another, the rest left null), merge: the labels file gets
// exactly those two passages appended to their rows (every other line byte
// for byte, the original kept as .bak), it checks clean, bench run --check
// accepts the config, merging again changes nothing, and a new pool no
// longer holds the two passages for those queries.
func TestLabelsPoolMerge(t *testing.T) {
	dir, cfg, out := poolFixture(t)
	review := filepath.Join(dir, "review.jsonl")
	if code, stdout, stderr := runBench("labels", "pool", "--depth", "3", "--data-dir", dir, "--results", out, "--output", review, cfg); code != 0 {
		t.Fatalf("pool: exit %d\n%s%s", code, stdout, stderr)
	}
	items := readPoolFile(t, review)
	two, zero := 2, 0
	items[0].Queries[0].Grade = &two  // faq "Q: How long does" for password-life
	items[1].Queries[0].Grade = &zero // faq "take leave next year?" for carry-over
	var b bytes.Buffer
	if err := labels.WritePool(&b, items); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(review, b.Bytes(), 0o644)
	labelsPath := filepath.Join(dir, "labels.jsonl")
	orig := readFile(t, labelsPath)
	code, stdout, stderr := runBench("labels", "merge", "--review", review, "--data-dir", dir, cfg)
	want := "merged " + review + " into " + labelsPath + " (the original kept as " + labelsPath + ".bak): 1 relevant, 1 not relevant; 0 already judged, 8 not reviewed\n" +
		labelsPath + " checks clean; its anchor record is written\n"
	if code != 0 || stdout != want {
		t.Fatalf("merge: exit %d\n%s%s\nwant\n%s", code, stdout, stderr, want)
	}
	if readFile(t, labelsPath+".bak") != orig {
		t.Error("the backup is not the original")
	}
	got, lines := readFile(t, labelsPath), strings.Split(orig, "\n")
	lines[0] = strings.TrimSuffix(lines[0], "], \"kind\": \"single\"}") +
		`, {"doc": "faq", "start": 72, "end": 93, "text": "take leave next year?", "prefix": "assword lasts 90 days. Q: Can I ", "suffix": " A: Up to 5 unused days carry ov", "grade": 0}], "kind": "single"}`
	lines[1] = strings.TrimSuffix(lines[1], "], \"kind\": \"multi\"}") +
		`, {"doc": "faq", "start": 0, "end": 16, "text": "Q: How long does", "suffix": " a password last? A: A password ", "grade": 2}], "kind": "multi"}`
	if w := strings.Join(lines, "\n"); got != w {
		t.Errorf("merged labels:\n%s\nwant\n%s", got, w)
	}
	if code, stdout, stderr := runBench("run", "--check", "--data-dir", dir, "--output", out, "--cache-dir", filepath.Join(dir, "cache"), cfg); code != 0 {
		t.Errorf("bench run --check after merge: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = runBench("labels", "merge", "--review", review, "--data-dir", dir, cfg)
	if code != 0 || !strings.Contains(stdout, ": 0 relevant, 0 not relevant; 2 already judged, 8 not reviewed\n") || readFile(t, labelsPath) != got {
		t.Errorf("second merge: exit %d\n%s", code, stdout)
	}
	if _, err := os.Stat(labelsPath + ".bak.1"); err == nil {
		t.Error("a merge that changes nothing wrote a backup")
	}
	if code, stdout, stderr := runBench("labels", "pool", "--depth", "3", "--data-dir", dir, "--results", out, "--output", review, cfg); code != 0 {
		t.Fatalf("pool again: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, it := range readPoolFile(t, review) {
		for _, q := range it.Queries {
			if it.Doc == "faq" && (it.Start < 16 && q.ID == "password-life" || it.Start < 93 && it.End > 72 && q.ID == "carry-over") {
				t.Errorf("pooled again for %s: a passage overlapping a judged one: %+v", q.ID, it)
			}
		}
	}
}

// TestLabelsPoolMergeErrors: a review file whose passage no longer matches
// the corpus, names a query the labels lack, or has an unknown key is
// refused with every problem named by line, and nothing is written.
func TestLabelsPoolMergeErrors(t *testing.T) {
	dir, cfg, out := poolFixture(t)
	review := filepath.Join(dir, "review.jsonl")
	if code, _, stderr := runBench("labels", "pool", "--depth", "3", "--data-dir", dir, "--results", out, "--output", review, cfg); code != 0 {
		t.Fatal(stderr)
	}
	lines := strings.Split(strings.TrimSpace(readFile(t, review)), "\n")
	lines[0] = strings.Replace(lines[0], `"text":"Q: How long does"`, `"text":"Q: How long did"`, 1)
	lines[1] = strings.Replace(lines[1], `"id":"carry-over"`, `"id":"nope"`, 1)
	lines[1] = strings.Replace(lines[1], `"grade":null`, `"grade":1`, 1)
	lines[2] = strings.Replace(lines[2], `"grade":null`, `"grade":1,"graed":0`, 1)
	// The same pooled passage twice, graded 1 then 0: the first line won
	// silently, the second counted "already judged" (the tester's finding).
	lines[3] = strings.Replace(lines[3], `"grade":null`, `"grade":1`, 1)
	lines = append(lines, strings.Replace(lines[3], `"grade":1`, `"grade":0`, 1))
	conflict := fmt.Sprintf(`%s:%d: queries[0].grade: query %q: doc %q [%d, %d) graded 0 here and 1 on line 4: decide once`, review, len(lines), readPoolFile(t, review)[3].Queries[0].ID,
		readPoolFile(t, review)[3].Doc, readPoolFile(t, review)[3].Start, readPoolFile(t, review)[3].End)
	os.WriteFile(review, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	labelsPath := filepath.Join(dir, "labels.jsonl")
	orig := readFile(t, labelsPath)
	// Every problem in one pass: the line that does not read with the
	// others (it stopped the merge alone).
	code, _, stderr := runBench("labels", "merge", "--review", review, "--data-dir", dir, cfg)
	for _, want := range []string{review + `:1: text: doc "faq": the text at [0, 16) is not the passage reviewed`, review + `:2: queries[0].id: query "nope" is not in ` + labelsPath,
		review + ":3: json: not a review item: json: unknown field \"graed\"", conflict} {
		if !strings.Contains(stderr, want) {
			t.Errorf("missing %q in\n%s", want, stderr)
		}
	}
	if code != 1 || readFile(t, labelsPath) != orig {
		t.Errorf("exit %d; labels changed", code)
	}
	lines[2] = strings.Replace(lines[2], `,"graed":0`, ``, 1)
	lines = lines[:len(lines)-1]
	os.WriteFile(review, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	code, _, stderr = runBench("labels", "merge", "--review", review, "--data-dir", dir, cfg)
	for _, want := range []string{review + `:1: text: doc "faq": the text at [0, 16) is not the passage reviewed`, review + `:2: queries[0].id: query "nope" is not in ` + labelsPath} {
		if !strings.Contains(stderr, want) {
			t.Errorf("missing %q in\n%s", want, stderr)
		}
	}
	if code != 1 || readFile(t, labelsPath) != orig {
		t.Errorf("exit %d; labels changed", code)
	}
	if code, _, stderr := runBench("labels", "pool", "--data-dir", dir, "--output", review, filepath.Join(dir, "labels.jsonl")); code != 2 || !strings.Contains(stderr, "pool: give the config") {
		t.Errorf("pool of a labels file: exit %d %s", code, stderr)
	}
	if code, _, stderr := runBench("labels", "pool", "--data-dir", dir, "--results", filepath.Join(dir, "nothing"), cfg); code != 1 || !strings.Contains(stderr, "no results.json: pooling reads the last run of the config (run 'bench run CONFIG' first)") {
		t.Errorf("pool without a run: exit %d %s", code, stderr)
	}
}

// TestLabelsPoolKeepsGrades: bench labels pool run twice over the same
// --output overwrote a review file holding a reviewer's grades (the
// tester's finding). Now the second pool is refused, exit 1, naming how
// many grades are not yet merged, the file untouched; --force replaces it
// keeping a .bak; once the grades are merged, pooling again replaces it
// (a .bak kept) without --force.
func TestLabelsPoolKeepsGrades(t *testing.T) {
	dir, cfg, out := poolFixture(t)
	review := filepath.Join(dir, "review.jsonl")
	pool := func(extra ...string) (int, string) {
		args := append([]string{"labels", "pool", "--depth", "3", "--data-dir", dir, "--results", out, "--output", review}, extra...)
		code, stdout, stderr := runBench(append(args, cfg)...)
		return code, stdout + stderr
	}
	if code, o := pool(); code != 0 {
		t.Fatalf("pool: exit %d\n%s", code, o)
	}
	items := readPoolFile(t, review)
	two, zero := 2, 0
	items[0].Queries[0].Grade = &two
	items[1].Queries[0].Grade = &zero
	var b bytes.Buffer
	if err := labels.WritePool(&b, items); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(review, b.Bytes(), 0o644)
	graded := b.String()
	code, o := pool()
	if code != 1 || !strings.Contains(o, review+" holds 2 grades a reviewer set, not yet merged into ") || !strings.Contains(o, "--force") || !strings.Contains(o, "bench labels merge --review "+review) {
		t.Errorf("pool over a graded review file: exit %d\n%s", code, o)
	}
	if readFile(t, review) != graded {
		t.Fatal("the graded review file was changed")
	}
	if code, o := pool("--force"); code != 0 || !strings.Contains(o, "kept as "+review+".bak") || readFile(t, review+".bak") != graded {
		t.Errorf("pool --force: exit %d\n%s", code, o)
	}
	// Merged grades are not lost by pooling again.
	os.WriteFile(review, b.Bytes(), 0o644)
	if code, stdout, stderr := runBench("labels", "merge", "--review", review, "--data-dir", dir, cfg); code != 0 {
		t.Fatalf("merge: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, o := pool(); code != 0 || !strings.Contains(o, "kept as "+review+".bak.1") || readFile(t, review+".bak.1") != graded {
		t.Errorf("pool after merging: exit %d\n%s", code, o)
	}
}
