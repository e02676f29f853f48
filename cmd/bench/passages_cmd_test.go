package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/internal/pipetest"
	"github.com/ragbench/ragbench/internal/testenv"
)

// The fixture of testdata/passages: the two handbook pages of
// testdata/labels/corpus, span labels of four answerable questions and an
// unanswerable one (labels.jsonl, slices "leave" and "it"), the same
// questions labelled by document (doclabels.jsonl), and runs:
//
//   - langchain.passages.jsonl, a newcomer's pipeline: paragraphs by
//     code-point offsets (two tied), one passage by text with other white
//     space, and one text the corpus lacks (1 of 10 results unmapped);
//   - sentences.passages.jsonl: sentences by text, no scores, one of them
//     written twice in the corpus (ambiguous, 1 of 6 unmapped);
//   - chunks.trec: ragbench's recursive-100 chunk ids against the document
//     labels (the newcomer's silent zeros);
//   - own.trec with chunkmap.jsonl: a pipeline's own chunk ids.
//
// By hand (code points): carry-over's gold [87, 163) lies in the first
// paragraph [33, 163), so token_precision@1 = 76/130 and, with the sick
// section [180, 274) at rank 2, token_precision@5 = 76/224; sick-note's
// heading and the sick section tie at 3.0 and keep list order, so its gold
// is found at rank 2 (span_mrr 1/2); lockout's one passage (placed with
// white space normalised at [121, 206)) holds both its gold spans (84 of
// its 85 code points) but counts once at chunk level (recall 1/2), and the
// unmapped text (45 code points) lowers token_precision@5 to 84/130.
const passageDir = "testdata/passages/"

const passageCorpus = "testdata/labels/corpus"

// TestEvalCorpusGolden checks bench eval --corpus on the fixture against
// golden tables, the numbers above against the JSON output, and the span
// measures against the independent Python scorer.
func TestEvalCorpusGolden(t *testing.T) {
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"passages/eval.table.golden", []string{"--max-unmapped", "0.2", passageDir + "labels.jsonl", passageDir + "langchain.passages.jsonl"}},
		{"passages/eval-chunkmap.golden", []string{"--chunk-map", passageDir + "chunkmap.jsonl", "-m", "ndcg@10", "-m", "span_recall@1,2", "-q", passageDir + "labels.jsonl", passageDir + "own.trec"}},
		{"passages/eval-chunking.golden", []string{"--chunking", "recursive-100", "-m", "P.1", "-m", "token_recall@1", passageDir + "labels.jsonl", passageDir + "chunks.trec"}},
		{"passages/eval-doclabels.golden", []string{"--max-unmapped", "0.2", "-m", "success.1", "-m", "ndcg_cut.2", passageDir + "doclabels.jsonl", passageDir + "sentences.passages.jsonl"}},
	} {
		code, out, errOut := runBench(append([]string{"eval", "--corpus", passageCorpus}, c.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.golden, code, errOut)
		}
		checkDiagGolden(t, c.golden, out)
	}
	code, out, errOut := runBench("eval", "--corpus", passageCorpus, "--max-unmapped", "0.2", "--format", "json", "-m", "recall.2",
		"-m", "token_precision@1,5", "-m", "span_mrr@5", passageDir+"labels.jsonl", passageDir+"langchain.passages.jsonl")
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, errOut)
	}
	var doc struct {
		Means map[string]float64 `json:"means"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"recall_2":          (1 + 1 + 0.5 + 1) / 4.0,
		"token_precision@1": (76.0/130 + 0 + 84.0/85 + 0) / 4,
		"token_precision@5": (76.0/224 + 45.0/(13+94+130) + 84.0/(85+45) + 34.0/(44+106)) / 4,
		"span_mrr@5":        (1 + 0.5 + 1 + 0.5) / 4,
	}
	for name, w := range want {
		if got := doc.Means[name]; math.Abs(got-w) > 1e-12 {
			t.Errorf("%s = %v, by hand %v", name, got, w)
		}
	}
}

// TestEvalCorpusScorer checks every span measure of the fixture's passage
// runs against the independent Python scorer (pipelines/reference).
func TestEvalCorpusScorer(t *testing.T) {
	testenv.Python(t)
	for _, run := range []string{"langchain.passages.jsonl", "sentences.passages.jsonl"} {
		code, out, errOut := runBench("eval", "--corpus", passageCorpus, "--max-unmapped", "0.2", "--format", "json", "-q", passageDir+"labels.jsonl", passageDir+run)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", run, code, errOut)
		}
		var doc struct {
			Means    map[string]float64            `json:"means"`
			PerQuery map[string]map[string]float64 `json:"per_query"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		ref := pipetest.Score(t, passageCorpus, passageDir+"labels.jsonl", passageDir+run, 1, 5, 10)
		for name, w := range ref.Means {
			if got, ok := doc.Means[name]; !ok || math.Abs(got-w) > 1e-9 {
				t.Errorf("%s: %s = %v, the scorer %v", run, name, got, w)
			}
		}
		for q, m := range ref.PerQuery {
			for name, w := range m {
				if got := doc.PerQuery[q][name]; math.Abs(got-w) > 1e-9 {
					t.Errorf("%s: query %s %s = %v, the scorer %v", run, q, name, got, w)
				}
			}
		}
	}
}

