package labels

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/ragbench/ragbench/anchor"
	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/spans"
)

// This file holds File, a JSONL span-labels file held for editing: what
// bench labels merge and the labelling workbench (bench label) write. Rows
// not edited are written back byte for byte; an edited row keeps its keys
// in their order and its passages as written, except what changed.

// ContextLen is the length, in code points, of the prefix and suffix a new
// passage records (NewPassage): the W3C TextQuoteSelector's context, 32
// characters on each side as the Hypothesis client stores it, enough to
// tell repeats of a sentence apart and to re-anchor it after an edit
// (package anchor), short enough to stay readable in the file.
const ContextLen = 32

// Row keys the editor writes besides id, question (or text), gold_spans
// and kind (or slice). ReadLabelRows allows other keys, so every reader of
// labels files reads rows holding them.
const (
	// NoteKey holds a labeller's note on the question (a string).
	NoteKey = "note"
	// UnanswerableKey is true when a person decided the corpus holds no
	// answer to the question: its gold_spans then hold no passage of grade
	// ≥ 1 (grade-0 judgements only). A row with "gold_spans": [] and no
	// such mark is a question not labelled yet (bench run counts both as
	// unanswerable).
	UnanswerableKey = "unanswerable"
)

// File is a JSONL span-labels file (docs/spans.md) held for editing. Read
// it with ReadFile, change it through its rows (Row, AddRow, DeleteRow,
// Row.SetPassages and the fields of Row), and write it with Bytes: every
// line not edited comes back byte for byte (a byte order mark, CRLF line
// ends, blank lines, rows that could not be read), an edited row keeps its
// keys in their order and its untouched passages as written, and new rows
// go at the end in the file's line end. A File is not safe for concurrent
// use.
type File struct {
	// Path is the file's path (it need not exist yet).
	Path  string
	lines []fileLine
	rows  []*Row
	bom   bool
	eol   string
	// ReadErr joins the errors of the rows ReadFile could not read
	// (*eval.SyntaxError, one per row): such rows are kept as written and
	// cannot be edited. nil when every row was read.
	ReadErr error
}

// fileLine is one line of a File: its text (without its end) and end, and
// the row it holds (nil for a blank line or a row that could not be read).
type fileLine struct {
	text, end []byte
	row       *Row
}

// Row is one labelled query of a File. ID is fixed once written; the other
// exported fields may be changed, and are written when the row is
// (Bytes): Question, Slice ("kind", or "slice" when the row spells it so),
// Note (NoteKey) and Unanswerable (UnanswerableKey; true removes no
// passage, but a row marked so with a passage of grade ≥ 1 is refused by
// Bytes).
type Row struct {
	ID           string
	Question     string
	Slice        string
	Note         string
	Unanswerable bool
	// Line is the row's line in the file as last written or read (1-based;
	// 0 for a row added since).
	Line int

	passages []Passage
	obj      object // the members as read; nil for a new row
	read     rowFields
	edited   bool
}

// rowFields are a row's values as read, to tell what was changed.
type rowFields struct {
	question, slice, note string
	unanswerable          bool
	questionKey, sliceKey string
}

// Passage is one passage of a row's gold_spans: Doc, its place [Start, End)
// in code points (for a passage read from the file, where the labels
// check placed it: see File.Place), its Text (the quote), Prefix and
// Suffix (its context), its Grade (≥ 1 relevant, 0 judged not relevant)
// and Group (0 a required passage, g ≥ 1 a member of the row's g-th group
// of alternatives). Field is its place in the row ("gold_spans[2]",
// "gold_spans[1].any_of[0]") as last read or written; "" for a new one.
type Passage struct {
	Doc                  string
	Start, End           int
	Text, Prefix, Suffix string
	Grade, Group         int
	Field                string
	// Placed says Start and End are known: a new passage, or one the
	// labels check placed in its document. Problem is the check's problem
	// with it, nil when none.
	Placed  bool
	Problem *spans.Problem

	raw       json.RawMessage // the passage as written; nil for a new one
	readGrade int
}

