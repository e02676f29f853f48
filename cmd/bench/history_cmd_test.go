package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testdata/history/bench-history.csv holds 4 runs written by hand. Changes
// worked out by hand:
//
//	run 2 whole/bm25 ndcg@10 .68 − .6789 = +.0011; recall@100 .92 − .9253 = −.0053
//	run 3 whole/bm25 ndcg@10 .70 − .68 = +.0200, config changed (aaaa → bbbb): *
//	run 3 whole/dense ndcg@10 .65 − .6451 = +.0049 (against run 1: not in run 2) *
//	run 4 whole/bm25 ndcg@10 .50 − .70 = −.2000, dataset changed (dddd → eeee): †
func TestHistoryGolden(t *testing.T) {
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"history/all.table.golden", []string{"testdata/history/bench-history.csv"}},
		{"history/ndcg.md.golden", []string{"--metric", "ndcg@10", "--format", "md", "testdata/history/bench-history.csv"}},
		{"history/last2.table.golden", []string{"testdata/history/bench-history.csv", "--last", "2"}},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(&stdout, &stderr, append([]string{"history"}, c.args...)); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr.String())
		}
		checkDiagGolden(t, c.golden, stdout.String())
	}
}

func TestHistoryChart(t *testing.T) {
	out := filepath.Join(t.TempDir(), "chart.svg")
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"history", "--chart", out, "testdata/history/bench-history.csv"}); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// Without --metric the chart shows ndcg@10 (present in the file).
	if !strings.Contains(string(data), ">ndcg@10 over runs</text>") {
		t.Errorf("chart does not show ndcg@10:\n%.300s", data)
	}
	if got := stderr.String(); got != "wrote "+out+" (ndcg@10 over 4 runs)\n" {
		t.Errorf("stderr = %q", got)
	}
}

func TestHistoryErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("run,time,config_hash,dataset_hash,cell,metric,value\n1,2026-11-30T12:00:00Z,c,d,cell,m,oops\n"), 0o644)
	empty := filepath.Join(dir, "empty.csv")
	os.WriteFile(empty, nil, 0o644)
	cases := []struct {
		args       []string
		code       int
		stdout     string
		wantStderr string
	}{
		{[]string{filepath.Join(dir, "none.csv")}, 1, "", "bench history: " + filepath.Join(dir, "none.csv") + ": no such history file ('bench run' writes one beside its config; give its path)"},
		{[]string{bad}, 1, "", "bench history: " + bad + `:2: value: "oops" is not a finite number`},
		{[]string{"--metric", "mrr", "testdata/history/bench-history.csv"}, 1, "", `bench history: testdata/history/bench-history.csv: no run has metric "mrr" (metrics present: ndcg@10, recall@100)`},
		{[]string{"--format", "csv", "x.csv"}, 2, "", `bench history: --format must be table or md, got "csv"`},
		{[]string{"a.csv", "b.csv"}, 2, "", "bench history: one history file at most, got 2: a.csv b.csv"},
		{[]string{empty}, 0, empty + ": no runs yet\n", ""},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		code := run(&stdout, &stderr, append([]string{"history"}, c.args...))
		if code != c.code || stdout.String() != c.stdout || strings.TrimSpace(stderr.String()) != c.wantStderr {
			t.Errorf("%v: exit %d, stdout %q, stderr %q\nwant exit %d, %q, %q", c.args, code, stdout.String(), stderr.String(), c.code, c.stdout, c.wantStderr)
		}
	}
}

// TestHistoryLastWithGaps checks --last counts runs, not run numbers (run
// numbers have gaps when lines were deleted by hand), and that the † and *
// footnotes appear only when a shown change carries the mark. File by hand:
// runs 1, 2 and 7; the dataset changes between runs 1 and 2 (†), nothing
// changes between 2 and 7 (7: .62 − .60 = +.0200, no mark).
func TestHistoryLastWithGaps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.csv")
	os.WriteFile(path, []byte(`run,time,config_hash,dataset_hash,cell,metric,value
1,2026-11-28T09:00:00Z,cccccccccccc,dddddddddddd,whole/bm25,ndcg@10,0.5
2,2026-11-29T09:00:00Z,cccccccccccc,eeeeeeeeeeee,whole/bm25,ndcg@10,0.6
7,2026-11-30T09:00:00Z,cccccccccccc,eeeeeeeeeeee,whole/bm25,ndcg@10,0.62
`), 0o644)
	for _, c := range []struct {
		last      string
		want, not []string
	}{
		{"2", []string{"0.6000 (+0.1000†)", "0.6200 (+0.0200)", "† the dataset changed"}, []string{"0.5000"}},
		{"1", []string{"0.6200 (+0.0200)"}, []string{"0.6000", "†"}},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(&stdout, &stderr, []string{"history", "--last", c.last, path}); code != 0 {
			t.Fatalf("--last %s: exit %d: %s", c.last, code, stderr.String())
		}
		for _, w := range c.want {
			if !strings.Contains(stdout.String(), w) {
				t.Errorf("--last %s: output lacks %q:\n%s", c.last, w, stdout.String())
			}
		}
		for _, n := range c.not {
			if strings.Contains(stdout.String(), n) {
				t.Errorf("--last %s: output has %q:\n%s", c.last, n, stdout.String())
			}
		}
	}
}

