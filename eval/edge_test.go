package eval

import (
	"math"
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
