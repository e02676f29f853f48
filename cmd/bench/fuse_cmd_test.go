package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/testenv/ranxfuse"
)

// The fixture testdata/fuse: a.trec (TREC) and b.json (ranx JSON).
//
//	q1: a: d1 3, d2 2, d3 1        b: d3 0.9, d1 0.8, d4 0.7
//	q2: a: x 1, y 1 (tie: y ranks first, doc id descending)   b: x 3, y 2
//	q3: only in b: z 1
//
// rrf.golden, RRF K = 60: q1 d1 1/61 + 1/62 = 0.0325224748810153, d3 1/63 +
// 1/61, d2 1/62, d4 1/63; q2 y = 1/61 + 1/62 = x, tie written y first; q3 z 1/61.
// combsum-minmax.golden, weights 0.5, 2: q1 d3 0 + 2, d1 0.5 + 1 (b's 0.8
// maps to 0.5 + 2e-16), d2 0.25, d4 0; q2 a's scores are equal (min-max 0):
// x 2, y 0; q3 z 0 (one score).
// dbsf.golden (Qdrant): q1 a (s + 1)/6, b (s − 0.5)/0.6 → d1 7/6, d3 1,
// d2 0.5, d4 1/3; q2 a: σ = 0 → 0.5 each; b: mean 2.5, sample σ √0.5 →
// x (3 − 2.5 + 3√0.5)/(6√0.5) = 0.6178511301977579 (+ 0.5), y 0.3821488698022421
// (+ 0.5); q3 one score → 0.5.
func TestFuseGolden(t *testing.T) {
	a, b := filepath.Join("testdata", "fuse", "a.trec"), filepath.Join("testdata", "fuse", "b.json")
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"fuse/rrf.golden", []string{"--method", "rrf", a, b}},
		{"fuse/combsum-minmax.golden", []string{"--method", "combsum", "--norm", "minmax", "--weights", "0.5,2", "--tag", "wsum", a, b}},
		{"fuse/dbsf.golden", []string{"--method", "dbsf", a, b}},
		{"fuse/help.golden", []string{"--help"}},
	} {
		code, stdout, stderr := runBench(append([]string{"fuse"}, c.args...)...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", c.golden, code, stderr)
			continue
		}
		checkDiagGolden(t, c.golden, stdout)
		if c.golden != "fuse/help.golden" && !strings.Contains(stderr, "a.trec lacks 1 queries of the other runs") {
			t.Errorf("%s: stderr %q, want a note that a.trec lacks q3", c.golden, stderr)
		}
	}
	// --depth 2 cuts a.trec's q1 (3 results) and b.json's q1: a note each.
	code, _, stderr := runBench("fuse", "--method", "rrf", "--depth", "2", a, b)
	if code != 0 || !strings.Contains(stderr, "a.trec: 1 of 2 queries' lists cut to --depth 2 (longest 3 results)") ||
		!strings.Contains(stderr, "b.json: 1 of 3 queries' lists cut to --depth 2") {
		t.Errorf("--depth 2: exit %d, stderr %q; want a note per run cut", code, stderr)
	}
}

