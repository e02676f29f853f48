package spans

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
)

// Span is one gold passage: the characters [Start, End) of document Doc.
// Start and End count Unicode code points (Python's str indexing, Chroma's
// unit); ByteStart and ByteEnd are the same range in UTF-8 bytes
// (Go's string indexing, corpus.Chunk's unit). Text is the document's text
// in that range; Grade (≥ 1) is the relevance grade a chunk covering the
// span takes (Judgements).
type Span struct {
	Doc                string
	Start, End         int
	ByteStart, ByteEnd int
	Grade              int
	Text               string
}

// Len is the span's length in code points.
func (s Span) Len() int { return s.End - s.Start }

// Query is a span-labelled query. Gold holds its gold passages in the order
// given (none for an unanswerable query). Line is the line of the labels
// file it was read from, for messages.
type Query struct {
	ID    string
	Text  string // the question
	Slice string // "kind" or "slice" of the JSONL row; corpus_id for Chroma's CSV
	Gold  []Span
	Line  int
}

// Units of a span's offsets in the JSONL "unit" key (eval.LabelSpan).
const (
	CodePoints = eval.UnitCodePoints // the default: Python's str indexing
	Bytes      = eval.UnitBytes      // UTF-8 bytes: Go's, Rust's and most C tools' indexing
)

// docIndex is the corpus as the checks need it.
type docIndex struct {
	text  map[string]string
	runes map[string]*corpus.RuneIndex
}

func newDocIndex(docs []corpus.Document) *docIndex {
	ix := &docIndex{text: make(map[string]string, len(docs)), runes: map[string]*corpus.RuneIndex{}}
	for _, d := range docs {
		ix.text[d.ID] = d.Text
	}
	return ix
}

func (ix *docIndex) runeIndex(doc string) *corpus.RuneIndex {
	x, ok := ix.runes[doc]
	if !ok {
		x = corpus.NewRuneIndex(ix.text[doc])
		ix.runes[doc] = x
	}
	return x
}

