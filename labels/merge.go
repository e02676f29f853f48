package labels

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/ragbench/ragbench/anchor"
	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/fileutil"
	"github.com/ragbench/ragbench/spans"
)

// Merged is what Merge did.
type Merged struct {
	Path   string // the file written
	Backup string // the original's copy (in place), "" otherwise
	// Relevant and NotRelevant count the judgements added (grade ≥ 1: a
	// gold passage; grade 0: judged not relevant); Already the decisions
	// whose passage the query judged already (left as they were);
	// Unreviewed the (passage, query) pairs the reviewer left null.
	Relevant, NotRelevant, Already, Unreviewed int
	// Cleared are the queries marked unanswerable that a relevant passage
	// was merged into: the mark is removed.
	Cleared []string
	// After is the check of the file written; Recorded says its anchor
	// record was written (it checks clean).
	After    *Report
	Recorded bool
}

// Merge reads the reviewer's decisions in the review file at reviewPath
// (ReadPool) back into the JSONL span labels at labelsPath, checked against
// docs: for each query given a grade, the passage is added to its row as
// {"doc", "start", "end", "text", "prefix", "suffix", "grade"} — a gold
// passage (grade ≥ 1) or a judgement "looked at, not relevant" (grade 0) —
// unless the query judges that passage already. The result is written to
// out, or, with out "", in place after copying the original to a backup
// (as Fix), atomically; its anchor record is written when it checks clean.
//
// Nothing is written when something is wrong, and every problem is in the
// error (all at once, each naming the review file's line): a review file
// that does not open, lines that do not read (listed with the rest), the
// same (query, passage) graded twice differently (naming both lines), a
// passage whose document is gone or whose text is no
// longer at its offsets (the corpus changed since pooling: pool again), a
// query not in the labels, labels that do not read, and any problem the
// labels check (Check) finds in a row a decision changed. When every
// decision was merged before (or none was made), nothing is written.
func Merge(labelsPath, reviewPath string, docs []corpus.Document, out string, opt Options) (*Merged, error) {
	// Lines that do not read are listed with every other problem, in one
	// pass; a file that does not open stops here.
	var errs []error
	items, lines, err := ReadPool(reviewPath)
	if err != nil {
		var se *eval.SyntaxError
		if !errors.As(err, &se) {
			return nil, err
		}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			errs = append(errs, j.Unwrap()...)
		} else {
			errs = append(errs, err)
		}
	}
	f, err := ReadFile(labelsPath)
	if err != nil {
		return nil, err
	}
	if f.ReadErr != nil {
		return nil, fmt.Errorf("%s: rows that do not read (fix them first):\n%w", labelsPath, f.ReadErr)
	}
	before, err := f.Check(docs, opt)
	if err != nil {
		return nil, err
	}
	before.Close()
	ix := anchor.NewIndex(docs)
	m := &Merged{}
	touched := map[*Row]bool{}
	// decided is each (query, passage) decision of the review file, with
	// its grade and line: the same pair graded twice differently is
	// refused (the first line used to win silently).
	type pair struct {
		qid, doc   string
		start, end int
	}
	type decision struct{ grade, line int }
	decided := map[pair]decision{}
	bad := func(line int, field, format string, a ...any) {
		errs = append(errs, &eval.SyntaxError{File: reviewPath, Line: line, Field: field, Msg: fmt.Sprintf(format, a...)})
	}
	for i, it := range items {
		line := lines[i]
		d, ok := ix.Doc(it.Doc)
		if !ok {
			bad(line, "doc", "no document %q in the corpus (the corpus changed since pooling: pool again)", it.Doc)
			continue
		}
		if r, err := d.ByCodePoints(it.Start, it.End); err != nil || it.Start >= it.End || d.Slice(r) != it.Text {
			bad(line, "text", "doc %q: the text at [%d, %d) is not the passage reviewed (the corpus changed since pooling: pool again)", it.Doc, it.Start, it.End)
			continue
		}
		for j, q := range it.Queries {
			if q.Grade == nil {
				m.Unreviewed++
				continue
			}
			if *q.Grade < 0 {
				continue // ReadPool's error
			}
			k := pair{q.ID, it.Doc, it.Start, it.End}
			if prev, ok := decided[k]; ok {
				if prev.grade != *q.Grade {
					bad(line, fmt.Sprintf("queries[%d].grade", j), "query %q: doc %q [%d, %d) graded %d here and %d on line %d: decide once (keep one of the two lines)",
						q.ID, it.Doc, it.Start, it.End, *q.Grade, prev.grade, prev.line)
				}
				continue
			}
			decided[k] = decision{*q.Grade, line}
			row, ok := f.Row(q.ID)
			if !ok {
				bad(line, fmt.Sprintf("queries[%d].id", j), "query %q is not in %s", q.ID, labelsPath)
				continue
			}
			if row.Has(it.Doc, it.Start, it.End) {
				m.Already++
				continue
			}
			p, err := NewPassage(d, it.Start, it.End, *q.Grade, 0)
			if err != nil {
				bad(line, fmt.Sprintf("queries[%d].grade", j), "query %q: %v", q.ID, err)
				continue
			}
			row.AddPassage(p)
			touched[row] = true
			if *q.Grade == 0 {
				m.NotRelevant++
				continue
			}
			m.Relevant++
			if row.Unanswerable {
				row.Unanswerable = false
				m.Cleared = append(m.Cleared, q.ID)
			}
		}
	}
	slices.SortStableFunc(errs, func(a, b error) int { return cmp.Compare(errLine(a), errLine(b)) })
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("nothing merged:\n%w", err)
	}
	after, err := f.Check(docs, opt)
	if err != nil {
		return nil, err
	}
	defer after.Close()
	var refused []spans.Problem
	for _, p := range after.Problems {
		for r := range touched {
			if r.Line == p.Line {
				refused = append(refused, p)
			}
		}
	}
	if len(refused) > 0 {
		return nil, fmt.Errorf("nothing merged: rows the decisions change do not check:\n%w", spans.ProblemsErr(labelsPath, refused))
	}
	data, err := f.Bytes()
	if err != nil {
		return nil, err
	}
	if m.Relevant+m.NotRelevant == 0 { // nothing new: nothing written
		m.Path = labelsPath
		m.After, err = Check(labelsPath, docs, opt)
		return m, err
	}
	w, err := writeChecked(labelsPath, nil, data, out, docs, opt)
	if err != nil {
		return nil, err
	}
	m.Path, m.Backup, m.After, m.Recorded = w.path, w.backup, w.after, w.recorded
	return m, nil
}

