package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunFlagsAfterConfig: 'bench run CONFIG --check' parses the flags that
// follow the config (exit 0), and an unknown flag there is a usage error.
func TestRunFlagsAfterConfig(t *testing.T) {
	cfg := "../../sweep/testdata/small.yaml"
	data := "../../sweep/testdata/small"
	var out, errb bytes.Buffer
	if code := run(&out, &errb, []string{"run", cfg, "--check", "--data-dir", data}); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errb.String())
	}
	if code := run(&out, &errb, []string{"run", cfg, "--check", "--bogus"}); code != 2 {
		t.Fatalf("unknown flag after CONFIG: exit %d, want 2", code)
	}
}

// TestRunProgressFlag: --progress auto with stderr not a terminal (a
// buffer, as in CI or '2> log') writes plain stage lines; plain forces
// them; none writes only the start line; a bad value is a usage error.
func TestRunProgressFlag(t *testing.T) {
	cfg := "../../sweep/testdata/small.yaml"
	data := "../../sweep/testdata/small"
	for _, mode := range []string{"auto", "plain", "none", "never"} {
		dir := t.TempDir()
		var out, errb bytes.Buffer
		args := []string{"run", "--data-dir", data, "--output", filepath.Join(dir, "out"), "--cache-dir", filepath.Join(dir, "cache"), "--no-history", cfg}
		if mode != "auto" {
			args = append(args, "--progress", mode)
		}
		if code := run(&out, &errb, args); code != 0 {
			t.Fatalf("--progress %s: exit %d, stderr:\n%s", mode, code, errb.String())
		}
		lines := strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n")
		if !strings.HasPrefix(lines[0], "bench run: ") || !strings.HasSuffix(lines[0], "small.yaml: 6 cells → "+filepath.Join(dir, "out")) {
			t.Errorf("--progress %s: first line %q", mode, lines[0])
		}
		plain := mode == "auto" || mode == "plain"
		if !plain {
			if len(lines) != 1 {
				t.Errorf("--progress %s: %d stderr lines, want only the start line:\n%s", mode, len(lines), errb.String())
			}
			continue
		}
		if strings.ContainsRune(errb.String(), '\r') {
			t.Errorf("--progress %s: carriage return in stderr", mode)
		}
		// Plain: 2 lines per stage: per chunking (2) 1 stage, per BM25
		// cell (4) index, search and score, per RRF cell (2) fuse and
		// score, then significance and writing: 2·(2 + 12 + 4 + 2) = 40.
		if got := len(lines) - 1; got != 40 {
			t.Errorf("--progress %s: %d progress lines, want 40:\n%s", mode, got, errb.String())
		}
		for _, want := range []string{"bench run: [1/6] doc/bm25: index 6 chunks …", "bench run: [6/6] fixed-4o1/rrf: fuse 6 queries done in "} {
			if !strings.Contains(errb.String(), want) {
				t.Errorf("--progress %s: stderr lacks %q:\n%s", mode, want, errb.String())
			}
		}
	}
	var out, errb bytes.Buffer
	if code := run(&out, &errb, []string{"run", "--progress", "always-ish", cfg}); code != 2 {
		t.Errorf("--progress always-ish: exit %d, want 2", code)
	}
	if !strings.Contains(errb.String(), "auto, bar, plain or none") {
		t.Errorf("usage error does not list the modes: %s", errb.String())
	}
}
