package htmlreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/chart"
)

const evil = `<script>alert("x")</script>&`

func sample() *Report {
	nan := math.NaN()
	return &Report{
		Title:   "ragbench sweep: " + evil,
		Summary: []string{"summary " + evil},
		Table: Table{Caption: "cells", Head: []string{"cell", "ndcg@10"}, Rows: [][]TableCell{
			{{Text: "doc/" + evil, Sort: nan}, {Text: "0.5000", Sort: 0.5, Bold: true}},
			{{Text: "doc/b", Sort: nan}, {Text: "0.2500", Sort: 0.25}},
		}},
		Recall: []RecallChart{{Chunking: "doc", K: []int{1, 10, 100}, Lines: []RecallLine{
			{Retriever: "hybrid", Recall: []float64{0.3, 0.7, 0.9}},
			{Retriever: "rerank" + evil, Recall: []float64{0.4, 0.8, 0.9}, Ceiling: &Ceiling{Input: "hybrid", Depth: 100, Recall: 0.9}},
		}}},
		Slices: []SliceChart{{Group: "all", Metric: "ndcg@10", N: 3, Bars: []chart.Bar{{Label: "doc/a", Value: 0.5, Low: 0.4, High: 0.6}}}},
		Matrix: &Matrix{Metric: "ndcg@10", Test: "randomization", Correction: "holm", Alpha: 0.05, Cells: []string{"a", "b"},
			Diff: [][]float64{{nan, 0.25}, {-0.25, nan}}, P: [][]float64{{nan, 0.01}, {0.01, nan}}},
		History:  &chart.Line{Title: "ndcg@10 over runs", Series: []chart.Series{{Name: "doc/a", Points: []chart.Point{{X: 1, Y: 0.5}, {X: 2, Y: 0.6}}}}},
		Sections: []Section{{ID: "span-pr", Title: "Span precision–recall", Note: "hook", Chart: chart.Line{Title: "pr", Series: []chart.Series{{Points: []chart.Point{{X: 0.1, Y: 0.2}}}}}.SVG}},
		Misses: Misses{K: 10, Cells: []string{"doc/a", "fixed-4/a"}, Queries: map[string]string{"q1": "what " + evil},
			List: []Miss{
				{Cell: 0, QueryID: "q1", Terms: []string{"what"}, Missing: []Gold{{ID: "d1", Grade: 1, Rank: 12, Cause: "ranked below k", Detail: "found at rank 12", Text: Snippet{Text: "gold " + evil}}},
					Returned: []Returned{{ID: "d2#1", Score: 1.23456789, Text: Snippet{Text: "other text", Marks: []Mark{{Start: 0, End: 5, Gold: true}, {Start: 6, End: 10}}}}}},
				{Cell: 1, QueryID: "q1", Missing: []Gold{{ID: "d1 [0, 5)", Rank: 0, Text: Snippet{Text: "gold " + evil}}},
					Returned: []Returned{{ID: "d2#1", Score: 2, Text: Snippet{Text: "the same id, another chunking's text"}}}},
			}},
	}
}

// TestWrite: every chart is inline SVG (2 recall curves' worth in one
// chart, 1 slice chart, the history, the hook section: 4 <svg>), the matrix
// colours the significant pair, every user string is escaped (the raw
// script never appears), the page loads nothing from the network, and the
// misses JSON reads back with the snippet stored once.
func TestWrite(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, sample()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := strings.Count(page, "<svg "); n != 4 {
		t.Errorf("%d inline SVG charts, want 4", n)
	}
	for _, class := range []string{`class="chart-recall"`, `class="chart-slice"`, `class="chart-history"`, `class="chart-section"`, `id="matrix"`, `id="main-table"`, `id="span-pr"`} {
		if strings.Count(page, class) != 1 {
			t.Errorf("page lacks %s (once)", class)
		}
	}
	if strings.Contains(page, evil) || strings.Contains(page, `<script>alert`) {
		t.Error("a user string is not escaped")
	}
	if !strings.Contains(page, "rerank&lt;script&gt;") || !strings.Contains(page, "ceiling (hybrid@100)") {
		t.Error("the rerank's ceiling series is missing or unescaped in its legend")
	}
	if !strings.Contains(page, `<td class="win">&#43;0.2500<small>p = 0.010</small>`) || !strings.Contains(page, `<td class="loss">-0.2500`) {
		t.Error("matrix entries not coloured by significance")
	}
	if regexp.MustCompile(`(?i)(src|href)="(https?:)?//`).MatchString(page) || strings.Contains(page, "@import") {
		t.Error("the page references the network")
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="misses-data">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no misses data")
	}
	var data struct {
		K      int
		Texts  []string
		Misses []struct {
			C int
			Q string
			T []string
			G [][]any
			R [][]any
		}
	}
	if err := json.Unmarshal([]byte(m[1]), &data); err != nil {
		t.Fatalf("misses JSON: %v", err)
	}
	if data.K != 10 || len(data.Misses) != 2 || data.Misses[0].G[0][2].(float64) != 12 || data.Misses[0].G[0][3] != "ranked below k" ||
		data.Misses[0].R[0][1].(float64) != 1.2346 || data.Misses[0].T[0] != "what" {
		t.Fatalf("misses read back as %+v", data)
	}
	// Snippets are per miss, shared only by equal text: the gold text
	// of both misses once, the two texts of chunk d2#1 apart.
	text := func(v any) string { return data.Texts[int(v.(float64))] }
	if g0, g1 := data.Misses[0].G[0][5], data.Misses[1].G[0][5]; g0 != g1 || text(g0) != "gold "+evil {
		t.Errorf("gold texts %v and %v, want one entry %q", g0, g1, "gold "+evil)
	}
	if r0, r1 := text(data.Misses[0].R[0][3]), text(data.Misses[1].R[0][3]); r0 != "other text" || r1 != "the same id, another chunking's text" {
		t.Errorf("chunk d2#1's texts %q and %q, want each cell's own", r0, r1)
	}
	if marks := data.Misses[0].R[0][4].([]any); len(marks) != 2 || fmt.Sprint(marks[0]) != "[0 5 0]" || fmt.Sprint(marks[1]) != "[6 10 1]" {
		t.Errorf("marks %v, want [[0 5 0] [6 10 1]] (gold, then term)", marks)
	}
}

// A chart that cannot be drawn is an error naming it.
func TestWriteError(t *testing.T) {
	r := sample()
	r.Sections[0].Chart = chart.Line{Title: "empty"}.SVG
	if err := Write(io.Discard, r); err == nil || !strings.Contains(err.Error(), "span-pr") {
		t.Errorf("error %v, want one naming section span-pr", err)
	}
}
