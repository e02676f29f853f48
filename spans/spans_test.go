package spans

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/testenv"
)

func iv(s, e int) Interval { return Interval{Doc: "d", Start: s, End: e} }

// TestToken, worked by hand: G = [10,20), [30,40); C = [0,15), [12,35),
// [50,60). Ci ∩ Gj: [10,15), [12,20), [30,35); merged I = [10,20) ∪
// [30,35), |I| = 15; Σ|G| = 20; Σ|C| = 15 + 23 + 10 = 48. Recall 15/20,
// precision 15/48, IoU 15/(20 + 48 − 15) = 15/53.
func TestToken(t *testing.T) {
	got := Token([]Interval{iv(10, 20), iv(30, 40)}, []Interval{iv(0, 15), iv(12, 35), iv(50, 60)})
	want := TokenScores{Recall: 0.75, Precision: 15.0 / 48, IoU: 15.0 / 53}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-15)); d != "" {
		t.Error(d)
	}
	// Overlapping chunks count their shared text twice in Σ|Ci|: C = [0,10)
	// twice, G = [0,10): |I| = 10, Σ|C| = 20, precision 1/2, IoU 10/20.
	got = Token([]Interval{iv(0, 10)}, []Interval{iv(0, 10), iv(0, 10)})
	if got != (TokenScores{Recall: 1, Precision: 0.5, IoU: 0.5}) {
		t.Errorf("duplicate chunks: %+v", got)
	}
	// Another document's chunk counts in Σ|C| only.
	got = Token([]Interval{iv(0, 10)}, []Interval{{Doc: "e", Start: 0, End: 10}})
	if got != (TokenScores{}) {
		t.Errorf("other doc: %+v", got)
	}
	if got := Token(nil, nil); got != (TokenScores{}) {
		t.Errorf("empty: %+v", got)
	}
}

// TestPrecisionOmega, by hand: chunks of 10 over [0,50), G = [15,32): the
// chunks meeting G are [10,20), [20,30), [30,40); I = 5 + 10 + 2 = 17; the
// union of those chunks and G is [10,40), 30: Ω = 17/30. Chroma counts a
// chunk that only meets a span ([10,20) for G = [20,25)) as holding it: Ω
// = 5 / |[10,30)| = 0.25.
func TestPrecisionOmega(t *testing.T) {
	all := []Interval{iv(0, 10), iv(10, 20), iv(20, 30), iv(30, 40), iv(40, 50)}
	if got := PrecisionOmega([]Interval{iv(15, 32)}, all); math.Abs(got-17.0/30) > 1e-15 {
		t.Errorf("Ω = %v, want 17/30", got)
	}
	if got := PrecisionOmega([]Interval{iv(20, 25)}, all); got != 0.25 {
		t.Errorf("Ω = %v, want 0.25", got)
	}
	if got := PrecisionOmega([]Interval{iv(60, 70)}, all); got != 0 {
		t.Errorf("Ω = %v, want 0", got)
	}
}

func TestCovers(t *testing.T) {
	g := iv(10, 20)
	for _, tc := range []struct {
		c     Interval
		share float64
		want  bool
	}{
		{iv(0, 15), 0.5, true},  // exactly half
		{iv(0, 14), 0.5, false}, // 4 of 10
		{iv(0, 11), 0.1, true},  // 1 of 10 at share 0.1
		{iv(0, 10), 0.1, false}, // touching only
		{iv(0, 100), 1, true},   // holds all of it
		{iv(11, 100), 1, false}, // misses one character
		{Interval{Doc: "e", Start: 0, End: 100}, 0.5, false},
	} {
		if got := Covers(tc.c, g, tc.share); got != tc.want {
			t.Errorf("Covers(%v, %v, %v) = %v", tc.c, g, tc.share, got)
		}
	}
}

