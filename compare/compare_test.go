package compare

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/stats"
)

// scipy 1.10.1 values from shared/conformance/stats/paired_tests.json
// (cases n12_clear_win and tiny_n5), copied here so that the test does not
// need shared/.
var (
	n12X = []float64{0.7376, 0.928, 0.843, 0.4576, 0.5101, 0.9115, 0.3037, 0.8749, 0.8579, 0.6276, 0.5121, 0.4949}
	n12Y = []float64{0.1529, 0.267, 0.3027, 0.3321, 0.5973, 0.4756, 0.3733, 0.5934, 0.1292, 0.0961, 0.3675, 0.0264}
	n5X  = []float64{0.5, 0.33, 1.0, 0.0, 0.25}
	n5Y  = []float64{0.25, 0.33, 0.5, 0.0, 0.2}
)

const (
	n12TTestP = 0.0008770532331019117
	n12ExactP = 0.0029296875
	n5TTestP  = 0.17333183168152397
)

func byQuery(prefix string, v []float64) map[string]float64 {
	m := map[string]float64{}
	for i, x := range v {
		m[fmt.Sprintf("%s%02d", prefix, i)] = x
	}
	return m
}

// TestHolmAcrossMetrics: two systems, two metrics carrying the two scipy
// cases; paired t-test p-values 0.000877 and 0.1733; Holm over the 2
// comparisons: 2 × 0.000877 = 0.001754 and max(0.001754, 1 × 0.1733).
func TestHolmAcrossMetrics(t *testing.T) {
	in := Input{
		Systems: []string{"new", "old"},
		Metrics: []string{"m12", "m5"},
		Scores: Scores{
			"new": {"m12": byQuery("q", n12X), "m5": byQuery("q", n5X)},
			"old": {"m12": byQuery("q", n12Y), "m5": byQuery("q", n5Y)},
		},
	}
	r, err := Compare(in, Options{Test: stats.TTest})
	if err != nil {
		t.Fatal(err)
	}
	if r.Comparisons != 2 || len(r.Pairs) != 2 {
		t.Fatalf("comparisons = %d, pairs = %d, want 2", r.Comparisons, len(r.Pairs))
	}
	p12, p5 := r.Pairs[0], r.Pairs[1]
	if p12.Metric != "m12" || p12.A != "new" || p12.B != "old" {
		t.Fatalf("pair order: %+v", p12)
	}
	check := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %.12g, want %.12g", name, got, want)
		}
	}
	check("p m12", p12.P, n12TTestP)
	check("p m5", p5.P, n5TTestP)
	check("p_adj m12", p12.PAdjusted, 2*n12TTestP)
	check("p_adj m5", p5.PAdjusted, n5TTestP)
	if !p12.Significant || p5.Significant {
		t.Errorf("significant = %v, %v; want true, false", p12.Significant, p5.Significant)
	}
	if got := r.beatLetters(0, 0); got != "b" {
		t.Errorf("new beats on m12: %q, want \"b\"", got)
	}
	if got := r.beatLetters(0, 1) + r.beatLetters(1, 0) + r.beatLetters(1, 1); got != "" {
		t.Errorf("unexpected letters %q", got)
	}
	// Default test: exact randomization on n = 12 equals scipy's value.
	r, err = Compare(in, Options{Correction: stats.None})
	if err != nil {
		t.Fatal(err)
	}
	if r.Pairs[0].P != n12ExactP || !r.Pairs[0].Exact {
		t.Errorf("randomization p = %v, want exactly %v", r.Pairs[0].P, n12ExactP)
	}
}

// synthetic returns m systems × n queries: system i scores base + i·step
// + noise, so later systems are better.
func synthetic(m, n int, step float64, seed uint64) Input {
	rng := rand.New(rand.NewPCG(seed, 1))
	in := Input{Metrics: []string{"ndcg@10", "recall@100"}, Scores: Scores{}}
	base := make([]float64, n)
	for q := range base {
		base[q] = rng.Float64() * 0.6
	}
	for i := range m {
		name := fmt.Sprintf("sys%02d", i)
		in.Systems = append(in.Systems, name)
		in.Scores[name] = map[string]map[string]float64{}
		for _, metric := range in.Metrics {
			s := map[string]float64{}
			for q := range n {
				s[fmt.Sprintf("q%04d", q)] = base[q] + float64(i)*step + 0.2*rng.Float64()
			}
			in.Scores[name][metric] = s
		}
	}
	return in
}

