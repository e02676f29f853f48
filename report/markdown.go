package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ragbench/ragbench/compare"
	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/internal/plural"
	"github.com/ragbench/ragbench/kinds"
	"github.com/ragbench/ragbench/results"
)

// Markdown renders res as report.md (GitHub Markdown, readable as plain
// text in a terminal): findings (fusion or rerank cells that do not beat
// their own best input, the best cell overall), the comparison table at
// prompt_k with significance superscripts (split into tables at most
// maxTableWidth characters wide when it would be wider, as are per-slice
// tables), recall across the k grid, the best cell per chunking (chosen on
// tuning queries) with its held-out number, tuning vs held-out, per-slice
// tables, unanswerable queries, misses, timings and warnings.
func Markdown(res *results.Results) string {
	r := &reportWriter{res: res, cfg: &res.Config, ds: res.Dataset, pk: res.Config.PromptK}
	for _, section := range []func(){r.header, r.notes, r.retrievers, r.comparison, r.spanMeasures, r.judged, r.budgets, r.recallAcrossK, r.best, r.slices, r.unanswerable, r.misses, r.costs, r.timings, r.warnings} {
		section()
	}
	return r.b.String()
}

// reportWriter builds report.md, one method per section, in report order.
type reportWriter struct {
	b   strings.Builder
	res *results.Results
	cfg *config.Config
	ds  results.DatasetSummary
	pk  int // prompt_k
}

func (r *reportWriter) w(format string, a ...any) { fmt.Fprintf(&r.b, format, a...) }

// promptCols are the metric names at prompt_k, in config order: the columns
// of the comparison and per-slice tables.
func (r *reportWriter) promptCols() []string {
	var cols []string
	for _, f := range r.cfg.Metrics {
		cols = append(cols, config.MetricName(f, r.pk))
	}
	return cols
}

// header writes the title and the dataset paragraph.
func (r *reportWriter) header() {
	r.w("# ragbench sweep: %s\n\n", mdText(r.cfg.Name))
	r.w("Dataset **%s**: %s, %d judged %s (%d answerable, %d unanswerable); qrels are %s-level", mdText(r.ds.Name), plural.Count(r.ds.Documents, "document", "documents"), r.ds.Queries, plural.Word(r.ds.Queries, "query", "queries"), r.ds.Answerable, r.ds.Unanswerable, r.ds.Level)
	if r.ds.Level == "document" {
		r.w(" (chunk rankings become document rankings by MaxP)")
	}
	if r.ds.Labels == results.LabelsSpans {
		r.w(", derived for each chunking from span labels (a chunk holding at least %v of a gold span is relevant)", r.cfg.Dataset.SpanCoverShare)
	}
	r.w(".\nAnswerable queries are split by a seeded hash of the query id (seed %d): %d tuning, %d held out (%.0f%%). Metrics average the answerable queries; a query with no result scores 0.\n\n", *r.cfg.HeldOut.Seed, r.ds.Tuning, r.ds.HeldOut, 100**r.cfg.HeldOut.Fraction)
}

// notes writes the findings (Findings).
func (r *reportWriter) notes() {
	if notes := Findings(r.res); len(notes) > 0 {
		r.w("## Notes\n\n")
		for _, n := range notes {
			r.w("- %s\n", n)
		}
		r.w("\n")
	}
}

// retrievers writes the retriever table and the chunkings.
func (r *reportWriter) retrievers() {
	r.w("## Retrievers\n\n")
	var rrows [][]string
	for _, r := range r.cfg.Retrievers {
		rrows = append(rrows, []string{r.Name, r.Type, r.Describe()})
	}
	table(&r.b, []string{"retriever", "type", "settings"}, rrows)
	var chs []string
	for _, c := range r.cfg.Chunkings() {
		chs = append(chs, "`"+c.Name+"`")
	}
	r.w("\nChunkings: %s (%s; title prepended: %v).\n\n", strings.Join(chs, ", "), sizeUnits(r.cfg), *r.cfg.Dataset.Title)
}