// TestEvaluate, by hand. Chunks a=[0,10), b=[10,20), c=[20,30) of doc d.
// q1: G = [5,15) (grade 2) and [22,24); the run ranks c, a, b.
// At k=1: I = [22,24) = 2, Σ|G| = 12, Σ|C| = 10: recall 2/12, precision
// 2/10, IoU 2/20; c covers [22,24) (all of it): span recall 1/2, hit 1,
// mrr 1. At k=2: I = 2 + 5 = 7, Σ|C| = 20: recall 7/12, precision 7/20,
// IoU 7/25; a holds 5 of [5,15), half: covered, span recall 1.
// Ω: all three chunks meet G; I = 10 + 2 = 12; union [0,30) → 12/30.
// q2 has no gold span: unanswerable, not averaged. q3 is missing from the
// run: all zero but Ω: a = [0,10) holds G = [0,10), and b = [10,20) meets
// it at 10, which Chroma counts: Ω = 10 / |[0,20)| = 0.5.
func TestEvaluate(t *testing.T) {
	ch := &Chunking{IDs: []string{"a", "b", "c"}, Intervals: map[string]Interval{"a": iv(0, 10), "b": iv(10, 20), "c": iv(20, 30)}}
	qs := []Query{
		{ID: "q1", Gold: []Span{{Doc: "d", Start: 5, End: 15, Grade: 2}, {Doc: "d", Start: 22, End: 24, Grade: 1}}},
		{ID: "q2"},
		{ID: "q3", Gold: []Span{{Doc: "d", Start: 0, End: 10, Grade: 1}}},
	}
	run := eval.Run{"q1": {{DocID: "a", Score: 2}, {DocID: "c", Score: 3}, {DocID: "b", Score: 1}}, "q9": {{DocID: "a", Score: 1}}}
	e, err := Evaluate(qs, ch, run, Options{Ks: []int{1, 2}, CoverShare: DefaultCoverShare})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]float64{
		"q1": {"precision_omega": 12.0 / 30,
			"token_recall@1": 2.0 / 12, "token_precision@1": 0.2, "token_iou@1": 0.1,
			"token_recall@2": 7.0 / 12, "token_precision@2": 7.0 / 20, "token_iou@2": 7.0 / 25,
			"span_recall@1": 0.5, "span_hit_rate@1": 1, "span_mrr@1": 1,
			"span_recall@2": 1, "span_hit_rate@2": 1, "span_mrr@2": 1},
		"q3": {"precision_omega": 0.5,
			"token_recall@1": 0, "token_precision@1": 0, "token_iou@1": 0,
			"token_recall@2": 0, "token_precision@2": 0, "token_iou@2": 0,
			"span_recall@1": 0, "span_hit_rate@1": 0, "span_mrr@1": 0,
			"span_recall@2": 0, "span_hit_rate@2": 0, "span_mrr@2": 0},
	}
	if d := cmp.Diff(want, e.PerQuery(), cmpopts.EquateApprox(0, 1e-15)); d != "" {
		t.Errorf("per query (-want +got):\n%s", d)
	}
	if m, _ := e.Mean("token_recall@2"); math.Abs(m-7.0/24) > 1e-15 {
		t.Errorf("mean token_recall@2 = %v, want 7/24", m)
	}
	if !cmp.Equal(e.Unanswerable, []string{"q2"}) || !cmp.Equal(e.MissingFromRun, []string{"q3"}) {
		t.Errorf("unanswerable %v, missing %v", e.Unanswerable, e.MissingFromRun)
	}
	// span_mrr: rank 2 when only the second chunk covers.
	e, _ = Evaluate(qs[2:], ch, eval.Run{"q3": {{DocID: "b", Score: 2}, {DocID: "a", Score: 1}}}, Options{Ks: []int{1, 2}, CoverShare: 0.5})
	if m, _ := e.Mean("span_mrr@2"); m != 0.5 {
		t.Errorf("span_mrr@2 = %v, want 0.5", m)
	}
	for _, opt := range []Options{{Ks: []int{1}}, {Ks: []int{0}, CoverShare: 0.5}, {CoverShare: 0.5}, {Ks: []int{1}, CoverShare: 1.5}} {
		if _, err := Evaluate(qs, ch, run, opt); err == nil {
			t.Errorf("options %+v: no error", opt)
		}
	}
	if _, err := Evaluate(qs, ch, eval.Run{"q1": {{DocID: "d#7", Score: 1}}}, Options{Ks: []int{1}, CoverShare: 0.5}); err == nil || !strings.Contains(err.Error(), `"d#7"`) {
		t.Errorf("foreign chunk id: %v", err)
	}
}

