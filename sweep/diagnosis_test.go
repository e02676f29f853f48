package sweep

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/kinds"
	"github.com/ragbench/ragbench/results"
	"github.com/ragbench/ragbench/retrievers"
	"github.com/ragbench/ragbench/spans"
)

// TestMissCauses: testdata/misses holds one miss of each cause, built by
// hand (docs/misses.md), diagnosed at k = 1 under fixed-8 with a hand-made
// ranking (depth 5). Document d's chunks are its lines, d#0 … d#6; copy.md
// repeats d#4's line; filler.md's two chunks match nothing.
//
//   - split: "golfer hotel\nindia juliet" (25 code points) ends d#0 (12)
//     and starts d#1 (12; the line break is in no chunk): neither holds
//     half, together 24/25 → boundary split (d#1 at rank 1 does not cover).
//   - mismatch, mismatch2: the passage "the car would not start this cold
//     morning" (terms car, cold, morn, start) shares no term with
//     "automobile ignition failure" or "vehicle stalled" → vocabulary
//     mismatch (mismatch's passage is at rank 2, below k).
//   - dilute: "tango uniform" (13) is held by d#2 (53 code points, 4.08×)
//     at rank 3 → diluted.
//   - dup: copy#0 at rank 1 holds d#4's line exactly (similarity 1) → duplicate.
//   - below: d#5 (the whole passage) at rank 3 → ranked below k.
//   - notret: d#6 is not in the ranking → not retrieved.
//
// The counts sum to the 7 misses, per slice too (plain: split, mismatch,
// mismatch2; lawyer: the rest), and report.md says "most misses … on slice
// plain are vocabulary mismatches: 2 of 3".
func TestMissCauses(t *testing.T) {
	dir := t.TempDir()
	data, err := filepath.Abs("testdata/misses")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "c.yaml")
	cfgText := fmt.Sprintf(`dataset: {corpus: %s, queries: %s, title: false}
chunking:
  - {strategy: fixed, sizes: [8]}
retrievers:
  - {name: hand, type: bm25}
k: [1, 5]
prompt_k: 1
significance: {permutations: 100}
heldout: {fraction: 0}
budget_tokens: [3, 10000]
cover_shares: [0.25, 1]
`, filepath.Join(data, "corpus"), filepath.Join(data, "labels.jsonl"))
	if err := os.WriteFile(p, []byte(cfgText), 0o644); err != nil {
		t.Fatal(err)
	}
	ranked := func(ids ...string) []eval.Result {
		var out []eval.Result
		for i, id := range ids {
			out = append(out, eval.Result{DocID: id, Score: float64(10 - i)})
		}
		return out
	}
	run := eval.Run{
		"split":     ranked("d#1", "filler#0"),
		"mismatch":  ranked("filler#0", "d#3"),
		"mismatch2": ranked("filler#0"),
		"dilute":    ranked("filler#0", "filler#1", "d#2"),
		"dup":       ranked("copy#0", "d#4"),
		"below":     ranked("filler#0", "filler#1", "d#5"),
		"notret":    ranked("filler#0", "filler#1"),
	}
	be := defaultBackend()
	be.wrapSearch = func(c *kinds.Cell, _ kinds.Settings, _ func() (retrievers.Retriever, error)) (retrievers.Retriever, error) {
		return kinds.StaticRetriever{Run: run}, nil
	}
	cfg := loadFixture(t, p)
	res, err := Run(t.Context(), cfg, Options{NoHistory: true, backend: &be})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Cells[0]
	got := map[string]*results.Diagnosis{}
	rows := map[string]results.SpanMiss{}
	for _, m := range c.SpanMisses {
		got[m.QueryID] = m.Diagnosis
		rows[m.QueryID] = m
	}
	want := map[string]string{"split": results.CauseBoundarySplit, "mismatch": results.CauseVocabulary, "mismatch2": results.CauseVocabulary,
		"dilute": results.CauseDiluted, "dup": results.CauseDuplicate, "below": results.CauseRankedBelowK, "notret": results.CauseNotRetrieved}
	if len(got) != len(want) {
		t.Fatalf("%d misses diagnosed, want %d: %v", len(got), len(want), got)
	}
	for q, cause := range want {
		if got[q] == nil || got[q].Cause != cause {
			t.Errorf("query %s: diagnosis %+v, want cause %q", q, got[q], cause)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	if d := got["split"]; d.BestRank != 0 || d.Cover == nil || d.Cover.ID != "d#0" || d.Cover.Share != 12.0/25 || len(d.Split) != 2 ||
		d.Split[0].ID != "d#0" || d.Split[1].ID != "d#1" || d.Split[1].Rank != 1 || d.SplitShare != 24.0/25 {
		t.Errorf("split: %+v, want d#0 (48%%, covering chunk) and d#1 (rank 1, 48%%) holding 96%% together, best rank 0", d)
	}
	if d := got["mismatch"]; d.BestRank != 2 || len(d.SharedTerms) != 0 || !reflect.DeepEqual(d.PassageTerms, []string{"car", "cold", "morn", "start"}) ||
		!reflect.DeepEqual(d.QueryTerms, []string{"automobil", "failur", "ignit"}) {
		t.Errorf("mismatch: %+v", d)
	}
	if d := got["dilute"]; d.BestRank != 3 || d.Cover.ID != "d#2" || d.Cover.Share != 1 || d.Dilution != 53.0/13 {
		t.Errorf("dilute: %+v, want d#2 at rank 3 holding all of it, 53/13 times longer", d)
	}
	if d := got["dup"]; d.Duplicate == nil || d.Duplicate.ID != "copy#0" || d.Duplicate.Rank != 1 || d.Duplicate.Similarity != 1 || d.BestRank != 2 {
		t.Errorf("dup: %+v (duplicate %+v)", d, d.Duplicate)
	}
	if d := got["below"]; d.BestRank != 3 || d.Depth != 5 || d.Dilution != 1 {
		t.Errorf("below: %+v", d)
	}
	if d := got["notret"]; d.BestRank != 0 || d.Cover.ID != "d#6" || d.Cover.Rank != 0 {
		t.Errorf("notret: %+v", d)
	}
	// Snippets and marks: split's passage marks its query terms, its
	// returned d#1 marks the passage's text and the term juliet.
	sp := rows["split"]
	if !reflect.DeepEqual(sp.TextMarks, []results.Mark{{Start: 0, End: 6, Kind: results.MarkTerm}, {Start: 19, End: 25, Kind: results.MarkTerm}}) {
		t.Errorf("split's passage marks %+v", sp.TextMarks)
	}
	if h := sp.Returned[0]; h.ID != "d#1" || h.Snippet != "india juliet kilos limas mikes novembers oscars papas" ||
		!reflect.DeepEqual(h.Marks, []results.Mark{{Start: 0, End: 12, Kind: results.MarkGold}, {Start: 6, End: 12, Kind: results.MarkTerm}}) {
		t.Errorf("split's returned d#1: %+v", h)
	}
	mc := c.MissCauses
	total := 0
	for _, n := range mc.All {
		total += n
	}
	if mc.Missed != 7 || total != 7 || mc.Unit != "gold passage" {
		t.Errorf("miss causes %+v: want 7 misses, the causes summing to them", mc)
	}
	wantSlices := map[string]map[string]int{
		"plain":  {results.CauseBoundarySplit: 1, results.CauseVocabulary: 2},
		"lawyer": {results.CauseDiluted: 1, results.CauseDuplicate: 1, results.CauseRankedBelowK: 1, results.CauseNotRetrieved: 1},
	}
	for s, w := range wantSlices {
		for _, cause := range results.Causes {
			if mc.Slices[s][cause] != w[cause] {
				t.Errorf("slice %s, %s: %d, want %d", s, cause, mc.Slices[s][cause], w[cause])
			}
		}
	}
	// The same cell at other cover shares, by hand: at a quarter, split's
	// d#1 at rank 1 (48% of it) finds it, 1 of 7 passages; at 1, none.
	if cs := c.CoverShares; len(cs) != 2 || cs[0].Means["span_recall@1"] != 1.0/7 || cs[1].Means["span_recall@1"] != 0 {
		t.Errorf("cover shares %+v, want span_recall@1 = 1/7 at 0.25 and 0 at 1", cs)
	}
	// A budget of 10,000 tokens holds every chunk of these rankings (at
	// most 3, well below depth 5): its measures are those at k = 5. A budget
	// of 3 tokens holds one chunk, cut.
	pb := c.PromptBudgets
	if pb == nil || len(pb.Budgets) != 2 || pb.Budgets[0].Chunks != 1 {
		t.Fatalf("prompt budgets %+v, want 2 budgets, one chunk at 3 tokens", pb)
	}
	for _, f := range spans.AtK {
		if g, w := pb.Budgets[1].Means[results.GroupAll][f], c.Means[results.GroupAll][f+"@5"]; g != w {
			t.Errorf("%s at 10,000 tokens %v, want %s@5 = %v", f, g, f, w)
		}
	}
	if res.BudgetVerdict != nil {
		t.Errorf("a verdict %+v with one chunking", res.BudgetVerdict)
	}
	// misses.jsonl carries the diagnoses; report.md the counts and the
	// majority sentence.
	lines := strings.Split(strings.TrimSpace(string(results.MissesJSONL(res))), "\n")
	var row struct {
		QueryID   string             `json:"query_id"`
		Diagnosis *results.Diagnosis `json:"diagnosis"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &row); err != nil || row.Diagnosis == nil || row.Diagnosis.Cause == "" {
		t.Errorf("misses.jsonl's first row %s: no diagnosis (%v)", lines[0], err)
	}
	md, err := os.ReadFile(filepath.Join(cfg.Output, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"| fixed-8/hand | 7      | 1                   | 1              | 2                   | 1       | 1              | 1             |",
		"Most misses of `hand` on slice `plain` are vocabulary mismatches: 2 of 3 (67%).",
		"- **duplicate elsewhere**: `fixed-8/hand`, `dup` lanterns over harbour",
	} {
		if !strings.Contains(string(md), s) {
			t.Errorf("report.md lacks %q", s)
		}
	}
}