// TestHistoryFindsFile: 'bench run configs/x.yaml' writes
// configs/bench-history.csv, so 'bench history' with no argument looks in
// ./bench-history.csv, then ./configs/bench-history.csv, and says where it
// looked when neither exists; given a CONFIG it reads that config's history
// (bench-history.csv beside it, or its history: field).
func TestHistoryFindsFile(t *testing.T) {
	fixture, err := os.ReadFile("testdata/history/bench-history.csv")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	history := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(&stdout, &stderr, append([]string{"history"}, args...))
		return code, stdout.String(), stderr.String()
	}

	code, out, errOut := history()
	want := "bench history: no history file given, and none in the current folder: looked for ./bench-history.csv and ./configs/bench-history.csv"
	if code != 1 || out != "" || !strings.HasPrefix(errOut, want) || !strings.Contains(errOut, "bench history configs/scifact.yaml") {
		t.Errorf("nothing there: exit %d, stdout %q, stderr %q; want exit 1 and %q", code, out, errOut, want)
	}

	os.Mkdir("configs", 0o755)
	os.WriteFile(filepath.Join("configs", "bench-history.csv"), fixture, 0o644)
	cfg := "name: x\ndataset:\n  corpus: corpus.jsonl\n  queries: queries.jsonl\nretrievers:\n  - {name: bm25, type: bm25}\nk: [10]\n"
	os.WriteFile(filepath.Join("configs", "x.yaml"), []byte(cfg), 0o644)
	for _, args := range [][]string{nil, {"configs/x.yaml"}} {
		code, out, errOut = history(args...)
		if code != 0 || !strings.HasPrefix(out, "Run history: configs/bench-history.csv (4 runs)\n") {
			t.Errorf("%q: exit %d, stderr %q, stdout:\n%.200s\nwant configs/bench-history.csv", args, code, errOut, out)
		}
	}

	// ./bench-history.csv comes first (one run of the fixture: its header).
	lines := strings.SplitAfter(string(fixture), "\n")
	os.WriteFile("bench-history.csv", []byte(lines[0]), 0o644)
	if code, out, errOut = history(); code != 0 || out != "bench-history.csv: no runs yet\n" {
		t.Errorf("./bench-history.csv: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	// A config naming its own history file, not written yet.
	os.WriteFile(filepath.Join("configs", "y.yaml"), []byte(cfg+"history: ../runs.csv\n"), 0o644)
	code, _, errOut = history("configs/y.yaml")
	if code != 1 || !strings.Contains(errOut, "runs.csv: no such history file: the history of configs/y.yaml, written by 'bench run configs/y.yaml'") {
		t.Errorf("config with history: exit %d, stderr %q", code, errOut)
	}
}

// TestHistoryErrorPrefix: an error of the history package is printed once
// prefixed ("bench history: d.csv: read d.csv: is a directory"; it read
// "bench history: history: d.csv: ...").
func TestHistoryErrorPrefix(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d.csv")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, []string{"history", dir})
	if want := "bench history: " + dir + ": read " + dir + ": is a directory\n"; code != 1 || stderr.String() != want {
		t.Errorf("exit %d, stderr %q; want 1, %q", code, stderr.String(), want)
	}
}

// TestHistoryBinaryFile: a binary file given to bench history was called a
// history "probably cut short"; it is not a history CSV, and bench history
// says so (exit 1, nothing on stdout).
func TestHistoryBinaryFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "runs.trec.gz")
	if err := os.WriteFile(p, []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff\x01\x02"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, []string{"history", p})
	want := "bench history: " + p + ": not a history CSV: it holds binary data (byte 0x00 at offset 3); bench history reads the CSV file that bench run appends a line per (run, cell, metric) to, bench-history.csv by default\n"
	if code != 1 || stderr.String() != want || stdout.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, stdout.String(), stderr.String(), want)
	}
}

// TestHistoryChartPathIsFolder: --chart DIR, DIR a folder, is refused
// before the table is printed, saying it is a folder (before the fix the
// table was printed, then a temporary file's rename failed); a missing
// parent folder likewise; a path under a file (d/qrels.txt/x.svg) says
// that it is a file (it said "folder d/qrels.txt does not exist"). All are
// usage errors (exit 2).
func TestHistoryChartPathIsFolder(t *testing.T) {
	dir := t.TempDir()
	qrels := filepath.Join(dir, "qrels.txt")
	if err := os.WriteFile(qrels, []byte("q1 0 d1 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{dir, "--chart " + dir + ": is a folder; give the SVG file to write, e.g. " + filepath.Join(dir, "history.svg")},
		{filepath.Join(dir, "no", "c.svg"), "--chart " + filepath.Join(dir, "no", "c.svg") + ": folder " + filepath.Join(dir, "no") + " does not exist"},
		{filepath.Join(qrels, "x.svg"), "--chart " + filepath.Join(qrels, "x.svg") + ": " + qrels + " is a file, not a folder"},
		{filepath.Join(qrels, "sub", "x.svg"), "--chart " + filepath.Join(qrels, "sub", "x.svg") + ": " + qrels + " is a file, not a folder"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(&stdout, &stderr, []string{"history", "--chart", c.path, "testdata/history/bench-history.csv"})
		if code != 2 || !strings.Contains(stderr.String(), c.want) || stdout.Len() != 0 {
			t.Errorf("--chart %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.path, code, stdout.String(), stderr.String(), c.want)
		}
	}
}