// NewPassage is the passage [start, end) (code points) of d with grade
// and group: its text, and ContextLen code points of context on each
// side. Errors: a range outside d or empty, a negative grade, a grade-0
// passage in a group.
func NewPassage(d *anchor.Doc, start, end, grade, group int) (Passage, error) {
	if start >= end {
		return Passage{}, fmt.Errorf("doc %q: span [%d, %d) is empty", d.ID, start, end)
	}
	r, err := d.ByCodePoints(start, end)
	if err != nil {
		return Passage{}, fmt.Errorf("doc %q: span [%d, %d): %v (the document has %d code points)", d.ID, start, end, err, d.Len())
	}
	switch {
	case grade < 0:
		return Passage{}, fmt.Errorf("doc %q: grade %d: want ≥ 0 (1 or more relevant, 0 not relevant)", d.ID, grade)
	case grade == 0 && group != 0:
		return Passage{}, fmt.Errorf("doc %q: a passage judged not relevant (grade 0) cannot be an alternative answer", d.ID)
	case group < 0:
		return Passage{}, fmt.Errorf("doc %q: group %d: want ≥ 0", d.ID, group)
	}
	prefix, suffix := d.Context(r, ContextLen)
	return Passage{Doc: d.ID, Start: r.Start, End: r.End, Text: d.Slice(r), Prefix: prefix, Suffix: suffix,
		Grade: grade, Group: group, Placed: true, readGrade: -1}, nil
}

// New reports whether p was added since the file was read (it has no
// written form yet).
func (p Passage) New() bool { return p.raw == nil }

// Passages returns a copy of the row's passages in order (groups
// flattened; members of a group keep its number in Group).
func (r *Row) Passages() []Passage { return slices.Clone(r.passages) }

// SetPassages replaces the row's passages. Passages taken from the row
// (Passages) keep their written form, with only their Grade and Group
// applied; new ones (NewPassage) are written {"doc", "start", "end",
// "text", "prefix", "suffix", "grade"}. A passage of another row keeps
// its written form too.
func (r *Row) SetPassages(ps []Passage) {
	r.passages = slices.Clone(ps)
	r.edited = true
}

// AddPassage appends p to the row's passages.
func (r *Row) AddPassage(p Passage) {
	r.passages = append(r.passages, p)
	r.edited = true
}

// Edited reports whether the row will be written anew (it was added or
// changed since it was read or written).
func (r *Row) Edited() bool {
	return r.edited || r.obj == nil || r.Question != r.read.question || r.Slice != r.read.slice ||
		r.Note != r.read.note || r.Unanswerable != r.read.unanswerable
}

// Has reports whether the row judges the passage [start, end) of doc
// already (a passage placed there, any grade).
func (r *Row) Has(doc string, start, end int) bool {
	for _, p := range r.passages {
		if p.Placed && p.Doc == doc && p.Start == start && p.End == end {
			return true
		}
	}
	return false
}

// ReadFile reads the JSONL span labels at path for editing (see File). A
// file that does not exist is an empty File (its rows are written when it
// is); one that is not JSONL span labels (Chroma's questions.csv, id
// labels) is an error. Rows that cannot be read are kept as written, their
// errors in File.ReadErr.
func ReadFile(path string) (*File, error) {
	f := &File{Path: path, eol: "\n"}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\ufeff")))) == 0 {
		f.bom = bytes.HasPrefix(data, []byte("\ufeff"))
		return f, nil
	}
	if format, err := spans.Detect(path); err != nil {
		return nil, err
	} else if format != spans.FormatJSONL {
		return nil, fmt.Errorf("%s: not JSONL span labels (rows with \"gold_spans\"): only those are edited here; convert chunk-id labels with 'bench labels convert', and give a new .jsonl file for Chroma's questions.csv", path)
	}
	f.bom = bytes.HasPrefix(data, []byte("\ufeff"))
	for i, l := range bytes.SplitAfter(data, []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		text, end := splitEOL(l)
		if i == 0 && f.bom {
			text = text[3:]
		}
		if i == 0 && len(end) > 0 {
			f.eol = string(end)
		}
		f.lines = append(f.lines, fileLine{text: text, end: end})
	}
	rows, rerr := eval.ReadLabelRows(bytes.NewReader(data), path, true)
	if rerr != nil {
		var se *eval.SyntaxError
		if !errors.As(rerr, &se) {
			return nil, rerr
		}
		f.ReadErr = rerr
	}
	for _, lr := range rows {
		if lr.Line < 1 || lr.Line > len(f.lines) {
			return nil, fmt.Errorf("%s:%d: row outside the file (a bug)", path, lr.Line)
		}
		r, err := readRow(lr)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, lr.Line, err)
		}
		f.lines[lr.Line-1].row = r
		f.rows = append(f.rows, r)
	}
	return f, nil
}

