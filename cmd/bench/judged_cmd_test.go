package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRunRefusesBadLabels: bench run and bench run --check refuse the
// wrong labels of docs/labelling.md's worked example (testdata/labels)
// before any work, with every problem bench labels check lists (its
// golden file) at once and each with the same hint — except the label
// whose exact text moved (line 10), which the run places at its new
// offsets (issue 20 items 1 and 2).
func TestRunRefusesBadLabels(t *testing.T) {
	golden := readFile(t, "testdata/labels/check.golden")
	var want []string
	lines := strings.Split(golden, "\n")
	status := regexp.MustCompile(` \[(changed|lost|moved)\]$`)
	for i, l := range lines {
		if !strings.HasPrefix(l, "testdata/labels/wrong.jsonl:") || strings.Contains(l, ": span labels (JSONL)") {
			continue
		}
		msg := strings.TrimPrefix(status.ReplaceAllString(l, ""), "testdata/labels/")
		if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "    hint: ") {
			msg += "; " + strings.TrimPrefix(lines[i+1], "    hint: ")
		}
		want = append(want, msg)
	}
	if len(want) != 9 {
		t.Fatalf("%d problems in check.golden besides the moved label, want 9", len(want))
	}
	dir := t.TempDir()
	var errs []string
	for _, check := range []bool{false, true} {
		args := []string{"run", "--data-dir", "testdata/labels", "--no-history", "--output", filepath.Join(dir, "out"), "--cache-dir", filepath.Join(dir, "cache"), "testdata/labels/labels.yaml"}
		if check {
			args = append([]string{"run", "--check"}, args[1:]...)
		}
		code, _, errOut := runBench(args...)
		if code != 1 {
			t.Errorf("%v: exit %d, want 1", args[:2], code)
		}
		for _, w := range want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: stderr lacks\n  %s\nstderr:\n%s", args[:2], w, errOut)
			}
		}
		if strings.Contains(errOut, "wrong.jsonl:10:") {
			t.Errorf("%v: the moved label is refused", args[:2])
		}
		errs = append(errs, errOut[strings.Index(errOut, "bench run: "+mustAbs(t, "testdata/labels/wrong.jsonl")):])
	}
	if errs[0] != errs[1] {
		t.Errorf("run and --check differ:\n%s\n---\n%s", errs[0], errs[1])
	}
	for _, p := range []string{"out", "cache"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s written before the error", p)
		}
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestRunChunkIDLabels is issue 20's acceptance case from the command
// line: labels written for 5-word windows ("theta iota" is in d1#1 of
// fixed-5) in a sweep over fixed sizes [5, 10]. Without a record, bench
// run (and --check) exits 1 naming both fixes; with fixed-5 recorded by
// bench labels record, a sweep over [5, 10] exits 1 naming fixed-10 (the
// chunking refused) and the fixes, and a sweep of fixed-5 scores it:
// bm25 puts d1#1 first, recall@1 = 1.
func TestRunChunkIDLabels(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("corpus.jsonl", `{"_id": "d1", "title": "", "text": "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon"}`+"\n")
	labels := write("qrels.jsonl", `{"id": "q1", "question": "theta iota", "gold": ["d1#1"]}`+"\n")
	sweep := func(sizes string) string {
		return write("sweep-"+sizes+".yaml", "dataset: {corpus: corpus.jsonl, queries: qrels.jsonl, title: false}\nchunking: [{strategy: fixed, sizes: ["+sizes+"]}]\nretrievers: [{name: bm25, type: bm25}]\nmetrics: [recall]\nk: [1]\n")
	}
	both, five := sweep("5, 10"), sweep("5")
	run := func(check bool, cfg string) (int, string) {
		args := []string{"run", "--data-dir", dir, "--no-history", "--output", filepath.Join(dir, "out"), "--cache-dir", filepath.Join(dir, "cache"), cfg}
		if check {
			args = append([]string{"run", "--check"}, args[1:]...)
		}
		code, out, errOut := runBench(args...)
		return code, out + errOut
	}
	for _, check := range []bool{false, true} {
		code, out := run(check, both)
		if code != 1 || !strings.Contains(out, "the sweep has 2 chunkings (fixed-5, fixed-10) with none recorded") ||
			!strings.Contains(out, "bench labels record --corpus CORPUS --chunking NAME "+labels) || !strings.Contains(out, "bench labels convert --corpus CORPUS --chunking NAME "+labels) {
			t.Errorf("no record, --check %v: exit %d\n%s", check, code, out)
		}
	}
	if code, _, errOut := runBench("labels", "record", "--corpus", filepath.Join(dir, "corpus.jsonl"), "--chunking", "fixed-5", labels); code != 0 {
		t.Fatalf("record: exit %d: %s", code, errOut)
	}
	for _, check := range []bool{false, true} {
		code, out := run(check, both)
		if code != 1 || !strings.Contains(out, "recorded for chunking fixed-5") || !strings.Contains(out, "cannot score chunking fixed-10") ||
			!strings.Contains(out, "remove it from the sweep") || !strings.Contains(out, "bench labels convert --corpus CORPUS --chunking fixed-5 "+labels) {
			t.Errorf("fixed-5 recorded, sweep [5, 10], --check %v: exit %d\n%s", check, code, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("outputs written by a refused sweep")
	}
	if code, out := run(false, five); code != 0 {
		t.Fatalf("fixed-5 alone: exit %d\n%s", code, out)
	}
	res := readFile(t, filepath.Join(dir, "out", "results.json"))
	if !strings.Contains(res, `"name": "fixed-5/bm25"`) || !regexp.MustCompile(`"recall@1": 1\b`).MatchString(res) {
		t.Errorf("fixed-5 alone: results.json lacks fixed-5/bm25 with recall@1 = 1")
	}
}
