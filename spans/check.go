package spans

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ragbench/ragbench/anchor"
	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
)

// CheckOptions configure CheckJSONL and CheckChromaCSV.
type CheckOptions struct {
	// Threshold is the least similarity of an approximate match for a
	// label to be Changed rather than Lost, in [0, 1]
	// (anchor.DefaultThreshold is the usual value; 0 makes any passage
	// sharing a character Changed).
	Threshold float64
	// AcceptMoved places a label whose exact text moved (anchor.Moved) at
	// its new place, listed in Checked.Moved, instead of reporting it as a
	// problem: bench run's policy, with a counted note.
	AcceptMoved bool
	// Recorded maps doc ids to the digest of their text when the labels
	// were recorded (AnchorRecord.Documents), nil without a record:
	// messages then say whether a document changed since.
	Recorded map[string]string
}

// DefaultCheckOptions are the options ParseJSONL and ParseChromaCSV check
// with: anchor.DefaultThreshold, moved labels reported, no record.
func DefaultCheckOptions() CheckOptions {
	return CheckOptions{Threshold: anchor.DefaultThreshold}
}

// Checked is a labels file checked against a corpus.
type Checked struct {
	// File is the labels file's name, as given.
	File string
	// Queries are the file's queries with the labels that could be placed
	// (all of them when Problems is empty), in file order. Unanswerable
	// counts those whose row gives no gold passage (grade ≥ 1).
	Queries      []Query
	Unanswerable int
	// Problems are the file's problems, one per row or label, in file
	// order.
	Problems []Problem
	// Status counts the passage labels that give their text, by what
	// became of it in the corpus (anchor.Status: unchanged, moved,
	// changed, lost). A label whose document is missing counts as lost.
	Status [4]int
	// NoText counts the passage labels that give offsets without their
	// text: they cannot be checked against an edited document.
	NoText int
	// Moved lists the labels placed at a new place (AcceptMoved).
	Moved []Relocation
	// Docs are the documents labelled (by their ids in the corpus).
	Docs map[string]bool
}

// Relocation is a label whose exact text was found at another place of its
// document (anchor.Moved).
type Relocation struct {
	Line     int
	Field    string
	Query    string
	Doc      string
	From, To anchor.Range
}

// Problem is one row or passage label that cannot be used as written.
type Problem struct {
	Line  int
	Field string // "gold_spans[0]", "references[2]", or the key of a bad row
	Query string // "" for a row that could not be read
	Doc   string // "" when not about one document
	Who   string // how messages name the query: `query "q1"`, `question 0`; "" for a bad row
	// Msg says what is wrong; Hint, when not "", what would fix it.
	Msg, Hint string
	// Anchored is true when the problem is where a label's text is now;
	// Status says what became of it (moved, changed, lost).
	Anchored bool
	Status   anchor.Status
	// Repair is a sure repair (bench labels check --fix writes it), nil
	// when there is none or a person must choose.
	Repair *Repair
}

// Error is the problem as an *eval.SyntaxError of the labels file file:
// "file:line: field: query "q": msg; hint".
func (p Problem) Error(file string) error {
	msg := p.Msg
	if p.Who != "" {
		msg = p.Who + ": " + msg
	}
	if p.Hint != "" {
		msg += "; " + p.Hint
	}
	return &eval.SyntaxError{File: file, Line: p.Line, Field: p.Field, Msg: msg}
}

// Repair is what to write into one passage label to fix it: each field set
// replaces the label's (offsets are then in code points).
type Repair struct {
	Doc        string // the doc id, when it was wrong ("" keeps it)
	HasOffsets bool   // write start and end
	Start, End int
	HasText    bool // write text (the document's, at the place)
	Text       string
	// Prefix and Suffix are the new context, written when the label gave
	// context (of the same length in code points).
	HasContext     bool
	Prefix, Suffix string
	// Note says what changes, for the list of repairs: `offsets [5, 9) →
	// [25, 29)`, `text: white space as in the document`.
	Note string
}

// Err returns the problems as one error (ProblemsErr).
func (c *Checked) Err() error { return ProblemsErr(c.File, c.Problems) }

