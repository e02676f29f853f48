package diagnose_test

import (
	"fmt"
	"os"

	"github.com/ragbench/ragbench/diagnose"
	"github.com/ragbench/ragbench/eval"
)

// Four answerable questions and one unanswerable one; the prompt holds the
// top 2 passages.
func ExampleAttribute() {
	qrels := eval.Qrels{"a": {"d1": 1}, "b": {"d2": 1}, "c": {"d3": 1}, "d": {"d4": 1}, "u": {}}
	run := eval.Run{
		"a": {{DocID: "d1", Score: 9}, {DocID: "x", Score: 3}},  // gold at rank 1
		"b": {{DocID: "x", Score: 8}, {DocID: "d2", Score: 7}},  // gold at rank 2
		"c": {{DocID: "x", Score: 6}, {DocID: "y", Score: 5}},   // gold not retrieved
		"d": {{DocID: "y", Score: 4}, {DocID: "z", Score: 3.5}}, // gold not retrieved
		"u": {{DocID: "x", Score: 2}},
	}
	verdicts := []diagnose.Verdict{
		{QueryID: "a", Correct: true}, {QueryID: "b", Correct: false},
		{QueryID: "c", Correct: false}, {QueryID: "d", Correct: false},
		{QueryID: "u", Correct: true},
	}
	a, err := diagnose.Attribute(diagnose.AttributeInput{Run: run, Qrels: qrels, Verdicts: verdicts},
		diagnose.AttributeOptions{Depth: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	t := a.Overall
	fmt.Printf("retrieved: %d correct, %d wrong; missed: %d correct, %d wrong\n",
		t.RetrievedCorrect, t.RetrievedWrong, t.MissedCorrect, t.MissedWrong)
	fmt.Printf("hit rate@2 %.2f, accuracy %.2f, P(correct|retrieved) %.2f, P(correct|missed) %.2f\n",
		t.HitRate(), t.Accuracy(), t.PCorrectGivenRetrieved(), t.PCorrectGivenMissed())
	fmt.Println(a.Advice)
	// Output:
	// retrieved: 1 correct, 1 wrong; missed: 0 correct, 2 wrong
	// hit rate@2 0.50, accuracy 0.25, P(correct|retrieved) 0.50, P(correct|missed) 0.00
	// Retrieval misses dominate: 2 of 3 wrong answers (66.7%) had no gold passage in the top 2. Work on retrieval first (recall@2, chunking, the retriever).
}

// Top-1 scores: answerable 9, 8, 6, 4; unanswerable 2 and 5. At threshold
// 6 both unanswerable queries return nothing and so does d, whose gold was
// not in its top 2 anyway: J = 1 − 0 = 1.
func ExampleThreshold() {
	qrels := eval.Qrels{"a": {"d1": 1}, "b": {"d2": 1}, "c": {"d3": 1}, "d": {"d4": 1}, "u": {}, "v": {}}
	run := eval.Run{
		"a": {{DocID: "d1", Score: 9}},
		"b": {{DocID: "d2", Score: 8}},
		"c": {{DocID: "d3", Score: 6}},
		"d": {{DocID: "y", Score: 4}},
		"u": {{DocID: "x", Score: 2}},
		"v": {{DocID: "x", Score: 5}},
	}
	rep, err := diagnose.Threshold(run, qrels, diagnose.ThresholdOptions{Depth: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := rep.Suggested
	fmt.Printf("threshold %g: %.0f%% of unanswerable return nothing, %.0f%% of answerable lose their gold\n",
		s.Threshold, 100*s.UnanswerableAbstained, 100*s.AnswerableLostGold)
	rep.Write(os.Stdout, diagnose.Text)
	// Output:
	// threshold 6: 100% of unanswerable return nothing, 0% of answerable lose their gold
	// Top-1 scores: answerable vs unanswerable queries
	//
	// queries       n  with results  min  p10   p25  median   p75  p90  max
	// answerable    4             4    4  4.6   5.5       7  8.25  8.7    9
	// unanswerable  2             2    2  2.3  2.75     3.5  4.25  4.7    5
	//
	// top-1 score  answerable (4)                     unanswerable (2)
	// [2, 2.7)                             .          ##########              1 (50%)
	// [2.7, 3.4)                           .                                  .
	// [3.4, 4.1)   #####                   1 (25%)                            .
	// [4.1, 4.8)                           .                                  .
	// [4.8, 5.5)                           .          ##########              1 (50%)
	// [5.5, 6.2)   #####                   1 (25%)                            .
	// [6.2, 6.9)                           .                                  .
	// [6.9, 7.6)                           .                                  .
	// [7.6, 8.3)   #####                   1 (25%)                            .
	// [8.3, 9]     #####                   1 (25%)                            .
	//
	// Suggested threshold: return nothing when the top-1 score is below 6. Then 100.0% of unanswerable queries (2/2) correctly return nothing, and 0.0% of answerable queries (0/4) lose a gold doc from their top 2 (25.0% return nothing in all).
	// Rule: among the observed top-1 scores, the threshold maximising Youden's J = (share of unanswerable queries returning nothing) − (share of answerable queries losing their gold); ties go to the lower threshold.
}
