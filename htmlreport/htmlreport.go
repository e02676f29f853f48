// Package htmlreport writes report.html: the sweep's report as one
// self-contained page that opens from disk with no network — inline SVG
// charts (package chart, on gonum.org/v1/plot), inline CSS and a few lines
// of inline JavaScript (sortable tables, the misses browser). Nothing is
// fetched: no CDN, no font, no image file.
//
// The page, top to bottom: the heading and dataset summary; the main table
// (every cell's metrics at prompt_k, sortable by any column); recall@k
// curves, one chart per chunking with one line per retriever, a rerank
// cell's ceiling (its input's recall at the rerank depth: reranking only
// reorders those) drawn dashed in its colour; bars of the primary metric
// per slice (or, without slices, for all / tuning / held-out queries) with
// 95% confidence intervals; the significance view, the comparison plan's
// comparisons (by default each cell against the baseline): a chart of the
// differences with their paired intervals and a sortable table with the
// corrected p and the verdict in words; on request only, the matrix of all
// pairs (difference row − column and corrected p, significant ones
// coloured);
// the history chart; Report.Sections (each a chart, a table or both:
// package report's misses' causes, prompt budgets, and quality against
// cost with its Pareto front); and the misses, browsable per cell and
// query: the question and its terms, the gold passages missed (with their
// best rank, cause and text), and what came back, each snippet the miss's
// own (cut from its cell's chunking) with its marks drawn as <mark>
// elements. The main table's first columns, the cell and the primary
// metric, stay in view when it scrolls.
//
// Escaping: the page is produced with html/template, so every user string
// (names, query texts, snippets) is escaped in its context; the misses are
// embedded as JSON (encoding/json escapes <, > and &) and put into the page
// as text nodes (textContent, createTextNode), never innerHTML: a corpus
// holding markup shows it as text. Charts come from package chart, whose
// SVG text is escaped by vgsvg.
//
// Size: each distinct snippet text is stored once, however many misses
// show it (a 9-cell SciFact BM25 sweep's page: 0.67 MB).
package htmlreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"

	"github.com/ragbench/ragbench/chart"
)

// Report is what Write renders. Values are in [0, 1] unless said.
type Report struct {
	// Title is the page's title and heading ("ragbench sweep: scifact").
	Title string
	// Summary holds sentences under the heading (dataset, split, notes).
	Summary []string
	// Table is the main table (cells × metrics), sortable in the page.
	Table Table
	// Recall holds one recall@k chart per chunking.
	Recall []RecallChart
	// Slices are the bar charts of the primary metric, one per group.
	Slices []SliceChart
	// Comparisons is the significance view: the comparison plan's
	// comparisons on the first tested metric (each cell against the
	// baseline, by default), each with its difference and paired
	// interval; nil when there are none.
	Comparisons *Comparisons
	// Matrix is the all-pairs significance matrix, shown only on request
	// (significance.matrix: a 36 × 36 matrix is not readable); nil
	// otherwise.
	Matrix *Matrix
	// History is the history chart, nil when there is no history.
	History *chart.Line
	// Sections are extra charts appended after the history (the hook for
	// later features: the span-label precision–recall scatter of token
	// measures will be one). Each is drawn as given.
	Sections []Section
	// Misses are the answerable queries with a gold passage missing from a
	// cell's top k (misses.jsonl), browsable in the page.
	Misses Misses
}

// Table is a sortable table: Head names the columns, each row has one
// Cell per column. A cell's Sort value orders the column numerically when
// every cell of the column has one, else by Text.
type Table struct {
	Caption string
	Head    []string
	Rows    [][]TableCell
}

// TableCell is one cell of a Table: Text as shown, Sort as ordered (NaN: by
// text), Bold to mark the best value.
type TableCell struct {
	Text string
	Sort float64
	Bold bool
}

// RecallChart is the recall@k chart of one chunking.
type RecallChart struct {
	Chunking string
	// K is the k grid (x axis, log scale).
	K []int
	// Lines has one entry per retriever, in config order.
	Lines []RecallLine
}

// RecallLine is one retriever's recall over K (NaN where not evaluated).
type RecallLine struct {
	Retriever string
	Recall    []float64
	// Ceiling, when set, is a rerank's ceiling: its input's recall at the
	// rerank depth (drawn dashed over the whole grid).
	Ceiling *Ceiling
}

// Ceiling is the first stage's recall@Depth that a rerank cannot exceed.
type Ceiling struct {
	Input  string
	Depth  int
	Recall float64
}

// SliceChart is the primary metric of every cell on one group of queries,
// with its 95% confidence interval (Student t over the group's queries).
type SliceChart struct {
	Group  string // "all", "held out", "slice multi-hop", …
	Metric string
	N      int // queries in the group
	Bars   []chart.Bar
}

