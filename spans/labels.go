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
// in that range; Grade is the relevance grade a chunk covering the span
// takes (Judgements): ≥ 1 for a gold passage, 0 for a passage judged not
// relevant. Group is 0 for a required gold passage, or g ≥ 1 for a member
// of the query's g-th group of alternatives (any one of which answers the
// query; see Passages).
type Span struct {
	Doc                string
	Start, End         int
	ByteStart, ByteEnd int
	Grade              int
	Text               string
	Group              int
}

// Len is the span's length in code points.
func (s Span) Len() int { return s.End - s.Start }

// Query is a span-labelled query. Gold holds its gold passages (grade ≥ 1)
// in the order given, the members of groups of alternatives among them
// (Span.Group; Passages groups them); none for an unanswerable query.
// NonRelevant holds the passages judged not relevant (grade 0: "looked at,
// not relevant"): kept and reported, never scored as gold. Line is the line
// of the labels file it was read from, for messages.
type Query struct {
	ID          string
	Text        string // the question
	Slice       string // "kind" or "slice" of the JSONL row; corpus_id for Chroma's CSV
	Gold        []Span
	NonRelevant []Span
	Line        int
}

// Units of a span's offsets in the JSONL "unit" key (eval.LabelSpan).
const (
	CodePoints = eval.UnitCodePoints // the default: Python's str indexing
	Bytes      = eval.UnitBytes      // UTF-8 bytes: Go's, Rust's and most C tools' indexing
)

// ReadJSONL reads span labels from a labelled-query JSONL file (see
// ParseJSONL) and checks them against docs.
func ReadJSONL(path string, docs []corpus.Document) ([]Query, error) {
	return readFile(path, docs, ParseJSONL)
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
// alone, which must occur exactly once in the document, or once given its
// "prefix" and "suffix" (the text just before and after it); "text" beside
// offsets must equal the document there, and may not be "". "grade" 0 marks
// a passage judged not relevant (Query.NonRelevant); {"any_of": [passage,
// …]} a group of alternatives. "gold_spans": [] is an unanswerable query.
//
// Every label is checked against docs before anything is returned
// (CheckJSONL with DefaultCheckOptions). The error joins (errors.Join) one
// *eval.SyntaxError per problem of the file, each naming file, line, field,
// query and doc, with a hint where one is known: a row eval.ReadLabelRows
// refuses, a span with no document, outside its document, whose text
// differs from the document at its offsets or is found zero or several
// times, the same span twice in a query, and a file with no query.
func ParseJSONL(r io.Reader, name string, docs []corpus.Document) ([]Query, error) {
	return checkedQueries(CheckJSONL(r, name, docs, DefaultCheckOptions()))
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

// readFile opens path and parses it (ParseJSONL or ParseChromaCSV).
func readFile(path string, docs []corpus.Document, parse func(io.Reader, string, []corpus.Document) ([]Query, error)) ([]Query, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parse(f, path, docs)
}

// ReadChromaCSV reads Chroma's questions.csv (see ParseChromaCSV) and checks
// it against docs.
func ReadChromaCSV(path string, docs []corpus.Document) ([]Query, error) {
	return readFile(path, docs, ParseChromaCSV)
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
// The error (CheckChromaCSV's problems, errors.Join of *eval.SyntaxError):
// a missing column or one given twice, malformed CSV or JSON (references
// null included), a corpus_id with no document, a reference outside its
// document or whose content differs from the document there, a file with
// no question.
func ParseChromaCSV(r io.Reader, name string, docs []corpus.Document) ([]Query, error) {
	return checkedQueries(CheckChromaCSV(r, name, docs, DefaultCheckOptions()))
}

// CheckChromaCSV is CheckJSONL for Chroma's questions.csv (see
// ParseChromaCSV): every reference is checked (its content as the label's
// text, at its offsets), all problems collected. A header that cannot be
// read, or malformed CSV, ends the check with that problem; the error is a
// read error only.
func CheckChromaCSV(r io.Reader, name string, docs []corpus.Document, opt CheckOptions) (*Checked, error) {
	c := newChecker(name, docs, opt)
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return c.fileProblem(0, "", "empty file (want a header question,references,corpus_id)"), nil
		}
		return c.csvError(err)
	}
	col, err := chromaColumns(header, name)
	if err != nil {
		c.rowErrors(err)
		return c.out, nil
	}
	for row := 0; ; row++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return c.csvError(err)
		}
		line, _ := cr.FieldPos(0)
		c.chromaRow(row, line, rec, col)
	}
	if len(c.out.Queries) == 0 && len(c.out.Problems) == 0 {
		return c.fileProblem(0, "", "no questions found"), nil
	}
	return c.out, nil
}