// readRow makes a Row of a row ReadLabelRows read.
func readRow(lr eval.LabelRow) (*Row, error) {
	obj, err := members(lr.Raw)
	if err != nil {
		return nil, err
	}
	r := &Row{ID: lr.ID, Question: lr.Meta.Text, Slice: lr.Meta.Slice, Line: lr.Line, obj: obj}
	r.read.questionKey, r.read.sliceKey = "question", "kind"
	if _, i := obj.get("text"); i >= 0 {
		r.read.questionKey = "text"
	}
	if _, i := obj.get("slice"); i >= 0 {
		r.read.sliceKey = "slice"
	}
	if raw, _ := obj.get(NoteKey); raw != nil {
		_ = json.Unmarshal(raw, &r.Note) // not a string: no note (the value is kept unless one is written)
	}
	if raw, _ := obj.get(UnanswerableKey); raw != nil {
		_ = json.Unmarshal(raw, &r.Unanswerable)
	}
	raws, err := passageRaws(obj)
	if err != nil {
		return nil, err
	}
	for _, ls := range lr.Spans {
		raw, ok := raws[ls.Field]
		if !ok {
			return nil, fmt.Errorf("%s: not in the row (a bug)", ls.Field)
		}
		p := Passage{Doc: ls.Doc, Text: ls.Text, Prefix: ls.Prefix, Suffix: ls.Suffix, Grade: ls.Grade, Group: ls.Group,
			Field: ls.Field, raw: raw, readGrade: ls.Grade}
		if ls.HasOffsets && ls.Unit == spans.CodePoints {
			p.Start, p.End = ls.Start, ls.End
		}
		r.passages = append(r.passages, p)
	}
	r.read.question, r.read.slice, r.read.note, r.read.unanswerable = r.Question, r.Slice, r.Note, r.Unanswerable
	return r, nil
}

// passageRaws maps each passage's field (gold_spans[i],
// gold_spans[i].any_of[j]) to its JSON as written.
func passageRaws(obj object) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	raw, _ := obj.get("gold_spans")
	items, err := list(raw)
	if err != nil {
		return nil, fmt.Errorf("gold_spans: %v", err)
	}
	for i, it := range items {
		f := "gold_spans[" + strconv.Itoa(i) + "]"
		g, err := members(it)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		ms, at := g.get(eval.AnyOf)
		if at < 0 {
			out[f] = it
			continue
		}
		group, err := list(ms)
		if err != nil {
			return nil, fmt.Errorf("%s.any_of: %v", f, err)
		}
		for j, m := range group {
			out[f+".any_of["+strconv.Itoa(j)+"]"] = m
		}
	}
	return out, nil
}

// Rows returns the rows in file order (new rows last).
func (f *File) Rows() []*Row { return slices.Clone(f.rows) }

// Row returns the row of query id.
func (f *File) Row(id string) (*Row, bool) {
	for _, r := range f.rows {
		if r.ID == id {
			return r, true
		}
	}
	return nil, false
}