// comparison writes the main table at prompt_k with significance labels
// (compare.Labels: letters, or numbers past 26 cells, separated so that
// "ah" is never read as a and h), then the plan's comparisons
// (significance.go).
func (r *reportWriter) comparison() {
	letters := compare.Labels(len(r.res.Cells))
	sig := r.res.Significance
	r.w("## Comparison at prompt_k = %d\n\n", r.pk)
	cols := r.promptCols()
	// column m of the comparison table: the header, then the means with
	// the labels of the cells each beats significantly.
	column := func(m string) []string {
		out := []string{m}
		for _, c := range r.res.Cells {
			v := f4(c.Means[results.GroupAll][m])
			if beats := sig.Beats[m][c.Name]; len(beats) > 0 {
				var sup []string
				for _, j := range beats {
					sup = append(sup, letters[j])
				}
				v += "<sup>" + joinLabels(sup) + "</sup>"
			}
			out = append(out, v)
		}
		return out
	}
	keys := [][]string{{""}, {"cell"}}
	for i, c := range r.res.Cells {
		keys[0] = append(keys[0], letters[i])
		keys[1] = append(keys[1], c.Name)
	}
	splitTable(&r.b, keys, cols, sig.Metrics, column, fmt.Sprintf("Other metrics at prompt_k = %d (not tested for significance):", r.pk))
	some := false
	for _, m := range sig.Metrics {
		for _, c := range r.res.Cells {
			some = some || len(sig.Beats[m][c.Name]) > 0
		}
	}
	r.w("\n%s\n\n", superscriptSentence(len(r.res.Cells), sig.Queries, some))
	r.significance()
}

// recallAcrossK writes recall at every k.
func (r *reportWriter) recallAcrossK() {
	if slices.Contains(r.cfg.Metrics, "recall") {
		r.w("## Recall@k across the k grid\n\n")
		r.w("A large gap between small and large k means the retriever finds the passages but ranks them low (a ranking problem); a low recall at the largest k means it does not find them (a finding problem).\n\n")
		head := []string{"cell"}
		for _, k := range r.cfg.K {
			head = append(head, config.MetricName("recall", k))
		}
		var rows [][]string
		for _, c := range r.res.Cells {
			row := []string{c.Name}
			for _, k := range r.cfg.K {
				row = append(row, f4(c.Means[results.GroupAll][config.MetricName("recall", k)]))
			}
			rows = append(rows, row)
		}
		table(&r.b, head, rows)
		r.w("\n")
	}
}

// best writes the best cell per chunking and tuning vs held-out.
func (r *reportWriter) best() {
	if len(r.res.Best) > 0 {
		m := r.res.Best[0].Metric
		r.w("## Best cell per chunking\n\n")
		switch {
		case r.ds.Tuning == 0:
			r.w("There is no tuning query (heldout.fraction holds every answerable query out), so no cell is chosen on tuning queries (—): each chunking lists its first cell, and the held-out column (%d queries) compares them all. Lower heldout.fraction to choose.%s\n\n", r.ds.HeldOut, smallSample(r.ds.HeldOut, "held-out means"))
		case r.ds.HeldOut == 0:
			r.w("Chosen on the %d tuning queries by %s; there is no held-out query (heldout.fraction gives none), so there is no honest estimate: raise heldout.fraction for one.%s\n\n", r.ds.Tuning, m, smallSample(r.ds.Tuning, "tuning means"))
		default:
			r.w("Chosen on the %d tuning queries by %s; the held-out column (%d queries) is the honest estimate.%s%s\n\n", r.ds.Tuning, m, r.ds.HeldOut, smallSample(r.ds.Tuning, "tuning means"), smallSample(r.ds.HeldOut, "held-out means"))
		}
		// A mean over no query is not 0: it does not exist.
		tuning := func(v float64) string { return meanOf(v, r.ds.Tuning) }
		heldOut := func(v float64) string { return meanOf(v, r.ds.HeldOut) }
		var rows [][]string
		for _, bst := range r.res.Best {
			rows = append(rows, []string{bst.Chunking, bestCell(bst), tuning(bst.Tuning), heldOut(bst.HeldOut)})
		}
		table(&r.b, []string{"chunking", "best cell", m + " tuning", m + " held-out"}, rows)
		r.w("\n## Tuning vs held-out\n\n")
		var trows [][]string
		for _, c := range r.res.Cells {
			trows = append(trows, []string{c.Name, tuning(c.Means[results.GroupTuning][m]), heldOut(c.Means[results.GroupHeldOut][m]), f4(c.Means[results.GroupAll][m])})
		}
		table(&r.b, []string{"cell", fmt.Sprintf("%s tuning (%d)", m, r.ds.Tuning), fmt.Sprintf("%s held-out (%d)", m, r.ds.HeldOut), fmt.Sprintf("%s all (%d)", m, r.ds.Answerable)}, trows)
		r.w("\n")
	}
	r.tuning() // tuned cells' grids (tuning.go)
}

