package eval

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/ragbench/ragbench/internal/plural"
	"github.com/ragbench/ragbench/internal/texttab"
)

// kindFamily is the trec_eval family name of each kind.
var kindFamily = map[Kind]string{
	RunID: "runid", NumQ: "num_q", NumRet: "num_ret", NumRel: "num_rel", NumRelRet: "num_rel_ret",
	AP: "map", GMAP: "gm_map", RPrec: "Rprec", Bpref: "bpref", RecipRank: "recip_rank",
	IPrecAtRecall: "iprec_at_recall", P: "P", RelString: "relstring", Recall: "recall", InfAP: "infAP",
	GMBpref: "gm_bpref", RPrecMult: "Rprec_mult", Utility: "utility", ElevenPtAvg: "11pt_avg",
	BinG: "binG", G: "G", NDCG: "ndcg", NDCGRel: "ndcg_rel", RNDCG: "Rndcg", MAPCut: "map_cut",
	RelativeP: "relative_P", Success: "success", SetP: "set_P", SetRelativeP: "set_relative_P",
	SetRecall: "set_recall", SetMAP: "set_map", SetF: "set_F", NumNonrelJudgedRet: "num_nonrel_judged_ret",
	RBP: "rbp", RBPResid: "rbp_resid", Unjudged: "unj",
}

// trecRank is the position of a measure's family in trec_eval's output order,
// ragbench extensions last.
func trecRank(m Measure) int {
	fam, ok := kindFamily[m.Kind]
	switch {
	case m.Kind == NDCG && m.K > 0:
		fam = "ndcg_cut"
	case m.Kind == RecipRank && m.K > 0:
		ok = false
	}
	if ok {
		if i := slices.Index(allTrecMeasures, fam); i >= 0 {
			return i
		}
	}
	return 1000 + int(m.Kind)
}

// TrecOrder returns ms sorted as trec_eval prints measures: by family in
// trec_eval's order, then by parameter ascending (trec_eval sorts the
// parameters of "P.10,5" to P_5, P_10). ragbench extensions come last.
func TrecOrder(ms []Measure) []Measure {
	out := slices.Clone(ms)
	slices.SortStableFunc(out, func(a, b Measure) int {
		if d := trecRank(a) - trecRank(b); d != 0 {
			return d
		}
		if a.K != b.K {
			return a.K - b.K
		}
		switch {
		case a.X < b.X:
			return -1
		case a.X > b.X:
			return 1
		}
		return 0
	})
	return out
}

// trecPerQuery reports whether trec_eval prints the measure on per-query
// lines (runid, num_q and the geometric means are summary-only).
func trecPerQuery(m Measure) bool {
	switch m.Kind {
	case RunID, NumQ, GMAP, GMBpref:
		return false
	}
	return true
}

