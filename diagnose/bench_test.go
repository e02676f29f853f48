package diagnose

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ragbench/ragbench/eval"
)

// synthetic returns n queries with 100 results each (scores rounded to 2
// decimals, so ties are common), one gold doc at a random rank in 1..150
// (so about a third is not retrieved at all), every 10th query unanswerable,
// and a verdict per query.
func synthetic(n int, seed uint64) (eval.Run, eval.Qrels, []Verdict) {
	rng := rand.New(rand.NewPCG(seed, 1))
	run := make(eval.Run, n)
	qrels := make(eval.Qrels, n)
	vs := make([]Verdict, 0, n)
	for i := range n {
		q := fmt.Sprintf("q%06d", i)
		res := make([]eval.Result, 100)
		for j := range res {
			res[j] = eval.Result{DocID: fmt.Sprintf("d%d", rng.IntN(100000)), Score: float64(int(rng.Float64()*1000)) / 100}
		}
		run[q] = res
		if i%10 == 0 {
			qrels[q] = map[string]int{}
		} else {
			gold := fmt.Sprintf("g%d", i)
			if k := rng.IntN(150); k < 100 {
				res[k].DocID = gold
			}
			qrels[q] = map[string]int{gold: 1}
		}
		vs = append(vs, Verdict{QueryID: q, Correct: rng.IntN(2) == 0, Line: i + 1})
	}
	return run, qrels, vs
}

// TestThresholdCurveMatchesBruteForce recomputes every curve point by
// direct counting (the definition) on random data with many ties.
func TestThresholdCurveMatchesBruteForce(t *testing.T) {
	run, qrels, _ := synthetic(400, 7)
	delete(run, "q000011") // a query without results
	rep, err := Threshold(run, qrels, ThresholdOptions{Depth: 5})
	if err != nil {
		t.Fatal(err)
	}
	nA, nU := 0, 0
	for _, j := range qrels {
		if hasGold(j) {
			nA++
		} else {
			nU++
		}
	}
	seen := map[float64]bool{}
	for _, p := range rep.Curve {
		if seen[p.Threshold] {
			t.Fatalf("threshold %v twice", p.Threshold)
		}
		seen[p.Threshold] = true
		var u, lost, ab int
		for q, j := range qrels {
			list := ranked(run[q])
			if len(list) > 0 && list[0].Score >= p.Threshold {
				continue
			}
			switch {
			case !hasGold(j):
				u++
			case goldInTop(list, j, 5):
				lost++
				ab++
			default:
				ab++
			}
		}
		if p.UnanswerableAbstained != float64(u)/float64(nU) || p.AnswerableLostGold != float64(lost)/float64(nA) ||
			p.AnswerableAbstained != float64(ab)/float64(nA) {
			t.Fatalf("t=%v: got %+v, brute force u=%d lost=%d abstained=%d", p.Threshold, p, u, lost, ab)
		}
	}
	for _, res := range run {
		if !seen[ranked(res)[0].Score] {
			t.Fatalf("top-1 score %v is not a candidate", ranked(res)[0].Score)
		}
	}
}

// BenchmarkThreshold: 10,000 queries × 100 results.
func BenchmarkThreshold(b *testing.B) {
	run, qrels, _ := synthetic(10000, 1)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Threshold(run, qrels, ThresholdOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*10000)/b.Elapsed().Seconds(), "queries/s")
}

// BenchmarkAttribute: 10,000 queries × 100 results, one verdict each.
func BenchmarkAttribute(b *testing.B) {
	run, qrels, vs := synthetic(10000, 1)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Attribute(AttributeInput{Run: run, Qrels: qrels, Verdicts: vs}, AttributeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*10000)/b.Elapsed().Seconds(), "queries/s")
}

// TestTopMatchesFullSort checks the partial selection against eval.Sort.
func TestTopMatchesFullSort(t *testing.T) {
	run, _, _ := synthetic(200, 3)
	for q, res := range run {
		for _, k := range []int{1, 2, 6, 100, 150} {
			want := ranked(res)
			want = want[:min(k, len(want))]
			got := top(res, k)
			if len(got) != len(want) {
				t.Fatalf("%s k=%d: %d results, want %d", q, k, len(got), len(want))
			}
			for i := range got {
				if got[i].Score != want[i].Score || got[i].DocID != want[i].DocID {
					t.Fatalf("%s k=%d rank %d: %v, want %v", q, k, i+1, got[i], want[i])
				}
			}
		}
	}
}
