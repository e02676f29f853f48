package eval

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHandComputed checks the required measures on a ranking small enough to
// score by hand (written out below).
func TestHandComputed(t *testing.T) {
	// Query q1: judged d1=2, d2=1, d3=0, d4=1 (R=3 at level 1).
	// Run (scores): d5 .9 (unjudged), d1 .8, d3 .7, d2 .6, d6 .5.
	// Ranks: 1 d5 (-), 2 d1 (2), 3 d3 (0), 4 d2 (1), 5 d6 (-).
	qrels := Qrels{"q1": {"d1": 2, "d2": 1, "d3": 0, "d4": 1}}
	run := Run{"q1": {{"d5", .9}, {"d1", .8}, {"d3", .7}, {"d2", .6}, {"d6", .5}}}
	ms, err := ParseMeasures([]string{"map", "P.5", "recall.5", "recip_rank", "success.1,2", "ndcg_cut.3", "ndcg", "bpref", "Rprec", "judged.5", "ndcg_exp_cut.3", "mrr@1"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := Evaluate(qrels, run, ms, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	l2 := math.Log2
	want := map[string]float64{
		// AP = (1/2 + 2/4) / 3
		"map": (1.0/2 + 2.0/4) / 3,
		// P@5 = 2/5, recall@5 = 2/3
		"P_5": 0.4, "recall_5": 2.0 / 3,
		"recip_rank": 0.5, "success_1": 0, "success_2": 1,
		// DCG@3 = 2/log2(3); IDCG@3 = 2/1 + 1/log2(3) + 1/2
		"ndcg_cut_3": (2 / l2(3)) / (2 + 1/l2(3) + 0.5),
		// full: DCG = 2/log2(3) + 1/log2(5); IDCG = 2 + 1/log2(3) + 1/2
		"ndcg": (2/l2(3) + 1/l2(5)) / (2 + 1/l2(3) + 0.5),
		// bpref: N = 1 judged non-rel; d1: no nonrel above → 1; d2: 1 nonrel
		// above → 1 − min(1,3)/min(3,1) = 0. (1+0)/3
		"bpref": 1.0 / 3,
		// Rprec: rel in top 3 = 1 → 1/3
		"Rprec": 1.0 / 3,
		// judged@5: d1, d3, d2 judged → 3/5
		"judged_5": 0.6,
		// exp gain: DCG@3 = 3/log2(3); IDCG@3 = 3 + 1/log2(3) + 1/2
		"ndcg_exp_cut_3":   (3 / l2(3)) / (3 + 1/l2(3) + 0.5),
		"recip_rank_cut_1": 0,
	}
	for name, w := range want {
		got, ok := e.Mean(name)
		if !ok {
			t.Errorf("%s: not evaluated", name)
			continue
		}
		if math.Abs(got-w) > 1e-12 {
			t.Errorf("%s = %.15g, want %.15g", name, got, w)
		}
	}
}

func TestTieBreak(t *testing.T) {
	// Equal scores: trec_eval puts "b" before "a" (doc id descending).
	qrels := Qrels{"q": {"a": 1}}
	run := Run{"q": {{"a", 1}, {"b", 1}}}
	ms, _ := ParseMeasures([]string{"recip_rank"})
	for _, tc := range []struct {
		tb   TieBreak
		want float64
	}{{TieDocIDDesc, 0.5}, {TieInputOrder, 1}} {
		o := DefaultOptions()
		o.TieBreak = tc.tb
		e, err := Evaluate(qrels, run, ms, o)
		if err != nil {
			t.Fatal(err)
		}
		if e.Means[0] != tc.want {
			t.Errorf("tie %v: recip_rank = %v, want %v", tc.tb, e.Means[0], tc.want)
		}
	}
}

func TestPolicies(t *testing.T) {
	qrels, meta, err := ParseQrels(strings.NewReader(
		`{"id":"a","question":"A?","gold":["d1"],"kind":"simple"}
{"id":"b","question":"B?","gold":[],"kind":"unanswerable"}
{"id":"c","question":"C?","gold":["d3"],"kind":"simple"}
`), "q.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if meta["b"].Slice != "unanswerable" || meta["a"].Text != "A?" {
		t.Errorf("meta = %+v", meta)
	}
	if m, ok := qrels["b"]; !ok || m == nil || len(m) != 0 {
		t.Errorf("unanswerable query b: %#v, %v; want empty non-nil map", m, ok)
	}
	run := Run{"a": {{"d1", 1}}, "b": {{"d9", 1}}, "zz": {{"d1", 1}}}
	ms, _ := ParseMeasures([]string{"success.1"})
	e, err := Evaluate(qrels, run, ms, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	// a = 1, c missing → 0; b unanswerable not averaged: mean 1/2.
	if e.NumQ != 2 || e.Means[0] != 0.5 {
		t.Errorf("num_q = %d, success_1 = %v; want 2, 0.5", e.NumQ, e.Means[0])
	}
	if len(e.NotInQrels) != 1 || e.NotInQrels[0] != "zz" || len(e.NotInRun) != 1 || e.NotInRun[0] != "c" ||
		len(e.Unanswerable) != 1 || e.Unanswerable[0] != "b" {
		t.Errorf("policies: notInQrels %v notInRun %v unanswerable %v", e.NotInQrels, e.NotInRun, e.Unanswerable)
	}
	// trec_eval defaults: c skipped, b averaged: (1 + 0)/2.
	e, err = Evaluate(qrels, run, ms, TrecEvalOptions())
	if err != nil {
		t.Fatal(err)
	}
	if e.NumQ != 2 || e.Means[0] != 0.5 || len(e.Queries) != 2 {
		t.Errorf("trec defaults: num_q = %d, success_1 = %v, queries %v", e.NumQ, e.Means[0], e.Queries)
	}
}

// TestEvaluateRejectsBadRun checks that an in-memory run gets the checks a
// run file gets: duplicate docs and non-finite scores are errors.
func TestEvaluateRejectsBadRun(t *testing.T) {
	qrels := Qrels{"q1": {"d1": 1}, "q2": {"d1": 1}}
	ms, _ := ParseMeasures([]string{"map"})
	for _, tc := range []struct {
		run  Run
		want string
	}{
		{Run{"q1": {{"d1", 1}}, "q2": {{"d1", 1}, {"d2", 0.5}, {"d1", 0.2}}},
			`run query "q2" retrieves doc "d1" twice (trec_eval rejects duplicate docs)`},
		{Run{"q1": {{"d1", math.NaN()}}},
			`run query "q1" doc "d1": score NaN is not finite`},
		{Run{"q2": {{"d3", 1}, {"d1", math.Inf(-1)}}},
			`run query "q2" doc "d1": score -Inf is not finite`},
	} {
		_, err := Evaluate(qrels, tc.run, ms, DefaultOptions())
		if err == nil || err.Error() != tc.want {
			t.Errorf("error %v, want %s", err, tc.want)
		}
	}
}

// TestSliceMeans checks per-slice means on the example of eval/testdata,
// scored by hand: single-hop q1 (AP 0.5) and q4 (missing: 0) → 0.25;
// multi-hop q2 (AP 1) → 1; unanswerable q3 not averaged → NaN.
func TestSliceMeans(t *testing.T) {
	qrels, meta, err := ReadQrels("testdata/queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	run, err := ReadRun("testdata/run.trec")
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := ParseMeasures([]string{"map"})
	e, err := Evaluate(qrels, run, ms, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	got := e.SliceMeans(meta)
	if len(got) != 3 {
		t.Fatalf("slices: %+v", got)
	}
	want := []struct {
		slice     string
		numQ, row int
		mean      float64
	}{{"multi-hop", 1, 1, 1}, {"single-hop", 2, 2, 0.25}, {"unanswerable", 0, 1, math.NaN()}}
	for i, w := range want {
		g := got[i]
		if g.Slice != w.slice || g.NumQ != w.numQ || g.Rows != w.row ||
			!(g.Means[0] == w.mean || math.IsNaN(w.mean) && math.IsNaN(g.Means[0])) {
			t.Errorf("slice %d = %+v, want %+v", i, g, w)
		}
	}
	if e.SliceMeans(map[string]QueryMeta{}) != nil {
		t.Error("SliceMeans without slices should be nil")
	}
}

// TestAccessors checks Column, PerQuery, Mean and Index on two queries scored
// by hand (q1: relevant doc at rank 2 → RR 0.5; q2: at rank 1 → RR 1).
func TestAccessors(t *testing.T) {
	qrels := Qrels{"q2": {"a": 1}, "q1": {"a": 1}}
	run := Run{"q1": {{"b", 2}, {"a", 1}}, "q2": {{"a", 1}}}
	ms, _ := ParseMeasures([]string{"recip_rank", "P.1"})
	e, err := Evaluate(qrels, run, ms, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"q1", "q2"}, e.Queries); d != "" {
		t.Errorf("queries (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]float64{0.5, 1}, e.Column("recip_rank")); d != "" {
		t.Errorf("column (-want +got):\n%s", d)
	}
	if e.Column("nope") != nil || e.Index("P_1") != 1 {
		t.Error("Column of an unknown measure or Index is wrong")
	}
	want := map[string]map[string]float64{"q1": {"recip_rank": 0.5, "P_1": 0}, "q2": {"recip_rank": 1, "P_1": 1}}
	if d := cmp.Diff(want, e.PerQuery()); d != "" {
		t.Errorf("PerQuery (-want +got):\n%s", d)
	}
	if m, ok := e.Mean("recip_rank"); !ok || m != 0.75 {
		t.Errorf("Mean = %v, %v", m, ok)
	}
	if n := len(OfficialMeasures()); n != 30 {
		t.Errorf("OfficialMeasures: %d measures, want 30 (trec_eval's official set)", n)
	}
}

// TestNoQueryInCommon checks that a run sharing no query id with the qrels
// (the wrong qrels file, ids renumbered) is an error under every policy,
// in memory and streamed, rather than a table of zeros (-c) that looks like
// a failed system.
func TestNoQueryInCommon(t *testing.T) {
	qrels := Qrels{"q1": {"d1": 1}, "q2": {"d2": 1}}
	run := Run{"7": {{"d1", 1}}, "8": {{"d2", 1}}}
	ms, _ := ParseMeasures([]string{"map"})
	want := `no run query is in the qrels: the run's 2 queries (e.g. "7") and the qrels' 2 (e.g. "q1") share no id; wrong qrels for this run?`
	path := filepath.Join(t.TempDir(), "run.trec")
	if err := os.WriteFile(path, []byte("7 Q0 d1 1 1 t\n8 Q0 d2 1 1 t\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []Options{DefaultOptions(), TrecEvalOptions(), {RelevanceLevel: 1, CompleteQueries: true, AverageUnanswerable: true}} {
		if _, err := Evaluate(qrels, run, ms, opts); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Evaluate %+v: error %v, want %q", opts, err, want)
		}
		if _, _, err := EvaluateRunFile(qrels, path, ms, opts); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("EvaluateRunFile %+v: error %v, want %q", opts, err, want)
		}
	}
	// One query in common is enough: the other is reported, not an error.
	run["q1"] = []Result{{"d1", 1}}
	if _, err := Evaluate(qrels, run, ms, DefaultOptions()); err != nil {
		t.Errorf("one common query: %v", err)
	}
}

// TestWriteTablePipeInID: a query id or slice holding '|' is escaped so the
// Markdown table keeps its columns.
func TestWriteTablePipeInID(t *testing.T) {
	ms, _ := ParseMeasures([]string{"P.1"})
	e, err := Evaluate(Qrels{"a|b": {"d1": 1}}, Run{"a|b": {{"d1", 1}}}, ms, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteTable(&b, e, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| a\\|b  | 1.0000 |") {
		t.Errorf("per-query row not escaped:\n%s", b.String())
	}
}

// TestWriteTableBackslashInID: the query id `a\|b` (a backslash before a
// pipe) must render as itself. GitHub unescapes `\|` in a cell, then reads
// the cell as inline Markdown where `\\` is one backslash (GFM spec 0.29,
// sections 4.10 and 6.1), so the cell must be `a\\\|b`. Escaping the pipe
// alone gave `a\\|b`, which GitHub shows as "a|b", the backslash lost.
func TestWriteTableBackslashInID(t *testing.T) {
	ms, _ := ParseMeasures([]string{"P.1"})
	id := `a\|b`
	e, err := Evaluate(Qrels{id: {"d1": 1}}, Run{id: {{"d1", 1}}}, ms, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteTable(&b, e, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `| a\\\|b `) {
		t.Errorf("per-query row: backslash not escaped:\n%s", b.String())
	}
}

// TestWriteJSONInvalidUTF8: query ids "q\xff" and "q\xfe" would both be
// written as "q\uFFFD" by encoding/json, merging two queries' values into
// one key; WriteJSON refuses instead.
func TestWriteJSONInvalidUTF8(t *testing.T) {
	ms, _ := ParseMeasures([]string{"P.1"})
	e, err := Evaluate(Qrels{"q\xff": {"d1": 1}, "q\xfe": {"d1": 1}}, Run{"q\xff": {{"d1", 1}}, "q\xfe": {{"d2", 1}}}, ms, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteJSON(&b, e, true); err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
		t.Errorf("err = %v, want not valid UTF-8", err)
	}
}

// TestTieReorderedNote: q1 lists d1 then d2 at equal scores; trec_eval ranks
// d2 first (doc id descending), so RR = 1/2 where the file order gives 1.
// That reordering is counted and reported; q2's tie is already in trec_eval
// order (d9 before d8) and q3 has no tie, so neither is counted. Checked in
// memory and streamed, and not reported with --ties input.
func TestTieReorderedNote(t *testing.T) {
	qrels := Qrels{"q1": {"d1": 1}, "q2": {"d8": 1}, "q3": {"d5": 1}}
	run := Run{"q1": {{"d1", 1}, {"d2", 1}}, "q2": {{"d9", 2}, {"d8", 2}}, "q3": {{"d5", 3}, {"d4", 1}}}
	path := filepath.Join(t.TempDir(), "run.trec")
	os.WriteFile(path, []byte("q1 Q0 d1 1 1 t\nq1 Q0 d2 2 1 t\nq2 Q0 d9 1 2 t\nq2 Q0 d8 2 2 t\nq3 Q0 d5 1 3 t\nq3 Q0 d4 2 1 t\n"), 0o644)
	ms, _ := ParseMeasures([]string{"recip_rank"})
	want := `1 query with tied scores listed in another order than trec_eval's (doc id descending), e.g. "q1": ranked as trec_eval does; --ties input keeps the run's order`
	e1, err := Evaluate(qrels, run, ms, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	e2, _, err := EvaluateRunFile(qrels, path, ms, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for name, e := range map[string]*Evaluation{"in memory": e1, "streamed": e2} {
		if !cmp.Equal(e.TieReordered, []string{"q1"}) || !slices.Contains(e.Warnings(), want) {
			t.Errorf("%s: TieReordered %v, warnings %q", name, e.TieReordered, e.Warnings())
		}
		// (1/2 + 1/2 + 1)/3: q1 and q2 both have their relevant doc second.
		if math.Abs(e.Means[0]-2.0/3) > 1e-15 {
			t.Errorf("%s: MRR %v, want 2/3", name, e.Means[0])
		}
	}
	opts := DefaultOptions()
	opts.TieBreak = TieInputOrder
	e3, err := Evaluate(qrels, run, ms, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(e3.TieReordered) != 0 || len(e3.Warnings()) != 0 {
		t.Errorf("--ties input: TieReordered %v, warnings %q", e3.TieReordered, e3.Warnings())
	}
}
