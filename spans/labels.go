package spans

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/jsonkey"
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

// Units of a span's offsets in the JSONL "unit" key.
const (
	CodePoints = "code_points" // the default: Python's str indexing
	Bytes      = "bytes"       // UTF-8 bytes: Go's, Rust's and most C tools' indexing
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

// spanKeys are the keys of a "gold_spans" item.
var spanKeys = []string{"doc", "start", "end", "grade", "text", "unit"}

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
// "id" (or "qid"; a string or an integer) names the query; "question" (or
// "text") and "kind" (or "slice") are optional; other keys are ignored.
// Each gold span gives "doc" and either "start" and "end" (offsets in Unicode
// code points, 0 ≤ start < end ≤ the document's length; "unit": "bytes" for
// UTF-8 byte offsets on character boundaries) or "text" alone, which must
// occur exactly once in the document; "text" beside offsets must equal the
// document there. "grade" is an integer ≥ 1 (default 1). "gold_spans": []
// is an unanswerable query. Blank lines are skipped; the file is UTF-8.
//
// Every label is checked against docs before anything is returned. Errors
// are *eval.SyntaxError naming file, line, field, query and doc: malformed
// JSON, a missing id or gold_spans, a query given twice, a span with no
// document, outside its document, whose text differs from the document at its
// offsets or is found zero or several times, the same span twice in a query,
// an unknown key in a span, "gold" beside "gold_spans", and a file with no
// query.
func ParseJSONL(r io.Reader, name string, docs []corpus.Document) ([]Query, error) {
	ix := newDocIndex(docs)
	var out []Query
	seen := map[string]int{}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	for n, line := range bytes.Split(data, []byte("\n")) {
		lineNo := n + 1
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		fail := func(field, format string, a ...any) error {
			return &eval.SyntaxError{File: name, Line: lineNo, Field: field, Msg: fmt.Sprintf(format, a...)}
		}
		var row struct {
			ID        json.RawMessage   `json:"id"`
			QID       json.RawMessage   `json:"qid"`
			Question  *string           `json:"question"`
			Text      *string           `json:"text"`
			Kind      *string           `json:"kind"`
			Slice     *string           `json:"slice"`
			Gold      json.RawMessage   `json:"gold"`
			GoldSpans []json.RawMessage `json:"gold_spans"`
		}
		if off := jsonkey.Rewritten(line); off >= 0 {
			what := fmt.Sprintf("invalid UTF-8 (byte 0x%02x)", line[off])
			if line[off] == '\\' {
				what = fmt.Sprintf("a lone UTF-16 surrogate %s", line[off:min(off+6, len(line))])
			}
			return nil, fail("json", "column %d: %s: JSON text must be UTF-8, and decoding would replace it by U+FFFD (ids and quotes would silently change)", off+1, what)
		}
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(line, &keys); err != nil {
			return nil, fail("json", "invalid JSON object: %v", err)
		}
		for k := range keys {
			for _, want := range []string{"id", "qid", "question", "text", "kind", "slice", "gold", "gold_spans"} {
				if k != want && strings.EqualFold(k, want) {
					return nil, fail(k, "unknown key: keys are case-sensitive, did you mean %q?", want)
				}
			}
		}
		if key := jsonkey.Repeated(line, false); key != "" {
			return nil, fail(key, "key given twice in one object")
		}
		for _, k := range []string{"question", "text", "kind", "slice"} {
			if v, ok := keys[k]; ok && !isJSONString(v) {
				return nil, fail(k, "must be a string, got %s", clip(string(v)))
			}
		}
		if v, ok := keys["gold_spans"]; ok && (len(v) == 0 || v[0] != '[') {
			return nil, fail("gold_spans", "must be a list of spans [{\"doc\", \"start\", \"end\"}, …], got %s", clip(string(v)))
		}
		if err := json.Unmarshal(line, &row); err != nil {
			return nil, fail("json", "%s", err)
		}
		q := Query{Line: lineNo}
		field := "id"
		raw := row.ID
		if raw == nil {
			field, raw = "qid", row.QID
		}
		id, ok := jsonID(raw)
		if !ok {
			return nil, fail(field, "missing or not a non-empty string or integer (need \"id\" or \"qid\")")
		}
		if other, ok := jsonID(row.QID); row.ID != nil && row.QID != nil && (!ok || other != id) {
			return nil, fail("qid", "\"id\" and \"qid\" both given and different")
		}
		q.ID = id
		if prev, dup := seen[id]; dup {
			return nil, fail(field, "query %q given twice (first at line %d)", id, prev)
		}
		seen[id] = lineNo
		if row.Question != nil && row.Text != nil && *row.Question != *row.Text {
			return nil, fail("question", "query %q: \"question\" and \"text\" both given and different", id)
		}
		if row.Question != nil {
			q.Text = *row.Question
		} else if row.Text != nil {
			q.Text = *row.Text
		}
		if row.Kind != nil && row.Slice != nil && *row.Kind != *row.Slice {
			return nil, fail("kind", "query %q: \"kind\" and \"slice\" both given and different", id)
		}
		if row.Kind != nil {
			q.Slice = *row.Kind
		} else if row.Slice != nil {
			q.Slice = *row.Slice
		}
		if row.Gold != nil {
			if _, ok := keys["gold_spans"]; ok {
				return nil, fail("gold", "query %q: give \"gold\" (chunk or doc ids) or \"gold_spans\", not both", id)
			}
			return nil, fail("gold", "query %q: a row with \"gold\" ids in a file of span labels: give every query as \"gold_spans\"", id)
		}
		if _, ok := keys["gold_spans"]; !ok || row.GoldSpans == nil && string(keys["gold_spans"]) != "[]" {
			return nil, fail("gold_spans", "query %q: missing (use [] for an unanswerable query)", id)
		}
		for i, item := range row.GoldSpans {
			f := fmt.Sprintf("gold_spans[%d]", i)
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(item, &obj); err != nil {
				return nil, fail(f, "query %q: want an object {\"doc\", \"start\", \"end\"} or {\"doc\", \"text\"}, got %s", id, clip(string(item)))
			}
			for _, k := range slices.Sorted(maps.Keys(obj)) {
				if !slices.Contains(spanKeys, k) {
					return nil, fail(f, "query %q: unknown key %q (want %s)", id, k, strings.Join(spanKeys, ", "))
				}
			}
			for k, want := range map[string]string{"doc": "a string", "text": "a string", "unit": "a string",
				"start": "an integer", "end": "an integer", "grade": "an integer"} {
				v, ok := obj[k]
				if !ok {
					continue
				}
				if want == "a string" && !isJSONString(v) || want == "an integer" && !isJSONInt(v) {
					return nil, fail(f+"."+k, "query %q: must be %s, got %s", id, want, clip(string(v)))
				}
			}
			var it struct {
				Doc   *string `json:"doc"`
				Start *int    `json:"start"`
				End   *int    `json:"end"`
				Grade *int    `json:"grade"`
				Text  *string `json:"text"`
				Unit  *string `json:"unit"`
			}
			if err := json.Unmarshal(item, &it); err != nil {
				return nil, fail(f, "query %q: %s", id, err)
			}
			if it.Doc == nil || *it.Doc == "" {
				return nil, fail(f+".doc", "query %q: missing doc id", id)
			}
			if (it.Start == nil) != (it.End == nil) {
				return nil, fail(f, "query %q: doc %q: give both start and end, or neither (text alone)", id, *it.Doc)
			}
			unit := CodePoints
			if it.Unit != nil {
				if *it.Unit != CodePoints && *it.Unit != Bytes {
					return nil, fail(f+".unit", "query %q: want %q (the default) or %q, got %q", id, CodePoints, Bytes, *it.Unit)
				}
				unit = *it.Unit
			}
			grade := 1
			if it.Grade != nil {
				if *it.Grade < 1 {
					return nil, fail(f+".grade", "query %q: doc %q: grade must be ≥ 1 (a gold span is relevant), got %d", id, *it.Doc, *it.Grade)
				}
				grade = *it.Grade
			}
			text := ""
			if it.Text != nil {
				text = *it.Text
			}
			sp, msg := ix.place(*it.Doc, it.Start, it.End, unit, text, grade)
			if msg != "" {
				return nil, fail(f, "query %q: %s", id, msg)
			}
			for _, g := range q.Gold {
				if g.Doc == sp.Doc && g.Start == sp.Start && g.End == sp.End {
					return nil, fail(f, "query %q: doc %q: span [%d, %d) given twice", id, sp.Doc, sp.Start, sp.End)
				}
			}
			q.Gold = append(q.Gold, sp)
		}
		out = append(out, q)
	}
	if len(out) == 0 {
		return nil, &eval.SyntaxError{File: name, Msg: "no queries found (empty labels file)"}
	}
	return out, nil
}

func isJSONString(v json.RawMessage) bool {
	var s string
	return json.Unmarshal(v, &s) == nil
}

// isJSONInt is true for a JSON number that is an integer in int's range.
func isJSONInt(v json.RawMessage) bool {
	var n json.Number
	if json.Unmarshal(v, &n) != nil {
		return false
	}
	_, err := strconv.Atoi(n.String())
	return err == nil
}

// jsonID reads a query id: a non-empty string or an integer.
func jsonID(raw json.RawMessage) (string, bool) {
	if raw == nil {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, s != ""
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		if _, err := strconv.ParseInt(n.String(), 10, 64); err == nil {
			return n.String(), true
		}
	}
	return "", false
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
	col := map[string]int{}
	for i, h := range header {
		h = strings.TrimPrefix(h, "\ufeff")
		if j, dup := col[h]; dup {
			if h == "question" || h == "references" || h == "corpus_id" {
				return nil, &eval.SyntaxError{File: name, Line: 1, Field: h, Msg: fmt.Sprintf("column given twice (columns %d and %d)", j+1, i+1)}
			}
			continue
		}
		col[h] = i
	}
	for _, want := range []string{"question", "references", "corpus_id"} {
		if _, ok := col[want]; !ok {
			return nil, &eval.SyntaxError{File: name, Line: 1, Field: want, Msg: "missing column (want a header question,references,corpus_id)"}
		}
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
