package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunRelativePaths (issue 26): a relative --output, --cache-dir or
// --history, and a relative $RAGBENCH_CACHE_DIR, is the current folder's,
// as for any command-line tool; the config's output, cache_dir and history
// keys are the config folder's. Before, the flags and the variable were
// resolved against the config's folder too (bench run --output out
// ../configs/x.yaml wrote configs/out), and docs/config.md did not say so.
func TestRunRelativePaths(t *testing.T) {
	data, err := filepath.Abs("../../sweep/testdata/small")
	if err != nil {
		t.Fatal(err)
	}
	work, cfgDir := t.TempDir(), t.TempDir()
	cfg := writeConfig(t, cfgDir, "dataset: {corpus: corpus.jsonl, queries: queries.jsonl}\nretrievers:\n  - {name: bm25, type: bm25}\n")
	keyed := writeConfig(t, t.TempDir(), "dataset: {corpus: corpus.jsonl, queries: queries.jsonl}\nretrievers:\n  - {name: bm25, type: bm25}\noutput: kout\ncache_dir: kcache\nhistory: kh.csv\n")
	t.Chdir(work)
	t.Setenv("RAGBENCH_CACHE_DIR", "")
	lines := func(args ...string) map[string]string {
		t.Helper()
		code, out, errOut := runBench(append([]string{"run", "--check", "--data-dir", data}, args...)...)
		if code != 0 {
			t.Fatalf("%q: exit %d\n%s", args, code, errOut)
		}
		m := map[string]string{}
		for _, l := range strings.Split(out, "\n") {
			if k, v, ok := strings.Cut(l, " "); ok {
				m[k] = strings.TrimSpace(v)
			}
		}
		return m
	}
	check := func(label string, got map[string]string, want map[string]string) {
		t.Helper()
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s: %s %s, want %s", label, k, got[k], w)
			}
		}
	}
	check("flags", lines("--output", "out", "--cache-dir", "cache", "--history", "h.csv", cfg),
		map[string]string{"output": filepath.Join(work, "out"), "cache": filepath.Join(work, "cache"), "history": filepath.Join(work, "h.csv")})
	check("defaults", lines(cfg),
		map[string]string{"output": filepath.Join(cfgDir, "results", "c"), "cache": filepath.Join(cfgDir, ".ragbench-cache"), "history": filepath.Join(cfgDir, "bench-history.csv")})
	check("config keys", lines(keyed), map[string]string{"output": filepath.Join(filepath.Dir(keyed), "kout"),
		"cache": filepath.Join(filepath.Dir(keyed), "kcache"), "history": filepath.Join(filepath.Dir(keyed), "kh.csv")})
	t.Setenv("RAGBENCH_CACHE_DIR", "envcache")
	check("$RAGBENCH_CACHE_DIR", lines(cfg), map[string]string{"cache": filepath.Join(work, "envcache")})
	check("cache_dir over $RAGBENCH_CACHE_DIR", lines(keyed), map[string]string{"cache": filepath.Join(filepath.Dir(keyed), "kcache")})
	for _, p := range []string{"out", "cache", "h.csv", "envcache"} {
		if _, err := os.Stat(filepath.Join(cfgDir, p)); err == nil {
			t.Errorf("%s created beside the config", p)
		}
	}
}
