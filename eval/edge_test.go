package eval

import (
	"bytes"
	"compress/gzip"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestUnanswerableIndependentOfLevel: a query is unanswerable iff no judged
// doc has a positive grade, whatever the relevance level (-l). Hand-computed:
//
//	qA judged d1=2, d2=1; ranked d2, d1
//	qB judged d3=1;       ranked d4 (unjudged), d3
//	qC judged nothing (unanswerable); ranked d5
//
// At -l 2: qA has R = 1 (d1), qB has R = 0 but a positive grade, so it is
// averaged (binary measures 0, as trec_eval scores a query with num_rel 0)
// and nDCG still gains from its grade 1:
//
//	P@1:     qA 0 (d2 has grade 1 < 2), qB 0                → mean 0
//	nDCG@2:  qA (1/log2 2 + 2/log2 3) / (2 + 1/log2 3)
//	         qB (1/log2 3) / 1                              → mean of the two
//
// At -l 1: P@1 is qA 1, qB 0 → 0.5; nDCG unchanged (the level does not apply).
// qC is listed as unanswerable and not averaged in both cases (it was the
// only one until the fix made qB averaged: "8 unanswerable queries" under
// -l 2 for queries whose relevant docs are all grade 1).
func TestUnanswerableIndependentOfLevel(t *testing.T) {
	qrels := Qrels{"qA": {"d1": 2, "d2": 1}, "qB": {"d3": 1}, "qC": {}}
	runText := "qA Q0 d2 1 3 r\nqA Q0 d1 2 2 r\nqB Q0 d4 1 2 r\nqB Q0 d3 2 1 r\nqC Q0 d5 1 1 r\n"
	run, _, err := ParseRun(strings.NewReader(runText), "run")
	if err != nil {
		t.Fatal(err)
	}
	path := writeRun(t, "run.trec", runText)
	ms, err := ParseMeasures([]string{"P.1", "ndcg_cut.2"})
	if err != nil {
		t.Fatal(err)
	}
	l2 := math.Log2
	ndcgA := (1/l2(2) + 2/l2(3)) / (2 + 1/l2(3))
	ndcgB := (1 / l2(3)) / 1
	for _, tc := range []struct {
		level      int
		p1         float64
		belowLevel []string
	}{
		{level: 2, p1: 0, belowLevel: []string{"qB"}},
		{level: 1, p1: 0.5},
	} {
		opts := DefaultOptions()
		opts.RelevanceLevel = tc.level
		mem, err := Evaluate(qrels, run, ms, opts)
		if err != nil {
			t.Fatal(err)
		}
		streamed, _, err := EvaluateRunFile(qrels, path, ms, opts)
		if err != nil {
			t.Fatal(err)
		}
		for name, e := range map[string]*Evaluation{"Evaluate": mem, "EvaluateRunFile": streamed} {
			if e.NumQ != 2 || !slices.Equal(e.Unanswerable, []string{"qC"}) || !slices.Equal(e.BelowLevel, tc.belowLevel) {
				t.Errorf("%s -l %d: num_q %d, unanswerable %q, below level %q; want 2, [qC], %q", name, tc.level, e.NumQ, e.Unanswerable, e.BelowLevel, tc.belowLevel)
			}
			if got, _ := e.Mean("P_1"); math.Abs(got-tc.p1) > 1e-12 {
				t.Errorf("%s -l %d: P_1 = %v, want %v", name, tc.level, got, tc.p1)
			}
			if got, _ := e.Mean("ndcg_cut_2"); math.Abs(got-(ndcgA+ndcgB)/2) > 1e-12 {
				t.Errorf("%s -l %d: ndcg_cut_2 = %v, want %v", name, tc.level, got, (ndcgA+ndcgB)/2)
			}
			notes := strings.Join(e.Warnings(), "\n")
			if want := `1 query with relevant docs only below grade 2 (relevance level): averaged, binary measures score it 0 as trec_eval does, e.g. "qB"`; (tc.level == 2) != strings.Contains(notes, want) {
				t.Errorf("%s -l %d: notes %q (want the below-level note only at -l 2)", name, tc.level, notes)
			}
			if !strings.Contains(notes, "1 unanswerable query (no relevant doc) not averaged") {
				t.Errorf("%s -l %d: notes %q lack the unanswerable note", name, tc.level, notes)
			}
		}
	}
}

// TestParseMeasuresTrecCutoffs: trec_eval v10.0 reads cutoffs with atol
// (meas_init.c get_long_cutoffs), keeping the leading integer: "23.4" → 23.
// ParseMeasuresTrec does the same for plain decimals and reports each
// truncation; ParseMeasures refuses them; text atol would read partly is
// refused by both.
func TestParseMeasuresTrecCutoffs(t *testing.T) {
	ms, warns, err := ParseMeasuresTrec([]string{"ndcg_cut.10,20,23.4", "P.7.", "map"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ms {
		names = append(names, m.Name)
	}
	if want := []string{"ndcg_cut_10", "ndcg_cut_20", "ndcg_cut_23", "P_7", "map"}; !slices.Equal(names, want) {
		t.Errorf("measures %q, want %q", names, want)
	}
	if len(ms) > 2 && ms[2].K != 23 {
		t.Errorf("ndcg_cut_23 has K %d", ms[2].K)
	}
	wantWarns := []string{
		`measure "ndcg_cut.10,20,23.4": cutoff "23.4" truncated to 23, as trec_eval reads it (C atol keeps the leading integer); output name ndcg_cut_23`,
		`measure "P.7.": cutoff "7." truncated to 7, as trec_eval reads it (C atol keeps the leading integer); output name P_7`,
	}
	if !slices.Equal(warns, wantWarns) {
		t.Errorf("warnings %q, want %q", warns, wantWarns)
	}
	if _, w, err := ParseMeasuresTrec([]string{"P.5,10"}); err != nil || len(w) != 0 {
		t.Errorf("integer cutoffs: warnings %q, err %v; want none", w, err)
	}
	if _, err := ParseMeasures([]string{"ndcg_cut.23.4"}); err == nil {
		t.Error("ParseMeasures accepted a fractional cutoff")
	}
	for _, bad := range []string{"ndcg_cut.10abc", "P.1e2", "P.0.9", "P.-3.5", "P..5", "recall.5,"} {
		if _, _, err := ParseMeasuresTrec([]string{bad}); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

// TestQrelsFormatMistakes: common wrong inputs get an error saying what the
// input looks like, or are read when their meaning is unambiguous.
func TestQrelsFormatMistakes(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := dir + "/" + name
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	errCases := []struct{ name, content, want string }{
		{"nohdr.tsv", "1\t31715818\t1\n",
			`nohdr.tsv:1: line: TREC qrels line needs 4 fields (qid iter docid grade), got 3 (this looks like a BEIR qrels TSV without its header line: add "query-id\tcorpus-id\tscore" as the first line)`},
		{"queries.jsonl", `{"_id": "0", "text": "a claim", "metadata": {}}` + "\n",
			`queries.jsonl:1: gold: missing: this looks like a BEIR queries or corpus file ("_id", "text"), which holds no judgements; give the qrels (BEIR qrels/test.tsv) or a labelled-query JSONL with "gold"`},
		// encoding/json leaked Go internals here ("json: cannot unmarshal
		// number into Go struct field jsonlQuery.kind of type string").
		{"kind.jsonl", `{"id": "q1", "gold": ["d1"], "kind": 3}` + "\n", `kind.jsonl:1: kind: must be a string, got 3`},
		{"gold.jsonl", `{"id": "q1", "gold": ["d1", 7]}` + "\n", `gold.jsonl:1: gold: item 2 must be a doc id string, got 7`},
		// kind and slice both given: kind used to win silently.
		{"both.jsonl", `{"id": "q1", "gold": ["d1"], "kind": "a", "slice": "b"}` + "\n",
			`both.jsonl:1: slice: "kind" and "slice" both given and different ("a" vs "b"): give one`},
		// encoding/json matched "Gold" and "Id" to the fields gold and id.
		{"case.jsonl", `{"id": "q1", "Gold": ["d1"]}` + "\n",
			`case.jsonl:1: Gold: unknown key: keys are case-sensitive, did you mean "gold"?`},
		{"case2.jsonl", `{"Id": "q1", "gold": ["d1"]}` + "\n",
			`case2.jsonl:1: Id: unknown key: keys are case-sensitive, did you mean "id"?`},
		{"floatid.jsonl", `{"id": 1.5, "gold": ["d1"]}` + "\n", `floatid.jsonl:1: id: must be a non-empty string or an integer, got 1.5`},
		{"ranxbad.json", `{"q1": {"d1": 1, "d2": "x"}}`, `ranxbad.json:1: grade: query "q1" doc "d2": grade must be an integer, got x`},
		{"ranxrun.json", `{"q1": {"d1": 0.9}}`, `ranxrun.json:1: grade: query "q1" doc "d1": grade must be an integer, got 0.9 (scores like this are a ranx run's: give QRELS first, then RUN)`},
	}
	for _, c := range errCases {
		_, _, err := ReadQrels(write(c.name, []byte(c.content)))
		if got := ""; err != nil {
			got = strings.ReplaceAll(err.Error(), dir+"/", "")
			if got != c.want {
				t.Errorf("%s:\n got  %s\n want %s", c.name, got, c.want)
			}
		} else {
			t.Errorf("%s: no error, want %s", c.name, c.want)
		}
	}

	// Accepted: equal kind and slice; other keys; a 20-digit integer id kept as
	// written; ranx qrels (one object, pretty-printed over lines, an empty
	// object = unanswerable); gzip content without ".gz".
	// Other keys are allowed (bench run's slice_field may name one).
	q, meta, err := ReadQrels(write("ok.jsonl", []byte(`{"id": 12345678901234567890, "gold": {"d1": 2}, "kind": "x", "slice": "x", "topic": "t"}`+"\n")))
	if err != nil || q["12345678901234567890"]["d1"] != 2 || meta["12345678901234567890"].Slice != "x" {
		t.Errorf("20-digit id: %v %v %v", q, meta, err)
	}
	q, _, err = ReadQrels(write("ranx.json", []byte("{\n  \"q1\": {\"d1\": 1, \"d2\": 0},\n  \"q2\": {}\n}\n")))
	if want := (Qrels{"q1": {"d1": 1, "d2": 0}, "q2": {}}); err != nil || !reflect.DeepEqual(q, want) {
		t.Errorf("ranx qrels: %v, %v; want %v", q, err, want)
	}
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write([]byte("q1 0 d1 1\n"))
	zw.Close()
	q, _, err = ReadQrels(write("qrels.trec", zb.Bytes()))
	if want := (Qrels{"q1": {"d1": 1}}); err != nil || !reflect.DeepEqual(q, want) {
		t.Errorf("gzip without .gz: %v, %v; want %v", q, err, want)
	}
	run, err := ReadRun(write("run.trec", zb.Bytes()[:0])) // empty: not gzip
	if err == nil {
		t.Errorf("empty run read: %v", run)
	}
}

// TestRunTagAndFinalNewline: a run whose last line lost its end ("5.9
// doc__b" for "5.9 doc__bm25", no final newline) was read silently. Lines 1
// to 4 carry tag "bm25", line 5 "bm" and no newline follows it: one line
// with another tag (line 5, "bm") and no final newline (last line 5), the
// same whether the run is read whole (ReadRunInfo), streamed in chunks
// smaller than a line, or read into memory because its queries are not
// contiguous.
func TestRunTagAndFinalNewline(t *testing.T) {
	qrels := Qrels{"q1": {"d1": 1}, "q2": {"d2": 1}}
	want := []string{
		`1 run line with another tag than the first line's "bm25", e.g. line 5: "bm" (a line cut short, or runs concatenated?)`,
		"the run file does not end in a newline: its last line (5) may be cut short",
	}
	ms, _ := ParseMeasures([]string{"map"})
	for _, text := range []string{
		"q1 Q0 d1 1 2 bm25\nq1 Q0 d3 2 1 bm25\n\nq2 Q0 d2 1 2 bm25\nq2 Q0 d4 2 1.5 bm",
		"q1 Q0 d1 1 2 bm25\nq2 Q0 d2 1 2 bm25\n\nq1 Q0 d3 2 1 bm25\nq2 Q0 d4 2 1.5 bm", // not contiguous
	} {
		_, info, err := ParseRun(strings.NewReader(text), "run")
		if err != nil || !slices.Equal(info.Warnings(), want) {
			t.Errorf("ParseRun: %q, %v; want %q", info.Warnings(), err, want)
		}
		path := writeRun(t, "run.trec", text)
		for _, size := range []int{4 << 20, 8} {
			old := chunkSize
			chunkSize = size
			e, _, err := EvaluateRunFile(qrels, path, ms, DefaultOptions())
			chunkSize = old
			if err != nil {
				t.Fatal(err)
			}
			if got := e.Warnings(); len(got) < 2 || !slices.Equal(got[:2], want) {
				t.Errorf("chunk size %d: warnings %q; want them to start with %q", size, got, want)
			}
		}
	}
	// A clean run: no note.
	if _, info, _ := ParseRun(strings.NewReader("q1 Q0 d1 1 2 bm25\r\nq1 Q0 d3 2 1 bm25\r\n"), "run"); info.Warnings() != nil {
		t.Errorf("clean run: %q", info.Warnings())
	}
}

// TestRunOnlyBOM: a run holding only a UTF-8 BOM (three bytes, no line)
// is an empty run, not a panic (the streaming reader indexed the last byte
// of a buffer the BOM trim had emptied).
func TestRunOnlyBOM(t *testing.T) {
	path := writeRun(t, "bom.trec", "\xef\xbb\xbf")
	ms, _ := ParseMeasures([]string{"map"})
	_, _, err := EvaluateRunFile(Qrels{"q1": {"d1": 1}}, path, ms, DefaultOptions())
	if err == nil || !strings.HasSuffix(err.Error(), "bom.trec: no results found (empty run file)") {
		t.Errorf("error %v, want no results found", err)
	}
}