// TestJudgements: at share 1/2, a covers [5,15) (5 of 10), b too (5 of 10),
// and c covers [22,24); a and b take grade 2. [40,60) lies outside every
// chunk: uncoverable.
func TestJudgements(t *testing.T) {
	ch := &Chunking{IDs: []string{"a", "b", "c"}, Intervals: map[string]Interval{"a": iv(0, 10), "b": iv(10, 20), "c": iv(20, 30)}}
	qs := []Query{
		{ID: "q1", Gold: []Span{{Doc: "d", Start: 5, End: 15, Grade: 2}, {Doc: "d", Start: 22, End: 24, Grade: 1}, {Doc: "d", Start: 40, End: 60, Grade: 1}}},
		{ID: "q2"},
	}
	qrels, un, err := Judgements(qs, ch, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(eval.Qrels{"q1": {"a": 2, "b": 2, "c": 1}, "q2": {}}, qrels); d != "" {
		t.Error(d)
	}
	if len(un) != 1 || un[0].Query != "q1" || un[0].Span.Start != 40 {
		t.Errorf("uncoverable %+v", un)
	}
	if qrels, _, _ := Judgements(qs[:1], ch, 0.6); !cmp.Equal(qrels, eval.Qrels{"q1": {"c": 1}}) {
		t.Errorf("share 0.6: %v", qrels)
	}
	if _, _, err := Judgements(qs, ch, 0); err == nil {
		t.Error("share 0: no error")
	}
}

// TestNewChunking converts byte offsets to code points: "’" is 3 bytes.
func TestNewChunking(t *testing.T) {
	docs := []corpus.Document{{ID: "d", Text: "a’b c"}}
	chunks, err := corpus.Spec{Strategy: corpus.Fixed, Size: 1}.Chunk(docs)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewChunking(docs, chunks)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]Interval{"d#0": {"d", 0, 3}, "d#1": {"d", 4, 5}}, c.Intervals); d != "" {
		t.Error(d)
	}
	if _, err := NewChunking(docs[:0], chunks); err == nil {
		t.Error("chunk of a missing doc: no error")
	}
}

var labelDocs = []corpus.Document{
	{ID: "act", Text: "Section 1. Rent is due monthly. Section 2. Rent is due monthly unless agreed. It’s late."},
	{ID: "faq", Text: "Q: Can I pay weekly? A: Yes."},
}