func trecValue(m Measure, v float64) string {
	if m.Integer() {
		return strconv.FormatInt(int64(math.Round(v)), 10)
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

// WriteTrec writes e in trec_eval's relational layout: lines
// "%-22s\t%s\t%s" (measure name, query id or "all", value with 4 decimals,
// counts as integers), per-query lines first when perQuery (queries in byte
// order, measures in e.Measures order), then the summary lines. Measures are
// printed in the order of e.Measures; use TrecOrder for trec_eval's order.
func WriteTrec(w io.Writer, e *Evaluation, perQuery bool) error {
	bw := bufio.NewWriter(w)
	line := func(name, q, v string) {
		fmt.Fprintf(bw, "%-22s\t%s\t%s\n", name, q, v)
	}
	if perQuery {
		for i, q := range e.Queries {
			for j, m := range e.Measures {
				if !trecPerQuery(m) {
					continue
				}
				if m.Kind == RelString {
					line(m.Name, q, e.RelStrings[q])
					continue
				}
				line(m.Name, q, trecValue(m, e.Values[i][j]))
			}
		}
	}
	for j, m := range e.Measures {
		switch m.Kind {
		case RelString:
			continue
		case RunID:
			line(m.Name, "all", e.Options.RunTag)
			continue
		}
		line(m.Name, "all", trecValue(m, e.Means[j]))
	}
	return bw.Flush()
}

// sliceLabel is the name under which a slice is shown: "(none)" for the
// queries without a slice label.
func sliceLabel(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// numericMeasures drops runid and relstring, which have no numeric value.
func numericMeasures(e *Evaluation) []int {
	var idx []int
	for j, m := range e.Measures {
		if m.Kind != RunID && m.Kind != RelString {
			idx = append(idx, j)
		}
	}
	return idx
}

func fmtValue(m Measure, v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	if m.Integer() {
		return strconv.FormatInt(int64(math.Round(v)), 10)
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

// WriteTable writes e as Markdown tables that also read well in a terminal
// (texttab's padded Markdown, ids escaped by texttab.Escape): a summary line
// (queries averaged and the counted policies), one row per measure with its
// mean, a table of e.Slices when set (see writeSliceTable), and, when
// perQuery, a table with one row per query ("*" marks a query not
// averaged).
func WriteTable(w io.Writer, e *Evaluation, perQuery bool) error {
	bw := bufio.NewWriter(w)
	idx := numericMeasures(e)
	fmt.Fprintf(bw, "queries averaged: %d", e.NumQ)
	if e.Options.RunTag != "" {
		fmt.Fprintf(bw, " · run: %s", e.Options.RunTag)
	}
	fmt.Fprintln(bw)
	for _, s := range e.Warnings() {
		fmt.Fprintf(bw, "note: %s\n", s)
	}
	fmt.Fprintln(bw)
	means := &texttab.Table{Header: []string{"measure", "value"}, Align: []texttab.Align{texttab.Left, texttab.Right}, MinWidth: []int{0, 10}}
	for _, j := range idx {
		means.AddRow(e.Measures[j].Name, fmtValue(e.Measures[j], e.Means[j]))
	}
	means.WritePaddedMarkdown(bw)
	if len(e.Slices) > 0 {
		writeSliceTable(bw, e, idx)
	}
	if perQuery {
		fmt.Fprintln(bw)
		t := measureTable(e, idx, "query")
		t.Markup = []bool{true} // the id, escaped, and our "*" mark
		for i, q := range e.Queries {
			label := texttab.Escape(q)
			if !e.InMean[i] {
				label += "*"
			}
			row := []string{label}
			for _, j := range idx {
				row = append(row, fmtValue(e.Measures[j], e.Values[i][j]))
			}
			t.AddRow(row...)
		}
		t.WritePaddedMarkdown(bw)
		if len(e.Queries) > e.NumQ {
			fmt.Fprintln(bw, "\n* not averaged (unanswerable)")
		}
	}
	return bw.Flush()
}

// measureTable is a table whose first columns are the left-aligned first
// and then any further columns given, and whose others are the measures idx,
// right-aligned and at least 6 wide (a value "0.1234").
func measureTable(e *Evaluation, idx []int, first ...string) *texttab.Table {
	t := &texttab.Table{Header: first, Align: make([]texttab.Align, len(first)), MinWidth: make([]int, len(first))}
	for _, j := range idx {
		t.Header = append(t.Header, e.Measures[j].Name)
		t.Align = append(t.Align, texttab.Right)
		t.MinWidth = append(t.MinWidth, 6)
	}
	return t
}

// writeSliceTable writes the table of e.Slices: one row per slice with
// num_q (the queries averaged) and, unless unanswerable queries are averaged
// (Options.AverageUnanswerable), the slice's unanswerable queries counted
// apart, then the slice's means. A slice with no query averaged has "-" in
// its measure columns, and a line under the table says in words why (all
// its queries are unanswerable).
func writeSliceTable(bw *bufio.Writer, e *Evaluation, idx []int) {
	apart := !e.Options.AverageUnanswerable
	fmt.Fprintln(bw)
	first := []string{"slice", "num_q"}
	if apart {
		first = append(first, "unanswerable")
	}
	t := measureTable(e, idx, first...)
	for i := 1; i < len(first); i++ {
		t.Align[i] = texttab.Right
	}
	t.MinWidth[1] = len("num_q")
	var empty []string
	for _, sl := range e.Slices {
		row := []string{sliceLabel(sl.Slice), strconv.Itoa(sl.NumQ)}
		if apart {
			row = append(row, strconv.Itoa(sl.Rows-sl.NumQ))
		}
		for _, j := range idx {
			v := "-"
			if sl.NumQ > 0 {
				v = fmtValue(e.Measures[j], sl.Means[j])
			}
			row = append(row, v)
		}
		t.AddRow(row...)
		if sl.NumQ == 0 {
			n := sl.Rows - sl.NumQ
			empty = append(empty, fmt.Sprintf("slice \"%s\" has no query averaged: its %s unanswerable (no relevant doc), so it has no means (-)", texttab.Escape(sliceLabel(sl.Slice)), plural.Count(n, "query is", "queries are")))
		}
	}
	t.WritePaddedMarkdown(bw)
	if apart {
		fmt.Fprintln(bw, "\nnum_q: queries averaged; unanswerable: queries with no relevant doc, counted apart and not averaged.")
	}
	for _, s := range empty {
		fmt.Fprintln(bw, s+".")
	}
}

// jsonEvaluation is the --format json document.
type jsonEvaluation struct {
	Run           string                        `json:"run,omitempty"`
	NumQ          int                           `json:"num_q"`
	Measures      []string                      `json:"measures"`
	Means         map[string]*float64           `json:"means"`
	PerQuery      map[string]map[string]float64 `json:"per_query,omitempty"`
	Unanswerable  []string                      `json:"unanswerable"`
	BelowLevel    []string                      `json:"relevant_only_below_level,omitempty"`
	NotInQrels    []string                      `json:"run_queries_not_in_qrels"`
	NotInRun      []string                      `json:"qrels_queries_not_in_run"`
	MissingScored bool                          `json:"missing_queries_scored_zero"`
	Warnings      []string                      `json:"warnings"`
	Slices        map[string]jsonSlice          `json:"slices,omitempty"`
}

type jsonSlice struct {
	NumQ  int                 `json:"num_q"`
	Rows  int                 `json:"queries"`
	Means map[string]*float64 `json:"means"`
}

// WriteJSON writes e as one indented JSON object with keys run, num_q,
// measures (names in order), means (name → value; null when undefined),
// per_query (query → name → value; only when perQuery), unanswerable,
// relevant_only_below_level (Evaluation.BelowLevel; only when not empty),
// run_queries_not_in_qrels, qrels_queries_not_in_run,
// missing_queries_scored_zero, warnings and, when e.Slices is set, slices
// (slice → {num_q, queries, means}).
func WriteJSON(w io.Writer, e *Evaluation, perQuery bool) error {
	// encoding/json writes invalid UTF-8 as U+FFFD: two query ids differing
	// only there would silently merge into one key.
	for _, ids := range [][]string{e.Queries, e.NotInQrels, e.NotInRun, {e.Options.RunTag}} {
		for _, id := range ids {
			if !utf8.ValidString(id) {
				return fmt.Errorf("id %q is not valid UTF-8, which JSON cannot hold; use the csv or trec format", id)
			}
		}
	}
	idx := numericMeasures(e)
	doc := jsonEvaluation{
		Run: e.Options.RunTag, NumQ: e.NumQ, Means: map[string]*float64{},
		Unanswerable: nonNil(e.Unanswerable), BelowLevel: e.BelowLevel, NotInQrels: nonNil(e.NotInQrels), NotInRun: nonNil(e.NotInRun),
		MissingScored: e.Options.CompleteQueries, Warnings: nonNil(e.Warnings()),
	}
	for _, j := range idx {
		m := e.Measures[j]
		doc.Measures = append(doc.Measures, m.Name)
		if v := e.Means[j]; !math.IsNaN(v) {
			doc.Means[m.Name] = &v
		} else {
			doc.Means[m.Name] = nil
		}
	}
	if len(e.Slices) > 0 {
		doc.Slices = map[string]jsonSlice{}
		for _, sl := range e.Slices {
			js := jsonSlice{NumQ: sl.NumQ, Rows: sl.Rows, Means: map[string]*float64{}}
			for _, j := range idx {
				if v := sl.Means[j]; !math.IsNaN(v) {
					js.Means[e.Measures[j].Name] = &v
				} else {
					js.Means[e.Measures[j].Name] = nil
				}
			}
			doc.Slices[sl.Slice] = js
		}
	}
	if perQuery {
		doc.PerQuery = make(map[string]map[string]float64, len(e.Queries))
		for i, q := range e.Queries {
			row := make(map[string]float64, len(idx))
			for _, j := range idx {
				row[e.Measures[j].Name] = e.Values[i][j]
			}
			doc.PerQuery[q] = row
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// WriteCSV writes e as CSV: a header "query,<measure names…>,averaged", one
// row per query when perQuery (averaged = true/false), then a row "all" with
// the means (averaged empty). Values use the shortest exact representation.
func WriteCSV(w io.Writer, e *Evaluation, perQuery bool) error {
	cw := csv.NewWriter(w)
	idx := numericMeasures(e)
	head := []string{"query"}
	for _, j := range idx {
		head = append(head, e.Measures[j].Name)
	}
	head = append(head, "averaged")
	cw.Write(head)
	f := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	if perQuery {
		for i, q := range e.Queries {
			row := []string{q}
			for _, j := range idx {
				row = append(row, f(e.Values[i][j]))
			}
			row = append(row, strconv.FormatBool(e.InMean[i]))
			cw.Write(row)
		}
	}
	row := []string{"all"}
	for _, j := range idx {
		row = append(row, f(e.Means[j]))
	}
	row = append(row, "")
	cw.Write(row)
	cw.Flush()
	return cw.Error()
}