// Comparisons is the significance view: one metric's comparisons of the
// plan, drawn as a chart of the differences with their intervals and
// listed as a sortable table.
type Comparisons struct {
	// Title names the view ("Each cell against the baseline doc/bm25"),
	// Metric the metric compared.
	Title, Metric string
	// Notes are the sentences above the chart: the plan and its number of
	// comparisons, the test, correction and interval method, what the set
	// can show, warnings.
	Notes []string
	// Interval names the interval method in the table's header
	// ("bootstrap BCa").
	Interval string
	Rows     []Comparison
}

// Comparison is one row of Comparisons: cell A against cell B, the
// difference A − B with its 95 % interval [Low, High] (NaN bounds: no
// interval), the corrected p as text ("–" when not counted), the verdict in
// words, and Class "win" (better), "loss" (worse) or "".
type Comparison struct {
	A, B            string
	MeanA, MeanB    float64
	Diff, Low, High float64
	P               string
	Verdict, Class  string
}

// Matrix is the significance matrix of all pairs of cells on one metric.
type Matrix struct {
	Metric, Test, Correction string
	Alpha                    float64
	// Comparisons is the number of comparisons its correction covers.
	Comparisons int
	Cells       []string
	// Diff[i][j] is mean(i) − mean(j) and P[i][j] its corrected p (NaN on
	// the diagonal and for pairs not tested).
	Diff, P [][]float64
}

// Section is an extra part of the page: a heading, a note, and a chart, a
// table or both.
type Section struct {
	ID, Title, Note string
	// Chart draws the section's SVG (a chart.Line or chart.Bars SVG
	// method, for example); nil for none.
	Chart func(io.Writer) error
	// Table is shown under the chart; nil for none.
	Table *Table
}

// Misses are the misses of every cell, as misses.jsonl holds them,
// browsable in the page. Every gold passage and returned item carries its
// own snippet, cut from the text of its cell's chunking: the same chunk id
// names other text under another chunking, so snippets are never shared
// by id across cells.
type Misses struct {
	// K is the cutoff of the misses (prompt_k).
	K     int
	Cells []string
	// Queries maps query id → text.
	Queries map[string]string
	List    []Miss
}

// Miss is one (cell, query) miss: with id labels the gold ids missing
// from the top K; with span labels one missed gold passage.
type Miss struct {
	Cell    int // index in Misses.Cells
	QueryID string
	// Terms are the query's analysed terms (what the marks highlight).
	Terms []string
	// Missing are the missed gold passages or ids; Returned the top K.
	Missing  []Gold
	Returned []Returned
}

// Gold is a missed gold passage or id.
type Gold struct {
	// ID is the gold id, or a passage's place ("doc [start, end)").
	ID string
	// Grade, and Rank: the best rank of something covering it (0: not
	// retrieved).
	Grade, Rank int
	// Cause is the diagnosis' cause ("" when not diagnosed), Detail its
	// sentence.
	Cause, Detail string
	// Text is the passage (or the gold item's snippet).
	Text Snippet
}

// Returned is one returned item.
type Returned struct {
	ID       string
	Score    float64
	Relevant bool
	Text     Snippet
}

// Snippet is a text with highlighted parts.
type Snippet struct {
	Text  string
	Marks []Mark
}

// Mark highlights code points [Start, End) of a Snippet: text of the
// missed gold passage (Gold) or a word carrying a query term.
type Mark struct {
	Start, End int
	Gold       bool
}

// Write renders r as one HTML page. Errors: a chart that cannot be drawn
// (naming it) or a write error.
func Write(w io.Writer, r *Report) error {
	v := view{Report: r}
	for _, rc := range r.Recall {
		svg, err := recallSVG(rc)
		if err != nil {
			return err
		}
		v.RecallSVG = append(v.RecallSVG, svg)
	}
	for _, sc := range r.Slices {
		svg, err := draw(chart.Bars{Title: fmt.Sprintf("%s, %s (%d queries), 95%% CI", sc.Metric, sc.Group, sc.N), XLabel: sc.Metric, XMin: 0, XMax: 1, Bars: sc.Bars}.SVG)
		if err != nil {
			return err
		}
		v.SliceSVG = append(v.SliceSVG, svg)
	}
	if c := r.Comparisons; c != nil && len(c.Rows) > 0 {
		svg, err := draw(comparisonBars(c).SVG)
		if err != nil {
			return err
		}
		v.ComparisonSVG = svg
	}
	if r.History != nil {
		svg, err := draw(r.History.SVG)
		if err != nil {
			return err
		}
		v.HistorySVG = svg
	}
	for _, s := range r.Sections {
		var svg template.HTML
		if s.Chart != nil {
			var err error
			if svg, err = draw(s.Chart); err != nil {
				return fmt.Errorf("section %s: %w", s.ID, err)
			}
		}
		v.SectionSVG = append(v.SectionSVG, svg)
	}
	js, err := json.Marshal(compactMisses(r.Misses))
	if err != nil {
		return err
	}
	v.MissesJSON = template.JS(js) // encoding/json escaped <, > and &: safe in <script>
	return page.Execute(w, v)
}

