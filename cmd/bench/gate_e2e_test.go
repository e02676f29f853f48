//go:build e2e

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/gate"
	"github.com/ragbench/ragbench/internal/testenv"
)

// TestE2EGateSciFact is issue 16's acceptance test, on the shared
// SciFact test split (300 queries) with one BM25 cell on whole documents:
// gate/testdata/scifact-bm25.yaml (k1 = 0.9, b = 0.4: nDCG@10 0.6795, the
// README's and Pyserini's number) and scifact-bm25-worse.yaml, whose only
// change is a worse BM25 (k1 = 0.1, b = 0: nDCG@10 0.6556, the issue's
// number). The worse sweep gated against the good one exits
// gate.ExitRegressed with a summary naming the cell and a paired
// randomization p ≈ 0.001 (issue 16); the good sweep against itself and
// against the worse one (an improvement) exits 0.
func TestE2EGateSciFact(t *testing.T) {
	data := testenv.Shared(t, "datasets/scifact")
	data = filepath.Dir(filepath.Dir(data))
	dir := t.TempDir()
	sweep := func(cfg, out string, extra ...string) (int, string, string) {
		args := append([]string{"run", "--progress", "none", "--data-dir", data, "--output", filepath.Join(dir, out),
			"--cache-dir", filepath.Join(dir, "cache"), "--no-history"}, extra...)
		args = append(args, filepath.Join("..", "..", "gate", "testdata", cfg+".yaml"))
		var o, e bytes.Buffer
		code := run(&o, &e, args)
		return code, o.String(), e.String()
	}
	if code, _, e := sweep("scifact-bm25", "good"); code != 0 {
		t.Fatalf("good sweep: exit %d\n%s", code, e)
	}
	if code, _, e := sweep("scifact-bm25-worse", "worse"); code != 0 {
		t.Fatalf("worse sweep: exit %d\n%s", code, e)
	}
	step := filepath.Join(dir, "step.md")
	t.Setenv("GITHUB_STEP_SUMMARY", step)

	code, out, errOut := sweep("scifact-bm25-worse", "worse2", "--baseline", filepath.Join(dir, "good"))
	if code != gate.ExitRegressed {
		t.Fatalf("worse vs good: exit %d, want %d\n%s\n%s", code, gate.ExitRegressed, out, errOut)
	}
	row := regexp.MustCompile(`(?m)^\| doc/bm25 \| ndcg@10 \| 0\.6795 \| 0\.6556 \| −0\.0\d+ \[−0\.\d+, −0\.\d+\] \| (\S+) \| \*\*regressed\*\* \|$`).FindStringSubmatch(out)
	if row == nil {
		t.Fatalf("no regressed row for doc/bm25 ndcg@10 0.6795 → 0.6556 in:\n%s", out)
	}
	if p, _ := strconv.ParseFloat(row[1], 64); !(p > 0.0001 && p < 0.005) {
		t.Errorf("p = %s; want ≈ 0.001", row[1])
	}
	if !strings.Contains(out, "300 shared queries") || !strings.Contains(out, "1 of 1 cell regressed") {
		t.Errorf("summary lacks the query count or the heading:\n%s", out)
	}
	if !strings.Contains(errOut, "regressed against the baseline: doc/bm25 (ndcg@10)") {
		t.Errorf("stderr does not name the cell: %q", errOut)
	}
	if b, _ := os.ReadFile(step); !strings.Contains(string(b), "**regressed**") {
		t.Errorf("$GITHUB_STEP_SUMMARY lacks the summary:\n%s", b)
	}

	code, out, errOut = sweep("scifact-bm25", "good2", "--baseline", filepath.Join(dir, "good"))
	if code != 0 || !strings.Contains(out, "| doc/bm25 | ndcg@10 | 0.6795 | 0.6795 |") || !strings.Contains(out, "unchanged") {
		t.Errorf("good vs itself: exit %d, want 0 and unchanged\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = sweep("scifact-bm25", "good3", "--baseline", filepath.Join(dir, "worse"))
	if code != 0 || !strings.Contains(out, "| doc/bm25 | ndcg@10 | 0.6556 | 0.6795 |") || !strings.Contains(out, "| improved |") {
		t.Errorf("good vs worse: exit %d, want 0 and improved\n%s\n%s", code, out, errOut)
	}
}