// AddRow appends a new row for query id (non-empty, not in the file) with
// question.
func (f *File) AddRow(id, question string) (*Row, error) {
	if id == "" {
		return nil, errors.New("a query id is required")
	}
	if _, dup := f.Row(id); dup {
		return nil, fmt.Errorf("query %q is already in %s", id, f.Path)
	}
	r := &Row{ID: id, Question: question}
	f.rows = append(f.rows, r)
	f.lines = append(f.lines, fileLine{row: r})
	return r, nil
}

// DeleteRow removes the row of query id (its line is dropped); false when
// there is none.
func (f *File) DeleteRow(id string) bool {
	r, ok := f.Row(id)
	if !ok {
		return false
	}
	f.rows = slices.DeleteFunc(f.rows, func(x *Row) bool { return x == r })
	f.lines = slices.DeleteFunc(f.lines, func(l fileLine) bool { return l.row == r })
	return true
}

// Bytes is the file as it is now (see File). Each row's Line and each
// passage's Field are set to where they are written. Errors: a row marked
// Unanswerable that holds a passage of grade ≥ 1.
func (f *File) Bytes() ([]byte, error) {
	texts, ends, err := f.render()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if f.bom {
		b.WriteString("\ufeff")
	}
	for i := range texts {
		b.Write(texts[i])
		b.Write(ends[i])
	}
	return b.Bytes(), nil
}

// render is each line's text and end as Bytes writes them: an edited row
// encoded anew, a line without an end given one when a line follows it or
// when it is a new row.
func (f *File) render() (texts, ends [][]byte, err error) {
	n := len(f.lines)
	texts, ends = make([][]byte, n), make([][]byte, n)
	for i, l := range f.lines {
		texts[i], ends[i] = l.text, l.end
		if l.row != nil {
			l.row.Line = i + 1
			if l.row.Edited() {
				if texts[i], err = l.row.encode(); err != nil {
					return nil, nil, err
				}
			}
		}
		if ends[i] == nil && (i < n-1 || l.row != nil && l.row.obj == nil) {
			ends[i] = []byte(f.eol)
		}
	}
	return texts, ends, nil
}

// Saved records that Bytes' content is now on disk: edited rows become
// rows as written (their values, keys and passages as Bytes wrote them), so
// that later edits are compared with it.
func (f *File) Saved() error {
	texts, ends, err := f.render()
	if err != nil {
		return err
	}
	for i := range f.lines {
		l := &f.lines[i]
		edited := l.row != nil && l.row.Edited()
		l.text, l.end = texts[i], ends[i]
		if !edited {
			continue
		}
		r := l.row
		obj, err := members(l.text)
		if err != nil {
			return err
		}
		raws, err := passageRaws(obj)
		if err != nil {
			return err
		}
		for j := range r.passages {
			r.passages[j].raw = raws[r.passages[j].Field]
			r.passages[j].readGrade = r.passages[j].Grade
		}
		qk, sk := r.read.questionKey, r.read.sliceKey
		if r.obj == nil {
			qk, sk = "question", "kind"
		}
		r.obj, r.edited = obj, false
		r.read = rowFields{question: r.Question, slice: r.Slice, note: r.Note, unanswerable: r.Unanswerable, questionKey: qk, sliceKey: sk}
	}
	return nil
}

