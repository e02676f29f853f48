package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/internal/testenv"
)

// notImplementedTrec lists, by trec_eval output name, the measures of the
// conformance outputs that ragbench does not compute; their lines are dropped
// from the expected output. It is empty: every measure printed by these
// trec_eval commands is implemented and compared. The trec_eval measures that
// ragbench does not implement appear in none of these outputs: dcg, ideal_dcg,
// ndcg_p, num_nonjudged_ret, Runj, yaap, the prefs_* family (preference
// judgements) and the *_avgjg family (judgement groups); see
// eval.NotImplementedTrecMeasures.
var notImplementedTrec = []string{}

// TestTrecEvalConformance runs each trec_eval command line of
// ../shared/conformance/README.md through 'bench eval --format trec' and
// compares the output with trec_eval's expected file line for line.
func TestTrecEvalConformance(t *testing.T) {
	dir := testenv.Shared(t, "conformance/trec_eval")
	cases := []struct {
		expected string
		args     []string
		// skipArgs are -m arguments of the trec_eval command that ragbench
		// does not implement (removed from the command line).
		skipArgs []string
		// stderr is what bench eval must print on stderr (warnings).
		stderr string
		// stdin is the file given on stdin, for the run "-" (trec_eval 10
		// reads the results file "-" from stdin).
		stdin string
	}{
		{expected: "out.test", args: []string{"qrels.test", "results.test"}},
		{expected: "out.test.a", args: []string{"-m", "all_trec", "qrels.test", "results.test"}},
		{expected: "out.test.a", args: []string{"-m", "all_trec", "qrels.test", "-"}, stdin: "results.test"},
		{expected: "out.test.aq", args: []string{"-m", "all_trec", "-q", "qrels.test", "results.test"}},
		{expected: "out.test.aqc", args: []string{"-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"}},
		{expected: "out.test.aqcM", args: []string{"-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"}},
		{expected: "out.test.aql", args: []string{"-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level", "results.test"}},
		{
			expected: "out.test.meas_params",
			args: []string{"-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
				"-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
				"-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20", "qrels.test", "results.test"},
			// trec_eval reads the cutoff 23.4 as 23 (atol) and prints
			// ndcg_cut_23; bench eval does the same and says so on stderr.
			stderr: `bench eval: warning: measure "ndcg_cut.10,20,23.4": cutoff "23.4" truncated to 23, as trec_eval reads it (C atol keeps the leading integer); output name ndcg_cut_23` + "\n",
		},
	}
	for _, tc := range cases {
		t.Run(tc.expected, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(dir, tc.expected))
			if err != nil {
				t.Fatal(err)
			}
			if tc.stdin != "" {
				f, err := os.Open(filepath.Join(dir, tc.stdin))
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				old := stdin
				stdin = f
				defer func() { stdin = old }()
			}
			args := []string{"eval", "--format", "trec"}
			for _, a := range tc.args {
				if a == "qrels.test" || a == "results.test" || a == "results.trunc" || a == "qrels.rel_level" {
					a = filepath.Join(dir, a)
				}
				args = append(args, a)
			}
			var stdout, stderr bytes.Buffer
			if code := run(&stdout, &stderr, args); code != 0 {
				t.Fatalf("bench %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
			}
			if stderr.String() != tc.stderr {
				t.Errorf("stderr %q, want %q", stderr.String(), tc.stderr)
			}
			compareTrecOutput(t, tc.expected, want, stdout.String())
		})
	}
}