// errLine is the review file's line an error of Merge names (0: none).
func errLine(err error) int {
	var se *eval.SyntaxError
	if errors.As(err, &se) {
		return se.Line
	}
	return 0
}

// written is what writeChecked did.
type written struct {
	path, backup string
	after        *Report
	recorded     bool
}

// writeChecked writes data, the new content of the labels file at path, to
// out, or, with out "", to path itself after copying its current bytes (old,
// or read when nil) to a backup (backup); atomically. It then checks the
// file written against docs and, when it checks clean, writes its anchor
// record: the end of Fix and Merge.
func writeChecked(path string, old, data []byte, out string, docs []corpus.Document, opt Options) (written, error) {
	w := written{path: out}
	if out == "" {
		w.path = path
		var err error
		if old == nil {
			if old, err = os.ReadFile(path); err != nil {
				return w, err
			}
		}
		if w.backup, err = backup(path, old); err != nil {
			return w, err
		}
	}
	if err := fileutil.WriteAtomic(w.path, data); err != nil {
		return w, err
	}
	var err error
	if w.after, err = Check(w.path, docs, opt); err != nil {
		return w, err
	}
	if w.after.Spans != nil && len(w.after.Problems) == 0 {
		if err := spans.WriteAnchorRecord(w.path, spans.NewAnchorRecord(data, w.after.Spans, docs)); err != nil {
			return w, err
		}
		w.recorded = true
	}
	return w, nil
}
