package passages_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/srcpos"
	"github.com/ragbench/ragbench/passages"
	"github.com/ragbench/ragbench/spans"
)

// handbook loads docs/spans.md's worked example: the one-document handbook
// and its three labels.
func handbook(t *testing.T) ([]corpus.Document, []spans.Query) {
	t.Helper()
	docs, err := corpus.Load("../spans/testdata/handbook")
	if err != nil {
		t.Fatal(err)
	}
	qs, err := spans.ReadJSONL("../spans/testdata/handbook-labels.jsonl", docs)
	if err != nil {
		t.Fatal(err)
	}
	return docs, qs
}

// handbookStyles are docs/pipelines.md's four ways of writing the worked
// example's run (chunks #1, #2 for carry-over and #2, #4 for sick-note):
// code-point offsets, byte offsets, doc + text, and text alone (the last
// placed only once white space is normalised).
var handbookStyles = map[string]string{
	"offsets": `{"qid": "carry-over", "results": [{"doc": "policies/leave", "start": 33, "end": 129, "score": 0.9}, {"doc": "policies/leave", "start": 130, "end": 163, "score": 0.8}]}
{"qid": "sick-note", "results": [{"doc": "policies/leave", "start": 130, "end": 163, "score": 0.7}, {"doc": "policies/leave", "start": 180, "end": 274, "score": 0.6}]}
`,
	"bytes": `{"qid": "carry-over", "results": [{"doc": "policies/leave", "start": 33, "end": 129, "unit": "bytes", "score": 0.9}, {"doc": "policies/leave", "start": 130, "end": 163, "unit": "bytes", "score": 0.8}]}
{"qid": "sick-note", "results": [{"doc": "policies/leave", "start": 130, "end": 163, "unit": "bytes", "score": 0.7}, {"doc": "policies/leave", "start": 180, "end": 276, "unit": "bytes", "score": 0.6}]}
`,
	"doc-text": "\ufeff" + `{"qid": "carry-over", "results": [{"doc": "policies/leave", "text": "Full-time staff get 25 days of annual leave per year. Unused days up to 5 carry over to the next"}, {"doc": "policies/leave", "text": "year; the rest lapse on 31 March."}]}` + "\r\n\r\n" +
		`{"qid": "sick-note", "results": [{"doc": "policies/leave", "text": "year; the rest lapse on 31 March."}, {"doc": "policies/leave", "text": "Tell your manager before 10:00 on the first day. From the fourth day you need a doctor’s note."}]}` + "\r\n",
	"text-ws": `{"qid": "carry-over", "results": [{"text": "Full-time staff get 25 days of annual leave per year.\nUnused days up to 5 carry over to the next", "score": 2}, {"text": "year; the rest lapse\non 31 March.", "score": 1}]}
{"qid": "sick-note", "results": [{"text": "year; the rest lapse\non 31 March.", "score": 3}, {"text": "  Tell your manager before 10:00 on the first day.   From the fourth day you need a doctor’s note.", "score": 3}]}
`,
}

