package beir

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/retrievers"
)

// TestQueries: only judged queries are kept, in file order (hand-written
// file: q2 and q0 judged, q1 not).
func TestQueries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queries.jsonl")
	data := `{"_id": "q2", "text": "second", "metadata": {}}
{"_id": "q1", "text": "unjudged"}
{"_id": "q0", "text": "zeroth"}
`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	keep := eval.Qrels{"q0": {"d": 1}, "q2": {"d": 0}}
	want := []retrievers.Query{{ID: "q2", Text: "second"}, {ID: "q0", Text: "zeroth"}}
	if d := cmp.Diff(want, Queries(t, path, keep)); d != "" {
		t.Errorf("queries (-want +got):\n%s", d)
	}
}

// TestWholeDocsTest: a hand-made two-document BEIR folder gives two chunks,
// the test-split qrels and only the judged query.
func TestWholeDocsTest(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"corpus.jsonl": `{"_id": "d1", "title": "T1", "text": "one"}
{"_id": "d2", "title": "", "text": "two"}
`,
		"queries.jsonl": `{"_id": "q1", "text": "first"}
{"_id": "q2", "text": "unjudged"}
`,
		"qrels/test.tsv": "query-id\tcorpus-id\tscore\nq1\td2\t1\n",
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	chunks, queries, qrels := WholeDocsTest(t, dir)
	if len(chunks) != 2 {
		t.Errorf("%d chunks, want 2", len(chunks))
	}
	if d := cmp.Diff([]retrievers.Query{{ID: "q1", Text: "first"}}, queries); d != "" {
		t.Errorf("queries (-want +got):\n%s", d)
	}
	if d := cmp.Diff(eval.Qrels{"q1": {"d2": 1}}, qrels); d != "" {
		t.Errorf("qrels (-want +got):\n%s", d)
	}
}

// Hand-made qrels and runs for the scoring helpers: every query judges d1
// alone. Run a ranks d1 first everywhere; run b ranks it 2nd, 3rd and 4th
// for q1, q2 and q3 and has no q4. By hand (gain 1 at rank r):
//
//	nDCG@10 of b: 1/log2(3) = 0.63093, 1/log2(4) = 0.5, 1/log2(5) = 0.43068, 0
//	              mean 1.56161/4 = 0.39040
//	R@100 of b:   1, 1, 1, 0 → 0.75
//	MRR@10 of b:  1/2, 1/3, 1/4, 0 → 1.08333/4 = 0.27083
//
// and 1 for every measure of a.
var (
	handQrels = eval.Qrels{"q1": {"d1": 1}, "q2": {"d1": 1}, "q3": {"d1": 1}, "q4": {"d1": 1}}
	handA     = eval.Run{"q1": {{DocID: "d1", Score: 1}}, "q2": {{DocID: "d1", Score: 1}}, "q3": {{DocID: "d1", Score: 1}}, "q4": {{DocID: "d1", Score: 1}}}
	handB     = eval.Run{
		"q1": {{DocID: "d2", Score: 4}, {DocID: "d1", Score: 3}},
		"q2": {{DocID: "d2", Score: 4}, {DocID: "d3", Score: 3}, {DocID: "d1", Score: 2}},
		"q3": {{DocID: "d2", Score: 4}, {DocID: "d3", Score: 3}, {DocID: "d4", Score: 2}, {DocID: "d1", Score: 1}},
	}
)

func TestEvaluateMeanSummary(t *testing.T) {
	b := Evaluate(t, handQrels, handB)
	ndcg := (1/math.Log2(3) + 1/math.Log2(4) + 1/math.Log2(5) + 0) / 4
	for name, want := range map[string]float64{
		"ndcg_cut_10":       ndcg,
		"recall_100":        0.75,
		"recip_rank_cut_10": (1.0/2 + 1.0/3 + 1.0/4 + 0) / 4,
	} {
		if got := Mean(t, b, name); math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %.6f, want %.6f", name, got, want)
		}
	}
	if got, want := Summary(t, b), "nDCG@10 0.3904  R@100 0.7500  MRR@10 0.2708"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
	if got, want := Summary(t, Evaluate(t, handQrels, handA)), "nDCG@10 1.0000  R@100 1.0000  MRR@10 1.0000"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
	if msg := fatalOf(func(tb testing.TB) { Mean(tb, b, "map") }); msg != "no measure map" {
		t.Errorf("Mean of a missing measure: fatal %q, want %q", msg, "no measure map")
	}
}