// compareTrecOutput compares bench eval's trec-format output got with
// trec_eval's output want (file expected), line by line, after dropping the
// lines of measures ragbench does not implement; at most 20 differing
// lines are shown. Fewer than 25 kept lines fail the test (the filter
// would then hide the comparison).
func compareTrecOutput(t *testing.T, expected string, want []byte, got string) {
	t.Helper()
	var wantLines []string
	for _, l := range strings.Split(strings.TrimSuffix(string(want), "\n"), "\n") {
		name, _, _ := strings.Cut(l, " ")
		name, _, _ = strings.Cut(name, "\t")
		if !implemented(name) {
			continue
		}
		wantLines = append(wantLines, l)
	}
	if len(wantLines) < 25 {
		t.Fatalf("only %d expected lines kept from %s", len(wantLines), expected)
	}
	diffs := testenv.DiffLines(wantLines, strings.Split(strings.TrimSuffix(got, "\n"), "\n"))
	for _, d := range diffs[:min(len(diffs), 20)] {
		t.Errorf("line %d:\n got  %q\n want %q", d.Line, d.Got, d.Want)
	}
	if bad := len(diffs); bad > 20 {
		t.Errorf("... %d differing lines in all", bad)
	}
}

func implemented(name string) bool {
	for _, p := range notImplementedTrec {
		if name == p || strings.HasPrefix(name, p+"_") {
			return false
		}
	}
	return true
}

// The small example of eval/testdata, scored by hand:
//
//	q1 gold p-1, p-2; ranking p-3 p-1 p-5 p-2 → AP (1/2 + 2/4)/2 = 0.5,
//	   RR 1/2, P@1 0, nDCG@10 (1/log2 3 + 1/log2 5)/(1 + 1/log2 3) = 0.65092
//	q2 gold p-7; ranking p-7 p-8 → AP 1, RR 1, P@1 1, nDCG@10 1
//	q3 gold [] (unanswerable): not averaged by default
//	q4 gold p-9, not in the run: scores 0 by default
//	q5 in the run only: ignored and reported
const (
	exampleQrels = "../../eval/testdata/queries.jsonl"
	exampleRun   = "../../eval/testdata/run.trec"
)

func runEval(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, append([]string{"eval"}, args...))
	return stdout.String(), stderr.String(), code
}

