package eval

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// meanOf evaluates qrels and the run text (parsed by ParseRun, then also
// streamed from a file by EvaluateRunFile, whose line reader is its own)
// and returns the mean of each measure; the two paths must agree.
func meanOf(t *testing.T, qrels Qrels, runText string, opts Options, names ...string) map[string]float64 {
	t.Helper()
	ms, err := ParseMeasures(names)
	if err != nil {
		t.Fatal(err)
	}
	run, _, err := ParseRun(strings.NewReader(runText), "run")
	if err != nil {
		t.Fatal(err)
	}
	e, err := Evaluate(qrels, run, ms, opts)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, m := range ms {
		got[m.Name], _ = e.Mean(m.Name)
	}
	for _, size := range []int{4 << 20, 8} {
		old := chunkSize
		chunkSize = size
		es, _, err := EvaluateRunFile(qrels, writeRun(t, "run.trec", runText), ms, opts)
		chunkSize = old
		if err != nil {
			t.Fatalf("EvaluateRunFile (chunk %d): %v", size, err)
		}
		for _, m := range ms {
			if v, _ := es.Mean(m.Name); v != got[m.Name] {
				t.Errorf("chunk %d: %s = %v streamed, %v in memory", size, m.Name, v, got[m.Name])
			}
		}
	}
	return got
}

// TestQrelsCommentLines: trec_eval 10 get_qrels.c skips a qrels line whose
// first byte is '#'. Before the fix "# 0 d1 1" was a judged query "#", so
// that with -c trec_eval's num_q 1, map 1.0 became num_q 2, map 0.5.
func TestQrelsCommentLines(t *testing.T) {
	text := "# 0 d1 1\n#qid iter docno rel\nq1 0 d1 1\n"
	q, _, err := ParseQrels(strings.NewReader(text), "qrels")
	if err != nil {
		t.Fatal(err)
	}
	if len(q) != 1 || q["q1"]["d1"] != 1 {
		t.Fatalf("qrels %v; want only q1 (comment lines skipped)", q)
	}
	opts := TrecEvalOptions()
	opts.CompleteQueries = true
	got := meanOf(t, q, "q1 Q0 d1 1 1.0 run\n", opts, "num_q", "map")
	if got["num_q"] != 1 || got["map"] != 1 {
		t.Errorf("num_q %v map %v; want 1 and 1 (trec_eval -c)", got["num_q"], got["map"])
	}
	// A '#' after white space is data for trec_eval (qid "#"), and here.
	q, _, err = ParseQrels(strings.NewReader(" # 0 d2 1\nq1 0 d1 1\n"), "qrels")
	if err != nil || len(q) != 2 || q["#"]["d2"] != 1 {
		t.Errorf("indented '#': %v, %v; want query \"#\" judged", q, err)
	}
	// Only comments: no judgement.
	if _, _, err := ParseQrels(strings.NewReader("# nothing\n"), "qrels"); err == nil {
		t.Error("qrels of only a comment: want an error")
	}
}

// TestRunCommentLines: trec_eval 10 get_trec_results.c skips a run line
// whose first byte after leading white space is '#', in the whole-file and
// the streaming readers alike (before the fix "# a b c d e" was a result of
// query "#" and "# x" a malformed line).
func TestRunCommentLines(t *testing.T) {
	runText := "# run by bm25\n\t# x\nq1 Q0 d2 1 2 run\n#q1 Q0 d1 2 1 run\nq1 Q0 d1 3 1 run\n"
	run, info, err := ParseRun(strings.NewReader(runText), "run")
	if err != nil {
		t.Fatal(err)
	}
	if len(run) != 1 || len(run["q1"]) != 2 || info.Results != 2 || info.Tag != "run" {
		t.Fatalf("run %v info %+v; want q1 with d2, d1", run, info)
	}
	// R = 1 (d1), retrieved at rank 2: AP = 1/2.
	got := meanOf(t, Qrels{"q1": {"d1": 1}}, runText, TrecEvalOptions(), "map", "num_ret")
	if got["map"] != 0.5 || got["num_ret"] != 2 {
		t.Errorf("map %v num_ret %v; want 0.5 and 2", got["map"], got["num_ret"])
	}
}