// checkedQueries is a check's labels, or its error: the check's own
// (unreadable input), else every problem of the file (Err).
func checkedQueries(c *Checked, err error) ([]Query, error) {
	if err != nil {
		return nil, err
	}
	if err := c.Err(); err != nil {
		return nil, err
	}
	return c.Queries, nil
}

// ProblemsErr is the problems of the labels file file as one error:
// errors.Join of one *eval.SyntaxError per problem, in their order; nil
// when there is none.
func ProblemsErr(file string, problems []Problem) error {
	errs := make([]error, len(problems))
	for i, p := range problems {
		errs[i] = p.Error(file)
	}
	return errors.Join(errs...)
}

// CheckJSONL reads span labels (see ParseJSONL) and checks every one
// against docs, collecting all the problems of the file in one pass, each
// with a hint where one is known (the text found with different white
// space, quote marks, dashes or case, the nearest passage and its
// similarity, the places of a repeated text as doc:line:column, a doc id
// that matches once its extension is dropped) and, when it is certain, a
// Repair. The error is a read error only.
func CheckJSONL(r io.Reader, name string, docs []corpus.Document, opt CheckOptions) (*Checked, error) {
	c := newChecker(name, docs, opt)
	rows, err := eval.ReadLabelRows(r, name, true)
	if err != nil && !c.rowErrors(err) {
		return nil, err
	}
	for _, row := range rows {
		q := Query{ID: row.ID, Text: row.Meta.Text, Slice: row.Meta.Slice, Line: row.Line}
		who := fmt.Sprintf("query %q", row.ID)
		gold := 0
		for _, ls := range row.Spans {
			c.add(&q, who, row.Line, ls)
			gold += min(ls.Grade, 1)
		}
		if gold == 0 {
			c.out.Unanswerable++
		}
		c.out.Queries = append(c.out.Queries, q)
	}
	return c.out, nil
}

// rowErrors records the row errors of eval.ReadLabelRows as problems; it
// returns false when err holds another error (a read error).
func (c *checker) rowErrors(err error) bool {
	list := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	}
	var ps []Problem
	for _, e := range list {
		var se *eval.SyntaxError
		if !errors.As(e, &se) {
			return false
		}
		ps = append(ps, Problem{Line: se.Line, Field: se.Field, Msg: se.Msg})
	}
	c.out.Problems = append(c.out.Problems, ps...)
	return true
}

// checker places labels against a corpus, collecting problems.
type checker struct {
	ix      *anchor.Index
	opt     CheckOptions
	out     *Checked
	digests map[string]string // doc id → DocDigest, computed once
}

func newChecker(name string, docs []corpus.Document, opt CheckOptions) *checker {
	return &checker{ix: anchor.NewIndex(docs), opt: opt, out: &Checked{File: name, Docs: map[string]bool{}}}
}

// add places passage ls of query q (read at line) and appends it to q's
// gold or non-relevant passages, or records its problem.
func (c *checker) add(q *Query, who string, line int, ls eval.LabelSpan) {
	l := &label{c: c, q: q, who: who, line: line, ls: ls}
	sp, ok := l.place()
	if !ok {
		return
	}
	all := append(append([]Span(nil), q.Gold...), q.NonRelevant...)
	for _, g := range all {
		if g.Doc == sp.Doc && g.Start == sp.Start && g.End == sp.End {
			what := "given twice"
			if (g.Grade == 0) != (sp.Grade == 0) {
				what = "judged both relevant and not relevant (grade 0)"
			}
			l.problem(Problem{Msg: fmt.Sprintf("doc %q: span [%d, %d) %s", sp.Doc, sp.Start, sp.End, what)})
			return
		}
	}
	if sp.Grade == 0 {
		q.NonRelevant = append(q.NonRelevant, sp)
		return
	}
	q.Gold = append(q.Gold, sp)
}

// label is one passage label being placed.
type label struct {
	c    *checker
	q    *Query
	who  string
	line int
	ls   eval.LabelSpan
	doc  *anchor.Doc
}

