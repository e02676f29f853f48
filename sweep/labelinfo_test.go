package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStaleChunkLabels is issue 12's case: labels for 5-word windows
// (d1#1 = "zeta eta theta iota kappa", recorded as fixed-5 beside the
// labels) swept over fixed sizes [5, 10]. d1#1 exists under both
// chunkings, so only the record shows that fixed-10 cannot be scored: Run
// and Check (bench run --check) must stop before any work, naming the labels file and
// both chunkings.
func TestStaleChunkLabels(t *testing.T) {
	dir := t.TempDir()
	cfg := loadConfig(t, "testdata/stale.yaml", "testdata/stale", dir)
	check := func(what string, err error) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: no error for chunk labels of fixed-5 evaluated under fixed-10", what)
		}
		msg := err.Error()
		for _, want := range []string{"labels.jsonl", "fixed-5", "fixed-10", "stale chunk labels"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: error %q does not name %q", what, msg, want)
			}
		}
		if strings.Contains(msg, "chunking fixed-5 of") {
			t.Errorf("%s: error %q lists fixed-5 among the chunkings it cannot score", what, msg)
		}
	}
	_, err := Run(t.Context(), cfg, Options{NoHistory: true})
	check("Run", err)
	if _, err := os.Stat(filepath.Join(dir, "cache")); err == nil {
		t.Errorf("Run built caches before reporting the stale labels")
	}
	_, _, err = checkDataset(cfg)
	check("Check", err)

	// The same labels under their own chunking alone run.
	cfg.Chunking[0].Sizes = []int{5}
	if _, err := Run(t.Context(), cfg, Options{NoHistory: true}); err != nil {
		t.Fatalf("fixed-5 alone: %v", err)
	}
}
