package diagnose

import "github.com/ragbench/ragbench/eval"

// The shared fixture, small enough to work every number out by hand.
//
//	query  qrels (grade)     slice         run (doc score), trec_eval order   top-1  gold in top 2?
//	q1     d1:1              fact          d1 .9, dx .5                       .9     yes (rank 1)
//	q2     d2:1 d3:1         fact          dx .8, dy .7, d3 .6                .8     no  (rank 3)
//	q3     d4:1              multi-hop     dz .4, d4 .4 (tie: "dz" > "d4")    .4     yes (rank 2)
//	q4     d5:1              multi-hop     dw .7, d5 .3                       .7     yes (rank 2)
//	q5     (none)            unanswerable  da .5                              .5     -
//	q6     d9:0              unanswerable  d9 .3                              .3     -
//	q7     d7:1              fact          (absent from the run)              -      no
//	q8     (not in qrels)    -             qq .1                              .1     -
//
// q1, q2, q3, q4, q7 are answerable (a grade > 0); q5 and q6 are not.
func fixtureQrels() eval.Qrels {
	return eval.Qrels{
		"q1": {"d1": 1},
		"q2": {"d2": 1, "d3": 1},
		"q3": {"d4": 1},
		"q4": {"d5": 1},
		"q5": {},
		"q6": {"d9": 0},
		"q7": {"d7": 1},
	}
}

func fixtureRun() eval.Run {
	return eval.Run{
		"q1": {r("dx", 0.5), r("d1", 0.9)}, // out of order on purpose: ranking re-sorts
		"q2": {r("dx", 0.8), r("dy", 0.7), r("d3", 0.6)},
		"q3": {r("d4", 0.4), r("dz", 0.4)},
		"q4": {r("dw", 0.7), r("d5", 0.3)},
		"q5": {r("da", 0.5)},
		"q6": {r("d9", 0.3)},
		"q8": {r("qq", 0.1)},
	}
}

func fixtureSlices() map[string]string {
	return map[string]string{
		"q1": "fact", "q2": "fact", "q7": "fact",
		"q3": "multi-hop", "q4": "multi-hop",
		"q5": "unanswerable", "q6": "unanswerable",
	}
}

// r is an eval.Result literal.
func r(doc string, score float64) eval.Result { return eval.Result{DocID: doc, Score: score} }