// encode writes the row as one JSON object: a row read from the file keeps
// its members in their order, with the changed values replaced; a new row
// is {"id", "question", "gold_spans", "kind", "note", "unanswerable"}
// (the last three when set).
func (r *Row) encode() ([]byte, error) {
	items, err := r.encodePassages()
	if err != nil {
		return nil, err
	}
	if r.obj == nil {
		o := object{{"id", marshal(r.ID)}, {"question", marshal(r.Question)}, {"gold_spans", encodeList(items)}}
		if r.Slice != "" {
			o = append(o, member{"kind", marshal(r.Slice)})
		}
		if r.Note != "" {
			o = append(o, member{NoteKey, marshal(r.Note)})
		}
		if r.Unanswerable {
			o = append(o, member{UnanswerableKey, marshal(true)})
		}
		return o.encode(), nil
	}
	o := slices.Clone(r.obj)
	o.set("gold_spans", json.RawMessage(encodeList(items)))
	if r.Question != r.read.question {
		o.set(r.read.questionKey, r.Question)
	}
	if r.Slice != r.read.slice {
		if r.Slice == "" {
			o.del(r.read.sliceKey)
		} else {
			o.set(r.read.sliceKey, r.Slice)
		}
	}
	if r.Note != r.read.note {
		if r.Note == "" {
			o.del(NoteKey)
		} else {
			o.set(NoteKey, r.Note)
		}
	}
	if r.Unanswerable != r.read.unanswerable {
		if r.Unanswerable {
			o.set(UnanswerableKey, true)
		} else {
			o.del(UnanswerableKey)
		}
	}
	return o.encode(), nil
}

// encodePassages writes the row's passages as gold_spans items: each
// required passage alone, each group of two or more members as {"any_of":
// [...]} where its first member stands (a group left with one member is
// written as a required passage). It sets each passage's Field.
func (r *Row) encodePassages() ([]json.RawMessage, error) {
	members := map[int]int{}
	for _, p := range r.passages {
		if p.Grade >= 1 && r.Unanswerable {
			return nil, fmt.Errorf("query %q: marked unanswerable (no answer in the corpus) yet holds a relevant passage of doc %q: remove one or the other", r.ID, p.Doc)
		}
		if p.Group > 0 {
			members[p.Group]++
		}
	}
	raws := make([]json.RawMessage, len(r.passages))
	for i := range r.passages {
		raw, err := r.passages[i].encode()
		if err != nil {
			return nil, fmt.Errorf("query %q: %w", r.ID, err)
		}
		raws[i] = raw
	}
	// A passage stands alone unless it is a relevant member of a group
	// that still has two members.
	group := func(i int) int {
		if p := r.passages[i]; p.Group != 0 && p.Grade != 0 && members[p.Group] >= 2 {
			return p.Group
		}
		return 0
	}
	items := []json.RawMessage{}
	for at, slot := range eval.GoldSlots(len(r.passages), group) {
		if group(slot[0]) == 0 {
			r.passages[slot[0]].Field = "gold_spans[" + strconv.Itoa(at) + "]"
			items = append(items, raws[slot[0]])
			continue
		}
		anyOf := make([]json.RawMessage, len(slot))
		for j, i := range slot {
			r.passages[i].Field = fmt.Sprintf("gold_spans[%d].any_of[%d]", at, j)
			anyOf[j] = raws[i]
		}
		items = append(items, object{{eval.AnyOf, json.RawMessage(encodeList(anyOf))}}.encode())
	}
	return items, nil
}

// encode is the passage's JSON: as written with its grade applied, or,
// for a new passage, {"doc", "start", "end", "text", "prefix", "suffix",
// "grade"} (prefix and suffix when not empty).
func (p *Passage) encode() (json.RawMessage, error) {
	if p.raw != nil {
		if p.Grade == p.readGrade {
			return p.raw, nil
		}
		o, err := members(p.raw)
		if err != nil {
			return nil, err
		}
		o.set("grade", p.Grade)
		return o.encode(), nil
	}
	if !p.Placed || p.Doc == "" {
		return nil, fmt.Errorf("a new passage needs its document and place (NewPassage)")
	}
	o := object{{"doc", marshal(p.Doc)}, {"start", marshal(p.Start)}, {"end", marshal(p.End)}, {"text", marshal(p.Text)}}
	if p.Prefix != "" {
		o = append(o, member{"prefix", marshal(p.Prefix)})
	}
	if p.Suffix != "" {
		o = append(o, member{"suffix", marshal(p.Suffix)})
	}
	o = append(o, member{"grade", marshal(p.Grade)})
	return o.encode(), nil
}