// TestJSONInvalidUTF8: encoding/json rewrites invalid UTF-8 and lone \u
// surrogates to U+FFFD; the JSON readers refuse them with file:line
// instead (before the fix the id "d\xff" matched in a TREC run but not in
// a ranx one: nDCG 1.0 vs 0.5 on the same data).
func TestJSONInvalidUTF8(t *testing.T) {
	for _, c := range []struct{ name, text, line string }{
		{"ranx run", "{\"q1\": {\"d1\": 1},\n \"q2\": {\"d\xff\": 0.5}}", "run:2: json: column 11: invalid UTF-8 (byte 0xff)"},
		{"ranx run surrogate", `{"q1": {"d\udc00": 1}}`, `run:1: json: column 11: a lone UTF-16 surrogate \udc00`},
		{"ranx run high surrogate", `{"q1": {"d\ud800x": 1}}`, `run:1: json: column 11: a lone UTF-16 surrogate \ud800`},
	} {
		_, _, err := ParseRun(strings.NewReader(c.text), "run")
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), c.line) {
			t.Errorf("%s: %v; want an error starting %q", c.name, err, c.line)
		}
	}
	for _, c := range []struct{ name, text, line string }{
		{"ranx qrels", "{\"q1\": {\"d\xc3\": 1}}", "qrels:1: json: column 11: invalid UTF-8 (byte 0xc3)"},
		{"labelled JSONL", "{\"id\": \"q1\", \"gold\": [\"a\"]}\n{\"id\": \"q\xe2\x82\", \"gold\": [\"b\"]}\n", "qrels:2: json: column 10: invalid UTF-8 (byte 0xe2)"},
		{"JSONL surrogate", `{"id": "q\udfff", "gold": ["b"]}`, `qrels:1: json: column 10: a lone UTF-16 surrogate`},
	} {
		_, _, err := ParseQrels(strings.NewReader(c.text), "qrels")
		if err == nil || !strings.HasPrefix(err.Error(), c.line) {
			t.Errorf("%s: %v; want an error starting %q", c.name, err, c.line)
		}
	}
	// A valid surrogate pair, an escaped backslash before "u" and a
	// literal U+FFFD are text like any other.
	run, _, err := ParseRun(strings.NewReader(`{"q1": {"\ud83d\ude00": 1, "\\ud800": 2, "\ufffd": 3}}`), "run")
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, r := range run["q1"] {
		ids[r.DocID] = true
	}
	if !ids["😀"] || !ids[`\ud800`] || !ids["\uFFFD"] {
		t.Errorf("ids %v", ids)
	}
	// TREC files: ids are bytes, kept exact, so "d\xff" matches itself.
	q, _, err := ParseQrels(strings.NewReader("q1 0 d\xff 1\nq1 0 d2 1\n"), "qrels")
	if err != nil {
		t.Fatal(err)
	}
	got := meanOf(t, q, "q1 Q0 d\xff 1 2 run\nq1 Q0 d2 2 1 run\n", TrecEvalOptions(), "ndcg")
	if got["ndcg"] != 1 {
		t.Errorf("TREC ids with byte 0xff: ndcg %v; want 1", got["ndcg"])
	}
}

