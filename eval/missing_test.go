package eval

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestMissingWarningCountsScored: of the qrels queries missing from the
// run, the note counts and exemplifies the answerable ones — those scored
// 0 — and counts the unanswerable ones apart (never scored): q10 has no
// judged doc of positive grade, q09 one, so the example is "q09", not the
// first id "q10" (issue: the note said `2 qrels queries missing from the
// run (scored 0), e.g. "q10"`). The same through the streaming reader.
func TestMissingWarningCountsScored(t *testing.T) {
	qrels := Qrels{"q01": {"d1": 1}, "q09": {"d9": 1}, "q10": {"d3": 0}}
	run := Run{"q01": {{DocID: "d1", Score: 1}}}
	ms, err := ParseMeasures([]string{"recip_rank"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		opts Options
		want string
	}{
		{DefaultOptions(), `1 qrels query missing from the run (scored 0), e.g. "q09"; also 1 unanswerable (not scored)`},
		{Options{RelevanceLevel: 1}, `1 qrels query missing from the run (skipped: not averaged), e.g. "q09"; also 1 unanswerable (not scored)`},
		{Options{RelevanceLevel: 1, CompleteQueries: true, Labels: "labelled"}, `1 labelled query missing from the run (scored 0), e.g. "q09"; also 1 unanswerable (not scored)`},
	} {
		e, err := Evaluate(qrels, run, ms, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(e.Warnings(), c.want) {
			t.Errorf("%+v: warnings %q, want %q", c.opts, e.Warnings(), c.want)
		}
	}
	only := Qrels{"q01": {"d1": 1}, "q10": {"d3": 0}}
	e, err := Evaluate(only, run, ms, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if want := `1 unanswerable qrels query missing from the run (not scored), e.g. "q10"`; !slices.Contains(e.Warnings(), want) {
		t.Errorf("warnings %q, want %q", e.Warnings(), want)
	}
	path := filepath.Join(t.TempDir(), "run.trec")
	if err := os.WriteFile(path, []byte("q01 Q0 d1 1 1.0 x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e, _, err = EvaluateRunFile(qrels, path, ms, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if want := `1 qrels query missing from the run (scored 0), e.g. "q09"; also 1 unanswerable (not scored)`; !slices.Contains(e.Warnings(), want) {
		t.Errorf("streamed: warnings %q, want %q", e.Warnings(), want)
	}
}