func TestParseJSONL(t *testing.T) {
	in := `{"id": "q1", "question": "When is rent due?", "kind": "single", "gold_spans": [{"doc": "act", "start": 11, "end": 31, "text": "Rent is due monthly."}]}
{"qid": 2, "gold_spans": [{"doc": "faq", "text": "A: Yes.", "grade": 2}, {"doc": "act", "start": 80, "end": 84, "unit": "bytes"}]}

{"id": "q3", "gold_spans": [], "topic": "other"}
{"id": "q4", "gold_spans": [{"doc": "act", "start": 79, "end": 84}]}
`
	qs, err := ParseJSONL(strings.NewReader(in), "l.jsonl", labelDocs)
	if err != nil {
		t.Fatal(err)
	}
	want := []Query{
		{ID: "q1", Text: "When is rent due?", Slice: "single", Line: 1,
			Gold: []Span{{Doc: "act", Start: 11, End: 31, ByteStart: 11, ByteEnd: 31, Grade: 1, Text: "Rent is due monthly."}}},
		{ID: "2", Line: 2, Gold: []Span{{Doc: "faq", Start: 21, End: 28, ByteStart: 21, ByteEnd: 28, Grade: 2, Text: "A: Yes."},
			{Doc: "act", Start: 80, End: 82, ByteStart: 80, ByteEnd: 84, Grade: 1, Text: "’s"}}},
		{ID: "q3", Line: 4},
		{ID: "q4", Line: 5, Gold: []Span{{Doc: "act", Start: 79, End: 84, ByteStart: 79, ByteEnd: 86, Grade: 1, Text: "t’s l"}}},
	}
	if d := cmp.Diff(want, qs); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestParseJSONLErrors(t *testing.T) {
	for name, tc := range map[string]struct{ in, want string }{
		"past end":      {`{"id": "q", "gold_spans": [{"doc": "act", "start": 80, "end": 89}]}`, `l.jsonl:1: gold_spans[0]: query "q": doc "act": span [80, 89) outside the document (0 to 88 code points)`},
		"quote absent":  {`{"id": "q", "gold_spans": [{"doc": "act", "text": "weekly"}]}`, `l.jsonl:1: gold_spans[0]: query "q": doc "act": text "weekly" not found`},
		"quote twice":   {`{"id": "q", "gold_spans": [{"doc": "act", "text": "Rent is due monthly"}]}`, `doc "act": text "Rent is due monthly" found more than once, at act:1:12, act:1:44 (code points 11, 43): give start and end, or the text just before it as "prefix"`},
		"text differs":  {`{"id": "q", "gold_spans": [{"doc": "act", "start": 11, "end": 31, "text": "Rent is due weekly."}]}`, `doc "act": text differs from the document at [11, 31) code points`},
		"no doc":        {"\n" + `{"id": "q", "gold_spans": [{"doc": "lease", "start": 0, "end": 3}]}`, `l.jsonl:2: gold_spans[0]: query "q": doc "lease": no such document`},
		"inside char":   {`{"id": "q", "gold_spans": [{"doc": "act", "start": 81, "end": 84, "unit": "bytes"}]}`, `falls inside a character`},
		"bad unit":      {`{"id": "q", "gold_spans": [{"doc": "act", "start": 1, "end": 4, "unit": "chars"}]}`, `gold_spans[0].unit`},
		"grade -1":      {`{"id": "q", "gold_spans": [{"doc": "act", "start": 1, "end": 4, "grade": -1}]}`, `gold_spans[0].grade: query "q": doc "act": grade must be ≥ 0 (1 or more: relevant; 0: looked at, not relevant), got -1`},
		"start only":    {`{"id": "q", "gold_spans": [{"doc": "act", "start": 1}]}`, `give both start and end`},
		"empty span":    {`{"id": "q", "gold_spans": [{"doc": "act", "start": 4, "end": 4}]}`, `or empty`},
		"twice":         {`{"id": "q", "gold_spans": [{"doc": "act", "start": 1, "end": 4}, {"doc": "act", "start": 1, "end": 4}]}`, `span [1, 4) given twice`},
		"unknown key":   {`{"id": "q", "gold_spans": [{"doc": "act", "begin": 1, "end": 4}]}`, `unknown key "begin"`},
		"no spans":      {`{"id": "q", "question": "x"}`, `gold_spans: query "q": missing`},
		"gold and span": {`{"id": "q", "gold": ["act"], "gold_spans": []}`, `not both`},
		"gold only":     {`{"id": "q", "gold": ["act"]}`, `give every query as "gold_spans"`},
		"dup query":     {`{"id": "q", "gold_spans": []}` + "\n" + `{"id": "q", "gold_spans": []}`, `l.jsonl:2: id: query "q" given twice`},
		"bad json":      {`{"id": "q", "gold_spans": [}`, `l.jsonl:1: json:`},
		"no id":         {`{"gold_spans": []}`, `l.jsonl:1: id: missing (need "id" or "qid")`},
		"case":          {`{"id": "q", "Gold_spans": []}`, `did you mean "gold_spans"`},
		"empty":         {"\n\n", `no queries found`},
		"float offset":  {`{"id": "q", "gold_spans": [{"doc": "act", "start": 1.5, "end": 4}]}`, `gold_spans[0].start: query "q": must be an integer, got 1.5`},
		"quoted start":  {`{"id": "q", "gold_spans": [{"doc": "act", "start": "4", "end": 9}]}`, `l.jsonl:1: gold_spans[0].start: query "q": must be an integer, got "4" (a JSON string: write the number without quotes)`},
		"quoted grade":  {`{"id": "q", "gold_spans": [{"doc": "act", "start": 4, "end": 9, "grade": "2"}]}`, `l.jsonl:1: gold_spans[0].grade: query "q": must be an integer, got "2" (a JSON string: write the number without quotes)`},
		"big id":        {`{"id": 12345678901234567890123, "gold_spans": [{"doc": "act", "start": 0, "end": 4}]}` + "\n" + `{"id": "12345678901234567890123", "gold_spans": []}`, `l.jsonl:2: id: query "12345678901234567890123" given twice`},
		"null doc":      {`{"id": "q", "gold_spans": [{"doc": null, "text": "x"}]}`, `gold_spans[0].doc: query "q": missing doc id`},
		"spans string":  {`{"id": "q", "gold_spans": "act"}`, `gold_spans: must be a list of spans`},
		"question num":  {`{"id": "q", "question": 3, "gold_spans": []}`, `question: must be a string, got 3`},
		"repeated key":  {`{"id": "q", "gold_spans": [], "id": "r"}`, `id: key given twice`},
		"invalid utf8":  {"{\"id\": \"q\xff\", \"gold_spans\": []}", `l.jsonl:1: json: column 10: invalid UTF-8 (byte 0xff)`},
		"surrogate":     {`{"id": "q\ud800", "gold_spans": []}`, `l.jsonl:1: json: column 10: a lone UTF-16 surrogate`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseJSONL(strings.NewReader(tc.in), "l.jsonl", labelDocs)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

// TestChromaQuestions reads the shared questions.csv (Chroma's file as it
// is) against the three shared corpora: 276 questions, 452 references, each
// document[start:end] == content in code points (the dataset README's
// counts), e.g. question 0's first reference at code points 27346–27425.
func TestChromaQuestions(t *testing.T) {
	dir := testenv.Shared(t, "datasets/chunking-chroma")
	docs, err := corpus.LoadFolder(filepath.Join(dir, "corpora"))
	if err != nil {
		t.Fatal(err)
	}
	qs, err := ReadChromaCSV(filepath.Join(dir, "questions.csv"), docs)
	if err != nil {
		t.Fatal(err)
	}
	refs := 0
	perDoc := map[string]int{}
	for _, q := range qs {
		refs += len(q.Gold)
		perDoc[q.Slice]++
	}
	if len(qs) != 276 || refs != 452 {
		t.Errorf("%d questions, %d references; want 276, 452", len(qs), refs)
	}
	if !cmp.Equal(perDoc, map[string]int{"state_of_the_union": 76, "wikitexts": 144, "chatlogs": 56}) {
		t.Errorf("questions per corpus %v", perDoc)
	}
	g := qs[0].Gold[0]
	if g.Start != 27346 || g.End != 27425 || g.Text != "My administration announced we’re cutting credit card late fees from $32 to $8." {
		t.Errorf("question 0 reference 0 = %+v", g)
	}
}

func TestParseChromaCSVErrors(t *testing.T) {
	docs := []corpus.Document{{ID: "sotu", Text: "We’re cutting fees."}}
	for name, tc := range map[string]struct{ in, want string }{
		"no corpus":  {"question,references,corpus_id\nq,[],lease\n", `c.csv:2: corpus_id: question 0: no document "lease"`},
		"past end":   {"question,references,corpus_id\nq,\"[{\"\"content\"\": \"\"x\"\", \"\"start_index\"\": 10, \"\"end_index\"\": 30}]\",sotu\n", `outside the document (0 to 19 code points)`},
		"differs":    {"question,references,corpus_id\n\"multi\nline\",\"[{\"\"content\"\": \"\"were\"\", \"\"start_index\"\": 0, \"\"end_index\"\": 4}]\",sotu\n", `c.csv:2: references[0]: question 0: doc "sotu": text differs`},
		"bad json":   {"question,references,corpus_id\nq,[{,sotu\n", `references: question 0: want a JSON list`},
		"no column":  {"question,refs,corpus_id\n", `c.csv:1: references: missing column: Chroma's questions.csv has the header question,references,corpus_id, this file's header is "question,refs,corpus_id"`},
		"capital":    {"Question,references,corpus_id\nq,[],sotu\n", `c.csv:1: question: missing column: found "Question" (column names are case-sensitive: rename it "question")`},
		"empty":      {"", `empty file`},
		"no rows":    {"question,references,corpus_id\n", `no questions`},
		"bad csv":    {"question,references,corpus_id\n\"q,[],sotu\n", `c.csv:2:`},
		"dup column": {"question,references,corpus_id,question\nq,[],sotu,r\n", `c.csv:1: question: column given twice (columns 1 and 4)`},
		"null refs":  {"question,references,corpus_id\nq,null,sotu\n", `c.csv:2: references: question 0: want a JSON list`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseChromaCSV(strings.NewReader(tc.in), "c.csv", docs)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
	qs, err := ParseChromaCSV(strings.NewReader("corpus_id,question,references\nsotu,q,\"[{\"\"content\"\": \"\"We’re\"\", \"\"start_index\"\": 0, \"\"end_index\"\": 5}]\"\n"), "c.csv", docs)
	if err != nil || len(qs) != 1 || qs[0].Gold[0].ByteEnd != 7 {
		t.Errorf("columns in another order: %+v, %v", qs, err)
	}
}

// checkQueries is what fuzzing asserts of any accepted labels: each span's
// Text is the document's text at its byte offsets, and its code-point
// offsets address the same text.
func checkQueries(t *testing.T, qs []Query, docs []corpus.Document) {
	text := map[string]string{}
	for _, d := range docs {
		text[d.ID] = d.Text
	}
	for _, q := range qs {
		for _, g := range q.Gold {
			dt := text[g.Doc]
			if g.Text != dt[g.ByteStart:g.ByteEnd] || string([]rune(dt)[g.Start:g.End]) != g.Text || g.Grade < 1 {
				t.Fatalf("query %q: inconsistent span %+v", q.ID, g)
			}
		}
	}
}

func FuzzParseJSONL(f *testing.F) {
	b, _ := os.ReadFile("testdata/labels.jsonl")
	f.Add(string(b))
	f.Add(`{"id": "q", "gold_spans": [{"doc": "act", "start": 79, "end": 84, "unit": "bytes"}]}`)
	f.Add(`{"id": 1, "gold_spans": [{"doc": "faq", "text": "Yes"}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		qs, err := ParseJSONL(strings.NewReader(in), "f.jsonl", labelDocs)
		if err == nil {
			checkQueries(t, qs, labelDocs)
		}
	})
}

func FuzzParseChromaCSV(f *testing.F) {
	f.Add("question,references,corpus_id\nq,\"[{\"\"content\"\": \"\"A: Yes.\"\", \"\"start_index\"\": 21, \"\"end_index\"\": 28}]\",faq\n")
	f.Add("question,references,corpus_id\nq,[],act\n")
	f.Fuzz(func(t *testing.T, in string) {
		qs, err := ParseChromaCSV(strings.NewReader(in), "f.csv", labelDocs)
		if err == nil {
			checkQueries(t, qs, labelDocs)
		}
	})
}

func TestDetectRead(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct{ text, want string }{
		"spans.jsonl": {"\n" + `{"id": "q", "gold_spans": [{"doc": "faq", "text": "A: Yes."}]}`, FormatJSONL},
		"chroma.csv":  {"\ufeffquestion,references,corpus_id\nq,[],faq\n", FormatChromaCSV},
		"capital.csv": {"Question,References,corpus_id\n", FormatChromaCSV},
		"partial.csv": {"\"question\",refs\n", FormatChromaCSV},
		"ids.jsonl":   {`{"id": "q", "gold": ["faq#0"]}`, ""},
		"qrels.tsv":   {"query-id\tcorpus-id\tscore\n", ""},
		"empty.jsonl": {"", ""},
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := Detect(p)
		if err != nil || got != tc.want {
			t.Errorf("Detect(%s) = %q, %v; want %q", name, got, err, tc.want)
		}
		qs, err := Read(p, labelDocs)
		if tc.want == "" {
			if err == nil || !strings.Contains(err.Error(), "not span labels") {
				t.Errorf("Read(%s): %v", name, err)
			}
		} else if strings.HasSuffix(name, "chroma.csv") || strings.HasSuffix(name, "spans.jsonl") {
			if err != nil || len(qs) != 1 {
				t.Errorf("Read(%s) = %+v, %v", name, qs, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), "missing column") {
			t.Errorf("Read(%s): %v; want a missing column", name, err)
		}
	}
	if _, err := Detect(filepath.Join(dir, "absent")); err == nil {
		t.Error("absent file: no error")
	}
}