// view is the template's data: the report and its drawn charts.
type view struct {
	*Report
	RecallSVG, SliceSVG, SectionSVG []template.HTML
	HistorySVG, ComparisonSVG       template.HTML
	MissesJSON                      template.JS
}

// draw runs a chart's SVG method; its output is trusted markup (package
// chart escapes every text it draws).
func draw(svg func(io.Writer) error) (template.HTML, error) {
	var b bytes.Buffer
	if err := svg(&b); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil
}

// recallSVG draws one chunking's recall@k chart.
func recallSVG(rc RecallChart) (template.HTML, error) {
	l := chart.Line{Title: "recall@k, " + rc.Chunking, XLabel: "k", YLabel: "recall", LogX: true, YMin: 0, YMax: 1, Width: 300, Height: 230}
	for _, k := range rc.K {
		l.XTicks = append(l.XTicks, float64(k))
	}
	for i, line := range rc.Lines {
		s := chart.Series{Name: line.Retriever, Color: chart.Color(i)}
		for j, k := range rc.K {
			v := math.NaN()
			if j < len(line.Recall) {
				v = line.Recall[j]
			}
			s.Points = append(s.Points, chart.Point{X: float64(k), Y: v})
		}
		l.Series = append(l.Series, s)
		if c := line.Ceiling; c != nil && len(rc.K) > 0 {
			l.Series = append(l.Series, chart.Series{
				Name:   fmt.Sprintf("%s ceiling (%s@%d)", line.Retriever, c.Input, c.Depth),
				Dashed: true, NoMarkers: true, Color: chart.Color(i),
				Points: []chart.Point{{X: float64(rc.K[0]), Y: c.Recall}, {X: float64(rc.K[len(rc.K)-1]), Y: c.Recall}},
			})
		}
	}
	return draw(l.SVG)
}

// comparisonBars is the significance view's chart: one bar per
// comparison, the difference A − B with its interval, in row order.
func comparisonBars(c *Comparisons) chart.Bars {
	b := chart.Bars{Title: fmt.Sprintf("%s: difference with 95%% CI (%s)", c.Metric, c.Interval), XLabel: "difference in " + c.Metric}
	for _, row := range c.Rows {
		col := chart.Color(0)
		switch row.Class {
		case "win":
			col = chart.Color(2)
		case "loss":
			col = chart.Color(1)
		}
		b.Bars = append(b.Bars, chart.Bar{Label: row.A, Value: row.Diff, Low: row.Low, High: row.High, Color: col})
	}
	return b
}

// compactMisses is the JSON the page's script reads: short keys, query
// texts once each, and snippet texts once each in "texts" (a miss refers to
// them by index; a chunk returned for a query under one chunking by
// several retrievers has the same snippet, stored once). Marks are [start,
// end, kind] in code points, kind 0 for gold text and 1 for a query term.
func compactMisses(m Misses) any {
	type miss struct {
		C int      `json:"c"`
		Q string   `json:"q"`
		T []string `json:"t"`
		G [][]any  `json:"g"`
		R [][]any  `json:"r"`
	}
	texts := []string{}
	index := map[string]int{}
	text := func(s string) int {
		i, ok := index[s]
		if !ok {
			i = len(texts)
			index[s] = i
			texts = append(texts, s)
		}
		return i
	}
	marks := func(ms []Mark) [][3]int {
		out := make([][3]int, len(ms))
		for i, x := range ms {
			kind := 1
			if x.Gold {
				kind = 0
			}
			out[i] = [3]int{x.Start, x.End, kind}
		}
		return out
	}
	list := make([]miss, 0, len(m.List))
	for _, x := range m.List {
		g := make([][]any, 0, len(x.Missing))
		for _, gold := range x.Missing {
			g = append(g, []any{gold.ID, gold.Grade, gold.Rank, gold.Cause, gold.Detail, text(gold.Text.Text), marks(gold.Text.Marks)})
		}
		r := make([][]any, 0, len(x.Returned))
		for _, ret := range x.Returned {
			rel := 0
			if ret.Relevant {
				rel = 1
			}
			r = append(r, []any{ret.ID, math.Round(ret.Score*1e4) / 1e4, rel, text(ret.Text.Text), marks(ret.Text.Marks)})
		}
		terms := x.Terms
		if terms == nil {
			terms = []string{}
		}
		list = append(list, miss{C: x.Cell, Q: x.QueryID, T: terms, G: g, R: r})
	}
	return map[string]any{"k": m.K, "cells": m.Cells, "queries": m.Queries, "texts": texts, "misses": list}
}