func TestFuseErrorsCLI(t *testing.T) {
	a, b := filepath.Join("testdata", "fuse", "a.trec"), filepath.Join("testdata", "fuse", "b.json")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{a, b}, 2, "--method is required"},
		{[]string{"--method", "rrf", a}, 2, "need at least two runs"},
		{[]string{"--method", "borda", a, b}, 2, `unknown fusion method "borda"`},
		{[]string{"--method", "combsum", a, b}, 2, "combsum needs a normalization"},
		{[]string{"--method", "rrf", "--norm", "zscore", a, b}, 2, "rrf takes no normalization"},
		{[]string{"--method", "combsum", "--norm", "minmax", "--rrf-k", "10", a, b}, 2, "--rrf-k applies to --method rrf only"},
		{[]string{"--method", "rrf", "--rrf-k", "-1", a, b}, 2, "rank constant must be a finite number ≥ 0"},
		{[]string{"--method", "rrf", "--weights", "1", a, b}, 2, "1 weights for 2 inputs"},
		{[]string{"--method", "rrf", "--weights", "1,x", a, b}, 2, `weight 2 "x" is not a number`},
		{[]string{"--method", "rrf", "--weights", "1,-2", a, b}, 2, "weights[1]: must be finite and ≥ 0, got -2"},
		{[]string{"--method", "rrf", "--weights", "1,NaN", a, b}, 2, "weights[1]: must be finite and ≥ 0, got NaN"},
		{[]string{"--method", "rrf", "--depth", "0", a, b}, 2, "depth: must be ≥ 1"},
		{[]string{"--method", "rrf", "--missing", "min", a, b}, 2, `"min" applies to score methods`},
		{[]string{"--method", "rrf", "--tag", "a b", a, b}, 2, "must contain no white space"},
		{[]string{"--method", "rrf", "--bogus", a, b}, 2, "flag provided but not defined"},
		{[]string{"--method", "rrf", a, "testdata/fuse/none.trec"}, 1, "none.trec"},
		{[]string{"--method", "combsum", "--norm", "max", a, filepath.Join("testdata", "fuse", "negative.trec")}, 1, `bench fuse: ` + filepath.Join("testdata", "fuse", "negative.trec") + `: query "q1": max normalization needs a top score > 0, got -0.5`},
		{[]string{"--method", "rrf", "--weights", "0,0", a, b}, 2, "weights: every weight is 0"},
		// Issue 26: geometric over raw scores reversed a list's negative
		// tail (exit 0); harmonic and geometric take non-negative norms.
		{[]string{"--method", "geometric", "--norm", "none", a, b}, 2, "bench fuse: norm: geometric takes a non-negative normalization (minmax, sum, rank or borda), not none"},
		{[]string{"--method", "harmonic", "--norm", "zscore", a, b}, 2, "norm: harmonic takes a non-negative normalization (minmax, sum, rank or borda), not zscore"},
		{[]string{"--method", "rrf", "-", a, "-"}, 2, `"-" (stdin) given twice`},
	} {
		code, stdout, stderr := runBench(append([]string{"fuse"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
		if stdout != "" {
			t.Errorf("%v: stdout %q, want nothing on an error", c.args, stdout)
		}
	}
}

// TestFuseStdin: "-" reads a run from stdin, as bench eval does (it was
// opened as a file named "-": exit 1); messages call it "stdin". The fused
// run equals the one of the file itself (rrf.golden).
func TestFuseStdin(t *testing.T) {
	a, b := filepath.Join("testdata", "fuse", "a.trec"), filepath.Join("testdata", "fuse", "b.json")
	stdinFrom(t, a)
	code, stdout, stderr := runBench("fuse", "--method", "rrf", "-", b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkDiagGolden(t, "fuse/rrf.golden", stdout)
	if !strings.Contains(stderr, "note: stdin lacks 1 queries of the other runs") {
		t.Errorf("stderr %q, want the note naming stdin", stderr)
	}
}

// stdinFrom makes the file at path the commands' stdin until t ends.
func stdinFrom(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	old := stdin
	stdin = f
	t.Cleanup(func() { stdin = old; f.Close() })
}

// TestFuseFlatNotes: min-max gives every document of a flat list (one
// result, or equal scores) 0, as ranx does; bench fuse said nothing of it.
// It now notes, per run, how many of the queries' lists were flat: a.trec's
// q2 (x 1, y 1) and b.json's q3 (z alone) in the fixture.
func TestFuseFlatNotes(t *testing.T) {
	a, b := filepath.Join("testdata", "fuse", "a.trec"), filepath.Join("testdata", "fuse", "b.json")
	code, _, stderr := runBench("fuse", "--method", "combsum", "--norm", "minmax", a, b)
	for _, want := range []string{
		"note: " + a + ": 1 of 3 queries' lists are flat (a single result, or equal scores): minmax gives each of their documents 0, as ranx does (e.g. query q2)\n",
		"note: " + b + ": 1 of 3 queries' lists are flat (a single result, or equal scores): minmax gives each of their documents 0, as ranx does (e.g. query q3)\n",
	} {
		if code != 0 || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, stderr %q; want %q", code, stderr, want)
		}
	}
	if _, _, stderr := runBench("fuse", "--method", "rrf", a, b); strings.Contains(stderr, "flat") {
		t.Errorf("rrf: stderr %q, want no flat note (ranks only)", stderr)
	}
}

// TestFuseCLIMatchesRanx runs 'bench fuse' on the SciFact runs of
// retrievers/hybrid/testdata/scifact (ranx's query subset) for every ranx
// reference run and compares the TREC output with ranx's fused run (same
// documents, scores within 1e-9, same order up to ties).
func TestFuseCLIMatchesRanx(t *testing.T) {
	ref, err := ranxfuse.Load()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	inputs := make([]string, 2)
	for i, name := range []string{"bm25.trec.gz", "dense.trec.gz"} {
		run, err := eval.ReadRun(ranxfuse.Path(name))
		if err != nil {
			t.Fatal(err)
		}
		inputs[i] = filepath.Join(dir, name)
		// Any reference run's query set will do: all hold the same queries.
		if err := eval.WriteRunFile(inputs[i], ref["rrf"].Subset(run), "in"); err != nil {
			t.Fatal(err)
		}
	}
	for name, c := range ref {
		args := []string{"fuse", "--method", c.Method}
		if c.Norm != "" {
			args = append(args, "--norm", c.Norm)
		}
		if c.Weights != nil {
			var w []string
			for _, x := range c.Weights {
				w = append(w, strconv.FormatFloat(x, 'g', -1, 64))
			}
			args = append(args, "--weights", strings.Join(w, ","))
		}
		code, stdout, stderr := runBench(append(args, inputs...)...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", name, code, stderr)
			continue
		}
		got, _, err := eval.ParseRun(strings.NewReader(stdout), name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Compare(got); err != nil {
			t.Errorf("%s: bench fuse differs from ranx:\n%v", name, err)
		}
	}
}

// TestFuseOverflowCLI: combsum of raw scores 1e308 + 1e308 overflows to
// +Inf; bench fuse refuses it naming the query, the doc and both run files
// (its error named no file: "score +Inf not finite", from writing).
func TestFuseOverflowCLI(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.trec"), filepath.Join(dir, "b.trec")
	os.WriteFile(a, []byte("q1 Q0 d1 1 1e308 a\nq1 Q0 d2 2 1 a\n"), 0o644)
	os.WriteFile(b, []byte("q1 Q0 d1 1 1e308 b\nq1 Q0 d3 2 1 b\n"), 0o644)
	code, stdout, stderr := runBench("fuse", "--method", "combsum", "--norm", "none", a, b)
	want := `bench fuse: query "q1": doc "d1": the fused score is +Inf: its scores in ` + a + " and " + b + " overflow float64 when combined (--method combsum --norm none)"
	if code != 1 || stdout != "" || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, stdout, stderr, want)
	}
}
