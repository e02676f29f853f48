package spans_test

import (
	"fmt"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/spans"
)

// Example is the worked example of docs/spans.md: a one-file handbook
// (testdata/handbook/policies/leave.md), labels written by hand
// (testdata/handbook-labels.jsonl: one quote pasted, one with offsets), the
// handbook cut by LangChain's recursive splitter at 100 characters, and a
// hand-made run standing in for a retriever.
func Example() {
	docs, err := corpus.Load("testdata/handbook")
	if err != nil {
		fmt.Println(err)
		return
	}
	queries, err := spans.ReadJSONL("testdata/handbook-labels.jsonl", docs)
	if err != nil {
		fmt.Println(err)
		return
	}
	chunks, err := corpus.Spec{Strategy: corpus.Recursive, Size: 100}.Chunk(docs)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range chunks.All() {
		fmt.Printf("%s %q\n", c.ID, c.Text)
	}
	ch, err := spans.NewChunking(docs, chunks)
	if err != nil {
		fmt.Println(err)
		return
	}
	run := eval.Run{
		"carry-over": {{DocID: "policies/leave#1", Score: 0.9}, {DocID: "policies/leave#2", Score: 0.8}},
		"sick-note":  {{DocID: "policies/leave#2", Score: 0.7}, {DocID: "policies/leave#4", Score: 0.6}},
	}
	ev, err := spans.Evaluate(queries, ch, run, spans.Options{Ks: []int{1, 2}, CoverShare: spans.DefaultCoverShare})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range ev.Measures {
		m, _ := ev.Mean(name)
		fmt.Printf("%s %.4f\n", name, m)
	}
	fmt.Println("unanswerable:", ev.Unanswerable)
	qrels, _, _ := spans.Judgements(queries, ch, spans.DefaultCoverShare)
	fmt.Println("judgements:", qrels)
	// The numbers are worked by hand in docs/spans.md.
	// Output:
	// policies/leave#0 "# Leave policy\n\n## Annual leave"
	// policies/leave#1 "Full-time staff get 25 days of annual leave per year. Unused days up to 5 carry over to the next"
	// policies/leave#2 "year; the rest lapse on 31 March."
	// policies/leave#3 "## Sick leave"
	// policies/leave#4 "Tell your manager before 10:00 on the first day. From the fourth day you need a doctor’s note."
	// precision_omega 0.5278
	// token_recall@1 0.2763
	// token_recall@2 0.9934
	// token_precision@1 0.2188
	// token_precision@2 0.4679
	// token_iou@1 0.1615
	// token_iou@2 0.4656
	// span_recall@1 0.5000
	// span_recall@2 1.0000
	// span_hit_rate@1 0.5000
	// span_hit_rate@2 1.0000
	// span_mrr@1 0.5000
	// span_mrr@2 0.7500
	// unanswerable: [parking]
	// judgements: map[carry-over:map[policies/leave#1:1] parking:map[] sick-note:map[policies/leave#4:1]]
}