// slices writes the per-slice tables.
func (r *reportWriter) slices() {
	r.w("## Slices\n\n")
	if len(r.ds.Slices) == 0 {
		r.w("The dataset has no slices (no query carries a slice/kind label), so there are no per-slice tables.\n\n")
	} else {
		for _, s := range r.ds.Slices {
			g := results.SliceGroup(s)
			n := 0
			if len(r.res.Cells) > 0 {
				n = r.res.Cells[0].Counts[g]
			}
			r.w("### %s (%d answerable %s)\n\n", mdEscape(s), n, plural.Word(n, "query", "queries"))
			if s == results.NoSlice {
				r.w("Queries with no `%s` label.\n\n", r.cfg.Dataset.SliceField)
			}
			if n == 0 {
				r.w("Every query of this slice is unanswerable: see below.\n\n")
				continue
			}
			if w := smallSample(n, "this slice's means"); w != "" {
				r.w("%s\n\n", strings.TrimSpace(w))
			}
			keys := [][]string{{"cell"}}
			for _, c := range r.res.Cells {
				keys[0] = append(keys[0], c.Name)
			}
			splitTable(&r.b, keys, r.promptCols(), nil, func(m string) []string {
				out := []string{m}
				for _, c := range r.res.Cells {
					out = append(out, f4(c.Means[g][m]))
				}
				return out
			}, "")
			r.w("\n")
		}
	}
}

// unanswerable writes the unanswerable queries and the threshold analysis.
func (r *reportWriter) unanswerable() {
	r.w("## Unanswerable queries\n\n")
	if r.ds.Unanswerable == 0 {
		r.w("None: every judged query has a relevant document.\n\n")
	} else {
		if r.ds.Unanswerable == 1 {
			r.w("1 query has no relevant document; it is not averaged into the tables above. A retriever always returns something, so the question is whether its top-1 score separates it from answerable queries.\n\n")
		} else {
			r.w("%d queries have no relevant document; they are not averaged into the tables above. A retriever always returns something, so the question is whether its top-1 score separates them from answerable queries.\n\n", r.ds.Unanswerable)
		}
		// Short headers (explained below the table), split like the
		// comparison table when long cell names still make it too wide.
		hd := []string{"top-1 unans.", "top-1 ans.", "threshold", "abstain", fmt.Sprintf("lose gold@%d", r.pk)}
		var names []string
		vals := map[string][]string{}
		for _, c := range r.res.Cells {
			t := c.Threshold
			if t == nil {
				continue
			}
			names = append(names, c.Name)
			row := []string{fq(t.Unanswerable.Median), fq(t.Answerable.Median)}
			if s := t.Suggested; s != nil {
				row = append(row, fmt.Sprintf("%.4g", s.Threshold), pct(s.UnanswerableAbstained), pct(s.AnswerableLostGold))
			} else {
				row = append(row, "–", "–", "–")
			}
			for i, h := range hd {
				vals[h] = append(vals[h], row[i])
			}
		}
		splitTable(&r.b, [][]string{append([]string{"cell"}, names...)}, hd, nil, func(h string) []string {
			return append([]string{h}, vals[h]...)
		}, "")
		r.w("\ntop-1 unans. and top-1 ans.: median top-1 score of the unanswerable and of the answerable queries (– when none has a result). threshold: the suggested abstention threshold; abstain: share of unanswerable queries it turns into no answer; lose gold@%d: share of answerable queries it would make lose a gold passage from the top %d.\n\n", r.pk, r.pk)
		r.w("The threshold maximises Youden's J (share of unanswerable queries returning nothing − share of answerable queries losing a gold passage from the top %d).\n\n", r.pk)
		if len(r.res.Cells) > 0 {
			r.w("What came back for them (top 3; first cell per retriever, chunking %s):\n\n", r.res.Cells[0].Chunking.Name)
			for _, c := range r.res.Cells {
				if c.Chunking.Name != r.res.Cells[0].Chunking.Name {
					continue
				}
				r.w("**%s**\n\n", c.Name)
				for _, u := range c.Unanswerable {
					r.w("- %s %s", mdCode(u.QueryID), mdEscape(u.Query))
					if u.Slice != "" {
						r.w(" (%s)", mdEscape(u.Slice))
					}
					r.w("\n")
					for _, h := range u.Top {
						r.w("  %d. %s %.4g — %s\n", h.Rank, mdCode(h.ID), h.Score, mdEscape(h.Snippet))
					}
					if len(u.Top) == 0 {
						r.w("  (nothing)\n")
					}
				}
				r.w("\n")
			}
		}
	}
}

