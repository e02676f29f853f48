package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// freshData copies testdata/fresh28 (a newcomer's folder: a 4-file corpus,
// span labels, two runs, two configs) to DIR/repo/mydata, with DIR/repo a
// ragbench checkout (its go.mod) and DIR/shared beside it, as the
// newcomer had it: a config's default data root is then ../shared, not the
// config's folder. It returns DIR/repo, the folder the commands run from
// (relative paths "mydata/…").
func freshData(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	for _, d := range []string{filepath.Join(root, "shared"), filepath.Join(repo, "mydata")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module github.com/ragbench/ragbench\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(repo, "mydata"), os.DirFS("testdata/fresh28")); err != nil {
		t.Fatal(err)
	}
	return repo
}

// chdir changes to dir for the test (tests using it do not run in
// parallel).
func chdir(t *testing.T, dir string) {
	t.Helper()
	t.Chdir(dir)
}

// TestFreshGateIntervalIsCompares: bench compare -c --baseline a and the
// same with --gate print the same interval, with the same minus sign
// (docs/compare.md: the gate is compare under the baseline plan, seeded by
// the pair's names). Before, the gate named the baseline run "a
// (baseline)" — another random stream — and printed [−0.7778, −0.1667]
// against compare's [-0.7778, -0.2222].
func TestFreshGateIntervalIsCompares(t *testing.T) {
	chdir(t, freshData(t))
	args := []string{"compare", "--corpus", "mydata/corpus", "--qrels", "mydata/labels.jsonl", "--max-unmapped", "0.2", "-c", "--baseline", "a", "a=mydata/run.a.jsonl", "b=mydata/run.b.jsonl"}
	code, out, errOut := runBench(args...)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errOut)
	}
	gcode, gout, gerr := runBench(append([]string{"compare", "--gate"}, args[1:]...)...)
	if gcode != 0 {
		t.Fatalf("compare --gate: exit %d: %s", gcode, gerr)
	}
	iv := regexp.MustCompile(`\[[^\]]*\d\]`)
	var plain, gated string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "span_recall@10 ") {
			plain = iv.FindString(l)
		}
	}
	for _, l := range strings.Split(gout, "\n") {
		if strings.HasPrefix(l, "| b | span_recall@10 ") {
			gated = iv.FindString(l)
		}
	}
	if plain == "" || plain != gated {
		t.Errorf("compare's interval %q, the gate's %q: want the same\ncompare:\n%s\ngate:\n%s", plain, gated, out, gout)
	}
	if !strings.Contains(plain, "−0.7778") {
		t.Errorf("compare's interval %q: want the minus sign − of the other tables", plain)
	}
	if strings.Contains(gout, "baseline run") {
		t.Errorf("the gate's table names the baseline run in a column though the heading names it:\n%s", gout)
	}
}

// TestFreshFewDifferNote: b differs from a on 5 queries only, so the exact
// sign-flip test's smallest p is 2/2^5 = 0.0625 > 0.05: bench compare and
// the gate say so beside the verdict and with the minimum detectable
// difference, explaining "no evidence either way" beside an interval that
// excludes 0 (stats.FewDifferNote, the one wording).
func TestFreshFewDifferNote(t *testing.T) {
	chdir(t, freshData(t))
	note := "only 5 queries differ: the smallest p the test can give is 0.0625, above α = 0.05"
	args := []string{"compare", "--corpus", "mydata/corpus", "--qrels", "mydata/labels.jsonl", "--max-unmapped", "0.2", "-c", "--baseline", "a", "a=mydata/run.a.jsonl", "b=mydata/run.b.jsonl"}
	for _, gate := range []bool{false, true} {
		a := args
		if gate {
			a = append([]string{"compare", "--gate"}, args[1:]...)
		}
		code, out, errOut := runBench(a...)
		if code != 0 {
			t.Fatalf("gate %v: exit %d: %s", gate, code, errOut)
		}
		var beside, power bool
		for _, l := range strings.Split(out, "\n") {
			switch {
			case strings.HasPrefix(l, "What 9 queries"):
				power = strings.Contains(l, "; "+note)
			case strings.Contains(l, "span_recall@10: "+note):
				beside = true
			}
		}
		if !beside || !power {
			t.Errorf("gate %v: the note %q beside the verdict %v, with the MDD %v:\n%s", gate, note, beside, power, out)
		}
	}
}

