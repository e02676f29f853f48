package spans_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/spans"
)

// alternatives loads the worked example of docs/spans.md ("Alternatives"):
// a manual and a FAQ that both say how long a password lasts, one question
// whose labels give the two places as alternatives beside a required pair
// (a rule and its exception), both cut into sentences (sentence-7), and a
// run that returns the FAQ's answer first and the manual's fourth.
func alternatives(t testing.TB) ([]spans.Query, *spans.Chunking, eval.Run) {
	docs, err := corpus.Load("testdata/alternatives/corpus")
	if err != nil {
		t.Fatal(err)
	}
	qs, err := spans.ReadJSONL("testdata/alternatives/labels.jsonl", docs)
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := corpus.Spec{Strategy: corpus.Sentence, Size: 7}.Chunk(docs)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := spans.NewChunking(docs, chunks)
	if err != nil {
		t.Fatal(err)
	}
	run := eval.Run{"login": {{DocID: "faq#1", Score: 0.9}, {DocID: "faq#0", Score: 0.8}, {DocID: "manual#1", Score: 0.7}, {DocID: "manual#0", Score: 0.6}, {DocID: "manual#2", Score: 0.5}}}
	return qs, ch, run
}

// TestAlternativesWorkedExample checks the numbers docs/spans.md works by
// hand for the alternatives example: three gold passages (the group, R1,
// R2); the run finds the group at rank 1 (faq#1), R1 at 3, the group again
// at 4 (manual#0), R2 at 5. Chunk level: the group's representative is the
// FAQ's answer (covered at rank 1), so faq#1, manual#1 and manual#2 are
// relevant and manual#0 is not judged.
func TestAlternativesWorkedExample(t *testing.T) {
	qs, ch, run := alternatives(t)
	ev, err := spans.Evaluate(qs, ch, run, spans.Options{Ks: []int{1, 3, 5}, CoverShare: spans.DefaultCoverShare})
	if err != nil {
		t.Fatal(err)
	}
	idcg := 1 + 1/math.Log2(3) + 1/math.Log2(4) // three relevant chunks, grade 1
	want := map[string]float64{
		"span_recall@1": 1.0 / 3, "span_recall@3": 2.0 / 3, "span_recall@5": 1,
		"span_hit_rate@1": 1, "span_hit_rate@3": 1, "span_hit_rate@5": 1,
		"span_mrr@5": 1,
		// the group stands for A2 (25 code points) at k = 1 and 3, for A1
		// (31, holding more of the top 5) at k = 5; R1 39, R2 45
		"token_recall@1": 25.0 / 109, "token_recall@3": 64.0 / 109, "token_recall@5": 1,
		"token_precision@1": 25.0 / 28, "token_precision@3": 64.0 / 100, "token_precision@5": 115.0 / 176,
		"precision_omega": 1,
	}
	qrels, err := spans.RunJudgements(qs, ch, run, spans.DefaultCoverShare, eval.TieDocIDDesc)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := eval.ParseMeasures([]string{"recall.1,3,5", "ndcg_cut.1,3,5", "P.5"})
	if err != nil {
		t.Fatal(err)
	}
	chunkLevel, err := eval.Evaluate(qrels, run, ms, eval.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	wantChunk := map[string]float64{
		"recall_1": 1.0 / 3, "recall_3": 2.0 / 3, "recall_5": 1,
		"ndcg_cut_1": 1, "ndcg_cut_3": (1 + 1/math.Log2(4)) / idcg, "ndcg_cut_5": (1 + 1/math.Log2(4) + 1/math.Log2(6)) / idcg,
		"P_5": 3.0 / 5,
	}
	for name, w := range want {
		if got, _ := ev.Mean(name); math.Abs(got-w) > 1e-12 {
			t.Errorf("%s = %.6f, want %.6f", name, got, w)
		}
	}
	for name, w := range wantChunk {
		if got, _ := chunkLevel.Mean(name); math.Abs(got-w) > 1e-12 {
			t.Errorf("chunk-level %s = %.6f, want %.6f", name, got, w)
		}
	}
	if fmt.Sprint(qrels) != "map[login:map[faq#1:1 manual#1:1 manual#2:1]]" {
		t.Errorf("judgements %v", qrels)
	}
	ms2, err := spans.Misses(qs, ch, eval.Run{"login": run["login"][1:3]}, 2, spans.Options{CoverShare: spans.DefaultCoverShare})
	if err != nil || len(ms2) != 2 || ms2[0].Span.Doc != "manual" || len(ms2[0].Alternatives) != 1 || ms2[0].Alternatives[0].Doc != "faq" {
		t.Errorf("misses of faq#0, manual#1: %+v, %v", ms2, err)
	}
	if _, _, err := spans.Judgements(qs, ch, spans.DefaultCoverShare); err == nil {
		t.Error("Judgements of labels with alternatives: no error")
	}
}