// TestLargeGrades: nDCG's gain table covered every level from 0 to the
// largest grade, with a linear search per level: grade 100000 took seconds
// and 2147483648 never finished. Values are trec_eval's definition (gain =
// grade, discount log2(rank+1)) computed by hand:
//
//	judged d1 = G, d2 = 1; ranked d2, d1
//	DCG  = 1/log2 2 + G/log2 3
//	IDCG = G/log2 2 + 1/log2 3
func TestLargeGrades(t *testing.T) {
	for _, g := range []int{100000, 2147483648, math.MaxInt64 / 2} {
		done := make(chan map[string]float64, 1)
		go func() {
			done <- meanOf(t, Qrels{"q1": {"d1": g, "d2": 1}}, "q1 Q0 d2 1 2 run\nq1 Q0 d1 2 1 run\n", TrecEvalOptions(), "ndcg", "ndcg_cut.1")
		}()
		select {
		case got := <-done:
			G := float64(g)
			want := (1 + G/math.Log2(3)) / (G + 1/math.Log2(3))
			if math.Abs(got["ndcg"]-want) > 1e-15 {
				t.Errorf("grade %d: ndcg %v; want %v", g, got["ndcg"], want)
			}
			if want1 := 1 / G; math.Abs(got["ndcg_cut_1"]-want1) > 1e-15*want1 {
				t.Errorf("grade %d: ndcg_cut_1 %v; want %v", g, got["ndcg_cut_1"], want1)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("grade %d: nDCG not computed within 10 s", g)
		}
	}
	// ndcg_exp's gain 2^g − 1 is +Inf past MaxExpGrade: an error, not NaN.
	ms, _ := ParseMeasures([]string{"ndcg_exp"})
	run := Run{"q1": {{DocID: "d1", Score: 1}}}
	if _, err := Evaluate(Qrels{"q1": {"d1": 1024}}, run, ms, DefaultOptions()); err == nil || !strings.Contains(err.Error(), "grade 1024") {
		t.Errorf("ndcg_exp, grade 1024: %v; want an error naming the grade", err)
	}
	e, err := Evaluate(Qrels{"q1": {"d1": 1023}}, run, ms, DefaultOptions())
	if v, _ := e.Mean("ndcg_exp"); err != nil || v != 1 {
		t.Errorf("ndcg_exp, grade 1023: %v, %v; want 1", v, err)
	}
}

// TestEmptyJSONRunQuery: one rule for a ranx run's query with no result
// {"q_1": {}}: the query retrieved nothing and scores 0, alone or beside
// other queries (before the fix it was "no results found" alone and 0
// beside another query). A run with no query at all is an error.
func TestEmptyJSONRunQuery(t *testing.T) {
	ms, _ := ParseMeasures([]string{"ndcg@10", "num_q"})
	qrels := Qrels{"q_1": {"d1": 1}, "q_2": {"d2": 1}}
	for _, c := range []struct {
		text string
		want float64 // mean nDCG@10 over the run's judged queries
		numQ float64
	}{
		{`{"q_1": {}}`, 0, 1},
		{`{"q_1": {}, "q_2": {"d2": 1}}`, 0.5, 2},
	} {
		run, info, err := ParseRun(strings.NewReader(c.text), "run.json")
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		if _, ok := run["q_1"]; !ok {
			t.Fatalf("%s: q_1 dropped", c.text)
		}
		e, err := Evaluate(qrels, run, ms, TrecEvalOptions())
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		if got, _ := e.Mean("ndcg_cut_10"); got != c.want || meanValue(e, "num_q") != c.numQ || info.Results != int(c.numQ)-1 {
			t.Errorf("%s: ndcg@10 %v num_q %v results %d; want %v, %v", c.text, got, meanValue(e, "num_q"), info.Results, c.want, c.numQ)
		}
	}
	if _, _, err := ParseRun(strings.NewReader(`{}`), "run.json"); err == nil || !strings.Contains(err.Error(), "no query") {
		t.Errorf("{}: %v; want an error", err)
	}
}

// meanValue is Evaluation.Mean without its flag.
func meanValue(e *Evaluation, name string) float64 {
	v, _ := e.Mean(name)
	return v
}

// TestRelevanceLevelZero: trec_eval -l 0 counts judged docs of grade 0 as
// relevant (rel ≥ level, m_P.c and form_res_rels.c); negative grades never
// are. Before the fix a level below 1 silently meant 1.
//
//	judged d0 = 0, d1 = 1, dn = -1; ranked d0, dn, d1
//	-l 0: relevant d0, d1 (R = 2): P_3 = 2/3, AP = (1/1 + 2/3)/2
//	-l 1: relevant d1 (R = 1):     P_3 = 1/3, AP = 1/3
func TestRelevanceLevelZero(t *testing.T) {
	qrels := Qrels{"q1": {"d0": 0, "d1": 1, "dn": -1}}
	runText := "q1 Q0 d0 1 3 r\nq1 Q0 dn 2 2 r\nq1 Q0 d1 3 1 r\n"
	opts := TrecEvalOptions()
	opts.RelevanceLevel = 0
	got := meanOf(t, qrels, runText, opts, "P.3", "map")
	if math.Abs(got["P_3"]-2.0/3) > 1e-15 || math.Abs(got["map"]-5.0/6) > 1e-15 {
		t.Errorf("-l 0: P_3 %v map %v; want 2/3 and 5/6", got["P_3"], got["map"])
	}
	got = meanOf(t, qrels, runText, TrecEvalOptions(), "P.3", "map")
	if math.Abs(got["P_3"]-1.0/3) > 1e-15 || math.Abs(got["map"]-1.0/3) > 1e-15 {
		t.Errorf("-l 1: P_3 %v map %v; want 1/3 and 1/3", got["P_3"], got["map"])
	}
	opts.RelevanceLevel = -1
	ms, _ := ParseMeasures([]string{"map"})
	if _, err := Evaluate(qrels, Run{"q1": {{DocID: "d1"}}}, ms, opts); err == nil {
		t.Error("-l -1: want an error")
	}
}

// TestTrecWhiteSpace: TREC fields are separated by C's isspace, as
// trec_eval splits them (get_trec_results.c, get_qrels.c): "d\v2" is two
// fields there, so that "q1 Q0 d\v2 1 0.5 t" retrieves doc "d" with score
// 1 (the 5th field). Before the fix the run reader split on space and tab
// only (doc "d\v2", score 0.5) and the qrels reader on any Unicode space
// (U+00A0 inside an id split it; trec_eval keeps those bytes).
func TestTrecWhiteSpace(t *testing.T) {
	run, _, err := ParseRun(strings.NewReader("q1 Q0 d\v2 1 0.5 t\nq1\fQ0\rd3 2 0.25 t\n"), "run")
	if err != nil {
		t.Fatal(err)
	}
	if got := run["q1"]; len(got) != 2 || got[0] != (Result{DocID: "d", Score: 1}) || got[1] != (Result{DocID: "d3", Score: 0.25}) {
		t.Errorf("run %v; want d (score 1), d3 (0.25)", got)
	}
	q, _, err := ParseQrels(strings.NewReader("q1 0 d\u00a0x 1\nq1\v0\fd2 1\n"), "qrels")
	if err != nil || len(q["q1"]) != 2 || q["q1"]["d\u00a0x"] != 1 || q["q1"]["d2"] != 1 {
		t.Errorf("qrels %v, %v; want d\\u00a0x and d2 judged", q, err)
	}
}

// TestEvaluateReaderGzip: a gzip run on a pipe is refused, saying so
// (ParseRun would report its binary bytes as a malformed TREC line).
func TestEvaluateReaderGzip(t *testing.T) {
	ms, _ := ParseMeasures([]string{"map"})
	_, _, err := EvaluateReader(Qrels{"q1": {"d1": 1}}, strings.NewReader("\x1f\x8b\x08\x00rest"), "stdin", ms, TrecEvalOptions())
	if err == nil || !strings.HasPrefix(err.Error(), "stdin: gzip data") {
		t.Errorf("%v; want stdin: gzip data ...", err)
	}
	e, _, err := EvaluateReader(Qrels{"q1": {"d1": 1}}, strings.NewReader("q1 Q0 d1 1 1 tag\n"), "stdin", ms, TrecEvalOptions())
	if v, _ := e.Mean("map"); err != nil || v != 1 {
		t.Errorf("map %v, %v; want 1", v, err)
	}
}

// TestWriteTRECFirstID: the TREC writers refuse a first query id that would
// read back as something else: a leading '{' makes the file JSON to the
// readers, a leading byte order mark is dropped. Found by FuzzParseQrels
// (ranx qrels {"{": {"0": 0}} written as "{ 0 0 0", unreadable). Not first,
// such an id is written and reads back unchanged.
func TestWriteTRECFirstID(t *testing.T) {
	for _, qid := range []string{"{", "{q", "\xef\xbb\xbfq"} {
		var b strings.Builder
		if _, err := WriteQrelsTREC(&b, Qrels{qid: {"d": 1}}); err == nil || !strings.Contains(err.Error(), "cannot be written first") {
			t.Errorf("qrels %q: %v; want an error", qid, err)
		}
		if err := WriteRunTREC(&b, Run{qid: {{DocID: "d", Score: 1}}}, "t"); err == nil || !strings.Contains(err.Error(), "cannot be written first") {
			t.Errorf("run %q: %v; want an error", qid, err)
		}
	}
	var b strings.Builder
	q := Qrels{"a": {"d": 1}, "{q": {"d": 2}}
	if _, err := WriteQrelsTREC(&b, q); err != nil {
		t.Fatal(err)
	}
	back, _, err := ParseQrels(strings.NewReader(b.String()), "written")
	if err != nil || len(back) != 2 || back["{q"]["d"] != 2 {
		t.Errorf("%q read back as %v, %v", b.String(), back, err)
	}
	b.Reset()
	if err := WriteRunTREC(&b, Run{"": nil, "a": {{DocID: "d", Score: 1}}, "{q": {{DocID: "d", Score: 2}}}, "t"); err == nil {
		t.Errorf("empty query id written: %q", b.String())
	}
}

// TestRanxScoreNotANumber: a ranx score that is null, a list or an object
// is named as the file spells it (it was printed as Go's "<nil>" or "[").
func TestRanxScoreNotANumber(t *testing.T) {
	for text, want := range map[string]string{
		`{"q1": {"d1": null}}`:     `score is not a number: null`,
		`{"q1": {"d1": [1]}}`:      `score is not a number: a list […]`,
		`{"q1": {"d1": {"s": 1}}}`: `score is not a number: an object {…}`,
		`{"q1": {"d1": false}}`:    `score is not a number: false`,
	} {
		_, _, err := ParseRun(strings.NewReader(text), "run")
		if err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("%s: %v; want an error ending %q", text, err, want)
		}
	}
}
