package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGateMapPreflight: --gate-map doc=nope was refused only after the
// whole sweep ran (the tester's finding). A mapping naming a chunking or
// cell that the baseline or the config lacks now fails before the first
// cell (gate.CheckMappings, pairCells' rule), with bench run and with
// bench run --check: exit 1, nothing written.
func TestGateMapPreflight(t *testing.T) {
	dir := t.TempDir()
	small, large := writeChunkingFixture(t, dir)
	runCfg := func(cfg, out string, extra ...string) (int, string, string) {
		args := append([]string{"run", "--progress", "plain", "--data-dir", dir, "--output", filepath.Join(dir, out),
			"--cache-dir", filepath.Join(dir, "cache"), "--no-history"}, extra...)
		return runBench(append(args, cfg)...)
	}
	if code, _, errOut := runCfg(small, "fixed-4"); code != 0 {
		t.Fatalf("baseline: exit %d\n%s", code, errOut)
	}
	for _, tc := range []struct{ mapping, want string }{
		{"fixed-4=nope", "this run has no chunking nope (its chunkings: fixed-64)"},
		{"fixed-4/bm25=fixed-64/nope", "this run has no cell fixed-64/nope"},
		{"fixed-8=fixed-64", "the baseline has no chunking fixed-8 (its chunkings: fixed-4)"},
	} {
		for _, check := range []bool{false, true} {
			extra := []string{"--baseline", filepath.Join(dir, "fixed-4"), "--gate-map", tc.mapping}
			if check {
				extra = append(extra, "--check")
			}
			code, _, errOut := runCfg(large, "mapped", extra...)
			if code != 1 || !strings.Contains(errOut, "--gate-map "+tc.mapping+": "+tc.want) || strings.Contains(errOut, "chunk ") {
				t.Errorf("--gate-map %s (--check %v): exit %d, stderr:\n%s", tc.mapping, check, code, errOut)
			}
			if _, err := os.Stat(filepath.Join(dir, "mapped")); err == nil {
				t.Errorf("--gate-map %s: the sweep ran (output written)", tc.mapping)
			}
		}
	}
}
