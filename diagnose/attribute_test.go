package diagnose

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ragbench/ragbench/eval"
)

// fixtureVerdicts grades the fixture's answers (see fixture_test.go): every
// query but q6 has a verdict; q8 is only in the run.
const fixtureVerdicts = `{"qid": "q1", "correct": true}
{"qid": "q2", "correct": false}
{"qid": "q3", "correct": false, "answer": "extra keys are ignored"}

{"qid": "q4", "correct": true}
{"qid": "q5", "correct": true}
{"qid": "q7", "correct": false}
{"qid": "q8", "correct": true}
`

func fixtureAttribution(t *testing.T, depth int) *Attribution {
	t.Helper()
	vs, err := ParseVerdicts(strings.NewReader(fixtureVerdicts), "answers.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	a, err := Attribute(AttributeInput{Run: fixtureRun(), Qrels: fixtureQrels(), Slices: fixtureSlices(),
		Verdicts: vs, VerdictsFile: "answers.jsonl"}, AttributeOptions{Depth: depth})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestAttributeFixtureDepth2(t *testing.T) {
	a := fixtureAttribution(t, 2)
	// Depth 2: gold in top 2 for q1 (rank 1), q3 (rank 2), q4 (rank 2); not
	// for q2 (rank 3) nor q7 (absent from the run).
	//   q1 retrieved+correct  q2 missed+wrong  q3 retrieved+wrong
	//   q4 retrieved+correct  q7 missed+wrong
	//   q5 unanswerable, correct; q8 not in qrels; q6 has no verdict.
	want := Table{RetrievedCorrect: 2, RetrievedWrong: 1, MissedCorrect: 0, MissedWrong: 2}
	if a.Overall != want {
		t.Errorf("overall = %+v, want %+v", a.Overall, want)
	}
	// hit rate 3/5, accuracy 2/5, P(correct|retrieved) 2/3, P(correct|missed) 0/2.
	checkRates(t, "overall", a.Overall, 0.6, 0.4, 2.0/3, 0)
	if a.Overall.Dominant() != RetrievalMiss {
		t.Errorf("dominant = %v, want retrieval_miss (2 missed+wrong > 1 retrieved+wrong)", a.Overall.Dominant())
	}
	wantAdvice := "Retrieval misses dominate: 2 of 3 wrong answers (66.7%) had no gold passage in the top 2. Work on retrieval first (recall@2, chunking, the retriever)."
	if a.Advice != wantAdvice {
		t.Errorf("advice = %q\nwant      %q", a.Advice, wantAdvice)
	}
	if a.Unanswerable != (Abstention{Correct: 1}) {
		t.Errorf("unanswerable = %+v, want 1 correct", a.Unanswerable)
	}
	// Slices: fact = q1 (RC), q2 (MW), q7 (MW); multi-hop = q3 (RW), q4 (RC);
	// unanswerable = q5 (correct abstention), empty table.
	wantSlices := []SliceAttribution{
		{Slice: "fact", Table: Table{RetrievedCorrect: 1, MissedWrong: 2}},
		{Slice: "multi-hop", Table: Table{RetrievedCorrect: 1, RetrievedWrong: 1}},
		{Slice: "unanswerable", Unanswerable: Abstention{Correct: 1}},
	}
	if diff := cmp.Diff(wantSlices, a.Slices); diff != "" {
		t.Errorf("slices (-want +got):\n%s", diff)
	}
	// fact: hit 1/3, accuracy 1/3, P(c|r) 1/1, P(c|m) 0/2.
	checkRates(t, "fact", a.Slices[0].Table, 1.0/3, 1.0/3, 1, 0)
	// multi-hop: hit 2/2, accuracy 1/2, P(c|r) 1/2, P(c|m) undefined.
	checkRates(t, "multi-hop", a.Slices[1].Table, 1, 0.5, 0.5, math.NaN())
	if a.Slices[1].Table.Dominant() != PromptMisuse {
		t.Errorf("multi-hop dominant = %v, want prompt_misuse", a.Slices[1].Table.Dominant())
	}
	if diff := cmp.Diff([]string{"q7"}, a.NotInRun); diff != "" {
		t.Errorf("NotInRun: %s", diff)
	}
	if diff := cmp.Diff([]string{"q8"}, a.NotInQrels); diff != "" {
		t.Errorf("NotInQrels: %s", diff)
	}
	if diff := cmp.Diff([]string{"q6"}, a.NoVerdict); diff != "" {
		t.Errorf("NoVerdict: %s", diff)
	}
	wantWarn := []string{
		"1 answerable query with a verdict is absent from the run and counted as retrieval misses: q7",
		"1 query with a verdict is not in the qrels and left out of the table: q8",
		"1 qrels query has no verdict and is not in the table: q6",
	}
	if diff := cmp.Diff(wantWarn, a.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestAttributeFixtureDepth1(t *testing.T) {
	a := fixtureAttribution(t, 1)
	// Depth 1: only q1 has its gold at rank 1. q3's gold is second after the
	// tie-break ("dz" > "d4" in descending byte order), q4's is second.
	//   q1 RC; q2 MW; q3 MW; q4 MC; q7 MW.
	want := Table{RetrievedCorrect: 1, MissedCorrect: 1, MissedWrong: 3}
	if a.Overall != want {
		t.Errorf("overall = %+v, want %+v", a.Overall, want)
	}
	// hit 1/5, accuracy 2/5, P(c|r) 1/1, P(c|m) 1/4.
	checkRates(t, "overall", a.Overall, 0.2, 0.4, 1, 0.25)
}

func TestAttributeDefaultDepthAndNoSlices(t *testing.T) {
	vs := []Verdict{{QueryID: "q1", Correct: false, Line: 1}, {QueryID: "q2", Correct: false, Line: 2}}
	a, err := Attribute(AttributeInput{Run: fixtureRun(), Qrels: fixtureQrels(), Verdicts: vs}, AttributeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Depth 6 finds q1's and q2's gold: two retrieved+wrong.
	if a.Depth != 6 || a.Overall != (Table{RetrievedWrong: 2}) || a.Slices != nil {
		t.Errorf("got depth %d table %+v slices %v", a.Depth, a.Overall, a.Slices)
	}
	if a.Overall.Dominant() != PromptMisuse {
		t.Errorf("dominant = %v", a.Overall.Dominant())
	}
}

func TestTableAdviceCases(t *testing.T) {
	cases := []struct {
		t    Table
		want string
	}{
		{Table{}, "No query with a verdict: nothing to attribute."},
		{Table{RetrievedCorrect: 3, MissedCorrect: 1}, "No wrong answer among 4 queries: nothing to attribute."},
		{Table{RetrievedWrong: 3, MissedWrong: 1}, "Prompt/model misuse dominates: 3 of 4 wrong answers (75.0%) had a gold passage in the top 6 and were still wrong. Work on the prompt or the model first (instructions, passage order, context length)."},
		{Table{RetrievedWrong: 2, MissedWrong: 2}, "Wrong answers split evenly: 2 had a gold passage in the top 6, 2 had none. Work on retrieval and on the prompt."},
	}
	for _, c := range cases {
		if got := c.t.Advice(6); got != c.want {
			t.Errorf("%+v: advice = %q\nwant %q", c.t, got, c.want)
		}
	}
}

func TestTableJSON(t *testing.T) {
	b, err := json.Marshal(Table{RetrievedCorrect: 1, RetrievedWrong: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"n":2,"retrieved_correct":1,"retrieved_wrong":1,"missed_correct":0,"missed_wrong":0,"hit_rate":1,"accuracy":0.5,"p_correct_given_retrieved":0.5,"p_correct_given_missed":null,"dominant_failure":"prompt_misuse"}`
	if string(b) != want {
		t.Errorf("json = %s\nwant   %s", b, want)
	}
}

func TestAttributeUnknownQueryID(t *testing.T) {
	vs, err := ParseVerdicts(strings.NewReader(`{"qid":"q1","correct":true}`+"\n"+`{"qid":"q99","correct":true}`), "answers.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Attribute(AttributeInput{Run: fixtureRun(), Qrels: fixtureQrels(), Verdicts: vs, VerdictsFile: "answers.jsonl"}, AttributeOptions{})
	want := `answers.jsonl:2: qid: unknown query id "q99": not in the qrels nor in the run`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant  %s", err, want)
	}
}

func TestAttributeErrors(t *testing.T) {
	dup := []Verdict{{QueryID: "q1", Line: 3}, {QueryID: "q1", Line: 7}}
	_, err := Attribute(AttributeInput{Qrels: fixtureQrels(), Verdicts: dup, VerdictsFile: "a.jsonl"}, AttributeOptions{})
	if err == nil || err.Error() != `a.jsonl:7: qid: duplicate verdict for query "q1" (first on line 3)` {
		t.Errorf("duplicate: err = %v", err)
	}
	if _, err := Attribute(AttributeInput{}, AttributeOptions{Depth: -2}); err == nil {
		t.Error("negative depth accepted")
	}
}

func checkRates(t *testing.T, name string, tb Table, hit, acc, pr, pm float64) {
	t.Helper()
	got := []float64{tb.HitRate(), tb.Accuracy(), tb.PCorrectGivenRetrieved(), tb.PCorrectGivenMissed()}
	want := []float64{hit, acc, pr, pm}
	labels := []string{"hit rate", "accuracy", "P(correct|retrieved)", "P(correct|missed)"}
	for i := range got {
		same := math.Abs(got[i]-want[i]) < 1e-12 || (math.IsNaN(got[i]) && math.IsNaN(want[i]))
		if !same {
			t.Errorf("%s: %s = %v, want %v", name, labels[i], got[i], want[i])
		}
	}
}

// TestAttributeNoQueryInCommon checks that a run sharing no query id with
// the qrels is an error: every verdict would otherwise count as a retrieval
// miss and the advice would blame retrieval.
func TestAttributeNoQueryInCommon(t *testing.T) {
	vs := []Verdict{{QueryID: "q1", Correct: true, Line: 1}}
	run := eval.Run{"x1": {{DocID: "d1", Score: 1}}, "x2": {{DocID: "d2", Score: 1}}}
	_, err := Attribute(AttributeInput{Run: run, Qrels: fixtureQrels(), Verdicts: vs, VerdictsFile: "a.jsonl"}, AttributeOptions{})
	want := `diagnose: no run query is in the qrels: the run's 2 queries (e.g. "x1") and the qrels' `
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v, want prefix %q", err, want)
	}
}
