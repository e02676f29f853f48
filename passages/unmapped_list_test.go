package passages

import (
	"fmt"
	"strings"
	"testing"
)

// TestCheckUnmappedLists: the --max-unmapped refusal lists the unmapped
// results in the same message — the first 10, each with file:line,
// results[i], query, rank, why and its (clipped) text — then counts the
// rest, so the refusal says which results to look at.
func TestCheckUnmappedLists(t *testing.T) {
	r := &Run{Name: "run.jsonl", Results: 20}
	for i := range 12 {
		reason := Absent
		if i%2 == 1 {
			reason = Ambiguous
		}
		r.Placed[reason]++
		r.Unmapped = append(r.Unmapped, Unmapped{Query: fmt.Sprintf("q%d", i), Line: i + 1, Index: 0, Rank: 1, Reason: reason, Text: fmt.Sprintf("text %d", i)})
	}
	err := r.CheckUnmapped(0.05, "--max-unmapped")
	if err == nil {
		t.Fatal("12 of 20 unmapped: no error")
	}
	msg := err.Error()
	for _, want := range []string{
		"run.jsonl: 12 of 20 results unmapped (60 %: 6 absent, 6 ambiguous) > --max-unmapped 5 %",
		"\n  run.jsonl:1: results[0]: query \"q0\": unmapped at rank 1 (absent): \"text 0\"\n",
		"\n  run.jsonl:10: results[0]: query \"q9\": unmapped at rank 1 (ambiguous): \"text 9\"\n",
		"\n  run.jsonl: … and 2 more unmapped results",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "\"q10\"") {
		t.Errorf("error lists more than 10:\n%s", msg)
	}
}
