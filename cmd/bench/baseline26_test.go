package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunBaselineIsOutput (issue 26): --baseline naming this run's output
// folder — the folder, its results.json, or the folder through a symbolic
// link — is refused before any work (exit 2; --check too), the baseline
// left byte for byte. Before, the run replaced the baseline it was gated
// against and passed.
func TestRunBaselineIsOutput(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := smallRun(t, dir, "base"); code != 0 {
		t.Fatalf("baseline run: exit %d\n%s", code, errOut)
	}
	base := filepath.Join(dir, "base")
	before, err := os.ReadFile(filepath.Join(base, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(base, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{base, filepath.Join(base, "results.json"), filepath.Join(dir, "link"), filepath.Join(dir, "link", "results.json")} {
		for _, extra := range [][]string{nil, {"--check"}} {
			code, _, errOut := smallRun(t, dir, "base", append([]string{"--baseline", b}, extra...)...)
			if want := "is this run's output folder"; code != 2 || !strings.Contains(errOut, want) || strings.Contains(errOut, "cells →") {
				t.Errorf("--baseline %s %v: exit %d, stderr %q; want exit 2, %q, before any work", b, extra, code, errOut, want)
			}
		}
	}
	if after, _ := os.ReadFile(filepath.Join(base, "results.json")); !bytes.Equal(before, after) {
		t.Error("the baseline's results.json changed")
	}
	if code, _, errOut := smallRun(t, dir, "now", "--baseline", base); code != 0 {
		t.Errorf("--baseline another folder: exit %d\n%s", code, errOut)
	}
}

// TestRunBaselineOneQuery (issue 26): a gate over one shared query prints
// its interval as [–, –] (undefined), not the made-up [+0.0000, +0.0000]
// that stats' finite n = 1 result gave once it stopped being NaN.
func TestRunBaselineOneQuery(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	os.MkdirAll(data, 0o755)
	corpus, err := os.ReadFile("../../sweep/testdata/small/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(data, "corpus.jsonl"), corpus, 0o644)
	os.WriteFile(filepath.Join(data, "queries.jsonl"), []byte(`{"id": "q1", "question": "eiffel tower", "gold": ["p-1"], "kind": "single"}`+"\n"), 0o644)
	args := func(out string, extra ...string) []string {
		return append([]string{"run", "--progress", "none", "--data-dir", data, "--output", filepath.Join(dir, out),
			"--cache-dir", filepath.Join(dir, "cache"), "--no-history", "../../sweep/testdata/small.yaml"}, extra...)
	}
	if code, _, errOut := runBench(args("base")...); code != 0 {
		t.Fatalf("baseline run: exit %d\n%s", code, errOut)
	}
	code, out, errOut := runBench(args("now", "--baseline", filepath.Join(dir, "base"))...)
	if code != 0 || !strings.Contains(out, "+0.0000 [–, –]") || strings.Contains(out, "[+0.0000, +0.0000]") {
		t.Errorf("exit %d, stdout:\n%s\nstderr %s\nwant every interval [–, –]", code, out, errOut)
	}
}
