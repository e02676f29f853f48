package config

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ragbench/ragbench/kinds"
)

// TestMergeKeys (issue 26, a regression): a retriever written with a YAML
// merge key ({<<: *r, name: bm25b}, or a list of anchors) loads as the same
// retriever written out — the keys of its own first, then of the first
// mapping listed — and is checked as one: its grids expand, an empty
// value brought in is still named. Before, every such retriever was
// "<<: unknown field" (the retrievers' decoder read the merge key as a
// key). A merge key on something other than a mapping is an error on its
// line.
func TestMergeKeys(t *testing.T) {
	head := "dataset: {corpus: c, queries: q}\nretrievers:\n"
	load := func(yaml string) (*Config, error) {
		return Load(writeConfig(t, head+yaml), LoadOptions{DataDir: "/d"})
	}
	retrieverJSON := func(c *Config, i int) string {
		b, err := json.Marshal(c.Retrievers[i])
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	merged, err := load("  - &r {name: bm25, type: bm25, k1: 0.7, b: 0.3}\n  - &s {name: other, type: bm25, k1: 1.5, scoring: bleve}\n  - {<<: *r, name: bm25b}\n  - {<<: [*s, *r], name: both, b: 0.9}\n")
	if err != nil {
		t.Fatal(err)
	}
	written, err := load("  - {name: bm25, type: bm25, k1: 0.7, b: 0.3}\n  - {name: other, type: bm25, k1: 1.5, scoring: bleve}\n  - {name: bm25b, type: bm25, k1: 0.7, b: 0.3}\n  - {name: both, type: bm25, k1: 1.5, scoring: bleve, b: 0.9}\n")
	if err != nil {
		t.Fatal(err)
	}
	for i := range written.Retrievers {
		if got, want := retrieverJSON(merged, i), retrieverJSON(written, i); got != want {
			t.Errorf("retriever %d: %s\nwant %s (written out)", i, got, want)
		}
	}
	if merged.Hash() != written.Hash() {
		t.Error("merged and written-out configs hash differently")
	}
	tuned, err := load("  - {name: a, type: bm25}\n  - {name: b, type: bm25, k1: 1.2}\n  - &t {name: t1, type: hybrid, inputs: [a, b], fusion: [rrf, combsum]}\n  - {<<: *t, name: t2}\n")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tuned.Retrievers[3].Settings.(kinds.Tunable).TuneSettings()); n != 2 {
		t.Errorf("t2 (merged from a tuned t1): %d settings, want 2", n)
	}
	for _, tc := range []struct{ yaml, want string }{
		{"  - &r {name: a, type: bm25}\n  - {<<: 3, name: b}\n", "c.yaml:4: <<: a merge key takes an anchored mapping (<<: *name) or a list of them"},
		{"  - &r {name: a, type: hybrid, inputs: [x, y], fusion: \"\"}\n  - {<<: *r, name: b}\n", "c.yaml:3: retrievers[1].fusion: empty"},
		{"  - &r {name: a, type: bm25}\n  - {<<: *r, name: b, k2: 1}\n", "c.yaml:4: k2: unknown field"},
	} {
		_, err := load(tc.yaml)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v\nwant %q", tc.yaml, err, tc.want)
		}
	}
}

// TestMergeKeysAliasBomb: merges of merges naming one anchor many times
// (8 levels of 8, 8^8 paths) load at once: each mapping is merged once.
func TestMergeKeysAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("dataset: {corpus: c, queries: q}\nretrievers:\n  - &l0 {name: r0, type: bm25}\n")
	for i := 1; i <= 8; i++ {
		refs := strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 8), ", ")
		fmt.Fprintf(&b, "  - &l%d {<<: [%s], name: r%d}\n", i, refs, i)
	}
	done := make(chan error, 1)
	go func() { _, err := Load(writeConfig(t, b.String()), LoadOptions{DataDir: "/d"}); done <- err }()
	select {
	case err := <-done:
		if err != nil && !strings.Contains(err.Error(), "alias") {
			t.Errorf("Load: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Load of nested merges took over 10 s")
	}
}
