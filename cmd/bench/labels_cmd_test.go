package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/internal/testenv"
)

// copyTree copies the folder src into a new temporary folder and returns
// it.
func copyTree(t *testing.T, src string) string { return testenv.CopyTree(t, src) }

// TestLabelsCheck: testdata/labels/wrong.jsonl holds ten wrong labels over
// a folder corpus of two handbook pages — a quote with a line break where
// the page has a space, a straight apostrophe for the page's curly one, a
// doc id with its extension, a quote the page holds twice, offsets past the
// end, an unknown document, an edited word, an empty quote, a dash and a
// capital, offsets that no longer hold their quote — and one grade-0
// judgement. One run of bench labels check lists all ten, each with its
// hint and, for seven, its sure repair (golden file), and exits 1.
func TestLabelsCheck(t *testing.T) {
	code, out, errOut := runBench("labels", "check", "--corpus", "testdata/labels/corpus", "testdata/labels/wrong.jsonl")
	if code != 1 || errOut != "bench labels: 10 label problems (7 with a sure repair)\n" {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	checkDiagGolden(t, "labels/check.golden", out)
}

// TestLabelsFixThenRun is the workflow of docs/labelling.md: --fix writes
// the seven sure repairs (the original kept as .bak) and lists the three a
// person must fix; once the person has (a prefix for the repeated quote,
// the missing document's question marked unanswerable, the edited word
// corrected), the file checks clean, its record is written, and bench run
// --check accepts the config — as does bench labels check CONFIG.
func TestLabelsFixThenRun(t *testing.T) {
	dir := copyTree(t, "testdata/labels")
	labels := filepath.Join(dir, "wrong.jsonl")
	orig, _ := os.ReadFile(labels)
	code, out, errOut := runBench("labels", "check", "--corpus", filepath.Join(dir, "corpus"), "--fix", labels)
	if code != 1 || errOut != "bench labels: 3 label problems left after --fix\n" {
		t.Errorf("--fix: exit %d, stderr %q", code, errOut)
	}
	checkDiagGolden(t, "labels/fix.golden", strings.ReplaceAll(out, dir, "DIR"))
	if b, _ := os.ReadFile(labels + ".bak"); string(b) != string(orig) {
		t.Error("the backup is not the original")
	}
	fixed, _ := os.ReadFile(labels)
	s := string(fixed)
	for old, repl := range map[string]string{
		`"text": "Passwords expire after 90 days."}`: `"text": "Passwords expire after 90 days.", "prefix": "# Passwords\n\n"}`,
		`"gold_spans": [{"doc": "it/vpn", "text": "Connect to the VPN before opening the intranet."}], "kind": "single"`: `"gold_spans": [], "kind": "unanswerable"`,
		`the last three.`: `the last five.`,
	} {
		if !strings.Contains(s, old) {
			t.Fatalf("fixed file lacks %q:\n%s", old, s)
		}
		s = strings.Replace(s, old, repl, 1)
	}
	if err := os.WriteFile(labels, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"labels", "check", "--corpus", filepath.Join(dir, "corpus"), labels},
		{"labels", "record", "--corpus", filepath.Join(dir, "corpus"), labels},
		{"run", "--check", "--data-dir", dir, "--no-history", "--output", filepath.Join(dir, "out"), "--cache-dir", filepath.Join(dir, "cache"), filepath.Join(dir, "labels.yaml")},
		{"labels", "check", "--data-dir", dir, filepath.Join(dir, "labels.yaml")},
	} {
		if code, out, errOut := runBench(args...); code != 0 {
			t.Errorf("%v: exit %d\n%s%s", args[:2], code, out, errOut)
		}
	}
	if _, err := os.Stat(labels + ".anchors.json"); err != nil {
		t.Errorf("no record: %v", err)
	}
}