// TestDeterminism: the same seed gives byte-identical JSON — p-values and
// every comparison's bootstrap interval (ci_low, ci_high) — whatever
// GOMAXPROCS and the number of workers; another seed changes Monte Carlo p.
func TestDeterminism(t *testing.T) {
	in := synthetic(5, 120, 0.01, 7)
	var outs []string
	for _, tc := range []struct{ procs, workers int }{{1, 1}, {4, 8}, {2, 3}} {
		prev := runtime.GOMAXPROCS(tc.procs)
		for _, test := range []stats.Test{stats.Randomization, stats.Bootstrap, stats.Tukey} {
			r, err := Compare(in, Options{Test: test, Plan: Plan{Kind: AllPairs}, Permutations: 500, Resamples: 1000, Seed: 9, Workers: tc.workers})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := r.Write(&b, JSON); err != nil {
				t.Fatal(err)
			}
			outs = append(outs, b.String())
		}
		runtime.GOMAXPROCS(prev)
	}
	for i := 3; i < len(outs); i++ {
		if outs[i] != outs[i%3] {
			t.Fatalf("output %d differs from output %d with another GOMAXPROCS/workers", i, i%3)
		}
	}
	if !strings.Contains(outs[0], `"ci_method": "bca"`) {
		t.Fatalf("no bootstrap interval in the compared output:\n%s", outs[0])
	}
	r1, _ := Compare(in, Options{Permutations: 500, Seed: 9})
	r2, _ := Compare(in, Options{Permutations: 500, Seed: 10})
	same := true
	for i := range r1.Pairs {
		same = same && r1.Pairs[i].P == r2.Pairs[i].P
	}
	if same {
		t.Error("seeds 9 and 10 gave identical Monte Carlo p-values for every pair")
	}
}

