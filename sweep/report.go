package sweep

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Report renders res as report.md (GitHub Markdown, readable as plain text
// in a terminal): the comparison table at prompt_k with significance
// superscripts, recall across the k grid, the best cell per chunking (chosen
// on tuning queries) with its held-out number, tuning vs held-out, per-slice
// tables, unanswerable queries, timings and warnings.
func Report(res *Results) string {
	var b strings.Builder
	cfg := &res.Config
	ds := res.Dataset
	pk := cfg.PromptK
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }

	w("# ragbench sweep: %s\n\n", cfg.Name)
	w("Dataset **%s**: %d documents, %d judged queries (%d answerable, %d unanswerable); qrels are %s-level", ds.Name, ds.Documents, ds.Queries, ds.Answerable, ds.Unanswerable, ds.Level)
	if ds.Level == "document" {
		w(" (chunk rankings become document rankings by MaxP)")
	}
	w(".\nAnswerable queries are split by a seeded hash of the query id (seed %d): %d tuning, %d held out (%.0f%%). Metrics average the answerable queries; a query with no result scores 0.\n\n", *cfg.HeldOut.Seed, ds.Tuning, ds.HeldOut, 100**cfg.HeldOut.Fraction)

	// Retrievers.
	w("## Retrievers\n\n")
	var rrows [][]string
	for _, r := range cfg.Retrievers {
		rrows = append(rrows, []string{r.Name, r.Type, describeRetriever(r)})
	}
	table(&b, []string{"retriever", "type", "settings"}, rrows)
	var chs []string
	for _, c := range cfg.Chunkings() {
		chs = append(chs, "`"+c.Name+"`")
	}
	w("\nChunkings: %s (sizes in whitespace words; title prepended: %v).\n\n", strings.Join(chs, ", "), *cfg.Dataset.Title)

	// Main table.
	letters := cellLetters(len(res.Cells))
	sig := res.Significance
	w("## Comparison at prompt_k = %d\n\n", pk)
	head := []string{"", "cell"}
	var cols []string
	for _, f := range cfg.Metrics {
		cols = append(cols, metricName(f, pk))
	}
	head = append(head, cols...)
	rows := [][]string{}
	for i, c := range res.Cells {
		row := []string{letters[i], c.Name}
		for _, m := range cols {
			cell := f4(c.Means[GroupAll][m])
			{
				if beats := sig.Beats[m][c.Name]; len(beats) > 0 {
					var sup []string
					for _, j := range beats {
						sup = append(sup, letters[j])
					}
					cell += "<sup>" + strings.Join(sup, "") + "</sup>"
				}
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	table(&b, head, rows)
	w("\nSuperscript letters name the cells a cell beats significantly on that metric, over the %d answerable queries.\n\n", sig.Queries)
	for _, n := range sig.Notes {
		w("- %s\n", mdEscape(n))
	}
	w("\n")

	// Recall across k.
	if contains(cfg.Metrics, "recall") {
		w("## Recall@k across the k grid\n\n")
		w("A large gap between small and large k means the retriever finds the passages but ranks them low (a ranking problem); a low recall at the largest k means it does not find them (a finding problem).\n\n")
		head := []string{"cell"}
		for _, k := range cfg.K {
			head = append(head, metricName("recall", k))
		}
		var rows [][]string
		for _, c := range res.Cells {
			row := []string{c.Name}
			for _, k := range cfg.K {
				row = append(row, f4(c.Means[GroupAll][metricName("recall", k)]))
			}
			rows = append(rows, row)
		}
		table(&b, head, rows)
		w("\n")
	}

	// Best per chunking and tuning vs held-out.
	if len(res.Best) > 0 {
		m := res.Best[0].Metric
		w("## Best cell per chunking\n\n")
		w("Chosen on the %d tuning queries by %s; the held-out column (%d queries) is the honest estimate.\n\n", ds.Tuning, m, ds.HeldOut)
		var rows [][]string
		for _, bst := range res.Best {
			rows = append(rows, []string{bst.Chunking, bst.Cell, f4(bst.Tuning), f4(bst.HeldOut)})
		}
		table(&b, []string{"chunking", "best cell", m + " tuning", m + " held-out"}, rows)
		w("\n## Tuning vs held-out\n\n")
		var trows [][]string
		for _, c := range res.Cells {
			trows = append(trows, []string{c.Name, f4(c.Means[GroupTuning][m]), f4(c.Means[GroupHeldOut][m]), f4(c.Means[GroupAll][m])})
		}
		table(&b, []string{"cell", fmt.Sprintf("%s tuning (%d)", m, ds.Tuning), fmt.Sprintf("%s held-out (%d)", m, ds.HeldOut), fmt.Sprintf("%s all (%d)", m, ds.Answerable)}, trows)
		w("\n")
	}

	// Slices.
	w("## Slices\n\n")
	if len(ds.Slices) == 0 {
		w("The dataset has no slices (no query carries a slice/kind label), so there are no per-slice tables.\n\n")
	} else {
		for _, s := range ds.Slices {
			g := "slice:" + s
			n := 0
			if len(res.Cells) > 0 {
				n = res.Cells[0].Counts[g]
			}
			w("### %s (%d answerable queries)\n\n", s, n)
			if n == 0 {
				w("Every query of this slice is unanswerable: see below.\n\n")
				continue
			}
			var rows [][]string
			for _, c := range res.Cells {
				row := []string{c.Name}
				for _, m := range cols {
					row = append(row, f4(c.Means[g][m]))
				}
				rows = append(rows, row)
			}
			table(&b, append([]string{"cell"}, cols...), rows)
			w("\n")
		}
	}

	// Unanswerable.
	w("## Unanswerable queries\n\n")
	if ds.Unanswerable == 0 {
		w("None: every judged query has a relevant document.\n\n")
	} else {
		w("%d queries have no relevant document; they are not averaged into the tables above. A retriever always returns something, so the question is whether its top-1 score separates them from answerable queries.\n\n", ds.Unanswerable)
		var rows [][]string
		for _, c := range res.Cells {
			t := c.Threshold
			if t == nil {
				continue
			}
			row := []string{c.Name, fq(t.Unanswerable.Median), fq(t.Answerable.Median)}
			if s := t.Suggested; s != nil {
				row = append(row, fmt.Sprintf("%.4g", s.Threshold), pct(s.UnanswerableAbstained), pct(s.AnswerableLostGold))
			} else {
				row = append(row, "–", "–", "–")
			}
			rows = append(rows, row)
		}
		table(&b, []string{"cell", "median top-1 (unanswerable)", "median top-1 (answerable)", "suggested threshold", "unanswerable abstained", fmt.Sprintf("answerable losing gold@%d", pk)}, rows)
		w("\nThe threshold maximises Youden's J (share of unanswerable queries returning nothing − share of answerable queries losing a gold passage from the top %d).\n\n", pk)
		if len(res.Cells) > 0 {
			w("What came back for them (top 3; first cell per retriever, chunking %s):\n\n", res.Cells[0].Chunking.Name)
			for _, c := range res.Cells {
				if c.Chunking.Name != res.Cells[0].Chunking.Name {
					continue
				}
				w("**%s**\n\n", c.Name)
				for _, u := range c.Unanswerable {
					w("- `%s` %s", u.QueryID, mdEscape(u.Query))
					if u.Slice != "" {
						w(" (%s)", u.Slice)
					}
					w("\n")
					for _, h := range u.Top {
						w("  %d. `%s` %.4g — %s\n", h.Rank, h.ID, h.Score, mdEscape(h.Snippet))
					}
					if len(u.Top) == 0 {
						w("  (nothing)\n")
					}
				}
				w("\n")
			}
		}
	}

	w("## Misses\n\n`misses.jsonl` lists, per cell and answerable query, the gold ids missing from the top %d and what came back instead.\n\n", pk)
	var missRows [][]string
	for _, c := range res.Cells {
		missed := 0
		for _, pq := range c.PerQuery {
			if pq[metricName("recall", pk)] < 1 {
				missed++
			}
		}
		if contains(cfg.Metrics, "recall") {
			missRows = append(missRows, []string{c.Name, fmt.Sprintf("%d / %d", missed, ds.Answerable)})
		}
	}
	if len(missRows) > 0 {
		table(&b, []string{"cell", fmt.Sprintf("queries missing a gold id @%d", pk)}, missRows)
		w("\n")
	}

	// Timings.
	w("## Timings (seconds)\n\n")
	var trows [][]string
	for _, t := range res.Timings {
		cached := ""
		if t.Cached {
			cached = "yes"
		}
		trows = append(trows, []string{t.Cell, cached, fmt.Sprintf("%.2f", t.Chunk), fmt.Sprintf("%.2f", t.Build), fmt.Sprintf("%.2f", t.Embed), fmt.Sprintf("%.2f", t.Search), fmt.Sprintf("%.2f", t.Fuse), fmt.Sprintf("%.2f", t.Rerank), fmt.Sprintf("%.2f", t.Score), latency(t), mb(t.IndexBytes)})
	}
	table(&b, []string{"cell", "cached run", "chunk", "build", "embed", "search", "fuse", "rerank", "score", "query p50/p95 ms", "index MB"}, trows)
	w("\nA cached run was read from the run cache: nothing was built, embedded or searched. Chunking time is per chunking, repeated on its cells; build is index build or cache load; embed is embedding the chunks (dense); search includes embedding the queries.\n")

	if len(res.Warnings) > 0 {
		w("\n## Warnings\n\n")
		for _, x := range res.Warnings {
			w("- %s\n", mdEscape(x))
		}
	}
	return b.String()
}

// describeRetriever is a one-line summary of a retriever's settings.
func describeRetriever(r RetrieverConfig) string {
	model := filepath.Base(r.Model)
	switch r.Type {
	case "bm25":
		return fmt.Sprintf("k1=%g b=%g, %s scoring, %s fields, %s analyzer", *r.K1, *r.B, r.Scoring, r.Fields, r.Analyzer)
	case "dense":
		return fmt.Sprintf("model %s, exact cosine (chromem-go)", model)
	case "hybrid":
		if r.Fusion == "rrf" {
			return fmt.Sprintf("RRF(k=%g) of %s, top %d each", *r.RRFK, strings.Join(r.Inputs, " + "), r.Depth)
		}
		return fmt.Sprintf("%s (%s) of %s, top %d each", r.Fusion, r.Normalization, strings.Join(r.Inputs, " + "), r.Depth)
	case "rerank":
		if r.Mode == "interpolate" {
			return fmt.Sprintf("%s top %d by %g·z(CE) + %g·z(first stage), model %s", r.Input, r.Depth, *r.Alpha, 1-*r.Alpha, model)
		}
		return fmt.Sprintf("%s top %d by cross-encoder logit, model %s", r.Input, r.Depth, model)
	}
	return ""
}

// cellLetters labels cells a, b, …, z, aa, ab, ….
func cellLetters(n int) []string {
	out := make([]string, n)
	for i := range out {
		s := ""
		for j := i; ; j = j/26 - 1 {
			s = string(rune('a'+j%26)) + s
			if j < 26 {
				break
			}
		}
		out[i] = s
	}
	return out
}

func latency(t Timing) string {
	if t.LatencyP50 == 0 && t.LatencyP95 == 0 {
		return ""
	}
	return fmt.Sprintf("%.1f / %.1f", t.LatencyP50, t.LatencyP95)
}

func mb(b int64) string {
	if b == 0 {
		return ""
	}
	return fmt.Sprintf("%.1f", float64(b)/1e6)
}

func f4(v float64) string { return fmt.Sprintf("%.4f", v) }

func fq(p *float64) string {
	if p == nil {
		return "–"
	}
	return fmt.Sprintf("%.4g", *p)
}

func pct(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) }

func mdEscape(s string) string {
	r := strings.NewReplacer("|", "\\|", "\n", " ", "<", "&lt;", ">", "&gt;")
	return r.Replace(s)
}

// table writes a Markdown table with columns padded to equal width.
func table(b *strings.Builder, head []string, rows [][]string) {
	width := make([]int, len(head))
	for i, h := range head {
		width[i] = runeLen(h)
	}
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], runeLen(c))
		}
	}
	line := func(cells []string) {
		b.WriteString("|")
		for i, c := range cells {
			b.WriteString(" " + c + strings.Repeat(" ", width[i]-runeLen(c)) + " |")
		}
		b.WriteString("\n")
	}
	line(head)
	sep := make([]string, len(head))
	for i := range sep {
		sep[i] = strings.Repeat("-", width[i])
	}
	line(sep)
	for _, r := range rows {
		line(r)
	}
}

func runeLen(s string) int { return len([]rune(s)) }
