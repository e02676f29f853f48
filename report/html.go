package report

import (
	"bytes"
	"fmt"
	"math"
	"slices"

	"github.com/ragbench/ragbench/chart"
	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/history"
	"github.com/ragbench/ragbench/htmlreport"
	"github.com/ragbench/ragbench/internal/plural"
	"github.com/ragbench/ragbench/kinds"
	"github.com/ragbench/ragbench/results"
	"github.com/ragbench/ragbench/stats"
)

// HTML renders report.html (package htmlreport) from res alone, as
// Markdown renders report.md: see Page for what it holds; rows are the
// history to chart (none: no history chart). Errors: those of Page, or a
// chart that cannot be drawn.
func HTML(res *results.Results, rows []history.Row) ([]byte, error) {
	r, err := Page(res, rows)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := htmlreport.Write(&buf, r); err != nil {
		return nil, fmt.Errorf("report.html: %w", err)
	}
	return buf.Bytes(), nil
}

// Page is report.html's content: the summary, the main table, the recall
// charts, the primary metric per group of queries with its confidence
// interval (a Student-t interval of the mean over res.Groups' per-query
// values, stats.Describe against zero), the significance matrix, the
// history chart of rows (this run's row included when it is appended),
// and the misses (res.Cells' Misses and SpanMisses, as misses.jsonl
// holds them). Errors: a group's interval that cannot be computed.
func Page(res *results.Results, rows []history.Row) (*htmlreport.Report, error) {
	cfg := &res.Config
	r := &htmlreport.Report{Title: "ragbench sweep: " + cfg.Name}
	d := res.Dataset
	r.Summary = append(r.Summary, fmt.Sprintf("Dataset %s: %s, %d judged %s (%d answerable: %d tuning, %d held out; %d unanswerable), %s-level qrels. Metrics average the answerable queries.",
		d.Name, plural.Count(d.Documents, "document", "documents"), d.Queries, plural.Word(d.Queries, "query", "queries"), d.Answerable, d.Tuning, d.HeldOut, d.Unanswerable, d.Level))
	r.Summary = append(r.Summary, res.Warnings...)
	r.Summary = append(r.Summary, tuningSummary(res)...)
	primary := cfg.GateMetric()
	r.Table = htmlMainTable(cfg, res, primary)
	if slices.Contains(cfg.Metrics, "recall") {
		r.Recall = htmlRecallCharts(cfg, res)
	}
	slices, err := htmlSliceCharts(cfg, res, primary)
	if err != nil {
		return nil, err
	}
	r.Slices = slices
	r.Summary = append(r.Summary, smallGroups(slices)...)
	r.Comparisons, r.Matrix = htmlComparisons(res), htmlMatrix(res)
	if l, err := history.Chart(rows, primary, history.ChartOptions{}); err == nil {
		r.History = &l // else no run has the metric: no chart
	}
	// The span-label precision–recall scatter (token measures) is a later
	// feature: it goes into r.Sections as one htmlreport.Section.
	if w, sec, ok := judgedSection(res); ok {
		r.Sections = append(r.Sections, sec)
		if w != "" {
			r.Summary = append(r.Summary, w)
		}
	}
	r.Sections = append(r.Sections, htmlSections(res)...)
	r.Misses = htmlMisses(cfg, res)
	return r, nil
}

