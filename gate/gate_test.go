package gate

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/compare"
	"github.com/ragbench/ragbench/internal/texttab"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// scores builds query id → value for q1..qn.
func scores(v ...float64) map[string]float64 {
	m := map[string]float64{}
	for i, x := range v {
		m["q"+string(rune('1'+i))] = x
	}
	return m
}

func cell(name string, base, cur map[string]float64) Cell {
	return Cell{Name: name, Baseline: map[string]map[string]float64{"ndcg@10": base}, Current: map[string]map[string]float64{"ndcg@10": cur}}
}

// With n = 6 queries the randomization test is exact: when every query
// changes by the same amount, only the all-plus and all-minus sign vectors
// reach |mean(d)|, so p = 2/2^6 = 0.03125 (computed by hand); when a single
// query changes, every sign vector reaches it and p = 1.
func TestVerdicts(t *testing.T) {
	ones := scores(1, 1, 1, 1, 1, 1)
	halves := scores(0.5, 0.5, 0.5, 0.5, 0.5, 0.5)
	oneDown := scores(1, 1, 1, 1, 1, 0.9) // mean drop 0.1/6 = 0.016667, p = 1
	cases := []struct {
		name     string
		cell     Cell
		opt      Options
		verdict  Verdict
		p        float64
		reason   string
		regresed bool
	}{
		{"significant drop", cell("doc/bm25", ones, halves), Options{}, Regressed, 0.03125, "significant", true},
		{"significant rise never fails", cell("doc/bm25", halves, ones), Options{}, Improved, 0.03125, "significant", false},
		{"same run", cell("doc/bm25", ones, ones), Options{}, Identical, 1, "", false},
		{"noise", cell("doc/bm25", ones, oneDown), Options{}, NoEvidence, 1, "", false},
		{"drop above max-drop", cell("doc/bm25", ones, oneDown), Options{UseMaxDrop: true, MaxDrop: 0.01}, Regressed, 1, "drop 0.0167 > max-drop 0.01", true},
		{"drop below max-drop", cell("doc/bm25", ones, oneDown), Options{UseMaxDrop: true, MaxDrop: 0.02}, NoEvidence, 1, "", false},
		{"alpha below p", cell("doc/bm25", ones, halves), Options{Alpha: 0.01}, NoEvidence, 0.03125, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Compare(Input{Metrics: []string{"ndcg@10"}, Cells: []Cell{c.cell}}, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			got := res.Comparisons[0]
			if got.Verdict != c.verdict || math.Abs(got.PAdjusted-c.p) > 1e-12 || got.Reason != c.reason || res.Regressed() != c.regresed {
				t.Errorf("verdict %s, p %v, reason %q, Regressed %v; want %s, %v, %q, %v", got.Verdict, got.PAdjusted, got.Reason, res.Regressed(), c.verdict, c.p, c.reason, c.regresed)
			}
			if got.N != 6 || res.Queries != 6 {
				t.Errorf("N %d, Queries %d; want 6", got.N, res.Queries)
			}
		})
	}
}