// TestEvalCorpusErrors checks what bench eval says when span labels or
// passage runs come without --corpus, when the unmapped rate is above
// --max-unmapped, and when a run's ids are mostly unjudged.
func TestEvalCorpusErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{passageDir + "labels.jsonl", passageDir + "chunks.trec"}, 2, "holds span labels (\"gold_spans\" or Chroma's questions.csv): pass --corpus DIR"},
		{[]string{passageDir + "doclabels.jsonl", passageDir + "langchain.passages.jsonl"}, 2, "is a passage run: pass --corpus DIR"},
		{[]string{"-m", "span_recall@5", passageDir + "doclabels.jsonl", passageDir + "chunks.trec"}, 2, "-m span_recall@5: span measures need span labels and --corpus DIR"},
		{[]string{"--chunk-map", passageDir + "chunkmap.jsonl", passageDir + "doclabels.jsonl", passageDir + "own.trec"}, 2, "--chunk-map needs --corpus DIR"},
		{[]string{"--corpus", passageCorpus, passageDir + "labels.jsonl", passageDir + "langchain.passages.jsonl"}, 1,
			"langchain.passages.jsonl: 1 of 10 results unmapped (10 %: 1 absent, 0 ambiguous) > --max-unmapped 5 %"},
		{[]string{"--corpus", passageCorpus, passageDir + "labels.jsonl", passageDir + "sentences.passages.jsonl"}, 1,
			"sentences.passages.jsonl: 1 of 6 results unmapped (16.7 %: 0 absent, 1 ambiguous) > --max-unmapped 5 %"},
		{[]string{"--corpus", passageCorpus, passageDir + "labels.jsonl", passageDir + "own.trec"}, 2, "span labels score passages: give a passage run, or a TREC run with --chunk-map"},
		{[]string{"--corpus", passageCorpus, "--max-unmapped", "2", passageDir + "labels.jsonl", passageDir + "own.trec"}, 2, "--max-unmapped: max unmapped 2: want a fraction in [0, 1]"},
		{[]string{"--corpus", passageCorpus, "-m", "span_recall@0", passageDir + "labels.jsonl", passageDir + "own.trec"}, 2, "-m span_recall@0: a span measure is family@k with k ≥ 1"},
	} {
		code, _, errOut := runBench(append([]string{"eval"}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("bench eval %s: exit %d, stderr %q; want exit %d and %q", strings.Join(c.args, " "), code, errOut, c.code, c.want)
		}
	}
	// The newcomer's run of chunk ids against document labels: the zeros
	// come with a warning naming the share unjudged and the way out.
	code, out, errOut := runBench("eval", "-m", "success.5", passageDir+"doclabels.jsonl", passageDir+"chunks.trec")
	if code != 0 || !strings.Contains(out, "| success_5 |     0.0000 |") {
		t.Errorf("chunk ids against documents: exit %d, stdout:\n%s", code, out)
	}
	for _, w := range []string{"bench eval: warning: testdata/passages/chunks.trec: 100.0% of the run's 6 results are unjudged", "only 0 of its 5 queries retrieved any judged id",
		`The run names chunks ("policies/leave#1") of judged documents ("policies/leave")`} {
		if !strings.Contains(errOut, w) {
			t.Errorf("missing %q in stderr:\n%s", w, errOut)
		}
	}
	// The same run with --corpus and --chunking scores its chunks on the
	// span labels, without a warning.
	code, _, errOut = runBench("eval", "--corpus", passageCorpus, "--chunking", "recursive-100", passageDir+"labels.jsonl", passageDir+"chunks.trec")
	if code != 0 || strings.Contains(errOut, "warning") {
		t.Errorf("--chunking: exit %d, stderr %s", code, errOut)
	}
}

// TestCompareCorpusGolden checks bench compare --corpus: two pipelines'
// passage runs on span and chunk-level measures with the baseline plan and
// an equivalence margin, and the gate; and the unjudged warning of an id
// run.
func TestCompareCorpusGolden(t *testing.T) {
	args := []string{"compare", "--corpus", passageCorpus, "--qrels", passageDir + "labels.jsonl", "--max-unmapped", "0.2",
		"-m", "span_recall@1", "-m", "token_recall@2", "-m", "ndcg@10", "--baseline", "langchain", "--equivalence", "0.1",
		"langchain=" + passageDir + "langchain.passages.jsonl", "sentences=" + passageDir + "sentences.passages.jsonl",
		"own=" + passageDir + "own.trec", "--chunk-map", passageDir + "chunkmap.jsonl", "-c"}
	code, out, errOut := runBench(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	checkDiagGolden(t, "passages/compare.table.golden", out)
	code, out, errOut = runBench(append(args, "--gate")...)
	if code != 0 && code != 3 || !strings.Contains(out, "langchain") {
		t.Errorf("--gate: exit %d, stdout %s, stderr %s", code, out, errOut)
	}
	// Without -c the runs must cover the labelled queries with a gold span.
	code, _, errOut = runBench("compare", "--corpus", passageCorpus, "--qrels", passageDir+"labels.jsonl", "--chunk-map", passageDir+"chunkmap.jsonl",
		passageDir+"own.trec", "b="+passageDir+"own.trec")
	if code != 0 {
		t.Errorf("own.trec twice: exit %d: %s", code, errOut)
	}
	code, _, errOut = runBench("compare", "--qrels", passageDir+"doclabels.jsonl", passageDir+"chunks.trec", "b="+passageDir+"chunks.trec")
	if code != 0 || strings.Count(errOut, "bench compare: warning: ") != 2 || !strings.Contains(errOut, "100.0% of the run's 6 results are unjudged") {
		t.Errorf("chunk ids against documents: exit %d, stderr:\n%s", code, errOut)
	}
}
