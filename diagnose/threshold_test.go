package diagnose

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/ragbench/ragbench/eval"
)

var approx = cmpopts.EquateApprox(0, 1e-12)

func TestThresholdFixture(t *testing.T) {
	rep, err := Threshold(fixtureRun(), fixtureQrels(), ThresholdOptions{Depth: 2, Bins: 2})
	if err != nil {
		t.Fatal(err)
	}
	// Answerable top-1 scores, sorted: .4 .7 .8 .9 (q7 has none); type-7
	// quantiles with h = 3p:
	//   p10: h=.3   → .4 + .3·.3  = .49     p25: h=.75 → .4 + .75·.3 = .625
	//   p50: h=1.5  → .7 + .5·.1  = .75     p75: h=2.25 → .8 + .25·.1 = .825
	//   p90: h=2.7  → .8 + .7·.1  = .87
	// Unanswerable: .3 .5, h = p:  p10 .32, p25 .35, p50 .4, p75 .45, p90 .48.
	wantA := ScoreSummary{Queries: 5, Scored: 4, Min: .4, P10: .49, P25: .625, Median: .75, P75: .825, P90: .87, Max: .9}
	wantU := ScoreSummary{Queries: 2, Scored: 2, Min: .3, P10: .32, P25: .35, Median: .4, P75: .45, P90: .48, Max: .5}
	opts := cmp.Options{approx, cmpopts.IgnoreUnexported(ScoreSummary{})}
	if diff := cmp.Diff(wantA, rep.Answerable, opts); diff != "" {
		t.Errorf("answerable summary (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantU, rep.Unanswerable, opts); diff != "" {
		t.Errorf("unanswerable summary (-want +got):\n%s", diff)
	}
	// A query returns nothing when it has no result or top-1 < t.
	// Answerable with gold in top 2: q1 (.9), q3 (.4), q4 (.7); q2 (.8) and
	// q7 (no result) have none to lose. 5 answerable, 2 unanswerable.
	//   t    unanswerable silenced   answerable silenced   gold lost       J
	//   .3   none          0/2       q7          1/5       none   0/5      0
	//   .4   q6            1/2       q7          1/5       none   0/5      .5
	//   .5   q6            1/2       q7 q3       2/5       q3     1/5      .3
	//   .7   q6 q5         2/2       q7 q3       2/5       q3     1/5      .8  ← best
	//   .8   q6 q5         2/2       q7 q3 q4    3/5       q3 q4  2/5      .6
	//   .9   q6 q5         2/2       q7 q3 q4 q2 4/5       q3 q4  2/5      .6
	wantCurve := []ThresholdPoint{
		{Threshold: .3, UnanswerableAbstained: 0, AnswerableAbstained: .2, AnswerableLostGold: 0, J: 0},
		{Threshold: .4, UnanswerableAbstained: .5, AnswerableAbstained: .2, AnswerableLostGold: 0, J: .5},
		{Threshold: .5, UnanswerableAbstained: .5, AnswerableAbstained: .4, AnswerableLostGold: .2, J: .3},
		{Threshold: .7, UnanswerableAbstained: 1, AnswerableAbstained: .4, AnswerableLostGold: .2, J: .8},
		{Threshold: .8, UnanswerableAbstained: 1, AnswerableAbstained: .6, AnswerableLostGold: .4, J: .6},
		{Threshold: .9, UnanswerableAbstained: 1, AnswerableAbstained: .8, AnswerableLostGold: .4, J: .6},
	}
	if diff := cmp.Diff(wantCurve, rep.Curve, approx); diff != "" {
		t.Errorf("curve (-want +got):\n%s", diff)
	}
	if rep.Suggested == nil || rep.Suggested.Threshold != .7 {
		t.Errorf("suggested = %+v, want threshold .7", rep.Suggested)
	}
	if rep.NotInQrels != 1 {
		t.Errorf("NotInQrels = %d, want 1 (q8)", rep.NotInQrels)
	}
	// Two bins over [.3, .9]: [.3, .6) holds answerable .4 and unanswerable
	// .3 .5; [.6, .9] holds answerable .7 .8 .9.
	wantH := Histogram{Edges: []float64{.3, .6, .9}, Answerable: []int{1, 3}, Unanswerable: []int{2, 0}}
	if diff := cmp.Diff(wantH, rep.Histogram, approx); diff != "" {
		t.Errorf("histogram (-want +got):\n%s", diff)
	}
}

func TestThresholdTiesGoToLowerThreshold(t *testing.T) {
	// a: answerable, top-1 .5 but its gold is at rank 3 (outside depth 2);
	// u: unanswerable, top-1 .7. Candidates .5 and .7 both give J = 0:
	// at .5 nothing is silenced; at .7 only a, which had no gold to lose.
	qrels := eval.Qrels{"a": {"g": 1}, "u": {}}
	run := eval.Run{"a": {r("x", .5), r("y", .4), r("g", .3)}, "u": {r("z", .7)}}
	rep, err := Threshold(run, qrels, ThresholdOptions{Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Suggested == nil || rep.Suggested.Threshold != .5 || rep.Suggested.J != 0 {
		t.Errorf("suggested = %+v, want threshold .5 with J 0", rep.Suggested)
	}
}

func TestThresholdNoUnanswerable(t *testing.T) {
	qrels := eval.Qrels{"a": {"g": 1}}
	rep, err := Threshold(eval.Run{"a": {r("g", 1)}}, qrels, ThresholdOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Suggested != nil {
		t.Errorf("suggested = %+v, want none", rep.Suggested)
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "no unanswerable query") {
		t.Errorf("warnings = %q", rep.Warnings)
	}
	if rep.Depth != DefaultDepth || !math.IsNaN(rep.Unanswerable.Median) {
		t.Errorf("depth %d median %v, want default depth and NaN", rep.Depth, rep.Unanswerable.Median)
	}
}

func TestThresholdErrors(t *testing.T) {
	if _, err := Threshold(nil, nil, ThresholdOptions{Depth: -1}); err == nil {
		t.Error("negative depth accepted")
	}
	run := eval.Run{"q": {r("d", math.NaN())}}
	_, err := Threshold(run, eval.Qrels{"q": {"d": 1}}, ThresholdOptions{})
	if err == nil || !strings.Contains(err.Error(), `query "q": doc "d": score NaN is not finite`) {
		t.Errorf("err = %v, want a NaN score error naming query and doc", err)
	}
}

func TestWithQueries(t *testing.T) {
	q := WithQueries(eval.Qrels{"a": {"d": 1}}, []string{"a", "b"})
	if len(q) != 2 || q["a"]["d"] != 1 || q["b"] == nil || len(q["b"]) != 0 {
		t.Errorf("WithQueries = %v", q)
	}
}
