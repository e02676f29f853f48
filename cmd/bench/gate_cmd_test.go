package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// smallRun runs sweep/testdata/small.yaml into dir/name (cache dir/cache)
// with extra flags and returns exit code, stdout and stderr.
func smallRun(t *testing.T, dir, name string, extra ...string) (int, string, string) {
	t.Helper()
	args := append([]string{"run", "--progress", "none", "--data-dir", "../../sweep/testdata/small",
		"--output", filepath.Join(dir, name), "--cache-dir", filepath.Join(dir, "cache"), "--no-history"}, extra...)
	args = append(args, "../../sweep/testdata/small.yaml")
	var out, errb bytes.Buffer
	code := run(&out, &errb, args)
	return code, out.String(), errb.String()
}

// TestRunBaselineGolden: small.yaml gated against its own earlier run
// passes (exit 0) with every cell unchanged, the summary on stdout (golden
// file testdata/gate/small-self.md.golden, paths and commits replaced;
// RAGBENCH_UPDATE_GOLDEN=1 rewrites it) and
// appended to $GITHUB_STEP_SUMMARY and written to --gate-summary.
func TestRunBaselineGolden(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := smallRun(t, dir, "base"); code != 0 {
		t.Fatalf("baseline run: exit %d\n%s", code, errOut)
	}
	step := filepath.Join(dir, "step-summary.md")
	os.WriteFile(step, []byte("earlier step\n"), 0o644)
	t.Setenv("GITHUB_STEP_SUMMARY", step)
	comment := filepath.Join(dir, "comment.md")
	code, out, errOut := smallRun(t, dir, "now", "--baseline", filepath.Join(dir, "base"), "--gate-metric", "recall", "--gate-summary", comment)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, errOut)
	}
	summary := out[strings.Index(out, "## "):]
	norm := regexp.MustCompile(`(Baseline|now) \S+/(base|now)/results.json( @ [0-9a-f]+(\+dirty)?)?`).ReplaceAllString(summary, "$1 $2/results.json")
	checkDiagGolden(t, filepath.Join("gate", "small-self.md.golden"), norm)
	if b, _ := os.ReadFile(step); string(b) != "earlier step\n"+summary+"\n" {
		t.Errorf("$GITHUB_STEP_SUMMARY holds:\n%s\nwant the earlier content, then the summary", b)
	}
	if b, _ := os.ReadFile(comment); string(b) != summary {
		t.Errorf("--gate-summary holds:\n%s\nwant the summary", b)
	}
}

