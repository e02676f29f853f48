package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/results"
)

// sizeUnits says what the chunkings' sizes count, for the report.
func sizeUnits(cfg *config.Config) string {
	units := map[string]bool{}
	var out []string
	for _, ch := range cfg.Chunkings() {
		u := ""
		switch {
		case ch.Strategy == "fixed" || ch.Strategy == "sentence":
			u = "fixed and sentence sizes in whitespace words"
		case ch.Strategy == "tokens":
			u = "tokens sizes in " + ch.Tokenizer + " tokens"
		case ch.Strategy == "recursive" && ch.Tokenizer != "":
			u = "recursive sizes in " + ch.Tokenizer + " tokens"
		case ch.Strategy == "recursive":
			u = "recursive sizes in characters"
		}
		if u != "" && !units[u] {
			units[u] = true
			out = append(out, u)
		}
	}
	if len(out) == 1 && strings.HasPrefix(out[0], "fixed and sentence") || len(out) == 0 {
		return "sizes in whitespace words"
	}
	return strings.Join(out, ", ")
}

// spanMeasures writes, with span labels, the table of the span measures at
// prompt_k beside chunk-level nDCG and MRR, one row per cell.
func (r *reportWriter) spanMeasures() {
	if r.ds.Labels != results.LabelsSpans {
		return
	}
	var fams []string
	for _, f := range []string{"token_recall", "token_precision", "token_iou", "span_recall", "span_mrr", "ndcg", "mrr"} {
		if slices.Contains(r.cfg.Metrics, f) {
			fams = append(fams, f)
		}
	}
	if len(fams) == 0 {
		return
	}
	r.w("## Span measures at prompt_k = %d\n\n", r.pk)
	r.w("Token recall, precision and IoU are Chroma's token-level measures (fractions of gold and retrieved characters); span recall and span MRR count a gold span found when one chunk holds at least %v of it; nDCG and MRR are chunk-level, on the chunk judgements each chunking derives from the spans. Precision Ω (Chroma's) is the precision of retrieving exactly the chunks that hold gold text: the chunking's ceiling, the same for every retriever.\n\n", r.cfg.Dataset.SpanCoverShare)
	head := []string{"cell", "chunks", "precision Ω"}
	for _, f := range fams {
		head = append(head, config.MetricName(f, r.pk))
	}
	var rows [][]string
	for _, c := range r.res.Cells {
		omega := ""
		if c.PrecisionOmega != nil {
			omega = f4(*c.PrecisionOmega)
		}
		row := []string{c.Name, GroupDigits(c.Chunks), omega}
		for _, f := range fams {
			row = append(row, f4(c.Means[results.GroupAll][config.MetricName(f, r.pk)]))
		}
		rows = append(rows, row)
	}
	table(&r.b, head, rows)
	r.w("\n")
	for _, f := range []string{"span_recall", "token_recall"} {
		if !slices.Contains(r.cfg.Metrics, f) || len(r.cfg.K) < 2 {
			continue
		}
		r.w("%s across the k grid (passages found as the prompt grows; each chunking's chunks hold different amounts of text, so compare at equal prompt size with the token measures above):\n\n", f)
		head := []string{"cell"}
		for _, k := range r.cfg.K {
			head = append(head, "@"+strconv.Itoa(k))
		}
		var rows [][]string
		for _, c := range r.res.Cells {
			row := []string{c.Name}
			for _, k := range r.cfg.K {
				row = append(row, f4(c.Means[results.GroupAll][config.MetricName(f, k)]))
			}
			rows = append(rows, row)
		}
		table(&r.b, head, rows)
		r.w("\n")
		break
	}
	var missRows [][]string
	for _, c := range r.res.Cells {
		if c.SpansMissed != nil {
			missRows = append(missRows, []string{c.Name, fmt.Sprintf("%d / %d", *c.SpansMissed, c.SpansTotal)})
		}
	}
	if len(missRows) > 0 {
		r.w("Gold spans no chunk of the top %d covers (one row each in `misses.jsonl`):\n\n", r.pk)
		table(&r.b, []string{"cell", fmt.Sprintf("gold spans missed @%d", r.pk)}, missRows)
		r.w("\n")
	}
}

// chunkingFinding names, with span labels and more than one chunking, the
// chunking of the best cell on m and the best cell of every other chunking
// against it, with the significance verdict.
func chunkingFinding(res *results.Results, m string) string {
	if res.Dataset.Labels != results.LabelsSpans {
		return ""
	}
	mean := meanOn(m)
	best := map[string]*results.CellResult{}
	var order []string
	for i := range res.Cells {
		c := &res.Cells[i]
		ch := c.Chunking.Name
		if best[ch] == nil {
			order = append(order, ch)
		}
		if best[ch] == nil || mean(c) > mean(best[ch]) {
			best[ch] = c
		}
	}
	if len(order) < 2 {
		return ""
	}
	win := best[order[0]]
	for _, ch := range order {
		if mean(best[ch]) > mean(win) {
			win = best[ch]
		}
	}
	note := fmt.Sprintf("The winning chunking on %s is `%s`: its best cell `%s` scores %s (all %d answerable queries). The best cell of each other chunking:", m, win.Chunking.Name, win.Name, f4(mean(win)), res.Dataset.Answerable)
	for _, ch := range order {
		c := best[ch]
		if c == win {
			continue
		}
		note += fmt.Sprintf("\n  - `%s` %s (%s), %s", c.Name, f4(mean(c)), signed(mean(c)-mean(win)), verdict(&res.Significance, m, c.Name, win.Name, true))
	}
	return note
}
