package stats_test

import (
	"fmt"

	"github.com/ragbench/ragbench/stats"
)

// ExamplePaired compares two systems on the same four queries. The
// differences are d = 0.1, 0.2, 0.3, 0.4 (A − B). The reference values are
// computed by hand:
//   - randomization test, exact over the 2^4 = 16 sign vectors: only the
//     two with all signs equal reach |mean(d*)| ≥ mean(d) = 0.25, p = 2/16;
//   - t-test: t = 0.25 / (0.1291/√4) = 3.8730 with 3 degrees of freedom,
//     p = 0.0305 from Student's t CDF in closed form for ν = 3,
//     1/2 + (1/π)(t/(√3(1 + t²/3)) + atan(t/√3));
//   - sign test: 4 wins of 4, p = 2 · (1/2)^4.
func ExamplePaired() {
	s := stats.Sample{
		QueryIDs: []string{"q1", "q2", "q3", "q4"},
		A:        []float64{0.5, 0.7, 0.9, 1.0},
		B:        []float64{0.4, 0.5, 0.6, 0.6},
	}
	for _, test := range []stats.Test{stats.Randomization, stats.TTest, stats.Sign} {
		r, err := stats.Paired(test, s, stats.Options{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: mean A %.3f, mean B %.3f, statistic %.4f, p = %.4f, exact %v\n",
			test, r.MeanA, r.MeanB, r.Statistic, r.P, r.Exact)
	}
	// Output:
	// randomization: mean A 0.775, mean B 0.525, statistic 0.2500, p = 0.1250, exact true
	// t: mean A 0.775, mean B 0.525, statistic 3.8730, p = 0.0305, exact true
	// sign: mean A 0.775, mean B 0.525, statistic 4.0000, p = 0.1250, exact true
}

// ExampleAdjust corrects three p-values for multiple comparisons with Holm
// (Holm 1979): sorted p(1) ≤ p(2) ≤ p(3) become max over i' ≤ i of
// (m − i' + 1)·p(i'), capped at 1: 0.01, 0.03, 0.04 give 3·0.01 = 0.03,
// 2·0.03 = 0.06 and max(0.06, 1·0.04) = 0.06, reported in the input order.
func ExampleAdjust() {
	adj, err := stats.Adjust([]float64{0.04, 0.01, 0.03}, stats.Holm)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.2f\n", adj)
	// Output: [0.06 0.03 0.06]
}
