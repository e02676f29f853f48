package eval

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBadInput checks that each kind of bad input gives a *SyntaxError whose
// message names file, line and field, and never panics.
func TestBadInput(t *testing.T) {
	cases := []struct {
		name    string
		file    string // base name: decides the reader by its content
		content string
		run     bool
		want    string // the full error message
	}{
		{"run: too few columns", "run.trec", "q1 Q0 d1 1 0.5 tag\nq1 Q0 d2 2 0.4\n", true,
			"run.trec:2: line: TREC run line needs 6 fields (qid Q0 docid rank score tag), got 5"},
		{"run: non-numeric score", "run.trec", "q1 Q0 d1 1 high tag\n", true,
			`run.trec:1: score: not a number: "high"`},
		{"run: NaN score", "run.trec", "q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 NaN t\n", true,
			`run.trec:2: score: not finite: "NaN"`},
		{"run: infinite score", "run.trec", "q1 Q0 d1 1 +Inf t\n", true,
			`run.trec:1: score: not finite: "+Inf"`},
		{"run: overflowing score", "run.trec", "q1 Q0 d1 1 1e999 t\n", true,
			`run.trec:1: score: not a number: "1e999"`},
		{"run: duplicate doc", "run.trec", "q1 Q0 d1 1 0.5 t\nq2 Q0 d1 1 0.5 t\nq1 Q0 d1 2 0.4 t\n", true,
			`run.trec:3: doc id: query "q1" retrieves doc "d1" twice (trec_eval rejects duplicate docs)`},
		{"run: empty file", "run.trec", "", true,
			"run.trec: no results found (empty run file)"},
		{"run: blank lines only", "run.trec", "\n\r\n  \n", true,
			"run.trec: no results found (empty run file)"},
		{"run json: NaN-like string score", "run.json", "{\"q1\": {\"d1\": \"0.5\"}}", true,
			`run.json:1: score: query "q1" doc "d1": score is a string, not a number: "0.5"`},
		{"run json: duplicate doc", "run.json", "{\"q1\": {\n\"d1\": 1,\n\"d1\": 2}}", true,
			`run.json:3: doc id: query "q1" retrieves doc "d1" twice`},
		{"run json: malformed", "run.json", "{\"q1\": [1, 2]}", true,
			`run.json:1: query id: query "q1": value must be an object {"doc id": score}`},
		{"qrels: too few columns", "qrels.txt", "q1 0 d1 1\nq1 0 d2\n", false,
			"qrels.txt:2: line: TREC qrels line needs 4 fields (qid iter docid grade), got 3"},
		{"qrels: non-integer grade", "qrels.txt", "q1 0 d1 1\nq1 0 d2 0.5\n", false,
			`qrels.txt:2: grade: not an integer: "0.5"`},
		{"qrels: duplicate judgement", "qrels.txt", "q1 0 d1 1\nq1 0 d1 0\n", false,
			`qrels.txt:2: doc id: query "q1" judges doc "d1" twice`},
		{"qrels: empty file", "qrels.txt", "", false,
			"qrels.txt: no judgements found (empty qrels file)"},
		{"beir qrels: bad header", "qrels.tsv", "query-id\tdoc-id\tscore\nq1\td1\t1\n", false,
			`qrels.tsv:1: header: BEIR qrels header must be "query-id\tcorpus-id\tscore", got "query-id\tdoc-id\tscore"`},
		{"beir qrels: non-numeric score", "qrels.tsv", "query-id\tcorpus-id\tscore\nq1\td1\tyes\n", false,
			`qrels.tsv:2: score: not an integer: "yes"`},
		{"beir qrels: missing column", "qrels.tsv", "query-id\tcorpus-id\tscore\nq1\td1\n", false,
			"qrels.tsv:2: line: BEIR qrels line needs 3 tab-separated fields (query-id, corpus-id, score), got 2"},
		{"jsonl: malformed json", "q.jsonl", "{\"id\":\"a\",\"gold\":[\"d1\"]}\n{\"id\":\"b\",\"gold\":[\"d1\"\n", false,
			"q.jsonl:2: json: invalid JSON: unexpected end of line"},
		{"jsonl: missing id", "q.jsonl", "{\"question\":\"x\",\"gold\":[\"d1\"]}\n", false,
			`q.jsonl:1: id: missing (need "id" or "qid")`},
		{"jsonl: missing gold", "q.jsonl", "{\"id\":\"a\",\"question\":\"x\"}\n", false,
			"q.jsonl:1: gold: missing (use [] or {} for an unanswerable query)"},
		{"jsonl: fractional grade", "q.jsonl", "{\"qid\":\"a\",\"gold\":{\"c1\":1.5}}\n", false,
			`q.jsonl:1: gold: grade of doc "c1" must be an integer, got 1.5`},
		{"jsonl: duplicate query", "q.jsonl", "{\"id\":\"a\",\"gold\":[]}\n{\"id\":\"a\",\"gold\":[\"d\"]}\n", false,
			`q.jsonl:2: id: query "a" given twice`},
		// encoding/json keeps the last of two equal keys and ignores what
		// follows the first value: each of these used to change the qrels
		// silently (d1 graded 0, q2 dropped, gold emptied, q9 ignored).
		{"jsonl: doc graded twice", "q.jsonl", "{\"qid\":\"a\",\"gold\":{\"d1\":2,\"d1\":0}}\n", false,
			`q.jsonl:1: gold: doc "d1" graded twice`},
		{"jsonl: two objects on a line", "q.jsonl", "{\"id\":\"a\",\"gold\":[\"d1\"]}{\"id\":\"b\",\"gold\":[\"d2\"]}\n", false,
			"q.jsonl:1: json: unexpected data after the object (one query per line)"},
		{"jsonl: key twice", "q.jsonl", "{\"id\":\"a\",\"gold\":[\"d1\"],\"gold\":[]}\n", false,
			`q.jsonl:1: gold: key given twice in one object`},
		{"jsonl: id and qid differ", "q.jsonl", "{\"id\":\"a\",\"qid\":\"b\",\"gold\":[\"d1\"]}\n", false,
			`q.jsonl:1: qid: "id" and "qid" both given and different (a vs b)`},
		// QRELS and RUN swapped: a hint, as the fields alone do not say it.
		{"run given as qrels", "qrels.txt", "q1 Q0 d1 1 0.5 tag\n", false,
			"qrels.txt:1: line: TREC qrels line needs 4 fields (qid iter docid grade), got 6 (this looks like a run line: give QRELS first, then RUN)"},
		{"qrels given as run", "run.trec", "q1 0 d1 1\n", true,
			"run.trec:1: line: TREC run line needs 6 fields (qid Q0 docid rank score tag), got 4 (this looks like a qrels line: give QRELS first, then RUN)"},
		{"BEIR qrels given as run", "run.trec", "query-id\tcorpus-id\tscore\nq1\td1\t1\n", true,
			"run.trec:1: line: TREC run line needs 6 fields (qid Q0 docid rank score tag), got 3 (this looks like a qrels line: give QRELS first, then RUN)"},
	}
	dir := t.TempDir()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.file)
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			var err error
			if tc.run {
				_, err = ReadRun(path)
			} else {
				_, _, err = ReadQrels(path)
			}
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %T %v is not a *SyntaxError", err, err)
			}
			if got := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), ""); got != tc.want {
				t.Errorf("error\n got  %s\n want %s", got, tc.want)
			}
		})
	}
}