// TestFreshGateUncompared: my2.yaml changes a chunk size (300 → 200), so
// its cell recursive-200/bm25 and the baseline's recursive-300/bm25 meet
// nobody; the two shared cells are identical. The gate used to say "✅ no
// regression (2 cells compared)"; it now says the changed cells were not
// compared and names the --gate-map (exit 0 with the warning in the
// heading, docs/ci.md), and its plan line says it is the gate's.
func TestFreshGateUncompared(t *testing.T) {
	chdir(t, freshData(t))
	if code, _, errOut := runBench("run", "--data-dir", "mydata", "--no-history", "mydata/my.yaml"); code != 0 {
		t.Fatalf("baseline run: exit %d: %s", code, errOut)
	}
	code, out, errOut := runBench("run", "--data-dir", "mydata", "--no-history", "--baseline", "mydata/out/brew", "mydata/my2.yaml")
	if code != 0 {
		t.Fatalf("gated run: exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"## ⚠️ ragbench gate: no regression in the 2 cells compared (all identical), but the changed cells were not compared (recursive-300/bm25 in the baseline only; recursive-200/bm25 new in this run): to gate them, add --gate-map recursive-300=recursive-200 (docs/ci.md)\n",
		"\nGate plan (decides the exit code): each cell against its baseline counterpart: ",
		"\nPlan: each cell against baseline recursive-120/bm25: ", // the sweep's own
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "✅") {
		t.Errorf("the gate reads as a pass:\n%s", out)
	}
	// The suggested mapping works as printed: the changed cell is gated.
	code, out, errOut = runBench("run", "--data-dir", "mydata", "--no-history", "--baseline", "mydata/out/brew", "--gate-map", "recursive-300=recursive-200", "mydata/my2.yaml")
	if code != 0 && code != 3 {
		t.Fatalf("mapped run: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "| recursive-200/bm25 | recursive-300/bm25 |") || strings.Contains(out, "were not compared") {
		t.Errorf("the mapped gate does not compare recursive-200/bm25 with recursive-300/bm25:\n%s", out)
	}
}

// TestFreshLabelsDataDir (record and convert take --corpus, not a config): a config inside a checkout whose ../shared does
// not hold its corpus: every labels command that reads the config fails
// as bench run does — the missing file and the hint to pass --data-dir
// (sweep.ValidateDataset, the one check) — where bench labels said "open
// …/shared/corpus: no such file or directory".
func TestFreshLabelsDataDir(t *testing.T) {
	chdir(t, freshData(t))
	code, _, runErr := runBench("run", "--no-history", "mydata/my.yaml")
	if code == 0 || !strings.Contains(runErr, "pass --data-dir") {
		t.Fatalf("bench run: exit %d, stderr %q: want the --data-dir hint", code, runErr)
	}
	for _, args := range [][]string{
		{"labels", "check", "mydata/my.yaml"},
		{"labels", "pool", "mydata/my.yaml"},
		{"labels", "merge", "--review", "mydata/review.jsonl", "mydata/my.yaml"},
		{"label", "mydata/my.yaml"},
	} {
		code, _, errOut := runBench(args...)
		if code == 0 || !strings.Contains(errOut, "dataset.corpus: corpus ") || !strings.Contains(errOut, "not found; pass --data-dir (or set RAGBENCH_DATA_DIR)") {
			t.Errorf("%v: exit %d, stderr %q: want bench run's error and hint", args, code, errOut)
		}
	}
	// With --data-dir it works.
	if code, out, errOut := runBench("labels", "check", "--data-dir", "mydata", "mydata/my.yaml"); code != 0 {
		t.Errorf("labels check --data-dir mydata: exit %d\n%s%s", code, out, errOut)
	}
}

// TestFreshPoolNextCommand: the merge command bench labels pool prints
// works as printed: it keeps --data-dir (without it, the config's dataset
// is not found under the default data root, ../shared).
func TestFreshPoolNextCommand(t *testing.T) {
	chdir(t, freshData(t))
	if code, _, errOut := runBench("run", "--data-dir", "mydata", "--no-history", "mydata/my.yaml"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	code, out, errOut := runBench("labels", "pool", "--data-dir", "mydata", "--depth", "3", "mydata/my.yaml")
	if code != 0 {
		t.Fatalf("pool: exit %d: %s", code, errOut)
	}
	var next string
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "bench labels merge ") {
			next = l
		}
	}
	args := strings.Fields(next) // the temporary paths need no quoting
	if len(args) < 2 || !strings.Contains(next, " --data-dir mydata ") {
		t.Fatalf("pool printed no merge command with --data-dir:\n%s", out)
	}
	if code, mout, merr := runBench(args[1:]...); code != 0 {
		t.Errorf("the printed %q: exit %d\n%s%s", next, code, mout, merr)
	}
	for in, want := range map[string]string{"mydata/my.yaml": "mydata/my.yaml", "my data/it's.yaml": `'my data/it'\''s.yaml'`, "": "''"} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestFreshEvalMissingNote: run.b.jsonl lacks q9 (answerable, scored 0)
// and q10 (unanswerable, not scored): the note counts and names q9, counts
// q10 apart, and says "labelled" for span labels, not "qrels".
func TestFreshEvalMissingNote(t *testing.T) {
	chdir(t, freshData(t))
	code, out, errOut := runBench("eval", "--corpus", "mydata/corpus", "mydata/labels.jsonl", "mydata/run.b.jsonl")
	all := out + errOut
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if want := `note: 1 labelled query missing from the run (scored 0), e.g. "q9"; also 1 unanswerable (not scored)` + "\n"; !strings.Contains(all, want) {
		t.Errorf("output lacks %q:\n%s", want, all)
	}
}

// TestFreshEvalUnmappedListed: bench eval refusing run.a.jsonl for
// --max-unmapped lists the unmapped result in the same message.
func TestFreshEvalUnmappedListed(t *testing.T) {
	chdir(t, freshData(t))
	code, _, errOut := runBench("eval", "--corpus", "mydata/corpus", "mydata/labels.jsonl", "mydata/run.a.jsonl")
	want := "1 of 14 results unmapped (7.1 %: 0 absent, 1 ambiguous) > --max-unmapped 5 %"
	if code == 0 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "\n  mydata/run.a.jsonl:3: results[1]: query \"q3\": unmapped at rank 2 (ambiguous): \"the machine\"") {
		t.Errorf("exit %d, stderr:\n%s\nwant %q and the unmapped result listed", code, errOut, want)
	}
}

// TestFreshLabelsEditedPointsToRecord: labels edited since they were
// recorded: bench labels check says so with the bench labels record
// command, which works as printed (the check then has no such line).
func TestFreshLabelsEditedPointsToRecord(t *testing.T) {
	chdir(t, freshData(t))
	if code, _, errOut := runBench("labels", "record", "--corpus", "mydata/corpus", "mydata/labels.jsonl"); code != 0 {
		t.Fatalf("record: exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile("mydata/labels.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("mydata/labels.jsonl", []byte(strings.Replace(string(b), "how far from the wall", "How far from the wall", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	const want = "record: the labels file was edited since it was recorded; once the edits are right, record them: bench labels record --corpus mydata/corpus mydata/labels.jsonl\n"
	for _, args := range [][]string{
		{"labels", "check", "--corpus", "mydata/corpus", "mydata/labels.jsonl"},
		{"labels", "check", "--data-dir", "mydata", "mydata/my.yaml"}, // the config's paths, absolute
	} {
		code, out, errOut := runBench(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if args[2] == "--corpus" && !strings.Contains(out, want) || !strings.Contains(out, "record them: bench labels record --corpus ") {
			t.Errorf("%v: output lacks %q:\n%s", args, want, out)
		}
	}
	printed := strings.Fields(strings.TrimSpace(want[strings.Index(want, "bench labels record"):]))
	if code, _, errOut := runBench(printed[1:]...); code != 0 {
		t.Fatalf("the printed record: exit %d: %s", code, errOut)
	}
	if _, out, _ := runBench("labels", "check", "--corpus", "mydata/corpus", "mydata/labels.jsonl"); strings.Contains(out, "edited since") {
		t.Errorf("still edited after the printed record:\n%s", out)
	}
}

// TestFreshGrammar: bench compare's first table names systems called by
// their own letters once ("a", not "a  a"); one label problem is "1 label
// problem"; the sweep's report.md says "1 query has no relevant
// document", counts the budget verdict's correction over what it counted
// and, with no superscript in its table, says no cell beats another.
func TestFreshGrammar(t *testing.T) {
	chdir(t, freshData(t))
	code, out, errOut := runBench("compare", "--corpus", "mydata/corpus", "--qrels", "mydata/labels.jsonl", "--max-unmapped", "0.2", "-c", "--baseline", "a", "a=mydata/run.a.jsonl", "b=mydata/run.b.jsonl")
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(out, "System  span_recall@10\na       1.0000\nb       0.5000\n") {
		t.Errorf("compare's first table:\n%s", out)
	}

	b, err := os.ReadFile("mydata/labels.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(b), "Never use sparkling water or milk in the tank.", "Never use sparkling juice in the tank, ever, at all.", 1)
	if err := os.WriteFile("mydata/bad.jsonl", []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runBench("labels", "check", "--corpus", "mydata/corpus", "mydata/bad.jsonl")
	if code == 0 || !strings.Contains(errOut, "bench labels: 1 label problem ") {
		t.Errorf("labels check of one bad label: exit %d, stderr %q: want \"1 label problem\"", code, errOut)
	}

	if code, _, errOut := runBench("run", "--data-dir", "mydata", "--no-history", "mydata/my.yaml"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	md, err := os.ReadFile("mydata/out/brew/report.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"1 query has no relevant document; it is not averaged",
		"(Holm–Bonferroni correction over the 1 counted comparison; 1 identical, not counted):",
		"No cell beats another significantly on a tested metric (after correction), over the 9 answerable queries: no mean has a superscript.",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
}