// misses writes the misses summary.
func (r *reportWriter) misses() {
	if r.ds.Labels == results.LabelsSpans {
		r.w("## Misses\n\n`misses.jsonl` lists, per cell, each gold span no chunk of the top %d covers, with its text, its diagnosis and the chunks that came back instead.\n\n", r.pk)
		r.missCauses()
		return
	}
	r.w("## Misses\n\n`misses.jsonl` lists, per cell and answerable query, the gold ids missing from the top %d and what came back instead.\n\n", r.pk)
	var missRows [][]string
	for _, c := range r.res.Cells {
		missed := 0
		for _, pq := range c.PerQuery {
			if pq[config.MetricName("recall", r.pk)] < 1 {
				missed++
			}
		}
		if slices.Contains(r.cfg.Metrics, "recall") {
			missRows = append(missRows, []string{c.Name, fmt.Sprintf("%d / %d", missed, r.ds.Answerable)})
		}
	}
	if len(missRows) > 0 {
		table(&r.b, []string{"cell", fmt.Sprintf("queries missing a gold id @%d", r.pk)}, missRows)
		r.w("\n")
	}
	r.missCauses()
}

// timings writes the timing tables.
func (r *reportWriter) timings() {
	r.w("## Timings (seconds)\n\n")
	// The stage times first; latency and index size go to a second table
	// when one would be wider than a terminal (splitTable).
	tcols := []string{"cached", "chunk", "build", kinds.StageEmbed, kinds.StageSearch, kinds.StageFuse, kinds.StageRerank, "score", "query p50/p95 ms", "index MB", "index docs/s"}
	tvals := map[string][]string{}
	tkeys := []string{"cell"}
	for _, t := range r.res.Timings {
		cached := ""
		if t.Cached {
			cached = "yes"
		}
		tkeys = append(tkeys, t.Cell)
		for i, v := range []string{cached, fmt.Sprintf("%.2f", t.Chunk), fmt.Sprintf("%.2f", t.Build), fmt.Sprintf("%.2f", t.Embed), fmt.Sprintf("%.2f", t.Search), fmt.Sprintf("%.2f", t.Fuse), fmt.Sprintf("%.2f", t.Rerank), fmt.Sprintf("%.2f", t.Score), latency(t), mb(t.IndexBytes), docsPerSec(t)} {
			tvals[tcols[i]] = append(tvals[tcols[i]], v)
		}
	}
	splitTable(&r.b, [][]string{tkeys}, tcols, tcols[:8], func(m string) []string {
		return append([]string{m}, tvals[m]...)
	}, "")
	r.w("\ncached: yes when the cell's run was read from the run cache (nothing built, embedded or searched). Chunking time is per chunking, repeated on its cells; build is index build or cache load; embed is embedding the chunks (dense); search includes embedding the queries.\n")
	r.timingNotes()
	r.queryCosts()
}

// timingNotes writes the kinds' notes on their timings (kinds.TimingNoter,
// each once) and lists the queries that on_query_error: miss scored as
// misses.
func (r *reportWriter) timingNotes() {
	seen := map[string]bool{}
	for _, c := range r.res.Config.Retrievers {
		if n, ok := c.Settings.(kinds.TimingNoter); ok && !seen[n.TimingNote()] {
			seen[n.TimingNote()] = true
			r.w("\n%s\n", n.TimingNote())
		}
	}
	for _, t := range r.res.Timings {
		if t.QueryErrors == 0 {
			continue
		}
		ids := t.FailedQueries
		more := ""
		if len(ids) > 20 {
			ids, more = ids[:20], fmt.Sprintf(" and %d more (results.json failed_queries)", len(t.FailedQueries)-20)
		}
		r.w("\n**%s: %s failed after the retries and scored as misses** (on_query_error: miss): %s%s. Its measures count them as retrieving nothing.\n",
			mdEscape(t.Cell), plural.Count(t.QueryErrors, "query", "queries"), mdEscape(strings.Join(ids, ", ")), more)
	}
}

// docsPerSec is an engine cell's index throughput (documents loaded per
// second of build), "" for cells that loaded nothing.
func docsPerSec(t results.Timing) string {
	if t.IndexDocs == 0 || t.Build <= 0 {
		return ""
	}
	return fmt.Sprintf("%.0f", float64(t.IndexDocs)/t.Build)
}

// warnings writes the warnings.
func (r *reportWriter) warnings() {
	if len(r.res.Warnings) > 0 {
		r.w("\n## Warnings\n\n")
		for _, x := range r.res.Warnings {
			r.w("- %s\n", mdEscape(x))
		}
	}
}
