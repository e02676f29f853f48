package labels

import (
	"fmt"
	"io"
	"strings"

	"github.com/ragbench/ragbench/anchor"
	"github.com/ragbench/ragbench/spans"
)

// WriteText writes the report as bench labels check prints it: a summary
// (what the file holds; for span labels the four statuses and the record;
// judgements of grade 0 and groups of alternatives), the warnings, every
// problem but the moved labels as "file:line: field: query: message" with
// its hint, its repair and, for a passage label, its status; then the moved
// labels, one line each (the first ten unless all), and the queries of the
// changed and lost labels that need a person.
func (r *Report) WriteText(w io.Writer, all bool) error {
	var b strings.Builder
	r.summary(&b)
	for _, warn := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", warn)
	}
	if len(r.Problems) == 0 {
		b.WriteString("no problems\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	how := "bench labels check --fix writes them"
	if r.Format == FormatChroma {
		how = "--fix rewrites JSONL labels only: make them by hand in this CSV"
	}
	fmt.Fprintf(&b, "\n%s, %d with a sure repair (%s):\n", count(len(r.Problems), "problem"), r.Fixable(), how)
	var moved []spans.Problem
	for _, p := range r.Problems {
		if p.Anchored && p.Status == anchor.Moved && p.Repair != nil {
			moved = append(moved, p)
			continue
		}
		r.writeProblem(&b, p)
	}
	if len(moved) > 0 {
		fmt.Fprintf(&b, "moved (%d; --fix writes their new offsets):\n", len(moved))
		for i, p := range moved {
			if i == 10 && !all {
				fmt.Fprintf(&b, "  … and %d more (--all lists them)\n", len(moved)-10)
				break
			}
			fmt.Fprintf(&b, "  %s:%d: %s: %s: %s\n", r.Path, p.Line, p.Field, p.Who, p.Repair.Note)
		}
	}
	for _, st := range []anchor.Status{anchor.Changed, anchor.Lost} {
		if qs := r.byStatus(st); len(qs) > 0 {
			fmt.Fprintf(&b, "%s, for a person (no sure repair): %s\n", st, strings.Join(qs, ", "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeProblem writes one problem: its line, hint and repair.
func (r *Report) writeProblem(b *strings.Builder, p spans.Problem) {
	line := p.Error(r.Path).Error()
	if i := strings.Index(line, "; "+p.Hint); p.Hint != "" && i >= 0 {
		line = line[:i]
	}
	if p.Anchored {
		line += " [" + p.Status.String() + "]"
	}
	fmt.Fprintf(b, "%s\n", line)
	if p.Hint != "" {
		fmt.Fprintf(b, "    hint: %s\n", p.Hint)
	}
	if p.Repair != nil {
		fmt.Fprintf(b, "    fix:  %s\n", p.Repair.Note)
	}
}

// summary writes the report's first lines.
func (r *Report) summary(b *strings.Builder) {
	fmt.Fprintf(b, "%s: %s, %s (%d unanswerable)", r.Path, r.Format, count(r.Queries, "query"), r.Unanswerable)
	if r.Spans == nil {
		fmt.Fprintf(b, ", %s", count(r.Judged, "judgement"))
		if len(r.ChunkIDs) > 0 {
			fmt.Fprintf(b, ", %d naming chunks", len(r.ChunkIDs))
			if r.Chunking != "" {
				fmt.Fprintf(b, " of chunking %s (recorded)", r.Chunking)
			}
		}
		fmt.Fprintf(b, "\n")
		r.extras(b)
		return
	}
	c := r.Spans
	labelled := c.Status[0] + c.Status[1] + c.Status[2] + c.Status[3]
	fmt.Fprintf(b, ", %s in %s\n", count(labelled+c.NoText, "passage label"), count(len(c.Docs), "document"))
	fmt.Fprintf(b, "labels giving their text: %d unchanged, %d moved, %d changed, %d lost", c.Status[0], c.Status[1], c.Status[2], c.Status[3])
	if c.NoText > 0 {
		fmt.Fprintf(b, "; %s giving offsets only (not re-anchored)", count(c.NoText, "label"))
	}
	b.WriteString("\n")
	switch {
	case r.Record == nil:
		fmt.Fprintf(b, "record: none (bench labels record writes %s)\n", spans.AnchorRecordPath(r.Path))
	case len(r.ChangedDocs) > 0:
		fmt.Fprintf(b, "record: %s; changed since: %s\n", spans.AnchorRecordPath(r.Path), strings.Join(r.ChangedDocs, ", "))
	default:
		fmt.Fprintf(b, "record: %s; every labelled document as recorded\n", spans.AnchorRecordPath(r.Path))
	}
	if r.LabelsEdited {
		cmd := r.RecordCommand
		if cmd == "" {
			cmd = "bench labels record --corpus CORPUS " + r.Path
		}
		fmt.Fprintf(b, "record: the labels file was edited since it was recorded; once the edits are right, record them: %s\n", cmd)
	}
	r.extras(b)
}

// extras writes the counts of grade-0 judgements and groups.
func (r *Report) extras(b *strings.Builder) {
	if r.NotRelevant > 0 || r.Groups > 0 {
		fmt.Fprintf(b, "judged not relevant (grade 0, kept): %d; groups of alternatives: %d\n", r.NotRelevant, r.Groups)
	}
}

// byStatus lists the queries of the problems of status st that have no
// sure repair, once each, in file order.
func (r *Report) byStatus(st anchor.Status) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range r.Problems {
		if p.Anchored && p.Status == st && p.Repair == nil && !seen[p.Query] {
			seen[p.Query] = true
			out = append(out, fmt.Sprintf("%s (line %d)", p.Who, p.Line))
		}
	}
	return out
}

// count is "1 query", "2 queries", "0 problems".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	switch {
	case strings.HasSuffix(what, "y"):
		what = what[:len(what)-1] + "ies"
	default:
		what += "s"
	}
	return fmt.Sprintf("%d %s", n, what)
}