// TestBOMAndCRLF checks that a UTF-8 BOM and CRLF line ends are accepted and
// give the same data as the plain file, for every reader.
func TestBOMAndCRLF(t *testing.T) {
	files := map[string]string{
		"qrels.txt": "q1 0 d1 2\nq1 0 d2 0\nq2 0 d3 1\n",
		"qrels.tsv": "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t0\nq2\td3\t1\n",
		"q.jsonl":   "{\"qid\":\"q1\",\"text\":\"x\",\"gold\":{\"d1\":2,\"d2\":0}}\n{\"qid\":\"q2\",\"text\":\"y\",\"gold\":{\"d3\":1}}\n",
		"run.trec":  "q1 Q0 d1 1 0.9 t\nq1 Q0 d2 2 0.5 t\nq2 Q0 d3 1 0.7 t\n",
		"run.json":  "{\"q1\": {\"d1\": 0.9, \"d2\": 0.5},\n \"q2\": {\"d3\": 0.7}}\n",
	}
	wantQrels := Qrels{"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}}
	wantRun := Run{"q1": {{"d1", 0.9}, {"d2", 0.5}}, "q2": {{"d3", 0.7}}}
	dir := t.TempDir()
	for name, content := range files {
		for _, variant := range []string{"plain", "bom", "crlf", "bom+crlf", "gzip"} {
			c := content
			if strings.Contains(variant, "crlf") {
				c = strings.ReplaceAll(c, "\n", "\r\n")
			}
			if strings.HasPrefix(variant, "bom") {
				c = "\ufeff" + c
			}
			path := filepath.Join(dir, variant+"-"+name)
			data := []byte(c)
			if variant == "gzip" {
				path += ".gz"
				var b bytes.Buffer
				zw := gzip.NewWriter(&b)
				zw.Write(data)
				zw.Close()
				data = b.Bytes()
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(name, "run") {
				got, err := ReadRun(path)
				if err != nil {
					t.Errorf("%s %s: %v", variant, name, err)
					continue
				}
				if d := cmp.Diff(wantRun, got); d != "" {
					t.Errorf("%s %s: run (-want +got):\n%s", variant, name, d)
				}
				continue
			}
			got, _, err := ReadQrels(path)
			if err != nil {
				t.Errorf("%s %s: %v", variant, name, err)
				continue
			}
			if d := cmp.Diff(wantQrels, got); d != "" {
				t.Errorf("%s %s: qrels (-want +got):\n%s", variant, name, d)
			}
		}
	}
}

// TestRunQueryNotInQrels checks the counted, reported policy for a run query
// that has no judgements: ignored (as trec_eval), counted and named.
func TestRunQueryNotInQrels(t *testing.T) {
	qrels := Qrels{"q1": {"d1": 1}}
	run := Run{"q1": {{"d1", 1}}, "stray": {{"d1", 1}}, "other": {{"d2", 1}}}
	ms, _ := ParseMeasures([]string{"P.1"})
	e, err := Evaluate(qrels, run, ms, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"other", "stray"}, e.NotInQrels); d != "" {
		t.Errorf("NotInQrels (-want +got):\n%s", d)
	}
	if e.NumQ != 1 || e.Means[0] != 1 {
		t.Errorf("num_q %d P_1 %v, want 1 and 1", e.NumQ, e.Means[0])
	}
	w := e.Warnings()
	if len(w) != 1 || w[0] != `2 run queries not in the qrels (ignored), e.g. "other"` {
		t.Errorf("warnings = %q", w)
	}
	// No overlap at all is an error, not a row of zeros.
	if _, err := Evaluate(qrels, Run{"x": {{"d", 1}}}, ms, TrecEvalOptions()); err == nil {
		t.Error("no error for a run sharing no query with the qrels")
	}
}

func TestParseMeasures(t *testing.T) {
	cases := []struct {
		in   []string
		want []string
	}{
		{[]string{"map", "P.10,5", "ndcg_cut.10"}, []string{"map", "P_5", "P_10", "ndcg_cut_10"}},
		{[]string{"ndcg@10", "hit_rate@5", "mrr@10", "recall@100", "map@100", "precision@5"},
			[]string{"ndcg_cut_10", "success_5", "recip_rank_cut_10", "recall_100", "map_cut_100", "P_5"}},
		{[]string{"success.1,5,10", "recip_rank", "recall.100"}, []string{"success_1", "success_5", "success_10", "recip_rank", "recall_100"}},
		{[]string{"ndcg@10", "ndcg_cut.10"}, []string{"ndcg_cut_10"}},
		{[]string{"iprec_at_recall..5,0"}, []string{"iprec_at_recall_0.00", "iprec_at_recall_0.50"}},
		{[]string{"official"}, []string{"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
			"iprec_at_recall_0.00", "iprec_at_recall_0.10", "iprec_at_recall_0.20", "iprec_at_recall_0.30", "iprec_at_recall_0.40",
			"iprec_at_recall_0.50", "iprec_at_recall_0.60", "iprec_at_recall_0.70", "iprec_at_recall_0.80", "iprec_at_recall_0.90",
			"iprec_at_recall_1.00", "P_5", "P_10", "P_15", "P_20", "P_30", "P_100", "P_200", "P_500", "P_1000"}},
		{[]string{"relstring", "relstring.20"}, []string{"relstring_20"}},
	}
	for _, tc := range cases {
		ms, err := ParseMeasures(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		var got []string
		for _, m := range ms {
			got = append(got, m.Name)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%q (-want +got):\n%s", tc.in, d)
		}
	}
	for _, bad := range []string{"ndcg@0", "P.5,x", "ndcg_cut.23.4", "nope", "hits@10", "map.5", "utility.1,2", "iprec_at_recall.1.5", "mrr@"} {
		if _, err := ParseMeasures([]string{bad}); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestWriteReadRoundTrip writes a run and qrels atomically (plain and gzip)
// and reads them back.
func TestWriteReadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	run := Run{"q1": {{"b", 0.5}, {"a", 0.5}, {"c", 1.25}}, "q2": {{"x", -3}}}
	qrels := Qrels{"q1": {"a": 1, "c": 0}, "q2": {"x": 2}, "empty": {}}
	for _, ext := range []string{".trec", ".trec.gz"} {
		rp := filepath.Join(dir, "run"+ext)
		if err := WriteRunFile(rp, run, "tag"); err != nil {
			t.Fatal(err)
		}
		got, info, err := ReadRunInfo(rp)
		if err != nil {
			t.Fatal(err)
		}
		// Written in trec_eval order: c (1.25), then the tie b, a.
		want := Run{"q1": {{"c", 1.25}, {"b", 0.5}, {"a", 0.5}}, "q2": {{"x", -3}}}
		if d := cmp.Diff(want, got); d != "" || info.Tag != "tag" {
			t.Errorf("%s: tag %q, run (-want +got):\n%s", ext, info.Tag, d)
		}
		qp := filepath.Join(dir, "qrels"+ext)
		skipped, err := WriteQrelsFile(qp, qrels)
		if err != nil || skipped != 1 {
			t.Fatalf("skipped %d, err %v", skipped, err)
		}
		gq, _, err := ReadQrels(qp)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(Qrels{"q1": {"a": 1, "c": 0}, "q2": {"x": 2}}, gq); d != "" {
			t.Errorf("qrels (-want +got):\n%s", d)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		// renameio names its temporary files "." + base + digits.
		if strings.Contains(e.Name(), ".tmp") || strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// splitFieldsSimple is the obvious byte-by-byte definition of splitFields.
func splitFieldsSimple(line []byte, dst [][]byte) int {
	// C's isspace in the "C" locale, as trec_eval splits its lines.
	f := strings.FieldsFunc(string(line), func(r rune) bool { return r == ' ' || r == '\t' || r == '\v' || r == '\f' || r == '\r' })
	for i := 0; i < len(f) && i < len(dst); i++ {
		dst[i] = []byte(f[i])
	}
	return min(len(f), len(dst)+1)
}

func TestSplitFields(t *testing.T) {
	alphabet := []byte("ab \t\x09\x20\xa0\x89c1.\v\f\r\x85")
	var a [6]span
	var b [6][]byte
	state := uint64(1)
	for it := 0; it < 200000; it++ {
		state = state*6364136223846793005 + 1442695040888963407
		line := make([]byte, int(state>>59)+int(state>>40)%20)
		for i := range line {
			state = state*6364136223846793005 + 1442695040888963407
			line[i] = alphabet[(state>>33)%uint64(len(alphabet))]
		}
		na, nb := splitFields(line, a[:]), splitFieldsSimple(line, b[:])
		if na != nb {
			t.Fatalf("%q: %d fields, want %d", line, na, nb)
		}
		for i := 0; i < min(na, 6); i++ {
			if got := line[a[i].start:a[i].end]; !bytes.Equal(got, b[i]) {
				t.Fatalf("%q: field %d = %q, want %q", line, i, got, b[i])
			}
		}
	}
}

// TestParseScore checks the fast path against strconv.ParseFloat, bit for
// bit, on random decimals and on the forms it hands over to strconv.
func TestParseScore(t *testing.T) {
	cases := []string{"0", "-0", "+1.5", "29.997069", "0.000000000000000000001", "123456789012345", "1234567890123456",
		"0.1", "0.3", "1e5", "-2.5E-3", ".5", "5.", "1.2.3", "", "-", ".", "NaN", "inf", "-Infinity", "0x1p3", "99999999999999999999", "9007199254740993"}
	state := uint64(7)
	for i := 0; i < 200000; i++ {
		state = state*6364136223846793005 + 1442695040888963407
		digits := 1 + int(state>>60)
		frac := int(state>>50) % 24
		var sb strings.Builder
		if state&1 == 1 {
			sb.WriteByte('-')
		}
		for d := 0; d < digits; d++ {
			state = state*6364136223846793005 + 1442695040888963407
			sb.WriteByte(byte('0' + (state>>33)%10))
			if d == digits-1-min(frac, digits-1) && frac > 0 && d < digits-1 {
				sb.WriteByte('.')
			}
		}
		cases = append(cases, sb.String())
	}
	for _, c := range cases {
		want, werr := strconv.ParseFloat(c, 64)
		got, gerr := parseScore([]byte(c))
		if (werr == nil) != (gerr == nil) || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("parseScore(%q) = %v, %v; strconv gives %v, %v", c, got, gerr, want, werr)
		}
	}
	// strconv reads Go literal underscores ("0_2" = 2, "1_000" = 1000);
	// trec_eval's atof stops at '_' ("0_2" = 0). Neither reading is safe:
	// refused.
	for _, c := range []string{"0_2", "1_000", "0x1_0p0", "1_0.5"} {
		if got, err := parseScore([]byte(c)); err == nil {
			t.Errorf("parseScore(%q) = %v, want an error", c, got)
		}
	}
}

// TestTruncatedGzip checks that a gzip file cut short (a partial copy, a
// download interrupted) is an error naming the file, never a shorter run or
// qrels read silently. The cut points are chosen by hand: one inside the
// deflate data (mid line), one that drops only the 8-byte CRC/size trailer
// (every line intact, so only the gzip layer can notice).
func TestTruncatedGzip(t *testing.T) {
	var run, qrels bytes.Buffer
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&run, "q%d Q0 d%d %d %d t\n", i/50, i, i%50+1, 1000-i%50)
		fmt.Fprintf(&qrels, "q%d 0 d%d 1\n", i/50, i)
	}
	gz := func(b []byte) []byte {
		var out bytes.Buffer
		zw := gzip.NewWriter(&out)
		zw.Write(b)
		zw.Close()
		return out.Bytes()
	}
	zrun, zqrels := gz(run.Bytes()), gz(qrels.Bytes())
	dir := t.TempDir()
	q := Qrels{"q0": {"d0": 1}}
	for _, cut := range []struct {
		name string
		drop func(n int) int
	}{{"mid-stream", func(n int) int { return n / 2 }}, {"no trailer", func(n int) int { return n - 8 }}} {
		rp := filepath.Join(dir, "run-"+strings.ReplaceAll(cut.name, " ", "-")+".trec.gz")
		qp := filepath.Join(dir, "qrels-"+strings.ReplaceAll(cut.name, " ", "-")+".txt.gz")
		os.WriteFile(rp, zrun[:cut.drop(len(zrun))], 0o644)
		os.WriteFile(qp, zqrels[:cut.drop(len(zqrels))], 0o644)
		want := "corrupt gzip"
		if _, err := ReadRun(rp); err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), rp) {
			t.Errorf("%s: ReadRun error = %v, want %q naming the file", cut.name, err, want)
		}
		if _, _, err := EvaluateRunFile(q, rp, []Measure{mustMeasure(t, "map")}, DefaultOptions()); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: EvaluateRunFile error = %v, want %q", cut.name, err, want)
		}
		if _, _, err := ReadQrels(qp); err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), qp) {
			t.Errorf("%s: ReadQrels error = %v, want %q naming the file", cut.name, err, want)
		}
	}
}

