package main

import (
	"bytes"
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