// TestLabelsFixOutputAndExitCodes: --output leaves the labels as they
// were; a file whose every problem has a sure repair exits 4, 0 once fixed;
// flags in the wrong place are usage errors (exit 2).
func TestLabelsFixOutputAndExitCodes(t *testing.T) {
	dir := copyTree(t, "testdata/labels")
	corpusDir := filepath.Join(dir, "corpus")
	labels := filepath.Join(dir, "fixable.jsonl")
	rows := `{"id": "a", "question": "q", "gold_spans": [{"doc": "it/passwords.md", "text": "Accounts lock after five failed logins."}]}
{"id": "b", "question": "q", "gold_spans": [{"doc": "it/passwords", "start": 0, "end": 45, "text": "Administrators can unlock an account at once."}]}
`
	if err := os.WriteFile(labels, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runBench("labels", "check", "--corpus", corpusDir, labels); code != 4 || !strings.Contains(errOut, "each with a sure repair") {
		t.Errorf("fixable: exit %d, %q", code, errOut)
	}
	out := filepath.Join(dir, "fixed.jsonl")
	if code, stdout, errOut := runBench("labels", "check", "--corpus", corpusDir, "--fix", "--output", out, labels); code != 0 || !strings.Contains(stdout, "checks clean; its anchor record is written") {
		t.Errorf("--fix --output: exit %d\n%s%s", code, stdout, errOut)
	}
	if b, _ := os.ReadFile(labels); string(b) != rows {
		t.Error("--output changed the labels file")
	}
	if want := `{"id": "b", "question": "q", "gold_spans": [{"doc": "it/passwords", "start": 161, "end": 206, "text": "Administrators can unlock an account at once."}]}`; !strings.Contains(readFile(t, out), want) {
		t.Errorf("fixed: %s", readFile(t, out))
	}
	if code, _, _ := runBench("labels", "check", "--corpus", corpusDir, out); code != 0 {
		t.Errorf("fixed file: exit %d", code)
	}
	for _, args := range [][]string{
		{"labels"}, {"labels", "lint", labels}, {"labels", "check", labels}, {"labels", "check", "--corpus", corpusDir},
		{"labels", "check", "--corpus", corpusDir, "--output", out, labels}, {"labels", "check", "--corpus", corpusDir, "--threshold", "2", labels},
		{"labels", "convert", "--corpus", corpusDir, labels}, {"labels", "record", "--corpus", corpusDir, "--fix", labels},
		{"labels", "check", "--corpus", corpusDir, filepath.Join(dir, "labels.yaml")},
	} {
		if code, stdout, errOut := runBench(args...); code != 2 || stdout != "" || !strings.Contains(errOut, "labels") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want a usage error", args, code, stdout, errOut)
		}
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLabelsChunkIDs is issue 20's stale chunk-id case from the command
// line: labels made on 5-word windows ("theta iota" is in d1#1 of fixed-5)
// in a sweep over fixed sizes [5, 10]. bench labels check CONFIG refuses
// them (no chunking recorded, two chunkings) naming both fixes; bench
// labels record --chunking fixed-5 records theirs, after which fixed-10
// alone is refused; bench labels convert turns them into span labels of
// zeta … kappa (code points 31 to 56, by Python's str.find), which check clean and pass bench
// run --check on both chunkings.
func TestLabelsChunkIDs(t *testing.T) {
	dir, write, labels := chunkIDCase(t)
	cfg := write("sweep.yaml", "dataset: {corpus: corpus.jsonl, queries: qrels.jsonl, title: false}\nchunking: [{strategy: fixed, sizes: [5, 10]}]\nretrievers: [{name: bm25, type: bm25}]\nk: [1]\n")
	code, out, errOut := runBench("labels", "check", "--data-dir", dir, cfg)
	if code != 1 || !strings.Contains(out, "the sweep has 2 chunkings (fixed-5, fixed-10) with none recorded") || !strings.Contains(out, "bench labels record --corpus CORPUS --chunking NAME") {
		t.Errorf("no record: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := runBench("labels", "record", "--corpus", filepath.Join(dir, "corpus.jsonl"), "--chunking", "fixed-5", labels); code != 0 {
		t.Fatalf("record: exit %d: %s", code, errOut)
	}
	code, out, _ = runBench("labels", "check", "--data-dir", dir, cfg)
	if code != 1 || !strings.Contains(out, "recorded for chunking fixed-5") || !strings.Contains(out, "cannot score chunking fixed-10") {
		t.Errorf("recorded fixed-5: exit %d\n%s", code, out)
	}
	spansPath := filepath.Join(dir, "spans.jsonl")
	if code, out, errOut := runBench("labels", "convert", "--corpus", filepath.Join(dir, "corpus.jsonl"), "--chunking", "fixed-5", "--output", spansPath, labels); code != 0 {
		t.Fatalf("convert: exit %d\n%s%s", code, out, errOut)
	}
	want := `{"id": "q1", "question": "theta iota", "gold_spans": [{"doc": "d1", "start": 31, "end": 56, "text": "zeta eta theta iota kappa", "grade": 1}]}` + "\n"
	if got := readFile(t, spansPath); got != want {
		t.Errorf("converted:\n%s\nwant\n%s", got, want)
	}
	spanCfg := write("spans.yaml", "dataset: {corpus: corpus.jsonl, queries: spans.jsonl, title: false}\nchunking: [{strategy: fixed, sizes: [5, 10]}]\nretrievers: [{name: bm25, type: bm25}]\nk: [1]\n")
	for _, args := range [][]string{
		{"labels", "check", "--data-dir", dir, spanCfg},
		{"run", "--check", "--data-dir", dir, "--no-history", "--output", filepath.Join(dir, "out"), "--cache-dir", filepath.Join(dir, "cache"), spanCfg},
	} {
		if code, out, errOut := runBench(args...); code != 0 {
			t.Errorf("%v: exit %d\n%s%s", args[:2], code, out, errOut)
		}
	}
}

// TestLabelsConvertKeepsInput: bench labels convert --output onto its own
// input replaced the chunk-id labels with no copy (the tester's finding);
// now the input is kept as LABELS.bak, said on stdout, and a review file
// holding grades is refused as an --output unless --force (labels.ReplaceFile,
// bench labels pool's rule).
func TestLabelsConvertKeepsInput(t *testing.T) {
	dir := t.TempDir()
	corpusPath := filepath.Join(dir, "corpus.jsonl")
	os.WriteFile(corpusPath, []byte(`{"_id": "d1", "title": "", "text": "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon"}`+"\n"), 0o644)
	const orig = `{"id": "q1", "question": "theta iota", "gold": ["d1#1"]}` + "\n"
	labels := filepath.Join(dir, "qrels.jsonl")
	os.WriteFile(labels, []byte(orig), 0o644)
	convert := func(out string, extra ...string) (int, string) {
		code, stdout, stderr := runBench(append(append([]string{"labels", "convert", "--corpus", corpusPath, "--chunking", "fixed-5", "--output", out}, extra...), labels)...)
		return code, stdout + stderr
	}
	if code, o := convert(labels); code != 0 || !strings.Contains(o, "kept as "+labels+".bak") || readFile(t, labels+".bak") != orig || !strings.Contains(readFile(t, labels), "gold_spans") {
		t.Errorf("convert onto its input: exit %d\n%s", code, o)
	}
	os.WriteFile(labels, []byte(orig), 0o644)
	review := filepath.Join(dir, "review.jsonl")
	const graded = `{"doc": "d1", "start": 0, "end": 5, "returned": 1, "text": "alpha", "prefix": "", "suffix": " beta", "queries": [{"id": "q1", "question": "theta iota", "hits": [], "grade": 1}]}` + "\n"
	os.WriteFile(review, []byte(graded), 0o644)
	if code, o := convert(review); code != 1 || !strings.Contains(o, review+" holds 1 grade a reviewer set: writing it again would lose them") || readFile(t, review) != graded {
		t.Errorf("convert onto a graded review file: exit %d\n%s", code, o)
	}
	if code, o := convert(review, "--force"); code != 0 || readFile(t, review+".bak") != graded {
		t.Errorf("convert --force onto a graded review file: exit %d\n%s", code, o)
	}
}