// problem records p for the label (its line, field, query and doc filled
// in).
func (l *label) problem(p Problem) {
	p.Line, p.Query, p.Who = l.line, l.q.ID, l.who
	if p.Field == "" {
		p.Field = l.ls.Field
	}
	if p.Doc == "" {
		p.Doc = l.ls.Doc
	}
	l.c.out.Problems = append(l.c.out.Problems, p)
}

// status counts a label that gives its text.
func (l *label) status(s anchor.Status) {
	if l.ls.HasText {
		l.c.out.Status[s]++
	}
}

// place resolves the label against the corpus (see ParseJSONL), or records
// its problem.
func (l *label) place() (Span, bool) {
	d, ok := l.c.ix.Doc(l.ls.Doc)
	if !ok {
		l.status(anchor.Lost)
		l.unknownDoc()
		return Span{}, false
	}
	l.doc = d
	l.c.out.Docs[d.ID] = true
	switch {
	case l.ls.HasText && l.ls.Text == "":
		l.emptyText()
		return Span{}, false
	case !l.ls.HasOffsets && !l.ls.HasText:
		l.problem(Problem{Msg: fmt.Sprintf("doc %q: give start and end, or the passage's text", d.ID)})
		return Span{}, false
	case !l.ls.HasOffsets:
		return l.byText(nil)
	}
	r, msg := l.offsets()
	if msg != "" {
		l.badOffsets(msg)
		return Span{}, false
	}
	if !l.ls.HasText {
		l.c.out.NoText++
		return l.span(r), true
	}
	return l.byText(&r)
}

// offsets converts the label's offsets to a range of its document, or
// returns what is wrong with them.
func (l *label) offsets() (anchor.Range, string) {
	s, e, d := l.ls.Start, l.ls.End, l.doc
	length := d.Len()
	if l.ls.Unit == Bytes {
		length = len(d.Text)
	}
	if s < 0 || e <= s || e > length {
		return anchor.Range{}, fmt.Sprintf("doc %q: span [%d, %d) outside the document (0 to %d %s), or empty", d.ID, s, e, length, unitWord(l.ls.Unit))
	}
	var r anchor.Range
	var err error
	if l.ls.Unit == Bytes {
		r, err = d.ByBytes(s, e)
	} else {
		r, err = d.ByCodePoints(s, e)
	}
	if err != nil {
		return anchor.Range{}, fmt.Sprintf("doc %q: span [%d, %d): %v", d.ID, s, e, err)
	}
	return r, ""
}

// span is the label placed at r.
func (l *label) span(r anchor.Range) Span {
	return Span{Doc: l.doc.ID, Start: r.Start, End: r.End, ByteStart: r.ByteStart, ByteEnd: r.ByteEnd,
		Grade: l.ls.Grade, Text: l.doc.Slice(r), Group: l.ls.Group}
}

// byText anchors the label's text (at, its offsets, when given).
func (l *label) byText(at *anchor.Range) (Span, bool) {
	a := l.doc.Anchor(anchor.Quote{Text: l.ls.Text, Prefix: l.ls.Prefix, Suffix: l.ls.Suffix, At: at}, l.c.opt.Threshold)
	l.status(a.Status)
	switch {
	case a.Status == anchor.Unchanged:
		return l.span(a.Range), true
	case a.Status == anchor.Moved && l.c.opt.AcceptMoved:
		l.c.out.Moved = append(l.c.out.Moved, Relocation{Line: l.line, Field: l.ls.Field, Query: l.q.ID, Doc: l.doc.ID, From: *at, To: a.Range})
		return l.span(a.Range), true
	}
	l.anchorProblem(at, a)
	return Span{}, false
}

func unitWord(unit string) string {
	if unit == Bytes {
		return "bytes"
	}
	return "code points"
}

func clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}

// where names a place as doc:line:column.
func where(d *anchor.Doc, r anchor.Range) string {
	return d.ID + ":" + d.Position(r.Start).String()
}

// places lists up to five places as doc:line:column, then how many more.
func places(d *anchor.Doc, rs []anchor.Range) string {
	var parts []string
	for i, r := range rs {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(rs)-5))
			break
		}
		parts = append(parts, where(d, r))
	}
	return strings.Join(parts, ", ")
}
