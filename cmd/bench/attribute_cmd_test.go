package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkDiagGolden compares got with testdata/<name>; RAGBENCH_UPDATE_GOLDEN=1
// rewrites the file instead (then read the diff: the numbers in the golden
// files are checked by hand against the fixture's comments below).
func checkDiagGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if os.Getenv("RAGBENCH_UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

// The fixture in testdata/attribute (labelled.jsonl, run.trec,
// answers.jsonl) is diagnose's hand-worked fixture; see
// diagnose/fixture_test.go for the per-query table. At depth 2 the 2×2 is
// retrieved+correct 2 (q1, q4), retrieved+wrong 1 (q3), missed+wrong 2 (q2,
// q7): hit rate 3/5 = 0.600, accuracy 2/5 = 0.400, P(correct|retrieved) 2/3
// = 0.667, P(correct|missed) 0/2; the suggested threshold is 0.7 (J = 0.8).
func TestAttributeGolden(t *testing.T) {
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"attribute/depth2.table.golden", []string{"--depth", "2"}},
		{"attribute/depth2.md.golden", []string{"--depth", "2", "--format", "md"}},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"attribute", "--run", "testdata/attribute/run.trec",
			"--qrels", "testdata/attribute/labelled.jsonl", "--answers", "testdata/attribute/answers.jsonl"}, c.args...)
		if code := run(&stdout, &stderr, args); code != 0 {
			t.Fatalf("%v: exit %d, stderr:\n%s", c.args, code, stderr.String())
		}
		checkDiagGolden(t, c.golden, stdout.String())
	}
}

func TestAttributeJSONDefaultDepth(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, []string{"attribute", "--run", "testdata/attribute/run.trec",
		"--qrels", "testdata/attribute/labelled.jsonl", "--answers", "testdata/attribute/answers.jsonl", "--format", "json"})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got struct {
		Attribution struct {
			Depth   int
			Overall map[string]any
			Slices  []struct{ Slice string }
		}
		Threshold struct {
			Suggested map[string]float64
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	// Depth 6 (the default) also finds q2's gold at rank 3: q1 RC, q2 RW,
	// q3 RW, q4 RC, q7 MW → prompt misuse dominates (2 > 1).
	want := map[string]any{"n": 5.0, "retrieved_correct": 2.0, "retrieved_wrong": 2.0, "missed_correct": 0.0,
		"missed_wrong": 1.0, "hit_rate": 0.8, "accuracy": 0.4, "p_correct_given_retrieved": 0.5,
		"p_correct_given_missed": 0.0, "dominant_failure": "prompt_misuse"}
	if diff := cmp.Diff(want, got.Attribution.Overall); diff != "" || got.Attribution.Depth != 6 {
		t.Errorf("depth %d, overall (-want +got):\n%s", got.Attribution.Depth, diff)
	}
	if len(got.Attribution.Slices) != 3 {
		t.Errorf("slices = %v, want fact, multi-hop, unanswerable", got.Attribution.Slices)
	}
	// Depth 6 curve: q3 (.4), q4 (.7), q1 (.9), q2 (.8) all have gold in the
	// top 6. At .4: q6 silenced (1/2), nothing lost → J .5. At .5: q3 lost
	// (1/5) → .3. At .7: q5, q6 silenced, q3 lost → .8. At .8: q4 lost too → .6.
	if s := got.Threshold.Suggested; s["threshold"] != 0.7 || s["youden_j"] != 0.8 || s["answerable_lost_gold"] != 0.2 {
		t.Errorf("suggested = %v, want threshold 0.7, J 0.8, lost 0.2", s)
	}
}

func TestAttributeBadInput(t *testing.T) {
	base := []string{"attribute", "--run", "testdata/attribute/run.trec", "--qrels", "testdata/attribute/labelled.jsonl"}
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--answers", "testdata/attribute/unknown.jsonl"}, 1,
			`bench attribute: testdata/attribute/unknown.jsonl:2: qid: unknown query id "q42": not in the qrels nor in the run`},
		{[]string{"--answers", "testdata/attribute/dup.jsonl"}, 1,
			`bench attribute: testdata/attribute/dup.jsonl:2: qid: duplicate verdict for query "q1" (first on line 1)`},
		{[]string{"--answers", "testdata/attribute/nonbool.jsonl"}, 1,
			`bench attribute: testdata/attribute/nonbool.jsonl:1: correct: query "q1": want true or false, got "yes"`},
		{[]string{"--answers", "testdata/attribute/empty.jsonl"}, 1,
			`bench attribute: testdata/attribute/empty.jsonl: no verdicts (empty answers file); want one JSON object per line, e.g. {"qid": "q000", "correct": true}`},
		{nil, 2, "bench attribute: missing --answers (see --help)"},
		{[]string{"--answers", "a.jsonl", "--depth", "0"}, 2, "bench attribute: --depth must be ≥ 1, got 0"},
		{[]string{"--answers", "a.jsonl", "--format", "csv"}, 2, `bench attribute: --format must be table, md or json, got "csv"`},
		{[]string{"--answers", "testdata/attribute/answers.jsonl", "--slice-field", "topic"}, 1,
			"bench attribute: testdata/attribute/labelled.jsonl: topic: no line has this field (keys seen: gold, id, kind, question)"},
		// Slice labels for queries none of which has a verdict: the wrong
		// queries file; every query would silently be "(no slice)".
		{[]string{"--answers", "testdata/attribute/answers.jsonl", "--slice-field", "topic", "--queries", "testdata/attribute/otherqueries.jsonl"}, 1,
			`bench attribute: testdata/attribute/otherqueries.jsonl: topic: none of the 2 labelled queries (e.g. "x1") has a verdict in testdata/attribute/answers.jsonl: wrong queries file?`},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		code := run(&stdout, &stderr, append(append([]string{}, base...), c.args...))
		if code != c.code || strings.TrimSpace(stderr.String()) != c.want {
			t.Errorf("%v: exit %d, stderr %q\nwant exit %d, %q", c.args, code, stderr.String(), c.code, c.want)
		}
	}
}

func TestAttributeHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"attribute", "--help"}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(stdout.String(), "Examples:") || !strings.Contains(stdout.String(), "-slice-field") || stderr.Len() != 0 {
		t.Errorf("help lacks examples or flags on stdout:\n%s\nstderr: %q", stdout.String(), stderr.String())
	}
}

// TestAttributeSliceFieldFromQueries: BEIR qrels TSV (no slices) with
// slices read from a queries JSONL's "topic". Depth 2, worked out from the
// fixture: topic A = q1 (retrieved+correct), q2 (missed+wrong); topic B =
// q3 (retrieved+wrong), q4 (retrieved+correct), q7 (missed+wrong, absent
// from the run). q5 has no judgement line in the TSV, so its verdict, like
// q8's, is left out as not in the qrels; q6 (only a grade-0 line) is
// unanswerable and has no verdict.
func TestAttributeSliceFieldFromQueries(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, []string{"attribute", "--run", "testdata/attribute/run.trec",
		"--qrels", "testdata/attribute/qrels.tsv", "--answers", "testdata/attribute/answers.jsonl",
		"--queries", "testdata/attribute/queries.jsonl", "--slice-field", "topic", "--depth", "2", "--format", "json"})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	type cells struct {
		RC int `json:"retrieved_correct"`
		RW int `json:"retrieved_wrong"`
		MC int `json:"missed_correct"`
		MW int `json:"missed_wrong"`
	}
	var got struct {
		Attribution struct {
			Slices []struct {
				Slice string
				Table cells
			}
			NotInQrels []string `json:"not_in_qrels"`
			NoVerdict  []string `json:"no_verdict"`
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	type slice = struct {
		Slice string
		Table cells
	}
	want := []slice{
		{"A", cells{RC: 1, MW: 1}},
		{"B", cells{RC: 1, RW: 1, MW: 1}},
	}
	if diff := cmp.Diff(want, got.Attribution.Slices); diff != "" {
		t.Errorf("slices (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"q5", "q8"}, got.Attribution.NotInQrels); diff != "" {
		t.Errorf("not in qrels: %s", diff)
	}
	if diff := cmp.Diff([]string{"q6"}, got.Attribution.NoVerdict); diff != "" {
		t.Errorf("no verdict: %s", diff)
	}
}

// TestAttributeMaxP: run.chunks.trec holds each result of run.trec as two
// chunks, "doc#0" with the document's score and "doc#1" 0.05 lower. MaxP
// gives back run.trec's documents and scores, so --maxp must print exactly
// the depth-2 golden output; without it no top id is judged and a warning
// points to --maxp.
func TestAttributeMaxP(t *testing.T) {
	args := func(runFile string, extra ...string) []string {
		return append([]string{"attribute", "--run", "testdata/attribute/" + runFile,
			"--qrels", "testdata/attribute/labelled.jsonl", "--answers", "testdata/attribute/answers.jsonl", "--depth", "2"}, extra...)
	}
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, args("run.chunks.trec", "--maxp")); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got := strings.Replace(stdout.String(), "run.chunks.trec", "run.trec", 1)
	want, err := os.ReadFile("testdata/attribute/depth2.table.golden")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("--maxp output differs from the document run's (-want +got):\n%s", diff)
	}
	stdout.Reset()
	if code := run(&stdout, &stderr, args("run.chunks.trec")); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "look like chunk ids") || !strings.Contains(stdout.String(), "missed@2           2      3      5") {
		t.Errorf("without --maxp: want all 5 answers (2 correct, 3 wrong) missed and a chunk-id warning, got:\n%s", stdout.String())
	}
}

func TestChunkDoc(t *testing.T) {
	for id, want := range map[string]string{"d1#0": "d1", "a#b#12": "a#b", "d1": "", "#3": "", "d1#": "", "d1#x": "", "d1#2a": ""} {
		if got := chunkDoc(id); got != want {
			t.Errorf("chunkDoc(%q) = %q, want %q", id, got, want)
		}
	}
}