func TestBaselineAndLetters(t *testing.T) {
	in := synthetic(4, 200, 0.1, 3)
	r, err := Compare(in, Options{Baseline: "sys01", Permutations: 999, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Comparisons != 3*2 {
		t.Fatalf("baseline mode: %d comparisons, want 3 pairs × 2 metrics", r.Comparisons)
	}
	for _, p := range r.Pairs {
		if p.A != "sys01" || p.B == "sys01" {
			t.Errorf("baseline pair %s vs %s: want baseline as A", p.A, p.B)
		}
		// Differences of 0.1 or more per query on 200 queries: p = 1/1000
		// for each, Holm-adjusted ≤ 6/1000.
		if !p.Significant {
			t.Errorf("%s vs %s on %s: p = %v adj %v not significant", p.A, p.B, p.Metric, p.P, p.PAdjusted)
		}
	}
	// sys02 and sys03 beat the baseline (letter b); sys01 beats sys00 (a).
	want := []string{"", "a", "b", "b"}
	for s := range want {
		if got := r.beatLetters(s, 0); got != want[s] {
			t.Errorf("%s letters = %q, want %q", r.Systems[s], got, want[s])
		}
	}
	r, err = Compare(in, Options{Permutations: 999, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Comparisons != 6*2 {
		t.Fatalf("all pairs: %d comparisons, want 6 × 2", r.Comparisons)
	}
	if got := r.beatLetters(3, 1); got != "abc" {
		t.Errorf("best system letters = %q, want \"abc\"", got)
	}
	if _, err := Compare(in, Options{Baseline: "nope"}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown baseline: err = %v", err)
	}
}

func TestMissingQueries(t *testing.T) {
	in := Input{
		Systems: []string{"a", "b"},
		Metrics: []string{"p@1"},
		Scores: Scores{
			"a": {"p@1": {"q1": 1, "q2": 0, "q3": 1}},
			"b": {"p@1": {"q1": 1}},
		},
	}
	_, err := Compare(in, Options{})
	if err == nil || !strings.Contains(err.Error(), "q2, q3") || !strings.Contains(err.Error(), `"b"`) {
		t.Fatalf("missing queries: err = %v, want a list naming q2, q3 and system b", err)
	}
	r, err := Compare(in, Options{MissingAsZero: true})
	if err != nil {
		t.Fatal(err)
	}
	// b scores (1, 0, 0): mean 1/3.
	if math.Abs(r.Means[1][0]-1.0/3) > 1e-15 || len(r.Warnings) == 0 {
		t.Errorf("with -c: mean b = %v (want 1/3), warnings %q", r.Means[1][0], r.Warnings)
	}
	in.Scores["b"]["p@1"]["q2"] = math.NaN()
	if _, err := Compare(in, Options{MissingAsZero: true}); err == nil || !strings.Contains(err.Error(), `"q2"`) {
		t.Errorf("NaN: err = %v, want an error naming q2", err)
	}
	delete(in.Scores, "b")
	if _, err := Compare(in, Options{}); err == nil {
		t.Error("system without scores: want error")
	}
}

// TestMissingQueriesCountedAgainstQueries: with Input.Queries = q1..q3, a
// query that every system lacks (q3) is missing too, and the counts are out
// of the 3 queries, not of the 2 that some system has: b lacks q2 and q3
// ("2 of 3"), a lacks q3 ("1 of 3"). Without Queries the union {q1, q2} is
// all there is ("b" lacks 1 of 2), as before.
func TestMissingQueriesCountedAgainstQueries(t *testing.T) {
	in := Input{
		Systems: []string{"a", "b"},
		Metrics: []string{"p@1"},
		Scores: Scores{
			"a": {"p@1": {"q1": 1, "q2": 1}},
			"b": {"p@1": {"q1": 1}},
		},
		Queries: []string{"q3", "q1", "q2"},
	}
	_, err := Compare(in, Options{})
	for _, want := range []string{`system "a" lacks 1 of 3 queries (q3)`, `system "b" lacks 2 of 3 queries (q2, q3)`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to contain %q", err, want)
		}
	}
	r, err := Compare(in, Options{MissingAsZero: true})
	if err != nil {
		t.Fatal(err)
	}
	// a scores (1, 1, 0): mean 2/3; b (1, 0, 0): mean 1/3; 3 queries.
	if r.Queries[0] != 3 || math.Abs(r.Means[0][0]-2.0/3) > 1e-15 || math.Abs(r.Means[1][0]-1.0/3) > 1e-15 {
		t.Errorf("with -c: queries %d, means %v; want 3, 2/3 and 1/3", r.Queries[0], r.Means)
	}
	wantW := []string{`system "a", metric "p@1": 1 of 3 queries missing, scored 0`, `system "b", metric "p@1": 2 of 3 queries missing, scored 0`,
		`p@1: only 3 queries (fewer than 20): indicative only`}
	if !slices.Equal(r.Warnings, wantW) {
		t.Errorf("warnings %q, want %q", r.Warnings, wantW)
	}
	in.Queries = nil
	if _, err := Compare(in, Options{}); err == nil || !strings.Contains(err.Error(), `system "b" lacks 1 of 2 queries (q2)`) {
		t.Errorf("without Queries: err = %v", err)
	}
	in.Queries = []string{"q1"}
	if _, err := Compare(in, Options{}); err == nil || !strings.Contains(err.Error(), `query "q2" is not one of the 1 queries`) {
		t.Errorf("score outside Queries: err = %v", err)
	}
}

// TestEdgeReports: a single system and identical systems produce a report
// in every format without error.
func TestEdgeReports(t *testing.T) {
	one := synthetic(1, 10, 0, 1)
	r, err := Compare(one, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Pairs) != 0 || len(r.Warnings) == 0 {
		t.Errorf("single system: %d pairs, warnings %q", len(r.Pairs), r.Warnings)
	}
	same := synthetic(1, 10, 0, 1)
	same.Systems = append(same.Systems, "copy")
	same.Scores["copy"] = same.Scores["sys00"]
	for _, test := range stats.Tests {
		r2, err := Compare(same, Options{Test: test, Permutations: 200, Resamples: 1000})
		if err != nil {
			t.Fatalf("%s: %v", test, err)
		}
		for _, p := range r2.Pairs {
			if p.P != 1 || p.PAdjusted != 1 || p.Significant {
				t.Errorf("%s identical systems: p = %v adj = %v", test, p.P, p.PAdjusted)
			}
		}
		for _, rep := range []*Report{r, r2} {
			for _, f := range []Format{Table, Markdown, LaTeX, CSV, JSON} {
				var b bytes.Buffer
				if err := rep.Write(&b, f); err != nil || b.Len() == 0 {
					t.Errorf("%s %s: err %v, %d bytes", test, f, err, b.Len())
				}
			}
		}
	}
}

func TestFormats(t *testing.T) {
	in := synthetic(3, 60, 0.15, 5)
	r, err := Compare(in, Options{Plan: Plan{Kind: AllPairs}, Permutations: 999, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	r.Write(&b, Table)
	txt := b.String()
	for _, want := range []string{"ᵃᵇ", "Holm–Bonferroni over the 6 counted comparisons", "What 60 queries can show in ndcg@10 (α/m = 0.05/6 = 0.008333, 80% power, paired t approximation): minimum detectable difference", "Plan: all pairs: 3 comparisons × 2 metrics = 6.", "paired bootstrap BCa"} {
		if !strings.Contains(txt, want) {
			t.Errorf("table output lacks %q:\n%s", want, txt)
		}
	}
	b.Reset()
	r.Write(&b, Markdown)
	if !strings.Contains(b.String(), "<sup>ab</sup>") || !strings.Contains(b.String(), "|---|---|---:|---:|") {
		t.Errorf("markdown output:\n%s", b.String())
	}
	b.Reset()
	r.Write(&b, LaTeX)
	if !strings.Contains(b.String(), "$^{ab}$") || !strings.Contains(b.String(), `\textbf{`) {
		t.Errorf("latex output:\n%s", b.String())
	}
	b.Reset()
	r.Write(&b, JSON)
	var doc struct {
		Comparisons int                      `json:"comparisons"`
		Pairs       []map[string]interface{} `json:"pairs"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Comparisons != 6 || len(doc.Pairs) != 6 {
		t.Fatalf("json: %d comparisons, %d pairs", doc.Comparisons, len(doc.Pairs))
	}
	for _, k := range []string{"a", "b", "metric", "n", "mean_a", "mean_b", "statistic", "p", "p_adjusted", "significant", "ci_low", "ci_high"} {
		if _, ok := doc.Pairs[0][k]; !ok {
			t.Errorf("json pair lacks %q", k)
		}
	}
	b.Reset()
	r.Write(&b, CSV)
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(recs) != 7 || recs[0][0] != "a" || recs[0][9] != "p_adjusted" {
		t.Errorf("csv: %d records, err %v, header %v", len(recs), err, recs[0])
	}
}

// TestMarkdownPipeInName: a system name holding '|' is escaped in both
// Markdown tables (the pairwise rows used to split it into two columns).
func TestMarkdownPipeInName(t *testing.T) {
	in := Input{Systems: []string{"a|b", "c"}, Metrics: []string{"m"}, Scores: Scores{
		"a|b": {"m": byQuery("q", []float64{1, 0, 1, 1})},
		"c":   {"m": byQuery("q", []float64{0, 0, 1, 0})},
	}}
	r, err := Compare(in, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	r.Write(&b, Markdown)
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(line, "| m |") && !strings.HasPrefix(line, `| m | a\|b | c |`) {
			t.Errorf("pairwise row not escaped: %s", line)
		}
	}
	if !strings.Contains(b.String(), `| m | a\|b | c |`) {
		t.Errorf("no pairwise row for a|b vs c:\n%s", b.String())
	}
}