// Checked is a File checked against a corpus (File.Check): the labels
// check's Report of the file as it is now, and the path of the copy it
// was made on (Report.Path), which Fix reads.
type Checked struct {
	*Report
	dir string
}

// Close removes the checked copy.
func (c *Checked) Close() error { return os.RemoveAll(c.dir) }

// Check checks the file as it is now (Bytes) against docs with Check, on
// a copy in a temporary folder beside which the anchor record of f.Path,
// if any, is copied (so the check knows what was recorded), and places
// every passage read from the file (Passage.Placed, Start, End, Problem).
// The report's lines are those of Bytes. Close the result when done.
func (f *File) Check(docs []corpus.Document, opt Options) (*Checked, error) {
	data, err := f.Bytes()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "bench-labels-")
	if err != nil {
		return nil, err
	}
	c := &Checked{dir: dir}
	path := filepath.Join(dir, filepath.Base(f.Path))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		c.Close()
		return nil, err
	}
	if rec, err := os.ReadFile(spans.AnchorRecordPath(f.Path)); err == nil {
		if err := os.WriteFile(spans.AnchorRecordPath(path), rec, 0o644); err != nil {
			c.Close()
			return nil, err
		}
	}
	if len(f.lines) == 0 { // nothing to check: an empty or new file
		c.Report = &Report{Path: path, Format: FormatSpans}
		return c, nil
	}
	if c.Report, err = Check(path, docs, opt); err != nil {
		c.Close()
		return nil, err
	}
	if c.Spans != nil {
		f.place(c.Spans)
	}
	return c, nil
}

// place sets each read passage's place from c, a check of Bytes: the
// passages of a row that have no problem were placed in order, gold (grade
// ≥ 1) and not relevant (grade 0) apart.
func (f *File) place(c *spans.Checked) {
	byLine := map[int]spans.Query{}
	for _, q := range c.Queries {
		byLine[q.Line] = q
	}
	problems := map[int]map[string]*spans.Problem{}
	for i := range c.Problems {
		p := &c.Problems[i]
		if problems[p.Line] == nil {
			problems[p.Line] = map[string]*spans.Problem{}
		}
		if _, dup := problems[p.Line][p.Field]; !dup {
			problems[p.Line][p.Field] = p
		}
	}
	for _, r := range f.rows {
		q := byLine[r.Line]
		gold, nonrel := q.Gold, q.NonRelevant
		for i := range r.passages {
			p := &r.passages[i]
			p.Problem = problems[r.Line][p.Field]
			if p.Problem != nil {
				p.Placed = p.New()
				continue
			}
			var sp spans.Span
			switch {
			case p.Grade == 0 && len(nonrel) > 0:
				sp, nonrel = nonrel[0], nonrel[1:]
			case p.Grade > 0 && len(gold) > 0:
				sp, gold = gold[0], gold[1:]
			default:
				p.Placed = p.New()
				continue
			}
			p.Placed, p.Doc, p.Start, p.End = true, sp.Doc, sp.Start, sp.End
			if p.Text == "" {
				p.Text = sp.Text
			}
		}
	}
}

// ReplaceLine replaces the row at line (1-based, of Bytes) by text, a row
// of the same query as written (the line Fix wrote for it): the row is
// then as written, not edited.
func (f *File) ReplaceLine(line int, text []byte) error {
	if line < 1 || line > len(f.lines) || f.lines[line-1].row == nil {
		return fmt.Errorf("%s:%d: no row there", f.Path, line)
	}
	old := f.lines[line-1].row
	rows, err := eval.ReadLabelRows(bytes.NewReader(text), f.Path, true)
	if err != nil {
		return err
	}
	if len(rows) != 1 || rows[0].ID != old.ID {
		return fmt.Errorf("%s:%d: the new line is not a row of query %q", f.Path, line, old.ID)
	}
	r, err := readRow(rows[0])
	if err != nil {
		return err
	}
	r.Line = line
	*old = *r
	f.lines[line-1].text = bytes.Clone(text)
	return nil
}
