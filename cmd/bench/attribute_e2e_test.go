//go:build e2e

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/testenv"
	"github.com/ragbench/ragbench/internal/testenv/beir"
	"github.com/ragbench/ragbench/retrievers"
	"github.com/ragbench/ragbench/retrievers/bm25"
	"gopkg.in/yaml.v3"
)

// offTopic are synthetic unanswerable questions: nothing in SciFact (a
// corpus of biomedical abstracts) answers them. They are added to the qrels
// with an empty gold list so that the threshold report has both groups.
var offTopic = []string{
	"What is the best recipe for blueberry pancakes?",
	"Who won the football world cup in 1998?",
	"How do I change a flat tyre on a bicycle?",
	"Which train goes from Paris to Lyon on Sunday morning?",
	"What time does the city library open on holidays?",
	"How many strings does a classical guitar have?",
	"Where can I buy cheap tickets for a jazz concert?",
	"What is the plot of the novel Moby Dick?",
	"How do you say good morning in Portuguese?",
	"Which chess opening starts with the king's pawn?",
}

// TestE2EAttributeSciFact runs 'bench attribute' end to end on a SciFact
// BM25 run (whole documents, title + text, Lucene BM25 k1=0.9 b=0.4, top
// 100 — the BM25 cell of configs/scifact.yaml, built here with
// retrievers/bm25 directly so the test does not depend on 'bench run') over
// the 300 test queries plus the 10 synthetic off-topic queries above.
//
// The verdict file is SYNTHETIC, generated here: a query's answer is
// "correct" when its gold is in the top 6, flipped for the queries whose
// FNV-1a hash of the id is 0 mod 5 (about one in five) — a grader that
// mostly agrees with retrieval. Off-topic queries are "correct" (the system
// abstained) unless flipped the same way.
//
// Independent references: the retrieved/missed split must equal trec_eval's
// success@6 from the eval package, query by query, and the four cells must
// equal the counts implied by the flip rule.
func TestE2EAttributeSciFact(t *testing.T) {
	dir := testenv.Shared(t, "datasets/scifact")
	ctx := context.Background()
	chunks, queries, qrels := beir.WholeDocsTest(t, dir)
	if len(queries) != 300 {
		t.Fatalf("%d SciFact test queries, want 300", len(queries))
	}
	for i, text := range offTopic {
		queries = append(queries, retrievers.Query{ID: fmt.Sprintf("offtopic-%02d", i), Text: text})
	}
	r, err := bm25.New(ctx, chunks, bm25.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	bm25Run, err := r.Search(ctx, queries, 100)
	if err != nil {
		t.Fatal(err)
	}

	tmp := t.TempDir()
	runPath := writeAttributeRun(t, tmp, bm25Run)
	qrelsPath := writeLabelledQueries(t, tmp, queries, qrels)

	// Independent reference for "retrieved": trec_eval success@6.
	ms, err := eval.ParseMeasures([]string{"success.6"})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := eval.Evaluate(qrels, bm25Run, ms, eval.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	success := ev.PerQuery()

	answersPath, want := writeVerdicts(t, tmp, queries, qrels, success, ms[0].Name)

	var stdout, stderr bytes.Buffer
	args := []string{"attribute", "--run", runPath, "--qrels", qrelsPath, "--answers", answersPath, "--format", "json"}
	if code := run(&stdout, &stderr, args); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	s6, _ := ev.Mean(ms[0].Name)
	checkAttributeJSON(t, stdout.Bytes(), want, s6)

	// The table and Markdown renderings run too.
	for _, f := range []string{"table", "md"} {
		stdout.Reset()
		if code := run(&stdout, &stderr, append(args[:len(args)-2], "--format", f)); code != 0 {
			t.Fatalf("--format %s: exit %d: %s", f, code, stderr.String())
		}
		if !strings.Contains(stdout.String(), "Suggested threshold") {
			t.Errorf("--format %s output lacks the threshold:\n%s", f, stdout.String())
		}
		if f == "table" {
			t.Logf("bench attribute output:\n%s", stdout.String())
		}
	}
}

// checkAttributeJSON checks bench attribute's JSON output out against the
// verdicts' counts want and trec_eval's success@6 mean s6 (the hit rate
// over the 300 answerable queries), and the threshold report's query
// counts (300 answerable, 10 off-topic) and suggestion.
func checkAttributeJSON(t *testing.T, out []byte, want attributeCounts, s6 float64) {
	t.Helper()
	var got struct {
		Attribution struct {
			Overall      map[string]any // snake_case keys, see diagnose.Table.MarshalJSON
			Unanswerable struct{ Correct, Wrong int }
			Slices       []struct{ Slice string }
		}
		Threshold struct {
			Answerable, Unanswerable struct {
				Queries int
				Median  float64
			}
			Suggested *struct {
				Threshold             float64
				UnanswerableAbstained float64 `json:"unanswerable_abstained"`
				AnswerableLostGold    float64 `json:"answerable_lost_gold"`
			}
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	o := got.Attribution.Overall
	gotCells := []any{o["retrieved_correct"], o["retrieved_wrong"], o["missed_correct"], o["missed_wrong"]}
	wantCells := []any{float64(want.rc), float64(want.rw), float64(want.mc), float64(want.mw)}
	for i := range gotCells {
		if gotCells[i] != wantCells[i] {
			t.Errorf("2×2 cells (RC, RW, MC, MW) = %v, want %v", gotCells, wantCells)
			break
		}
	}
	hitRate, _ := o["hit_rate"].(float64)
	if o["n"] != 300.0 {
		t.Errorf("n = %v, want 300", o["n"])
	}
	if d := hitRate - s6; d > 1e-12 || d < -1e-12 {
		t.Errorf("hit rate@6 = %v, trec_eval success@6 = %v", hitRate, s6)
	}
	if u := got.Attribution.Unanswerable; u.Correct != want.uc || u.Wrong != want.uw {
		t.Errorf("unanswerable = %+v, want %d correct %d wrong", u, want.uc, want.uw)
	}
	if len(got.Attribution.Slices) != 2 {
		t.Errorf("slices = %v, want off-topic and scifact", got.Attribution.Slices)
	}
	th := got.Threshold
	if th.Answerable.Queries != 300 || th.Unanswerable.Queries != 10 || th.Suggested == nil {
		t.Fatalf("threshold: %+v", th)
	}
	t.Logf("SciFact BM25, depth 6: RC %d RW %d MC %d MW %d, hit rate %.4f; top-1 median answerable %.3f vs off-topic %.3f; suggested threshold %.3f: %.0f%% off-topic silenced, %.1f%% answerable lose gold",
		want.rc, want.rw, want.mc, want.mw, hitRate, th.Answerable.Median, th.Unanswerable.Median,
		th.Suggested.Threshold, 100*th.Suggested.UnanswerableAbstained, 100*th.Suggested.AnswerableLostGold)
}

// writeAttributeRun writes run as the TREC run file tmp/bm25.trec and
// returns its path.
func writeAttributeRun(t *testing.T, tmp string, run eval.Run) string {
	t.Helper()
	runPath := filepath.Join(tmp, "bm25.trec")
	var rb bytes.Buffer
	if err := eval.WriteRunTREC(&rb, run, "bm25"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(runPath, rb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return runPath
}

// writeLabelledQueries writes the labelled-query JSONL tmp/labelled.jsonl:
// SciFact's test qrels (all grades are 1) as slice "scifact", the
// off-topic queries with an empty gold list as slice "off-topic". It
// returns the file's path.
func writeLabelledQueries(t *testing.T, tmp string, queries []retrievers.Query, qrels eval.Qrels) string {
	t.Helper()
	qrelsPath := filepath.Join(tmp, "labelled.jsonl")
	var qb bytes.Buffer
	for _, q := range queries {
		gold := []string{}
		kind := "off-topic"
		if j, ok := qrels[q.ID]; ok {
			kind = "scifact"
			for d, g := range j {
				if g > 0 {
					gold = append(gold, d)
				}
			}
			sort.Strings(gold)
		}
		line, _ := json.Marshal(map[string]any{"id": q.ID, "question": q.Text, "gold": gold, "kind": kind})
		qb.Write(append(line, '\n'))
	}
	if err := os.WriteFile(qrelsPath, qb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return qrelsPath
}

// attributeCounts are the expected attribution counts: answerable queries
// retrieved (gold in the top 6) or missed, answered correctly or wrongly,
// and the unanswerable queries answered correctly (abstained) or wrongly.
type attributeCounts struct{ rc, rw, mc, mw, uc, uw int }

// writeVerdicts writes tmp/answers.jsonl: a verdict per query, correct
// exactly when the query was retrieved (per-query metric success, trec_eval
// success@6, 1) or is unanswerable, except that one query in five (by an
// FNV hash of its id) is flipped. It returns the file's path and the counts
// the verdicts make.
func writeVerdicts(t *testing.T, tmp string, queries []retrievers.Query, qrels eval.Qrels, success map[string]map[string]float64, metric string) (string, attributeCounts) {
	t.Helper()
	flip := func(id string) bool {
		h := fnv.New32a()
		h.Write([]byte(id))
		return h.Sum32()%5 == 0
	}
	var want attributeCounts
	answersPath := filepath.Join(tmp, "answers.jsonl")
	var ab bytes.Buffer
	for _, q := range queries {
		var correct bool
		if _, ok := qrels[q.ID]; ok {
			hit := success[q.ID][metric] == 1
			correct = hit != flip(q.ID)
			switch {
			case hit && correct:
				want.rc++
			case hit:
				want.rw++
			case correct:
				want.mc++
			default:
				want.mw++
			}
		} else {
			correct = !flip(q.ID)
			if correct {
				want.uc++
			} else {
				want.uw++
			}
		}
		fmt.Fprintf(&ab, "{\"qid\": %q, \"correct\": %v}\n", q.ID, correct)
	}
	if err := os.WriteFile(answersPath, ab.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return answersPath, want
}

// TestE2EAttributeBenchRun runs the real pipeline: 'bench run' on
// configs/scifact.yaml restricted to its BM25 retriever and whole-document
// chunking (every other setting as in the file), then 'bench attribute' on
// the run file it wrote, with a SYNTHETIC verdict file generated here
// (correct when the FNV-1a hash of the query id is not 0 mod 3 — unrelated
// to retrieval). Independent reference: hit rate@6 must equal trec_eval
// success.6 computed by the eval package on the same run file.
func TestE2EAttributeBenchRun(t *testing.T) {
	dir := testenv.Shared(t, "datasets/scifact")
	dataRoot := filepath.Dir(filepath.Dir(dir))
	raw, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "configs", "scifact.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	var keep []any
	for _, r := range cfg["retrievers"].([]any) {
		if r.(map[string]any)["type"] == "bm25" {
			keep = append(keep, r)
		}
	}
	if len(keep) == 0 {
		t.Fatal("configs/scifact.yaml has no bm25 retriever")
	}
	tmp := t.TempDir()
	cfg["retrievers"] = keep
	cfg["chunking"] = []any{map[string]any{"strategy": "doc"}}
	cfg["output"] = filepath.Join(tmp, "out")
	cfg["cache_dir"] = filepath.Join(tmp, "cache")
	out, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(tmp, "scifact-bm25.yaml")
	os.WriteFile(cfgPath, out, 0o644)
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"run", "--data-dir", dataRoot, "--no-history", "--progress", "never", cfgPath}); code != 0 {
		t.Fatalf("bench run: exit %d: %s", code, stderr.String())
	}
	runs, _ := filepath.Glob(filepath.Join(tmp, "out", "runs", "*.trec"))
	if len(runs) != 1 {
		t.Fatalf("bench run wrote runs %v, want one", runs)
	}
	qrelsPath := filepath.Join(dir, "qrels", "test.tsv")
	qrels, _, err := eval.ReadQrels(qrelsPath)
	if err != nil {
		t.Fatal(err)
	}
	var ab bytes.Buffer
	for _, q := range sortedIDs(qrels) {
		h := fnv.New32a()
		h.Write([]byte(q))
		fmt.Fprintf(&ab, "{\"qid\": %q, \"correct\": %v}\n", q, h.Sum32()%3 != 0)
	}
	answers := filepath.Join(tmp, "answers.jsonl")
	os.WriteFile(answers, ab.Bytes(), 0o644)

	stdout.Reset()
	if code := run(&stdout, &stderr, []string{"attribute", "--run", runs[0], "--qrels", qrelsPath, "--answers", answers, "--format", "json"}); code != 0 {
		t.Fatalf("bench attribute: exit %d: %s", code, stderr.String())
	}
	var got struct {
		Attribution struct{ Overall map[string]any }
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	runFile, err := eval.ReadRun(runs[0])
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := eval.ParseMeasures([]string{"success.6"})
	ev, err := eval.Evaluate(qrels, runFile, ms, eval.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	s6, _ := ev.Mean(ms[0].Name)
	o := got.Attribution.Overall
	if o["n"] != 300.0 || o["hit_rate"] != s6 {
		t.Errorf("n = %v, hit rate@6 = %v; want 300 and trec_eval success.6 = %v", o["n"], o["hit_rate"], s6)
	}
	t.Logf("bench run %s → bench attribute: %v", filepath.Base(runs[0]), o)
}

func sortedIDs(q eval.Qrels) []string {
	ids := make([]string, 0, len(q))
	for id := range q {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