// TestHandbookWorkedExample scores the worked example of docs/spans.md
// written four ways: every style gives the numbers docs/spans.md works by
// hand (carry-over: chunk #1 holds 42 of the passage's 76 code points,
// #2 33 more; sick-note: #4 holds all 45 at rank 2), and the chunk-level
// judgements give what the span-level ideal says by hand (R = 1 gold
// passage per query).
func TestHandbookWorkedExample(t *testing.T) {
	docs, qs := handbook(t)
	want := map[string]float64{
		"token_recall@1":    (42.0 / 76) / 2,
		"token_recall@2":    (75.0/76 + 1) / 2,
		"token_precision@1": (42.0 / 96) / 2,
		"token_precision@2": (75.0/129 + 45.0/127) / 2,
		"token_iou@2":       (75.0/(76+129-75) + 45.0/(45+127-45)) / 2,
		"span_recall@1":     0.5,
		"span_recall@2":     1,
		"span_hit_rate@1":   0.5,
		"span_mrr@2":        0.75,
		// chunk level: carry-over's relevant passage at rank 1, sick-note's
		// at rank 2, one gold passage each.
		"P_1":         0.5,
		"recall_2":    1,
		"recip_rank":  0.75,
		"ndcg_cut_2":  (1 + 1/math.Log2(3)) / 2,
		"map":         0.75,
		"success_1":   0.5,
		"num_rel_ret": 2,
	}
	ms, err := eval.ParseMeasures([]string{"P.1", "recall.2", "recip_rank", "ndcg_cut.2", "map", "success.1", "num_rel_ret"})
	if err != nil {
		t.Fatal(err)
	}
	for style, text := range handbookStyles {
		t.Run(style, func(t *testing.T) {
			run, err := passages.Parse(strings.NewReader(text), style+".jsonl", passages.NewLocator(docs))
			if err != nil {
				t.Fatal(err)
			}
			if run.Results != 4 || run.UnmappedCount() != 0 {
				t.Errorf("%d results, %d unmapped; want 4, 0", run.Results, run.UnmappedCount())
			}
			sc, err := run.Scored(docs)
			if err != nil {
				t.Fatal(err)
			}
			opts := passages.Options{Span: []string{"token_recall@1", "token_recall@2", "token_precision@1", "token_precision@2", "token_iou@2", "span_recall@1", "span_recall@2", "span_hit_rate@1", "span_mrr@2"},
				CoverShare: spans.DefaultCoverShare, Eval: eval.DefaultOptions()}
			e, err := passages.Evaluate(qs, sc, ms, opts)
			if err != nil {
				t.Fatal(err)
			}
			if e.NumQ != 2 || len(e.Unanswerable) != 1 || e.Unanswerable[0] != "parking" {
				t.Errorf("num_q %d, unanswerable %v; want 2, [parking]", e.NumQ, e.Unanswerable)
			}
			for name, w := range want {
				got, ok := e.Mean(name)
				if !ok || math.Abs(got-w) > 1e-12 {
					t.Errorf("%s = %v (%v), want %v", name, got, ok, w)
				}
			}
		})
	}
}

