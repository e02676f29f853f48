package spans

import (
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbench/ragbench/eval"
)

// TestSliceMeansAndMisses, by hand: chunks a=[0,10), b=[10,20). q1 (slice
// x): G = [0,10), run b, a. q2 (slice x): G = [12,18), run a. q3 (slice y):
// unanswerable. At k=1: q1's b holds none of [0,10): miss; q2's a holds
// none of [12,18): miss. span_hit_rate@1 of slice x = 0; span_recall@2 of
// slice x = (1 + 0)/2; slice y averages no query: NaN, 1 row.
func TestSliceMeansAndMisses(t *testing.T) {
	ch := &Chunking{IDs: []string{"a", "b"}, Intervals: map[string]Interval{"a": iv(0, 10), "b": iv(10, 20)}}
	qs := []Query{
		{ID: "q1", Slice: "x", Text: "first", Gold: []Span{{Doc: "d", Start: 0, End: 10, Grade: 1, Text: "0123456789"}}},
		{ID: "q2", Slice: "x", Gold: []Span{{Doc: "d", Start: 12, End: 18, Grade: 1}}},
		{ID: "q3", Slice: "y"},
	}
	run := eval.Run{"q1": {{DocID: "b", Score: 2}, {DocID: "a", Score: 1}}, "q2": {{DocID: "a", Score: 1}}}
	opt := Options{Ks: []int{1, 2}, CoverShare: 0.5}
	e, err := Evaluate(qs, ch, run, opt)
	if err != nil {
		t.Fatal(err)
	}
	meta := Meta(qs)
	if meta["q1"] != (eval.QueryMeta{Text: "first", Slice: "x"}) {
		t.Errorf("meta %+v", meta["q1"])
	}
	sm := e.SliceMeans(meta)
	if len(sm) != 2 || sm[0].Slice != "x" || sm[0].NumQ != 2 || sm[0].Rows != 2 || sm[1].Slice != "y" || sm[1].NumQ != 0 || sm[1].Rows != 1 {
		t.Fatalf("slices %+v", sm)
	}
	at := func(name string) int { return slices.Index(e.Measures, name) }
	if got := sm[0].Means[at("span_hit_rate@1")]; got != 0 {
		t.Errorf("x span_hit_rate@1 = %v", got)
	}
	if got := sm[0].Means[at("span_recall@2")]; got != 0.5 {
		t.Errorf("x span_recall@2 = %v", got)
	}
	if !math.IsNaN(sm[1].Means[0]) {
		t.Errorf("y mean = %v, want NaN", sm[1].Means[0])
	}
	if sm := e.SliceMeans(nil); sm != nil {
		t.Errorf("no slices: %+v", sm)
	}
	ms, err := Misses(qs, ch, run, 1, opt)
	if err != nil {
		t.Fatal(err)
	}
	want := []Miss{{Query: "q1", Span: qs[0].Gold[0], Retrieved: []string{"b"}}, {Query: "q2", Span: qs[1].Gold[0], Retrieved: []string{"a"}}}
	if d := cmp.Diff(want, ms); d != "" {
		t.Error(d)
	}
	if ms, _ := Misses(qs, ch, run, 2, opt); len(ms) != 1 || ms[0].Query != "q2" {
		t.Errorf("k=2 misses %+v", ms)
	}
	if _, err := Misses(qs, ch, run, 0, opt); err == nil {
		t.Error("k=0: no error")
	}
}