// TestLogPaired: a beats b on all four queries with four distinct
// differences, so of the 2^4 sign flips the exact randomization test
// enumerates only all-plus and all-minus reach |mean| ≥ the observed one:
// p = 2/16 = 0.125. Means: 1 vs 0.39040 (above).
func TestLogPaired(t *testing.T) {
	a, b := Evaluate(t, handQrels, handA), Evaluate(t, handQrels, handB)
	rec := &recordTB{}
	done := make(chan struct{})
	go func() { defer close(done); LogPaired(rec, "A", "B", a, b) }()
	<-done
	if rec.fatal != "" {
		t.Fatalf("LogPaired failed: %s", rec.fatal)
	}
	if len(rec.logs) != 2 {
		t.Fatalf("%d lines logged, want 2: %q", len(rec.logs), rec.logs)
	}
	want := "A vs B, nDCG@10, paired randomization test: 1.0000 vs 0.3904, Δ +0.6096, p = 0.125 (n = 4)"
	if rec.logs[0] != want {
		t.Errorf("randomization line\n got %q\nwant %q", rec.logs[0], want)
	}
	if !strings.HasPrefix(rec.logs[1], "A vs B, nDCG@10, paired t test: 1.0000 vs 0.3904, Δ +0.6096, p = ") {
		t.Errorf("t-test line %q", rec.logs[1])
	}
	short := Evaluate(t, eval.Qrels{"q1": {"d1": 1}}, handA)
	if msg := fatalOf(func(tb testing.TB) { LogPaired(tb, "A", "B", a, short) }); msg != "A has 4 queries, B 1" {
		t.Errorf("different query sets: fatal %q", msg)
	}
}

// fakeRetriever sleeps for delay, then returns run or err.
type fakeRetriever struct {
	run   eval.Run
	err   error
	delay time.Duration
}

func (f fakeRetriever) Search(context.Context, []retrievers.Query, int) (eval.Run, error) {
	time.Sleep(f.delay)
	return f.run, f.err
}

func (f fakeRetriever) Stats() retrievers.Stats { return retrievers.Stats{} }

func TestTimedSearch(t *testing.T) {
	run, d := TimedSearch(t, context.Background(), fakeRetriever{run: handB, delay: 20 * time.Millisecond}, nil, 10)
	if len(run) != 3 || run["q1"][1].DocID != "d1" {
		t.Errorf("run %v, want handB", run)
	}
	if d < 20*time.Millisecond {
		t.Errorf("timed %v, want ≥ the retriever's 20ms", d)
	}
	msg := fatalOf(func(tb testing.TB) {
		TimedSearch(tb, context.Background(), fakeRetriever{err: errors.New("boom")}, nil, 10)
	})
	if msg != "boom" {
		t.Errorf("failing Search: fatal %q, want %q", msg, "boom")
	}
}

// recordTB records what a helper logs and the message it fails with; a
// failure ends the calling goroutine, as testing's FailNow does.
type recordTB struct {
	testing.TB
	logs  []string
	fatal string
}

func (r *recordTB) Helper()                      {}
func (r *recordTB) Logf(format string, a ...any) { r.logs = append(r.logs, fmt.Sprintf(format, a...)) }
func (r *recordTB) Fatal(a ...any)               { r.fatal = fmt.Sprint(a...); runtime.Goexit() }
func (r *recordTB) Fatalf(format string, a ...any) {
	r.fatal = fmt.Sprintf(format, a...)
	runtime.Goexit()
}

// fatalOf runs f on a recordTB in its own goroutine and returns the
// failure message ("" when f did not fail).
func fatalOf(f func(testing.TB)) string {
	rec := &recordTB{}
	done := make(chan struct{})
	go func() { defer close(done); f(rec) }()
	<-done
	return rec.fatal
}