// TestRanking checks docs/pipelines.md's rank rule: by score descending,
// equal scores in list order, no scores in list order; repeats kept, each
// counting in Σ|Ci|; and the out-of-order count.
func TestRanking(t *testing.T) {
	docs, qs := handbook(t)
	// carry-over: #2 listed first with a lower score, then #1 twice.
	text := `{"qid": "carry-over", "results": [{"doc": "policies/leave", "start": 130, "end": 163, "score": 1}, {"doc": "policies/leave", "start": 33, "end": 129, "score": 5}, {"doc": "policies/leave", "start": 33, "end": 129, "score": 5}]}
{"qid": "sick-note", "results": [{"doc": "policies/leave", "start": 130, "end": 163}, {"doc": "policies/leave", "start": 180, "end": 274}]}
`
	run, err := passages.Parse(strings.NewReader(text), "r.jsonl", passages.NewLocator(docs))
	if err != nil {
		t.Fatal(err)
	}
	if n := run.OutOfOrder(); n != 1 {
		t.Errorf("out of order: %d, want 1", n)
	}
	sc, err := run.Scored(docs)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range sc.Run["carry-over"] {
		ids = append(ids, r.DocID)
	}
	if got := strings.Join(ids, " "); got != "policies/leave@33-129 policies/leave@33-129~2 policies/leave@130-163" {
		t.Errorf("carry-over ranked %s", got)
	}
	for _, l := range sc.Run {
		for i := 1; i < len(l); i++ {
			if !(l[i].Score < l[i-1].Score) {
				t.Errorf("scores not strictly decreasing: %v", l)
			}
		}
	}
	e, err := passages.Evaluate(qs, sc, nil, passages.Options{Span: []string{"token_precision@2", "span_mrr@2"}, CoverShare: 0.5, Eval: eval.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	// carry-over @2: #1 twice, I = 42, Σ|Ci| = 192; sick-note in list
	// order: #2 then #4 (45 of 127).
	if got, want := e.Values[0][0], 42.0/192; e.Queries[0] != "carry-over" || math.Abs(got-want) > 1e-15 {
		t.Errorf("%s token_precision@2 = %v, want %v", e.Queries[0], got, want)
	}
	if got, _ := e.Mean("span_mrr@2"); got != 0.75 {
		t.Errorf("span_mrr@2 = %v, want 0.75", got)
	}
	qrels, err := sc.Judgements(qs, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	// The copy of #1 adds nothing new: unjudged.
	if got := qrels["carry-over"]; len(got) != 1 || got["policies/leave@33-129"] != 1 {
		t.Errorf("carry-over judgements %v, want only the first copy relevant", got)
	}
}

// TestLocate checks the placing rules of docs/pipelines.md on a corpus
// made for them: overlapping occurrences are ambiguous, exact beats
// normalised, normalisation collapses every Unicode White_Space run and
// trims the text, a text in two documents is ambiguous unless its
// document is given.
func TestLocate(t *testing.T) {
	docs := []corpus.Document{
		{ID: "a", Text: "aaa one  two\u00a0three. Four five.\n\nsix seven"},
		{ID: "b", Text: "one two three. eight nine. Four five."},
	}
	cases := []struct {
		result string
		how    passages.Placing
		doc    string
		start  int
		end    int
	}{
		{`{"text": "aa"}`, passages.Ambiguous, "", 0, 0},           // overlapping: twice in "aaa"
		{`{"text": "one two three."}`, passages.Exact, "b", 0, 14}, // exact in b, only normalised in a
		{`{"doc": "a", "text": "one two three."}`, passages.Normalised, "a", 4, 19},
		{`{"text": " eight\n nine. "}`, passages.Normalised, "b", 15, 26}, // trimmed, collapsed
		{`{"text": "Four five."}`, passages.Ambiguous, "", 0, 0},          // in both documents
		{`{"doc": "a", "text": "Four five."}`, passages.Exact, "a", 20, 30},
		{`{"text": "five.\tsix"}`, passages.Normalised, "a", 25, 35}, // across a paragraph break
		{`{"text": "ten eleven"}`, passages.Absent, "", 0, 0},
		{`{"doc": "b", "text": "six seven"}`, passages.Absent, "", 0, 0},
	}
	loc := passages.NewLocator(docs)
	for _, c := range cases {
		run, err := passages.Parse(strings.NewReader(`{"qid": "q", "results": [`+c.result+`]}`), "r", loc)
		if err != nil {
			t.Errorf("%s: %v", c.result, err)
			continue
		}
		p := run.Queries[0].Passages[0]
		if p.Placing != c.how || p.Doc != c.doc || p.Start != c.start || p.End != c.end {
			t.Errorf("%s: %s %q [%d, %d), want %s %q [%d, %d)", c.result, p.Placing, p.Doc, p.Start, p.End, c.how, c.doc, c.start, c.end)
		}
		if c.how.Unmapped() && (run.UnmappedCount() != 1 || p.Length != len([]rune(strings.TrimSuffix(strings.SplitN(c.result, `"text": "`, 2)[1], `"}`)))) && !strings.Contains(c.result, `\`) {
			t.Errorf("%s: unmapped %d, length %d", c.result, run.UnmappedCount(), p.Length)
		}
	}
}

// TestErrorsInOnePass checks that a file with many faults reports each,
// with its line, results[i] and field, in one pass.
func TestErrorsInOnePass(t *testing.T) {
	docs, _ := handbook(t)
	lines := []string{
		`{"qid": "a", "results": [{"doc": "policies/leave", "start": 0, "end": 400}]}`, // 1 past the end
		`not json`, // 2
		`{"qid": "b", "results": [{"doc": "policies/leave.md", "text": "Leave"}]}`, // 3 unknown doc
		`{"qid": "a", "results": []}`, // 4 qid twice
		`{"qid": "c", "results": [{"doc": "policies/leave", "start": 1.5, "end": 3}]}`,                    // 5 not an integer
		`{"qid": "d", "results": [{"doc": "policies/leave", "start": 0, "end": 3, "unit": "chars"}]}`,     // 6 bad unit
		`{"qid": "e", "results": [{"doc": "policies/leave", "start": 0, "end": 3, "text": "Lea"}]}`,       // 7 text differs
		`{"qid": "f", "results": [{"text": " \n "}]}`,                                                     // 8 blank text
		`{"qid": "g", "results": [{"text": "x", "score": 1}, {"text": "y"}]}`,                             // 9 scores mixed
		`{"qid": "h", "results": [{"doc": "policies/leave", "start": 267, "end": 274, "unit": "bytes"}]}`, // 10 inside ’
		`{"qid": "i", "results": [{"text": "x", "untis": "bytes"}]}`,                                      // 11 unknown key
		`{"results": []}`, // 12 no qid
		`{"qid": "j", "results": [{"doc": "policies/leave"}]}`,             // 13 neither
		`{"qid": "k", "results": [{"doc": "policies/leave", "start": 3}]}`, // 14 start alone
		`{"qid": "l", "results": [{"text": "x", "score": "high"}]}`,        // 15 score not a number
		`{"qid": "m", "qid": "n", "results": []}`,                          // 16 key twice
		`{"qid": "o", "results": {"text": "x"}}`,                           // 17 results not a list
	}
	_, err := passages.Parse(strings.NewReader(strings.Join(lines, "\n")), "bad.jsonl", passages.NewLocator(docs))
	if err == nil {
		t.Fatal("no error")
	}
	want := []string{
		"bad.jsonl:1: results[0]: doc \"policies/leave\": span [0, 400) outside the document (0 to 275 code points)",
		"bad.jsonl:2: not a JSON object",
		"bad.jsonl:3: results[0].doc: no document \"policies/leave.md\"",
		"did you mean \"policies/leave\"?",
		"bad.jsonl:4: qid: query \"a\" given twice (first at line 1)",
		"bad.jsonl:5: results[0].start: want an integer",
		"bad.jsonl:6: results[0].unit: want \"code_points\"",
		"bad.jsonl:7: results[0].text: doc \"policies/leave\": differs from the document at [0, 3)",
		"bad.jsonl:8: results[0].text: empty or white space only",
		"bad.jsonl:9: results: score given on 1 of the 2 results",
		"bad.jsonl:10: results[0]: doc \"policies/leave\": byte offsets [267, 274) fall inside a character",
		"bad.jsonl:11: results[0].untis: unknown key",
		"bad.jsonl:12: qid: missing",
		"bad.jsonl:13: results[0]: want doc, start and end, or text",
		"bad.jsonl:14: results[0]: give both start and end",
		"bad.jsonl:15: results[0].score: want a finite number, got \"high\"",
		"bad.jsonl:16: qid: key given twice",
		"bad.jsonl:17: results: want a list of results",
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("missing %q in:\n%v", w, err)
		}
	}
	var se *srcpos.Error
	if !errors.As(err, &se) {
		t.Errorf("not a *srcpos.Error: %T", err)
	}
	if n := strings.Count(err.Error(), "\n") + 1; n != len(want)-1 {
		t.Errorf("%d errors, want %d:\n%v", n, len(want)-1, err)
	}
}

// TestUnmappedLimit checks the unmapped rate and its message.
func TestUnmappedLimit(t *testing.T) {
	docs, _ := handbook(t)
	text := `{"qid": "q", "results": [{"text": "no such text"}, {"text": "leave"}, {"doc": "policies/leave", "start": 0, "end": 5}, {"doc": "policies/leave", "start": 5, "end": 9}]}`
	run, err := passages.Parse(strings.NewReader(text), "r.jsonl", passages.NewLocator(docs))
	if err != nil {
		t.Fatal(err)
	}
	if run.UnmappedRate() != 0.5 || run.Placed[passages.Absent] != 1 || run.Placed[passages.Ambiguous] != 1 {
		t.Errorf("rate %v, placed %v", run.UnmappedRate(), run.Placed)
	}
	if err := run.CheckUnmapped(0.5, "--max-unmapped"); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	err = run.CheckUnmapped(0.05, "--max-unmapped")
	if err == nil || !strings.Contains(err.Error(), "r.jsonl: 2 of 4 results unmapped (50 %: 1 absent, 1 ambiguous) > --max-unmapped 5 %") {
		t.Errorf("over the limit: %v", err)
	}
	if u := run.Unmapped; len(u) != 2 || u[0].Index != 0 || u[0].Reason != passages.Absent || u[1].Reason != passages.Ambiguous {
		t.Errorf("unmapped list %+v", u)
	}
}

// TestChunkMap checks a TREC run of a pipeline's own chunk ids placed by a
// chunk map: the handbook's chunks under ids of the pipeline's own, ties
// ranked as trec_eval ranks them (doc id descending) or in run order.
func TestChunkMap(t *testing.T) {
	docs, qs := handbook(t)
	loc := passages.NewLocator(docs)
	cm, err := passages.ParseChunkMap(strings.NewReader(`{"id": "c1", "doc": "policies/leave", "start": 33, "end": 129}
{"id": "c2", "text": "year; the rest lapse on 31 March."}
{"id": "c4", "doc": "policies/leave", "start": 180, "end": 276, "unit": "bytes"}
{"id": "gone", "text": "not in the handbook"}
`), "map.jsonl", loc)
	if err != nil {
		t.Fatal(err)
	}
	trec := eval.Run{
		"carry-over": {{DocID: "c1", Score: 2}, {DocID: "c2", Score: 2}},
		"sick-note":  {{DocID: "c2", Score: 0.7}, {DocID: "c4", Score: 0.6}, {DocID: "gone", Score: 0.1}},
	}
	run, err := passages.FromTREC(trec, "run.trec", cm, eval.TieDocIDDesc)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := run.Query("carry-over")
	if q.Passages[0].ID != "c2" { // tie: doc id descending puts c2 first
		t.Errorf("carry-over ranked %s first, want c2", q.Passages[0].ID)
	}
	if run.UnmappedCount() != 1 || run.Results != 5 {
		t.Errorf("unmapped %d of %d, want 1 of 5", run.UnmappedCount(), run.Results)
	}
	sc, err := run.Scored(docs)
	if err != nil {
		t.Fatal(err)
	}
	e, err := passages.Evaluate(qs, sc, nil, passages.Options{Span: []string{"token_precision@3", "span_recall@1"}, CoverShare: 0.5, Eval: eval.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	// sick-note @3: #2, #4 and 19 unmapped code points: 45 / (33 + 94 + 19);
	// carry-over: c2 first covers nothing.
	for i, q := range e.Queries {
		switch q {
		case "sick-note":
			if want := 45.0 / (33 + 94 + 19); math.Abs(e.Values[i][0]-want) > 1e-15 {
				t.Errorf("sick-note token_precision@3 = %v, want %v", e.Values[i][0], want)
			}
		case "carry-over":
			if e.Values[i][1] != 0 {
				t.Errorf("carry-over span_recall@1 = %v, want 0 (c2 ranked first)", e.Values[i][1])
			}
		}
	}
	_, err = passages.FromTREC(eval.Run{"q": {{DocID: "c9", Score: 1}}}, "run.trec", cm, eval.TieDocIDDesc)
	if err == nil || !strings.Contains(err.Error(), `query "q": chunk "c9" is not in the chunk map map.jsonl`) {
		t.Errorf("unknown chunk: %v", err)
	}
	_, err = passages.ParseChunkMap(strings.NewReader(`{"id": "c1", "text": "leave", "score": 3}
{"doc": "policies/leave", "start": 0, "end": 3}
{"id": "c1", "doc": "policies/leave", "start": 0, "end": 3}
`), "map.jsonl", loc)
	for _, w := range []string{"map.jsonl:1: score: a chunk map places chunks", "map.jsonl:2: id: missing", "map.jsonl:3: id: chunk \"c1\" given twice (first at line 1)"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("missing %q in %v", w, err)
		}
	}
}

// TestAnswer checks a service's answer: the same result rules as a run
// line, at most k results, the qid echoed or absent.
func TestAnswer(t *testing.T) {
	docs, _ := handbook(t)
	loc := passages.NewLocator(docs)
	run := passages.NewRun("svc")
	if err := run.AddAnswer("q1", []byte(`{"qid": "q1", "results": [{"doc": "policies/leave", "start": 0, "end": 5, "score": 1}], "took_ms": 3}`), 2, loc); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ body, want string }{
		{`{"results": [{"text": "a"}, {"text": "b"}, {"text": "c"}]}`, "3 results, more than the 2 asked for"},
		{`{"qid": "other", "results": []}`, `qid: "other", not the query asked ("q2")`},
		{`{"result": []}`, "results: missing"},
		{`[1, 2]`, "not a JSON object"},
		{`{"results": [{"doc": "nope", "start": 0, "end": 1}]}`, `results[0].doc: no document "nope"`},
		{`{"results": [{"text": "x", "score": NaN}]}`, "not a JSON object: invalid JSON"},
	} {
		err := run.AddAnswer("q2", []byte(c.body), 2, loc)
		var ae *passages.AnswerError
		if !errors.As(err, &ae) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an AnswerError with %q", c.body, err, c.want)
		}
	}
}
