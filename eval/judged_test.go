package eval

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestJudgedIRMeasures: judged@k (judged.k, JudgedShare) equals ir_measures'
// Judged@k, per query and in the mean, on a TREC run with incomplete qrels
// (testdata/judged: a third of what a query retrieves is judged, queries
// shorter than k, a query judged but not retrieved, one retrieved but not
// judged, one judged with grade 0 only). The reference, judged_ref.tsv, is
// ir_measures 0.4.3's own output, written by testdata/judged/gen_judged.py
// (committed, so the test needs no Python). ir_measures averages over the
// qrels' queries, a query missing from the run scoring 0: eval's
// CompleteQueries with AverageUnanswerable.
func TestJudgedIRMeasures(t *testing.T) {
	qrels, run := judgedFixture(t)
	ms, err := ParseMeasures([]string{"judged.1,3,5,10,20"})
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.AverageUnanswerable = true
	e, err := Evaluate(qrels, run, ms, opts)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{} // "q01 Judged@5" → value; "all Judged@5" the mean
	for i, q := range e.Queries {
		for j, m := range e.Measures {
			got[q+" Judged@"+strconv.Itoa(m.K)] = e.Values[i][j]
		}
	}
	for j, m := range e.Measures {
		got["all Judged@"+strconv.Itoa(m.K)] = e.Means[j]
	}
	f, err := os.Open("testdata/judged/judged_ref.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n, short := 0, 0
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		f := strings.Split(sc.Text(), "\t")
		want, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			t.Fatal(err)
		}
		key := f[0] + " " + f[1]
		v, ok := got[key]
		if !ok || math.Abs(v-want) > 1e-12 {
			t.Errorf("%s = %v (present %v), ir_measures %v", key, v, ok, want)
		}
		k, _ := strconv.Atoi(strings.TrimPrefix(f[1], "Judged@"))
		if q := f[0]; q != "all" && len(run[q]) > 0 && len(run[q]) < k {
			short++
		}
		n++
	}
	if n != 60 || short == 0 {
		t.Errorf("%d reference values (want 60), %d of queries shorter than k (want some)", n, short)
	}
}

// judgedFixture reads testdata/judged's qrels and run.
func judgedFixture(t *testing.T) (Qrels, Run) {
	t.Helper()
	qrels, _, err := ReadQrels("testdata/judged/qrels.txt")
	if err != nil {
		t.Fatal(err)
	}
	run, err := ReadRun("testdata/judged/run.trec")
	if err != nil {
		t.Fatal(err)
	}
	return qrels, run
}

// TestCondense: Condense is -J's rule as a run: scoring the condensed run
// equals scoring the run with Options.JudgedOnly.
func TestCondense(t *testing.T) {
	qrels, run := judgedFixture(t)
	ms, err := ParseMeasures([]string{"P.5", "ndcg_cut.10", "map", "recall.10", "judged.5"})
	if err != nil {
		t.Fatal(err)
	}
	j := TrecEvalOptions()
	j.JudgedOnly = true
	want, err := Evaluate(qrels, run, ms, j)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Evaluate(qrels, Condense(qrels, run), ms, TrecEvalOptions())
	if err != nil {
		t.Fatal(err)
	}
	for i := range want.Means {
		if math.Abs(want.Means[i]-got.Means[i]) > 1e-12 {
			t.Errorf("%s: -J %v, condensed %v", ms[i].Name, want.Means[i], got.Means[i])
		}
	}
	if got.Means[len(ms)-1] != 1 {
		t.Errorf("judged@5 of a condensed run = %v, want 1", got.Means[len(ms)-1])
	}
}