func mustMeasure(t *testing.T, name string) Measure {
	t.Helper()
	ms, err := ParseMeasures([]string{name})
	if err != nil || len(ms) != 1 {
		t.Fatalf("ParseMeasures(%q) = %v, %v", name, ms, err)
	}
	return ms[0]
}

// TestJSONAfterBlankLines checks that the JSON formats are recognised after
// more leading blank lines than a fixed-size peek would hold (100 here);
// they used to be read as TREC text and fail on line 101.
func TestJSONAfterBlankLines(t *testing.T) {
	dir := t.TempDir()
	blank := strings.Repeat("\n", 100)
	rp := filepath.Join(dir, "run.json")
	qp := filepath.Join(dir, "q.jsonl")
	os.WriteFile(rp, []byte(blank+`{"q1": {"d1": 1, "d2": 0.5}}`), 0o644)
	os.WriteFile(qp, []byte(blank+`{"id": "q1", "gold": ["d2"]}`+"\n"), 0o644)
	q, _, err := ReadQrels(qp)
	if err != nil {
		t.Fatalf("ReadQrels: %v", err)
	}
	if _, err := ReadRun(rp); err != nil {
		t.Fatalf("ReadRun: %v", err)
	}
	// d2 at rank 2: RR = 1/2.
	e, _, err := EvaluateRunFile(q, rp, []Measure{mustMeasure(t, "recip_rank")}, DefaultOptions())
	if err != nil || e.Means[0] != 0.5 {
		t.Fatalf("EvaluateRunFile: %v, %v; want recip_rank 0.5", e, err)
	}
}

// TestDirectoryGiven: a directory given as a file is named as such, with
// no line number (it used to be "dir:1: read dir: is a directory").
func TestDirectoryGiven(t *testing.T) {
	dir := t.TempDir()
	want := dir + ": is a directory, want a file"
	if _, err := ReadRun(dir); err == nil || err.Error() != want {
		t.Errorf("ReadRun: %v, want %s", err, want)
	}
	if _, _, err := ReadQrels(dir); err == nil || err.Error() != want {
		t.Errorf("ReadQrels: %v, want %s", err, want)
	}
	if _, _, err := EvaluateRunFile(Qrels{"q": {"d": 1}}, dir, []Measure{mustMeasure(t, "map")}, DefaultOptions()); err == nil || err.Error() != want {
		t.Errorf("EvaluateRunFile: %v, want %s", err, want)
	}
}