func TestEvalFormatJSON(t *testing.T) {
	out, _, code := runEval(t, "--format", "json", "-q", "-m", "map", "-m", "mrr@10", "-m", "P.1", exampleQrels, exampleRun)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var doc struct {
		NumQ         int                           `json:"num_q"`
		Means        map[string]float64            `json:"means"`
		PerQuery     map[string]map[string]float64 `json:"per_query"`
		Unanswerable []string                      `json:"unanswerable"`
		NotInQrels   []string                      `json:"run_queries_not_in_qrels"`
		NotInRun     []string                      `json:"qrels_queries_not_in_run"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := map[string]float64{
		"map":               (0.5 + 1 + 0) / 3,
		"recip_rank_cut_10": (0.5 + 1 + 0) / 3,
		"P_1":               (0 + 1 + 0) / 3.0,
	}
	for k, v := range want {
		if math.Abs(doc.Means[k]-v) > 1e-12 {
			t.Errorf("mean %s = %v, want %v", k, doc.Means[k], v)
		}
	}
	if doc.NumQ != 3 || len(doc.PerQuery) != 4 || doc.PerQuery["q1"]["map"] != 0.5 ||
		!slices.Equal(doc.Unanswerable, []string{"q3"}) || !slices.Equal(doc.NotInQrels, []string{"q5"}) || !slices.Equal(doc.NotInRun, []string{"q4"}) {
		t.Errorf("json document: %+v", doc)
	}
}

func TestEvalFormatCSVAndTable(t *testing.T) {
	out, errOut, code := runEval(t, "--format", "csv", "-q", "-m", "ndcg@10", exampleQrels, exampleRun)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	ndcgQ1 := (1/math.Log2(3) + 1/math.Log2(5)) / (1 + 1/math.Log2(3))
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 6 || strings.Join(rows[0], ",") != "query,ndcg_cut_10,averaged" || rows[3][0] != "q3" || rows[3][2] != "false" || rows[5][0] != "all" {
		t.Fatalf("csv rows: %q", rows)
	}
	for _, c := range []struct {
		row  int
		want float64
	}{{1, ndcgQ1}, {2, 1}, {4, 0}, {5, (ndcgQ1 + 1) / 3}} {
		got, err := strconv.ParseFloat(rows[c.row][1], 64)
		if err != nil || math.Abs(got-c.want) > 1e-12 {
			t.Errorf("csv row %d = %q, want %v", c.row, rows[c.row][1], c.want)
		}
	}
	if !strings.Contains(errOut, `1 run query not in the qrels (ignored), e.g. "q5"`) {
		t.Errorf("stderr lacks the not-in-qrels note: %q", errOut)
	}

	out, _, code = runEval(t, "-m", "ndcg@10", exampleQrels, exampleRun)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{
		"queries averaged: 3 · run: bm25",
		`note: 1 qrels query missing from the run (scored 0), e.g. "q4"`,
		"note: 1 unanswerable query (no relevant doc) not averaged",
		fmt.Sprintf("| ndcg_cut_10 |     %.4f |", (ndcgQ1+1)/3),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table output lacks %q:\n%s", want, out)
		}
	}
	// Per slice: single-hop = q1 and q4 (missing: 0); the slice named
	// "unanswerable" holds q3 alone, which has no relevant doc: counted in
	// the unanswerable column, not averaged, and said so in words (it was a
	// row "| unanswerable | 0 | n/a |" that read like a count of 0).
	sliceTable := strings.Join([]string{
		"| slice        | num_q | unanswerable | ndcg_cut_10 |",
		"|--------------|------:|-------------:|------------:|",
		"| multi-hop    |     1 |            0 |      1.0000 |",
		fmt.Sprintf("| single-hop   |     2 |            0 |      %.4f |", ndcgQ1/2),
		"| unanswerable |     0 |            1 |           - |",
		"",
		"num_q: queries averaged; unanswerable: queries with no relevant doc, counted apart and not averaged.",
		`slice "unanswerable" has no query averaged: its 1 query is unanswerable (no relevant doc), so it has no means (-).`,
		"",
	}, "\n")
	if !strings.HasSuffix(out, "\n\n"+sliceTable) {
		t.Errorf("slice table:\n%s\nwant it to end with\n%s", out, sliceTable)
	}
	// --average-unanswerable: q3 is averaged in its slice (nDCG 0, as
	// trec_eval scores a query without relevant doc), no column apart.
	out, _, _ = runEval(t, "--average-unanswerable", "-m", "ndcg@10", exampleQrels, exampleRun)
	if want := "| slice        | num_q | ndcg_cut_10 |\n|--------------|------:|------------:|\n| multi-hop    |     1 |      1.0000 |\n" +
		fmt.Sprintf("| single-hop   |     2 |      %.4f |\n", ndcgQ1/2) + "| unanswerable |     1 |      0.0000 |\n"; !strings.HasSuffix(out, "\n\n"+want) {
		t.Errorf("--average-unanswerable slice table:\n%s\nwant it to end with\n%s", out, want)
	}
}

// TestEvalTrecDefaults checks that --format trec follows trec_eval's defaults
// (q4, missing from the run, skipped; q3 averaged) and that -c scores q4 as 0.
func TestEvalTrecDefaults(t *testing.T) {
	out, _, _ := runEval(t, "--format", "trec", "-m", "map", "-m", "num_q", exampleQrels, exampleRun)
	if want := "num_q                 \tall\t3\nmap                   \tall\t0.5000\n"; out != want {
		t.Errorf("trec defaults:\n%s\nwant\n%s", out, want)
	}
	out, _, _ = runEval(t, "--format", "trec", "-c", "-m", "map", "-m", "num_q", exampleQrels, exampleRun)
	if want := "num_q                 \tall\t4\nmap                   \tall\t0.3750\n"; out != want {
		t.Errorf("trec -c:\n%s\nwant\n%s", out, want)
	}
}

func TestEvalUsage(t *testing.T) {
	for _, args := range [][]string{
		{exampleQrels},
		{"-m", "nope", exampleQrels, exampleRun},
		{"--format", "xml", exampleQrels, exampleRun},
		{"-l", "-1", exampleQrels, exampleRun},
		{"-", exampleRun}, // only the run is read from stdin, as in trec_eval
		{"--ties", "random", exampleQrels, exampleRun},
		{"-m", "relstring.10", exampleQrels, exampleRun},                                // table shows numbers only: was an empty table
		{"--format", "csv", "-m", "relstring.5", "-m", "map", exampleQrels, exampleRun}, // relstring was dropped silently
		{"--format", "json", "-m", "map runid", exampleQrels, exampleRun},               // likewise runid
		{"-m", "ndcg_cut.10abc", exampleQrels, exampleRun},                              // atol would read 10; refused
		{"-m", "P.0.5", exampleQrels, exampleRun},                                       // truncates to 0: trec_eval refuses too
	} {
		if _, _, code := runEval(t, args...); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
	if out, errOut, code := runEval(t, "--help"); code != 0 || !strings.Contains(out, "Examples:") || errOut != "" {
		t.Errorf("--help: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if _, errOut, code := runEval(t, exampleQrels, "missing.trec"); code != 1 || !strings.Contains(errOut, "missing.trec") {
		t.Errorf("missing file: exit %d, %q", code, errOut)
	}
}

// TestEvalNonFinite: utility with coefficients ±1e308 overflows (q1 of the
// example has 2 relevant and 2 non-relevant retrieved: 2e308 − 2e308 is
// Inf − Inf = NaN), which used to print as "n/a" in the table and break
// --format json; now an error naming measure and query.
func TestEvalNonFinite(t *testing.T) {
	for _, format := range []string{"table", "json", "trec"} {
		_, errOut, code := runEval(t, "--format", format, "-m", "utility.1e308,-1e308,0,0", exampleQrels, exampleRun)
		if code != 1 || !strings.Contains(errOut, "is not finite") {
			t.Errorf("--format %s: exit %d, stderr %q; want exit 1, not finite", format, code, errOut)
		}
	}
}

// TestFlagsAfterArguments: flags may follow the positional arguments, as
// in bench history (bench eval QRELS RUN -m map used to be "got 4
// argument(s)"; bench compare ... RUN -m map tried to open "-m").
func TestFlagsAfterArguments(t *testing.T) {
	before, _, code1 := runEval(t, "--format", "trec", "-m", "map", exampleQrels, exampleRun)
	after, errOut, code2 := runEval(t, exampleQrels, exampleRun, "--format", "trec", "-m", "map")
	if code1 != 0 || code2 != 0 || before != after {
		t.Errorf("flags after arguments: exit %d (%s), output %q; flags first: exit %d, %q", code2, errOut, after, code1, before)
	}
	// After "--" everything is an argument: "-m" is then a third argument.
	if _, _, code := runEval(t, exampleQrels, "--", exampleRun, "-m"); code != 2 {
		t.Errorf("-- then -m: exit %d, want 2 (3 arguments)", code)
	}
	dir := writeCompareData(t)
	code, out, errOut := runBench("compare", "--qrels", filepath.Join(dir, "qrels.txt"), filepath.Join(dir, "good.trec"), filepath.Join(dir, "bad.trec"), "-m", "success@1", "--format", "csv")
	if code != 0 || !strings.Contains(out, "good.trec,bad.trec,success@1,6,1,0,") {
		t.Errorf("compare with flags after runs: exit %d, stderr %q, stdout %q", code, errOut, out)
	}
}

// writeFiles writes name → content into a temporary folder and returns a
// function giving the path of a name.
func writeFiles(t *testing.T, files map[string]string) func(string) string {
	t.Helper()
	dir := t.TempDir()
	for name, s := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return func(n string) string { return filepath.Join(dir, n) }
}

// TestEvalLevelKeepsGradeOneQueries: -l 2 must not call a query whose
// relevant docs are all grade 1 unanswerable (the trial saw nDCG@5 change
// from 0.9827 to 0.9876 with "8 unanswerable queries"). Hand-computed:
// qA judged d1=2, d2=1, ranked d2, d1; qB judged d3=1, ranked d4, d3; qC
// gold {} (unanswerable). nDCG@2: qA (1 + 2/log2 3)/(2 + 1/log2 3), qB
// (1/log2 3)/1, the same at -l 1 and -l 2 (the level does not apply to
// nDCG); P@1: qA 1 at -l 1, 0 at -l 2; qB 0.
func TestEvalLevelKeepsGradeOneQueries(t *testing.T) {
	p := writeFiles(t, map[string]string{
		"graded.jsonl": `{"qid": "qA", "gold": {"d1": 2, "d2": 1}}` + "\n" + `{"qid": "qB", "gold": {"d3": 1}}` + "\n" + `{"qid": "qC", "gold": {}}` + "\n",
		"run.trec":     "qA Q0 d2 1 3 r\nqA Q0 d1 2 2 r\nqB Q0 d4 1 2 r\nqB Q0 d3 2 1 r\nqC Q0 d5 1 1 r\n",
	})
	ndcg := ((1+2/math.Log2(3))/(2+1/math.Log2(3)) + 1/math.Log2(3)) / 2
	for _, c := range []struct {
		level string
		p1    float64
	}{{"1", 0.5}, {"2", 0}} {
		out, errOut, code := runEval(t, "--format", "csv", "-l", c.level, "-m", "ndcg@2", "-m", "P.1", p("graded.jsonl"), p("run.trec"))
		want := fmt.Sprintf("query,ndcg_cut_2,P_1,averaged\nall,%s,%s,\n", strconv.FormatFloat(ndcg, 'g', -1, 64), strconv.FormatFloat(c.p1, 'g', -1, 64))
		if code != 0 || out != want {
			t.Errorf("-l %s: exit %d, stderr %q, stdout %q; want %q", c.level, code, errOut, out, want)
		}
		if !strings.Contains(errOut, "1 unanswerable query (no relevant doc) not averaged") {
			t.Errorf("-l %s: stderr %q lacks the unanswerable note", c.level, errOut)
		}
	}
	out, _, _ := runEval(t, "--format", "json", "-l", "2", "-m", "P.1", p("graded.jsonl"), p("run.trec"))
	var doc struct {
		Unanswerable []string `json:"unanswerable"`
		BelowLevel   []string `json:"relevant_only_below_level"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || !slices.Equal(doc.Unanswerable, []string{"qC"}) || !slices.Equal(doc.BelowLevel, []string{"qB"}) {
		t.Errorf("json -l 2: %+v, %v\n%s", doc, err, out)
	}
	// --format trec -l 2: every query averaged as trec_eval does (num_q 3;
	// qC scores 0), byte for byte trec_eval's layout.
	out, _, _ = runEval(t, "--format", "trec", "-l", "2", "-m", "num_q", "-m", "ndcg_cut.2", p("graded.jsonl"), p("run.trec"))
	if want := fmt.Sprintf("num_q                 \tall\t3\nndcg_cut_2            \tall\t%.4f\n", 2*ndcg/3); out != want {
		t.Errorf("trec -l 2:\n%s\nwant\n%s", out, want)
	}
}

// TestEvalTextMeasures: relstring and runid have no numeric value. Named
// with other measures for --format csv they used to vanish with exit 0; now
// exit 2 with the explanation. Brought in by a group (official holds
// runid) they are dropped and a note on stderr says so.
func TestEvalTextMeasures(t *testing.T) {
	_, errOut, code := runEval(t, "--format", "csv", "-m", "relstring.5", "-m", "map", exampleQrels, exampleRun)
	if want := "bench eval: -m relstring.5: relstring and runid are printed by --format trec only (relstring per query, with -q); --format csv shows numbers only\n"; code != 2 || errOut != want {
		t.Errorf("exit %d, stderr %q; want 2, %q", code, errOut, want)
	}
	out, errOut, code := runEval(t, "--format", "csv", "-m", "official", exampleQrels, exampleRun)
	if code != 0 || !strings.HasPrefix(out, "query,num_q,num_ret,") || !strings.Contains(errOut, "bench eval: note: runid of the measure group is printed by --format trec only, not in this output\n") {
		t.Errorf("official as csv: exit %d, stderr %q, stdout %q", code, errOut, out)
	}
}

// TestEvalCutRun: the trial's run whose last line was cut ("5.9 doc__b", no
// final newline) was scored silently. Now --format trec prints trec_eval's
// numbers on stdout (q1: AP 1) and the two notes on stderr.
func TestEvalCutRun(t *testing.T) {
	p := writeFiles(t, map[string]string{
		"qrels": "q1 0 d1 1\n",
		"run":   "q1 Q0 d1 1 6.1 doc__bm25\nq1 Q0 d2 2 5.9 doc__b",
	})
	out, errOut, code := runEval(t, "--format", "trec", "-m", "map", p("qrels"), p("run"))
	if code != 0 || out != "map                   \tall\t1.0000\n" {
		t.Errorf("exit %d, stdout %q", code, out)
	}
	want := "bench eval: note: 1 run line with another tag than the first line's \"doc__bm25\", e.g. line 2: \"doc__b\" (a line cut short, or runs concatenated?)\n" +
		"bench eval: note: the run file does not end in a newline: its last line (2) may be cut short\n"
	if errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
}

// TestEvalCommaMeasureList: -m takes a comma list of measure names, as
// bench compare does ('ndcg@10,recall@100' used to fail: "10,recall@100"
// was read as the cutoff). The means are the hand-scored ones above:
// nDCG@10 (0.65092 + 1 + 0)/3; recall@100 (1 + 1 + 0)/3 (q1 finds both
// gold passages, q2 its one, q4 is missing from the run).
func TestEvalCommaMeasureList(t *testing.T) {
	out, errOut, code := runEval(t, "--format", "json", "-m", "ndcg@10,recall@100", exampleQrels, exampleRun)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Measures []string           `json:"measures"`
		Means    map[string]float64 `json:"means"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	ndcgQ1 := (1/math.Log2(3) + 1/math.Log2(5)) / (1 + 1/math.Log2(3))
	want := map[string]float64{"ndcg_cut_10": (ndcgQ1 + 1) / 3, "recall_100": 2.0 / 3}
	if len(doc.Measures) != 2 {
		t.Fatalf("measures %q, want ndcg_cut_10 and recall_100", doc.Measures)
	}
	for k, v := range want {
		if got, ok := doc.Means[k]; !ok || math.Abs(got-v) > 1e-12 {
			t.Errorf("mean %s = %v, want %v", k, got, v)
		}
	}
}

// TestEvalRBPGradesWithoutZero: rbp rescales its gains by the smallest and
// largest gain of trec_eval's whole gain table, whose rows run from level 0
// to the highest judged grade whether or not a doc holds them. Qrels
// without a grade-0 judgement gave 0.0900 (grades 2, 3 or 1, 2) and NaN
// (grade 2 alone: min = max) instead of trec_eval 10's values, quoted from
// issue 26 and checked against trec_eval 10.0 itself.
func TestEvalRBPGradesWithoutZero(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	os.WriteFile(run, []byte("q1 Q0 d1 1 2.0 s\nq1 Q0 d2 2 1.0 s\n"), 0o644)
	for qrels, want := range map[string]string{
		"q1 0 d1 2\nq1 0 d2 3\n": "0.1567",
		"q1 0 d1 1\nq1 0 d2 2\n": "0.1400",
		"q1 0 d1 2\n":            "0.1000",
	} {
		qp := filepath.Join(dir, "qrels")
		os.WriteFile(qp, []byte(qrels), 0o644)
		out, errOut, code := runEval(t, "--format", "trec", "-m", "rbp", qp, run)
		if code != 0 || out != "rbp                   \tall\t"+want+"\n" {
			t.Errorf("qrels %q: exit %d, stdout %q, stderr %q; want rbp %s", qrels, code, out, errOut, want)
		}
	}
}