// TestRunBaselineErrors: a changed qrels (its hash in the baseline's
// manifest; found before the sweep runs), a missing manifest, a missing baseline and a bad --max-drop
// are errors (exit 1, or 2 for the flag), never a pass.
func TestRunBaselineErrors(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := smallRun(t, dir, "base"); code != 0 {
		t.Fatalf("baseline run: exit %d\n%s", code, errOut)
	}
	manPath := filepath.Join(dir, "base", "manifest.json")
	b, err := os.ReadFile(manPath)
	if err != nil {
		t.Fatal(err)
	}
	var man map[string]any
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	for _, f := range man["files"].([]any) {
		if f := f.(map[string]any); f["role"] == "queries" {
			f["sha256"] = strings.Repeat("0", 64)
		}
	}
	changed, _ := json.Marshal(man)
	os.WriteFile(manPath, changed, 0o644)
	code, _, errOut := smallRun(t, dir, "now", "--baseline", filepath.Join(dir, "base"))
	if code != 1 || !strings.Contains(errOut, "the queries changed since the baseline") {
		t.Errorf("changed queries: exit %d, stderr %q; want 1 and 'the queries changed since the baseline'", code, errOut)
	}
	// ... before any cell ran (it was found after the whole sweep, its
	// outputs written): no results.json, no runs.
	for _, p := range []string{filepath.Join(dir, "now", "results.json"), filepath.Join(dir, "now", "runs")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("changed queries: %s exists (err %v): the sweep ran before the check", p, err)
		}
	}
	os.Remove(manPath)
	code, _, errOut = smallRun(t, dir, "now", "--baseline", filepath.Join(dir, "base", "results.json"))
	if code != 1 || !strings.Contains(errOut, "has no manifest.json beside it") {
		t.Errorf("no manifest: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = smallRun(t, dir, "fresh", "--baseline", filepath.Join(dir, "nothing"))
	if code != 1 || !strings.Contains(errOut, "nothing") {
		t.Errorf("missing baseline: exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "fresh")); err == nil {
		t.Errorf("a missing baseline should fail before the sweep runs")
	}
	code, _, _ = smallRun(t, dir, "now", "--baseline", filepath.Join(dir, "base"), "--max-drop", "-1")
	if code != 2 {
		t.Errorf("--max-drop -1: exit %d, want 2", code)
	}
	for _, v := range []string{"-0.02", "NaN", "Inf", "x"} {
		code, _, errOut := smallRun(t, dir, "now", "--baseline", filepath.Join(dir, "base"), "--equivalence", v)
		if code != 2 || !strings.Contains(errOut, "a margin in the metric's units") {
			t.Errorf("--equivalence %s: exit %d, stderr %q; want a usage error", v, code, errOut)
		}
	}
	for _, v := range []string{"fixed-4", "doc=doc", "doc=fixed-4o1/bm25"} {
		if code, _, errOut := smallRun(t, dir, "now", "--baseline", filepath.Join(dir, "base"), "--gate-map", v); code != 2 || !strings.Contains(errOut, "-gate-map") {
			t.Errorf("--gate-map %s: exit %d, stderr %q; want a usage error", v, code, errOut)
		}
	}
}

// TestCompareGate: bench compare --gate on the fixture of TestCompareCLI
// (good and bad differ by success@1 = 1 on all 6 queries: exact sign-flip
// p = 2/2^6 = 0.03125, by hand): bad against the baseline good regresses
// (exit 3, golden summary testdata/gate/compare-bad.md.golden); good
// against the baseline bad improves (exit 0); good against itself is
// unchanged; --gate without --baseline is a usage error.
func TestCompareGate(t *testing.T) {
	dir := writeCompareData(t)
	p := func(n string) string { return filepath.Join(dir, n) }
	t.Setenv("GITHUB_STEP_SUMMARY", "")
	code, out, errOut := runBench("compare", "--qrels", p("qrels.txt"), "-m", "success@1", "--gate", "--baseline", "good", "good="+p("good.trec"), "bad="+p("bad.trec"))
	if code != 3 || !strings.Contains(errOut, "regressed against the baseline: bad (success@1)") {
		t.Fatalf("bad vs good: exit %d, stderr %q; want 3 naming bad", code, errOut)
	}
	checkDiagGolden(t, filepath.Join("gate", "compare-bad.md.golden"), out)
	code, out, errOut = runBench("compare", "--qrels", p("qrels.txt"), "-m", "success@1", "--gate", "--baseline", "bad", "good="+p("good.trec"), "bad="+p("bad.trec"))
	if code != 0 || !strings.Contains(out, "| good | success@1 | 0.0000 | 1.0000 | +1.0000 [+1.0000, +1.0000] | 0.0312 | improved |") {
		t.Errorf("good vs bad: exit %d, want 0 and improved\n%s%s", code, out, errOut)
	}
	code, out, errOut = runBench("compare", "--qrels", p("qrels.txt"), "--gate", "--baseline", "a", "a="+p("good.trec"), "b="+p("good.trec"))
	if code != 0 || !strings.Contains(out, "| – | unchanged (identical) |") || !strings.Contains(out, "1 identical (same score on every query) reported as unchanged and not counted, 0 counted") {
		t.Errorf("good vs itself: exit %d, want 0 and unchanged (identical), not counted\n%s%s", code, out, errOut)
	}
	if code, _, _ := runBench("compare", "--qrels", p("qrels.txt"), "--gate", p("good.trec"), p("bad.trec")); code != 2 {
		t.Errorf("--gate without --baseline: exit %d, want 2", code)
	}
	// A summary that cannot be written (a directory) never changes the
	// verdict: the summary is on stdout first; a regression still exits
	// 3, a pass exits 1 naming the variable or flag and the path (it
	// exited 1 either way, a regression reported as a mere error).
	t.Setenv("GITHUB_STEP_SUMMARY", dir)
	code, out, errOut = runBench("compare", "--qrels", p("qrels.txt"), "-m", "success@1", "--gate", "--baseline", "good", "good="+p("good.trec"), "bad="+p("bad.trec"))
	if code != 3 || !strings.Contains(out, "| bad | success@1 |") || !strings.Contains(errOut, "regressed against the baseline: bad (success@1) (exit 3); also, the summary was not saved: GITHUB_STEP_SUMMARY="+dir+": is a directory") {
		t.Errorf("regression, GITHUB_STEP_SUMMARY a directory: exit %d, stdout %q, stderr %q; want 3, the summary and the variable named", code, out, errOut)
	}
	code, out, errOut = runBench("compare", "--qrels", p("qrels.txt"), "--gate", "--baseline", "a", "--gate-summary", dir, "a="+p("good.trec"), "b="+p("good.trec"))
	want := "gate: no regression (verdict on stdout), but the summary was not saved: --gate-summary: " + dir + ": is a directory, want a file path\nGITHUB_STEP_SUMMARY=" + dir + ": is a directory"
	if code != 1 || !strings.Contains(out, "| unchanged (identical) |") || !strings.Contains(errOut, want) {
		t.Errorf("pass, both summaries directories: exit %d, stdout %q, stderr %q; want 1, the summary and %q", code, out, errOut, want)
	}
	t.Setenv("GITHUB_STEP_SUMMARY", "")
	// --max-drop is a finite number ≥ 0 (gate.CheckMaxDrop): Inf was
	// accepted and printed "a drop larger than +Inf fails".
	for _, v := range []string{"Inf", "+Inf", "-Inf", "NaN", "-0.5", "1e309", "x"} {
		code, out, errOut := runBench("compare", "--qrels", p("qrels.txt"), "--gate", "--baseline", "a", "--max-drop", v, "a="+p("good.trec"), "b="+p("good.trec"))
		if code != 2 || out != "" || !strings.Contains(errOut, "invalid value \""+v+"\" for flag -max-drop") || !strings.Contains(errOut, "finite number ≥ 0") {
			t.Errorf("--max-drop %s: exit %d, stdout %q, stderr %q; want exit 2 and a flag error", v, code, out, errOut)
		}
	}
	// The gate writes Markdown only: another --format is a usage error, not
	// silently ignored (a CI step parsing JSON got Markdown).
	code, out, errOut = runBench("compare", "--qrels", p("qrels.txt"), "--format", "json", "--gate", "--baseline", "a", "a="+p("good.trec"), "b="+p("good.trec"))
	if code != 2 || out != "" || !strings.Contains(errOut, "--gate writes a Markdown summary: --format json does not apply") {
		t.Errorf("--gate --format json: exit %d, stdout %q, stderr %q; want a usage error", code, out, errOut)
	}
}