// place resolves a span against the corpus: doc must exist; with offsets
// (in unit), they must lie in the document (and on character boundaries
// for bytes), and text, when given, must equal the document there; without
// offsets, text must occur exactly once. It returns the span in both units
// or an error message naming the doc.
func (ix *docIndex) place(doc string, start, end *int, unit, text string, grade int) (Span, string) {
	dt, ok := ix.text[doc]
	if !ok {
		return Span{}, fmt.Sprintf("doc %q: no such document in the corpus", doc)
	}
	x := ix.runeIndex(doc)
	sp := Span{Doc: doc, Grade: grade}
	if start == nil {
		if text == "" {
			return Span{}, fmt.Sprintf("doc %q: give start and end, or the passage's text", doc)
		}
		i := strings.Index(dt, text)
		if i < 0 {
			return Span{}, fmt.Sprintf("doc %q: text %q not found in the document", doc, clip(text))
		}
		if j := strings.Index(dt[i+1:], text); j >= 0 {
			a, _ := x.RuneOffset(i)
			b, _ := x.RuneOffset(i + 1 + j)
			return Span{}, fmt.Sprintf("doc %q: text %q found more than once (at code points %d and %d): give start and end", doc, clip(text), a, b)
		}
		sp.ByteStart, sp.ByteEnd = i, i+len(text)
		sp.Start, _ = x.RuneOffset(sp.ByteStart)
		sp.End, _ = x.RuneOffset(sp.ByteEnd)
		sp.Text = text
		return sp, ""
	}
	s, e := *start, *end
	length := x.Runes()
	if unit == Bytes {
		length = x.Bytes()
	}
	if s < 0 || e <= s || e > length {
		return Span{}, fmt.Sprintf("doc %q: span [%d, %d) outside the document (0 to %d %s), or empty", doc, s, e, length, unitWord(unit))
	}
	var err error
	if unit == Bytes {
		sp.ByteStart, sp.ByteEnd = s, e
		if sp.Start, err = x.RuneOffset(s); err == nil {
			sp.End, err = x.RuneOffset(e)
		}
	} else {
		sp.Start, sp.End = s, e
		if sp.ByteStart, err = x.ByteOffset(s); err == nil {
			sp.ByteEnd, err = x.ByteOffset(e)
		}
	}
	if err != nil {
		return Span{}, fmt.Sprintf("doc %q: span [%d, %d): %v", doc, s, e, err)
	}
	sp.Text = dt[sp.ByteStart:sp.ByteEnd]
	if text != "" && text != sp.Text {
		return Span{}, fmt.Sprintf("doc %q: text differs from the document at [%d, %d) %s (the corpus changed since labelling?): label %q, document %q",
			doc, s, e, unitWord(unit), clip(text), clip(sp.Text))
	}
	return sp, ""
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

// ReadJSONL reads span labels from a labelled-query JSONL file (see
// ParseJSONL) and checks them against docs.
func ReadJSONL(path string, docs []corpus.Document) ([]Query, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseJSONL(f, path, docs)
}

// ParseJSONL reads span labels, one JSON object per line:
//
//	{"id": "q-019", "question": "...", "gold_spans": [
//	    {"doc": "tenancy-act", "start": 1204, "end": 1388, "grade": 2, "text": "..."},
//	    {"doc": "faq", "text": "the exact passage"}], "kind": "multi"}
//
// The rows are read by eval.ReadLabelRows (the one parser of labelled-query
// rows: ids, keys, question and slice as there; see eval.LabelSpan for a
// passage's keys). Each gold span gives "doc" and either "start" and "end"
// (offsets in Unicode code points, 0 ≤ start < end ≤ the document's length;
// "unit": "bytes" for UTF-8 byte offsets on character boundaries) or "text"
// alone, which must occur exactly once in the document; "text" beside
// offsets must equal the document there. "gold_spans": [] is an
// unanswerable query.
//
// Every label is checked against docs before anything is returned. Errors
// are *eval.SyntaxError naming file, line, field, query and doc: a row
// eval.ReadLabelRows refuses, a span with no document, outside its
// document, whose text differs from the document at its offsets or is found
// zero or several times, the same span twice in a query, and a file with no
// query.
func ParseJSONL(r io.Reader, name string, docs []corpus.Document) ([]Query, error) {
	rows, err := eval.ReadLabelRows(r, name, true)
	if err != nil {
		return nil, firstError(err)
	}
	ix := newDocIndex(docs)
	out := make([]Query, 0, len(rows))
	for _, row := range rows {
		q := Query{ID: row.ID, Text: row.Meta.Text, Slice: row.Meta.Slice, Line: row.Line}
		fail := func(field, format string, a ...any) error {
			return &eval.SyntaxError{File: name, Line: row.Line, Field: field, Msg: fmt.Sprintf(format, a...)}
		}
		for _, ls := range row.Spans {
			if ls.Group != 0 {
				return nil, fail(ls.Field, "query %q: groups of alternatives are not supported yet", q.ID)
			}
			if ls.Grade < 1 {
				return nil, fail(ls.Field+".grade", "query %q: doc %q: grade must be ≥ 1 (a gold span is relevant), got %d", q.ID, ls.Doc, ls.Grade)
			}
			var start, end *int
			if ls.HasOffsets {
				start, end = &ls.Start, &ls.End
			}
			sp, msg := ix.place(ls.Doc, start, end, ls.Unit, ls.Text, ls.Grade)
			if msg != "" {
				return nil, fail(ls.Field, "query %q: %s", q.ID, msg)
			}
			for _, g := range q.Gold {
				if g.Doc == sp.Doc && g.Start == sp.Start && g.End == sp.End {
					return nil, fail(ls.Field, "query %q: doc %q: span [%d, %d) given twice", q.ID, sp.Doc, sp.Start, sp.End)
				}
			}
			q.Gold = append(q.Gold, sp)
		}
		out = append(out, q)
	}
	return out, nil
}

// firstError is the first of errors joined by errors.Join, or err itself.
func firstError(err error) error {
	if j, ok := err.(interface{ Unwrap() []error }); ok && len(j.Unwrap()) > 0 {
		return j.Unwrap()[0]
	}
	return err
}

// chromaWant are the columns of Chroma's questions.csv that ParseChromaCSV
// reads.
var chromaWant = []string{"question", "references", "corpus_id"}

// chromaColumns maps the columns of a questions.csv header to their
// indices. A wanted column given twice, or missing, is an error naming the
// header found (and the column spelt in another case, when it is).
func chromaColumns(header []string, name string) (map[string]int, error) {
	col := map[string]int{}
	for i, h := range header {
		h = strings.TrimPrefix(h, "\ufeff")
		if j, dup := col[h]; dup {
			if slices.Contains(chromaWant, h) {
				return nil, &eval.SyntaxError{File: name, Line: 1, Field: h, Msg: fmt.Sprintf("column given twice (columns %d and %d)", j+1, i+1)}
			}
			continue
		}
		col[h] = i
	}
	var errs []error
	for _, want := range chromaWant {
		if _, ok := col[want]; ok {
			continue
		}
		msg := fmt.Sprintf("missing column: Chroma's questions.csv has the header %s, this file's header is %q", strings.Join(chromaWant, ","), strings.Join(header, ","))
		for h := range col {
			if strings.EqualFold(strings.TrimSpace(h), want) {
				msg = fmt.Sprintf("missing column: found %q (column names are case-sensitive: rename it %q)", h, want)
			}
		}
		errs = append(errs, &eval.SyntaxError{File: name, Line: 1, Field: want, Msg: msg})
	}
	return col, errors.Join(errs...)
}

// ReadChromaCSV reads Chroma's questions.csv (see ParseChromaCSV) and checks
// it against docs.
func ReadChromaCSV(path string, docs []corpus.Document) ([]Query, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseChromaCSV(f, path, docs)
}

// ParseChromaCSV reads Chroma's chunking-evaluation questions as the
// chunking_evaluation package writes them: CSV (RFC 4180, as pandas writes
// it) with a header naming the columns question, references and corpus_id
// (any order; other columns ignored). references is a JSON list of
// {"content", "start_index", "end_index"}, offsets in code points, content
// the document's text there; corpus_id is the document's id. Query ids are
// the data rows' positions from 0 ("0", "1", …: Chroma's own question ids);
// Slice is corpus_id, so per-slice means are Chroma's per-corpus scores;
// every grade is 1. Line numbers in errors are the CSV record's first line.
//
// Errors (*eval.SyntaxError): a missing column or one given twice, malformed CSV or JSON (references null included), a
// corpus_id with no document, a reference outside its document or whose
// content differs from the document there, a file with no question.
func ParseChromaCSV(r io.Reader, name string, docs []corpus.Document) ([]Query, error) {
	ix := newDocIndex(docs)
	cr := csv.NewReader(r)
	cr.ReuseRecord = false
	header, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &eval.SyntaxError{File: name, Msg: "empty file (want a header question,references,corpus_id)"}
		}
		return nil, &eval.SyntaxError{File: name, Line: 1, Msg: err.Error()}
	}
	col, err := chromaColumns(header, name)
	if err != nil {
		return nil, err
	}
	var out []Query
	for row := 0; ; row++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, &eval.SyntaxError{File: name, Line: pe.StartLine, Msg: pe.Err.Error()}
			}
			return nil, &eval.SyntaxError{File: name, Msg: err.Error()}
		}
		line, _ := cr.FieldPos(0)
		id := strconv.Itoa(row)
		fail := func(field, format string, a ...any) error {
			return &eval.SyntaxError{File: name, Line: line, Field: field, Msg: fmt.Sprintf("question %s: ", id) + fmt.Sprintf(format, a...)}
		}
		doc := rec[col["corpus_id"]]
		q := Query{ID: id, Text: rec[col["question"]], Slice: doc, Line: line}
		if _, ok := ix.text[doc]; !ok {
			return nil, fail("corpus_id", "no document %q in the corpus", doc)
		}
		var refs []struct {
			Content *string `json:"content"`
			Start   *int    `json:"start_index"`
			End     *int    `json:"end_index"`
		}
		raw := strings.TrimSpace(rec[col["references"]])
		if !strings.HasPrefix(raw, "[") {
			return nil, fail("references", "want a JSON list of {\"content\", \"start_index\", \"end_index\"} ([] for none), got %q", clip(raw))
		}
		if err := json.Unmarshal([]byte(raw), &refs); err != nil {
			return nil, fail("references", "want a JSON list of {\"content\", \"start_index\", \"end_index\"}: %v", err)
		}
		for i, ref := range refs {
			f := fmt.Sprintf("references[%d]", i)
			if ref.Start == nil || ref.End == nil || ref.Content == nil {
				return nil, fail(f, "want content, start_index and end_index")
			}
			sp, msg := ix.place(doc, ref.Start, ref.End, CodePoints, *ref.Content, 1)
			if msg != "" {
				return nil, fail(f, "%s", msg)
			}
			if *ref.Content == "" {
				return nil, fail(f, "empty content")
			}
			q.Gold = append(q.Gold, sp)
		}
		out = append(out, q)
	}
	if len(out) == 0 {
		return nil, &eval.SyntaxError{File: name, Msg: "no questions found"}
	}
	return out, nil
}