// Holm over the two cells' comparisons: both raw p-values are 0.03125, so
// the smallest is multiplied by 2 (0.0625 > α) and neither regresses —
// the correction covers every cell of the gate, as the report's covers
// every pair.
func TestCorrectionOverCells(t *testing.T) {
	ones := scores(1, 1, 1, 1, 1, 1)
	halves := scores(0.5, 0.5, 0.5, 0.5, 0.5, 0.5)
	in := Input{Metrics: []string{"ndcg@10"}, Cells: []Cell{cell("a", ones, halves), cell("b", ones, halves)}}
	res, err := Compare(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Comparisons {
		if c.P != 0.03125 || c.PAdjusted != 0.0625 || c.Verdict != NoEvidence {
			t.Errorf("%s: p %v, adjusted %v, %s; want 0.03125, 0.0625 (Holm ×2), no evidence either way", c.Cell, c.P, c.PAdjusted, c.Verdict)
		}
	}
	res, err = Compare(in, Options{Correction: "none"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Regressed() || len(res.RegressedCells()) != 2 {
		t.Errorf("without correction both cells should regress, got %v", res.RegressedCells())
	}
}

// The shared queries only are compared; the queries that changed most are
// ordered by their change, at most Changed each way, unchanged ones never.
func TestSharedQueriesAndChanges(t *testing.T) {
	base := scores(1, 1, 1, 1, 0.2, 0.5, 0.5)
	cur := scores(0, 0.5, 0.9, 1, 0.8, 0.6)
	delete(cur, "q4") // q4 in the baseline only; q7 too (cur has 6)
	cur["q9"] = 1     // q9 in this run only
	res, err := Compare(Input{Metrics: []string{"ndcg@10"}, Cells: []Cell{cell("c", base, cur)},
		Texts: map[string]string{"q1": "first"}}, Options{Changed: 2})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Comparisons[0]
	if c.N != 5 || math.Abs(c.Baseline-3.7/5) > 1e-12 || math.Abs(c.Current-2.8/5) > 1e-12 {
		t.Errorf("N %d, means %v → %v; want 5 shared, 0.74 → 0.56", c.N, c.Baseline, c.Current)
	}
	ch := res.Changes[0]
	ids := func(qs []QueryChange) string {
		var s []string
		for _, q := range qs {
			s = append(s, q.QueryID+":"+q.Text)
		}
		return strings.Join(s, ",")
	}
	if got := ids(ch.Worse); got != "q1:first,q2:" {
		t.Errorf("worse %s; want q1:first,q2:", got)
	}
	if got := ids(ch.Better); got != "q5:,q6:" {
		t.Errorf("better %s; want q5:,q6:", got)
	}
	if len(res.Notes) != 2 || !strings.Contains(res.Notes[0], "3 queries are scored in one run only") || res.Notes[1] != "Warning: ndcg@10: only 5 queries (fewer than 20): indicative only." {
		t.Errorf("notes %q; want one saying 3 queries are left out, one that 5 are few", res.Notes)
	}
}

func TestCompareErrors(t *testing.T) {
	ok := cell("c", scores(1, 0), scores(0, 1))
	nan := cell("c", scores(1, math.NaN()), scores(0, 1))
	for _, c := range []struct {
		name string
		in   Input
		opt  Options
		want string
	}{
		{"no metric", Input{Cells: []Cell{ok}}, Options{}, "no metric"},
		{"no cell", Input{Metrics: []string{"ndcg@10"}}, Options{}, "no cell is present in both"},
		{"missing metric", Input{Metrics: []string{"recall@100"}, Cells: []Cell{ok}}, Options{}, "cell c: the baseline has no recall@100"},
		{"nan", Input{Metrics: []string{"ndcg@10"}, Cells: []Cell{nan}}, Options{}, `query "q2"`},
		{"disjoint", Input{Metrics: []string{"ndcg@10"}, Cells: []Cell{cell("c", map[string]float64{"a": 1}, map[string]float64{"b": 1})}}, Options{}, "no query is scored in both"},
		{"negative max-drop", Input{Metrics: []string{"ndcg@10"}, Cells: []Cell{ok}}, Options{UseMaxDrop: true, MaxDrop: -1}, "max-drop must be a finite number ≥ 0"},
		{"infinite max-drop", Input{Metrics: []string{"ndcg@10"}, Cells: []Cell{ok}}, Options{UseMaxDrop: true, MaxDrop: math.Inf(1)}, "max-drop must be a finite number ≥ 0"},
		{"NaN max-drop", Input{Metrics: []string{"ndcg@10"}, Cells: []Cell{ok}}, Options{UseMaxDrop: true, MaxDrop: math.NaN()}, "max-drop must be a finite number ≥ 0"},
	} {
		_, err := Compare(c.in, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v; want one containing %q", c.name, err, c.want)
		}
	}
}

// TestMarkdownGolden: the summary of a regression, with user strings that
// would break a table or inject HTML, against testdata/summary.md.golden
// (go test ./gate -update rewrites it; read the diff). Its numbers, by hand:
// d = (−.5 ×5, 0), mean −0.41667; exact sign-flip p = 4/64 = 0.0625 (the
// five equal differences all of one sign, the zero either way), Holm over
// the 2 cells 0.125: not significant, yet a drop above max-drop 0.05. The
// interval is compare's paired bootstrap BCa (checked against scipy by
// stats' TestReferences); its bounds lie on the lattice of resampled
// means, −0.5·k/6: [−0.5000, −0.1667].
func TestMarkdownGolden(t *testing.T) {
	ones := scores(1, 1, 1, 1, 1, 1)
	halves := scores(0.5, 0.5, 0.5, 0.5, 0.5, 1)
	in := Input{
		Metrics:      []string{"ndcg@10"},
		Cells:        []Cell{cell("doc/bm25|x", ones, halves), cell("fixed-4o1/rrf", halves, ones)},
		OnlyBaseline: []string{"doc/old"},
		OnlyCurrent:  []string{"doc/<new>"},
		Texts:        map[string]string{"q1": "what is <script>alert(1)</script> | a pipe?", "q6": "line\nbreak"},
		Baseline:     "main/results.json @ 0123456789ab",
		Current:      "results/small/results.json",
	}
	res, err := Compare(in, Options{UseMaxDrop: true, MaxDrop: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := res.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "summary.md.golden")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("summary differs from %s (-update rewrites it):\n%s", golden, b.String())
	}
	for _, bad := range []string{"<script>", "<new>", "| doc/bm25|x |"} {
		if strings.Contains(b.String(), bad) {
			t.Errorf("summary holds unescaped %q", bad)
		}
	}
}

// TestMarkdownChangesOfRegressedMetric: when only the second gated metric
// regressed, the collapsed block lists the queries that changed on it (and
// says it regressed), not on the first metric.
func TestMarkdownChangesOfRegressedMetric(t *testing.T) {
	ones := scores(1, 1, 1, 1, 1, 1)
	halves := scores(0.5, 0.5, 0.5, 0.5, 0.5, 0.5)
	ndcgBase := scores(0.3, 0.3, 0.3, 0.3, 0.3, 0.3)
	ndcgCur := scores(0.3, 0.3, 0.3, 0.3, 0.3, 0.2) // q6 falls, not significantly
	c := Cell{Name: "doc/bm25",
		Baseline: map[string]map[string]float64{"ndcg@10": ndcgBase, "recall@100": ones},
		Current:  map[string]map[string]float64{"ndcg@10": ndcgCur, "recall@100": halves}}
	res, err := Compare(Input{Metrics: []string{"ndcg@10", "recall@100"}, Cells: []Cell{c}}, Options{UseMaxDrop: true, MaxDrop: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.RegressedCells(); len(got) != 1 || got[0] != "doc/bm25 (recall@100)" {
		t.Fatalf("regressed %v; want only doc/bm25 (recall@100)", got)
	}
	var b bytes.Buffer
	if err := res.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	if !strings.Contains(s, "the queries that changed most on recall@100 (regressed)") {
		t.Errorf("summary lacks the recall@100 changes:\n%s", s)
	}
	if strings.Contains(s, "changed most on ndcg@10") {
		t.Errorf("summary lists the ndcg@10 changes, which did not regress:\n%s", s)
	}
}

// TestEscapeRule: the summary's escape is texttab.Escape, the one rule,
// and writes every string as the gate's former rule did — & < > as
// entities; | \ ` * [ ] with a backslash; CRLF, LF and CR as a space — on
// each special character alone, in pairs and in longer strings; it now
// escapes too an _ at a word's edge (it could open emphasis), ~ and a
// leading block marker (texttab's TestEscapeRenders and FuzzEscape).
func TestEscapeRule(t *testing.T) {
	former := strings.NewReplacer(
		"&", "&amp;", "<", "&lt;", ">", "&gt;", "|", "\\|", "\\", "\\\\",
		"`", "\\`", "*", "\\*", "[", "\\[", "]", "\\]",
		"\r\n", " ", "\n", " ", "\r", " ",
	)
	special := []string{"&", "<", ">", "|", "\\", "`", "*", "[", "]", "\r\n", "\n", "\r", "a", "é", "&amp;", "\\|"}
	var cases []string
	for _, a := range special {
		for _, b := range special {
			cases = append(cases, a+b, "x"+a+"y"+b+"z")
		}
	}
	cases = append(cases, "what is <script>alert(1)</script> | a pipe?", "doc/bm25|x", "[link](javascript:x) **b** `c`\r\nd", "hit_rate@10")
	for _, c := range cases {
		if got, want := esc(c), former.Replace(c); got != want || got != texttab.Escape(c) {
			t.Errorf("esc(%q) = %q, want %q", c, got, want)
		}
	}
	if got := esc("_em_ a_b"); got != "\\_em\\_ a_b" {
		t.Errorf("esc(_em_ a_b) = %q", got)
	}
}

// TestIdenticalNotCounted: cells whose per-query scores equal the
// baseline's are "unchanged (identical)", with no corrected p, and left
// out of the correction: the one changed cell (d = −0.5 on all 6 queries,
// exact p = 2/2^6 = 0.03125 by hand) is corrected over 1 comparison, not 3
// (0.09375 > α), and regresses.
func TestIdenticalNotCounted(t *testing.T) {
	ones := scores(1, 1, 1, 1, 1, 1)
	halves := scores(0.5, 0.5, 0.5, 0.5, 0.5, 0.5)
	in := Input{Metrics: []string{"ndcg@10"}, Cells: []Cell{cell("a", ones, ones), cell("b", halves, halves), cell("c", ones, halves)}}
	res, err := Compare(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Counted != 1 || res.Identical != 2 {
		t.Errorf("counted %d, identical %d; want 1, 2", res.Counted, res.Identical)
	}
	for i, want := range []Verdict{Identical, Identical, Regressed} {
		c := res.Comparisons[i]
		if c.Verdict != want || c.Counted != (want == Regressed) {
			t.Errorf("%s: %s, counted %v; want %s", c.Cell, c.Verdict, c.Counted, want)
		}
	}
	if c := res.Comparisons[2]; c.P != 0.03125 || c.PAdjusted != 0.03125 || !c.CIDefined || c.CILow != -0.5 || c.CIHigh != -0.5 {
		t.Errorf("changed cell: p %v, adjusted %v, CI [%v, %v] defined %v; want 0.03125 twice and the point [−0.5, −0.5]", c.P, c.PAdjusted, c.CILow, c.CIHigh, c.CIDefined)
	}
	var b bytes.Buffer
	if err := res.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Gate plan (decides the exit code): each cell against its baseline counterpart: 3 comparisons × 1 metric = 3; 2 identical (same score on every query) reported as unchanged and not counted, 1 counted.",
		"Holm–Bonferroni over 1 counted comparison, α = 0.05",
		"| a | ndcg@10 | 1.0000 | 1.0000 | +0.0000 [+0.0000, +0.0000] | – | unchanged (identical) |",
		"| c | ndcg@10 | 1.0000 | 0.5000 | −0.5000 [−0.5000, −0.5000] | 0.0312 | **regressed** |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}

// TestEquivalence: with a margin δ = 0.1, a cell whose differences are
// ±0.01 around 0 is shown "equivalent within ±0.1" (both one-sided t-tests
// reject: t = 0.1/(sd/√6) = 22.36 with sd 0.010954, p = 1.6618327e-6 —
// statsmodels' ttost_paired([0.51, 0.49]×3, [0.5]×6, −0.1, 0.1); the
// interval lies within ±0.01); without a margin it is "no evidence either
// way".
func TestEquivalence(t *testing.T) {
	base := scores(0.5, 0.5, 0.5, 0.5, 0.5, 0.5)
	cur := scores(0.51, 0.49, 0.51, 0.49, 0.51, 0.49)
	in := Input{Metrics: []string{"ndcg@10"}, Cells: []Cell{cell("doc/bm25", base, cur)}}
	for _, c := range []struct {
		margin float64
		want   string
	}{{0.1, "equivalent within ±0.1"}, {0, "no evidence either way"}} {
		res, err := Compare(in, Options{Equivalence: c.margin})
		if err != nil {
			t.Fatal(err)
		}
		got := res.Comparisons[0]
		if res.VerdictText(got) != c.want || res.Regressed() {
			t.Errorf("margin %g: %q, regressed %v; want %q", c.margin, res.VerdictText(got), res.Regressed(), c.want)
		}
		if c.margin > 0 && math.Abs(got.PEquivalence-1.6618327180126087e-06) > 1e-12 {
			t.Errorf("margin %g: TOST p %v, want statsmodels' 1.6618327e-6", c.margin, got.PEquivalence)
		}
	}
}

// TestGateIsCompare: the gate is compare's one loop — its p-values and
// intervals are those of compare.Compare under the baseline plan for the
// same systems (the seeding the package comment documents: the pair's
// names), whatever GOMAXPROCS.
func TestGateIsCompare(t *testing.T) {
	base := map[string]float64{}
	a, b := map[string]float64{}, map[string]float64{}
	for i := range 40 {
		q := fmt.Sprintf("q%02d", i)
		base[q] = float64(i%7) / 7
		a[q] = float64((i*3)%7) / 7
		b[q] = float64((i*5+1)%7) / 7
	}
	m := func(x map[string]float64) map[string]map[string]float64 {
		return map[string]map[string]float64{"ndcg@10": x}
	}
	in := Input{Metrics: []string{"ndcg@10"}, Unit: "run", Cells: []Cell{{Name: "a", From: "main", Baseline: m(base), Current: m(a)}, {Name: "b", From: "main", Baseline: m(base), Current: m(b)}}}
	rep, err := compare.Compare(compare.Input{Systems: []string{"main", "a", "b"}, Metrics: []string{"ndcg@10"}, Scores: compare.Scores{"main": m(base), "a": m(a), "b": m(b)}},
		compare.Options{Seed: 7, Plan: compare.Plan{Kind: compare.VsBaseline, Baseline: "main"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, procs := range []int{1, 2, 8} {
		old := runtime.GOMAXPROCS(procs)
		res, err := Compare(in, Options{Seed: 7})
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range res.Comparisons {
			p := rep.Pairs[i]
			if c.P != p.P || c.PAdjusted != p.PAdjusted || c.CILow != p.CI.Low || c.CIHigh != p.CI.High {
				t.Errorf("GOMAXPROCS %d, %s: p %v/%v CI [%v, %v]; compare: %v/%v [%v, %v]", procs, c.Cell, c.P, c.PAdjusted, c.CILow, c.CIHigh, p.P, p.PAdjusted, p.CI.Low, p.CI.High)
			}
		}
	}
}

// TestUncompared: cells only in the baseline and only in this run (a
// changed chunking) are named with the --gate-map that would compare
// them; a cell only added or only dropped is no change to gate.
func TestUncompared(t *testing.T) {
	for _, c := range []struct {
		base, cur []string
		want      string
	}{
		{[]string{"recursive-300/bm25"}, []string{"recursive-200/bm25"}, "--gate-map recursive-300=recursive-200 (docs/ci.md)"},
		{[]string{"fixed-128/bm25", "fixed-128/dense"}, []string{"fixed-256/bm25", "fixed-256/dense"}, "add --gate-map fixed-128=fixed-256 (docs/ci.md)"},
		{[]string{"doc/old"}, []string{"doc/new"}, "add --gate-map doc/old=doc/new (docs/ci.md)"},
		{[]string{"a/x", "b/y"}, []string{"c/z"}, "add --gate-map OLD=NEW (docs/ci.md)"},
		{nil, []string{"recursive-200/bm25"}, ""},
		{[]string{"recursive-300/bm25"}, nil, ""},
	} {
		got := Input{OnlyBaseline: c.base, OnlyCurrent: c.cur}.Uncompared()
		if c.want == "" && got != "" || !strings.HasSuffix(got, c.want) {
			t.Errorf("%v → %v: %q, want … %q", c.base, c.cur, got, c.want)
		}
	}
}