// htmlMainTable is the main table: every cell's families at prompt_k (the
// best value of each column in bold), then the primary metric held out.
func htmlMainTable(cfg *config.Config, res *results.Results, primary string) htmlreport.Table {
	var t htmlreport.Table
	t.Caption = fmt.Sprintf("Every cell at prompt_k = %d", cfg.PromptK)
	// The primary metric leads, beside the cell's name (a sticky column):
	// with many metrics the table scrolls, and the number the cells are
	// chosen by must not be the one cut off at the right edge.
	t.Head = []string{"cell", primary, primary + " held out", "chunking", "retriever", "chunks"}
	var cols []string
	for _, f := range cfg.Metrics {
		if m := config.MetricName(f, cfg.PromptK); m != primary {
			cols = append(cols, m)
		}
	}
	t.Head = append(t.Head, cols...)
	best := map[string]float64{}
	for _, c := range res.Cells {
		for _, m := range append([]string{primary}, cols...) {
			best[m] = math.Max(best[m], c.Means[results.GroupAll][m])
		}
	}
	for _, c := range res.Cells {
		v := c.Means[results.GroupAll][primary]
		ho := c.Means[results.GroupHeldOut][primary]
		if res.Dataset.HeldOut == 0 {
			ho = math.NaN() // no held-out query: no mean (—), sorted last
		}
		row := []htmlreport.TableCell{{Text: c.Name, Sort: math.NaN()}, {Text: f4(v), Sort: v, Bold: v == best[primary]}, {Text: meanOf(ho, res.Dataset.HeldOut), Sort: ho},
			{Text: c.Chunking.Name, Sort: math.NaN()}, {Text: c.Retriever.Name, Sort: math.NaN()}, {Text: fmt.Sprint(c.Chunks), Sort: float64(c.Chunks)}}
		for _, m := range cols {
			v := c.Means[results.GroupAll][m]
			row = append(row, htmlreport.TableCell{Text: f4(v), Sort: v, Bold: v == best[m]})
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// htmlRecallCharts are the recall@k charts, one per chunking in config
// order, a line per retriever; a rerank line carries its input's recall at
// the rerank depth as the ceiling it cannot beat.
func htmlRecallCharts(cfg *config.Config, res *results.Results) []htmlreport.RecallChart {
	var charts []htmlreport.RecallChart
	byName := map[string]*results.CellResult{}
	for i := range res.Cells {
		byName[res.Cells[i].Name] = &res.Cells[i]
	}
	index := map[string]int{}
	for _, c := range res.Cells {
		i, ok := index[c.Chunking.Name]
		if !ok {
			i = len(charts)
			index[c.Chunking.Name] = i
			charts = append(charts, htmlreport.RecallChart{Chunking: c.Chunking.Name, K: cfg.K})
		}
		line := htmlreport.RecallLine{Retriever: c.Retriever.Name}
		for _, k := range cfg.K {
			line.Recall = append(line.Recall, c.Means[results.GroupAll][config.MetricName("recall", k)])
		}
		if ro, ok := c.Retriever.Settings.(kinds.Reorderer); ok {
			input, depth := ro.Reorders()
			if in := byName[c.Chunking.Name+"/"+input]; in != nil {
				if v, ok := in.Means[results.GroupAll][config.MetricName("recall", depth)]; ok {
					line.Ceiling = &htmlreport.Ceiling{Input: input, Depth: depth, Recall: v}
				}
			}
		}
		charts[i].Lines = append(charts[i].Lines, line)
	}
	return charts
}

// htmlSliceCharts are the primary metric per group (all queries, then each
// slice, or tuning and held out when the dataset has no slices), a bar per
// cell with its confidence interval; empty groups are left out. Errors:
// stats.Describe's, naming the cell and group.
func htmlSliceCharts(cfg *config.Config, res *results.Results, primary string) ([]htmlreport.SliceChart, error) {
	d := res.Dataset
	groups := []struct{ name, key string }{{"all queries", results.GroupAll}}
	for _, s := range d.Slices {
		groups = append(groups, struct{ name, key string }{"slice " + s, results.SliceGroup(s)})
	}
	if len(d.Slices) == 0 {
		groups = append(groups, struct{ name, key string }{"tuning", results.GroupTuning}, struct{ name, key string }{"held out", results.GroupHeldOut})
	}
	members := res.Groups
	var charts []htmlreport.SliceChart
	for _, g := range groups {
		ids := members[g.key]
		if len(ids) == 0 {
			continue
		}
		sc := htmlreport.SliceChart{Group: g.name, Metric: primary, N: len(ids)}
		for _, c := range res.Cells {
			s := stats.Sample{QueryIDs: ids, A: make([]float64, len(ids)), B: make([]float64, len(ids))}
			for j, id := range ids {
				s.A[j] = c.PerQuery[id][primary]
			}
			e, err := stats.Describe(s, stats.Options{})
			if err != nil {
				return nil, fmt.Errorf("report.html: %s, %s: %w", c.Name, g.name, err)
			}
			lo, hi := e.Effect.CILow, e.Effect.CIHigh
			if !e.Effect.CIDefined { // one query: no interval, not [v, v]
				lo, hi = math.NaN(), math.NaN()
			}
			sc.Bars = append(sc.Bars, chart.Bar{Label: c.Name, Value: e.MeanA, Low: lo, High: hi, Color: chart.Color(retrieverIndex(cfg, c.Retriever.Name))})
		}
		charts = append(charts, sc)
	}
	return charts, nil
}

// htmlMatrix is the all-pairs significance matrix, on request only
// (significance.matrix: Significance.AllPairs; nil otherwise): row a,
// column b holds mean(a) − mean(b) and the adjusted p-value; untested
// pairs and the diagonal are NaN.
func htmlMatrix(res *results.Results) *htmlreport.Matrix {
	sig := res.Significance
	ap := sig.AllPairs
	if ap == nil || len(ap.Pairs) == 0 {
		return nil
	}
	m := &htmlreport.Matrix{Metric: ap.Metric, Test: sig.Test, Correction: sig.Correction, Alpha: sig.Alpha, Comparisons: ap.Comparisons}
	pos := map[string]int{}
	for i, c := range res.Cells {
		m.Cells = append(m.Cells, c.Name)
		pos[c.Name] = i
	}
	n := len(m.Cells)
	m.Diff, m.P = nanMatrix(n), nanMatrix(n)
	for _, p := range ap.Pairs {
		a, b := pos[p.A], pos[p.B]
		m.Diff[a][b], m.P[a][b] = p.MeanA-p.MeanB, p.PAdjusted
		m.Diff[b][a], m.P[b][a] = p.MeanB-p.MeanA, p.PAdjusted
	}
	return m
}

// htmlMisses is the misses browser's data: the cells' misses in
// misses.jsonl's order (MissesJSONL), so the page shows what the file
// holds, each with its own snippets (cut from its cell's chunking, with
// their marks) and its diagnosis. A span miss shows its gold passage.
func htmlMisses(cfg *config.Config, res *results.Results) htmlreport.Misses {
	out := htmlreport.Misses{K: cfg.PromptK, Queries: map[string]string{}}
	snippet := func(text string, marks []results.Mark) htmlreport.Snippet {
		sn := htmlreport.Snippet{Text: text}
		for _, m := range marks {
			sn.Marks = append(sn.Marks, htmlreport.Mark{Start: m.Start, End: m.End, Gold: m.Kind == results.MarkGold})
		}
		return sn
	}
	returned := func(hits []results.Hit) []htmlreport.Returned {
		var rs []htmlreport.Returned
		for _, h := range hits {
			rs = append(rs, htmlreport.Returned{ID: h.ID, Score: h.Score, Relevant: h.Relevant, Text: snippet(h.Snippet, h.Marks)})
		}
		return rs
	}
	gold := func(id string, grade, rank int, dg *results.Diagnosis, text htmlreport.Snippet) htmlreport.Gold {
		g := htmlreport.Gold{ID: id, Grade: grade, Rank: rank, Text: text}
		if dg != nil {
			g.Cause, g.Detail = dg.Cause, DiagnosisText(dg, cfg.PromptK)
		}
		return g
	}
	terms := func(dg *results.Diagnosis) []string {
		if dg == nil {
			return nil
		}
		return dg.QueryTerms
	}
	for i, c := range res.Cells {
		out.Cells = append(out.Cells, c.Name)
		for _, m := range c.SpanMisses {
			out.Queries[m.QueryID] = m.Query
			rank := 0
			if m.Diagnosis != nil {
				rank = m.Diagnosis.BestRank
			}
			g := gold(fmt.Sprintf("%s [%d, %d)", m.Doc, m.Start, m.End), 0, rank, m.Diagnosis, snippet(m.Text, m.TextMarks))
			out.List = append(out.List, htmlreport.Miss{Cell: i, QueryID: m.QueryID, Terms: terms(m.Diagnosis), Missing: []htmlreport.Gold{g}, Returned: returned(m.Returned)})
		}
		for _, m := range c.Misses {
			out.Queries[m.QueryID] = m.Query
			x := htmlreport.Miss{Cell: i, QueryID: m.QueryID, Returned: returned(m.Returned)}
			for _, g := range m.Missing {
				x.Missing = append(x.Missing, gold(g.ID, g.Grade, g.Rank, g.Diagnosis, snippet(g.Snippet, g.Marks)))
				if x.Terms == nil {
					x.Terms = terms(g.Diagnosis)
				}
			}
			out.List = append(out.List, x)
		}
	}
	return out
}

// retrieverIndex is the retriever's position in the config (its colour).
func retrieverIndex(cfg *config.Config, name string) int {
	for i, r := range cfg.Retrievers {
		if r.Name == name {
			return i
		}
	}
	return 0
}

func nanMatrix(n int) [][]float64 {
	m := make([][]float64, n)
	for i := range m {
		m[i] = make([]float64, n)
		for j := range m[i] {
			m[i][j] = math.NaN()
		}
	}
	return m
}