// fileProblem records a problem of the whole file (or a line of it).
func (c *checker) fileProblem(line int, field, msg string) *Checked {
	c.out.Problems = append(c.out.Problems, Problem{Line: line, Field: field, Msg: msg})
	return c.out
}

// csvError records malformed CSV (the check ends there) or returns a read
// error.
func (c *checker) csvError(err error) (*Checked, error) {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return nil, fmt.Errorf("%s: %w", c.out.File, err)
	}
	return c.fileProblem(pe.StartLine, "", pe.Err.Error()), nil
}

// chromaRow checks the row-th question (its record rec, from line).
func (c *checker) chromaRow(row, line int, rec []string, col map[string]int) {
	id := strconv.Itoa(row)
	who := "question " + id
	doc := rec[col["corpus_id"]]
	q := Query{ID: id, Text: rec[col["question"]], Slice: doc, Line: line}
	defer func() { c.out.Queries = append(c.out.Queries, q) }()
	fail := func(field, format string, a ...any) {
		c.out.Problems = append(c.out.Problems, Problem{Line: line, Field: field, Query: id, Doc: doc, Who: who, Msg: fmt.Sprintf(format, a...)})
	}
	if _, ok := c.ix.Doc(doc); !ok {
		fail("corpus_id", "no document %q in the corpus", doc)
		return
	}
	raw := strings.TrimSpace(rec[col["references"]])
	if raw == "[]" {
		c.out.Unanswerable++
	}
	var refs []map[string]json.RawMessage
	if !strings.HasPrefix(raw, "[") || json.Unmarshal([]byte(raw), &refs) != nil {
		fail("references", "want a JSON list of {\"content\", \"start_index\", \"end_index\"} ([] for none), got %q", clip(raw))
		return
	}
	for i, ref := range refs {
		f := fmt.Sprintf("references[%d]", i)
		ls, msg := chromaRef(ref, f, doc)
		if msg != "" {
			fail(f, "%s", msg)
			continue
		}
		c.add(&q, who, line, ls)
	}
}

// chromaRef reads one reference of a questions.csv row as a passage label
// of doc, or says what is wrong with it.
func chromaRef(ref map[string]json.RawMessage, f, doc string) (eval.LabelSpan, string) {
	ls := eval.LabelSpan{Field: f, Doc: doc, HasOffsets: true, Unit: CodePoints, HasText: true, Grade: 1}
	if ref == nil {
		return ls, "want an object {\"content\", \"start_index\", \"end_index\"}, got null"
	}
	for key, dst := range map[string]*int{"start_index": &ls.Start, "end_index": &ls.End} {
		v, ok := ref[key]
		if !ok {
			return ls, "want content, start_index and end_index"
		}
		n, err := strconv.Atoi(string(v))
		if err != nil {
			return ls, fmt.Sprintf("%s must be an integer, got %s", key, clip(string(v)))
		}
		*dst = n
	}
	v, ok := ref["content"]
	if !ok {
		return ls, "want content, start_index and end_index"
	}
	if json.Unmarshal(v, &ls.Text) != nil {
		return ls, fmt.Sprintf("content must be a string, got %s", clip(string(v)))
	}
	return ls, ""
}
