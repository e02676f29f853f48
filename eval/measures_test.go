package eval

import (
	"slices"
	"testing"
)

// TestSplitMeasureList: commas before a letter start a new measure; the
// other commas are trec_eval parameter lists, here those of trec_eval's
// own test command lines (../shared/conformance/README.md, replayed by
// cmd/bench's TestTrecEvalConformance).
func TestSplitMeasureList(t *testing.T) {
	for in, want := range map[string][]string{
		"ndcg@10,recall@100":                 {"ndcg@10", "recall@100"},
		"map ndcg@10":                        {"map", "ndcg@10"},
		"P.5,7,3":                            {"P.5,7,3"},
		"utility.2,-1,0,0":                   {"utility.2,-1,0,0"},
		"iprec_at_recall..10,.20,.25":        {"iprec_at_recall..10,.20,.25"},
		"ndcg.1=3,2=9,4=4.5,map":             {"ndcg.1=3,2=9,4=4.5", "map"},
		"Rprec_mult.5.0,0.2,0.35,P.5,10 mrr": {"Rprec_mult.5.0,0.2,0.35", "P.5,10", "mrr"},
		"ndcg@10,":                           {"ndcg@10,"},
		"":                                   nil,
	} {
		if got := SplitMeasureList(in); !slices.Equal(got, want) {
			t.Errorf("SplitMeasureList(%q) = %q, want %q", in, got, want)
		}
	}
}
