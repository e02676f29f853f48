package labels

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/fileutil"
	"github.com/ragbench/ragbench/spans"
)

// Convert turns the chunk-id labels at path, made on chunking spec of docs,
// into span labels written to out (JSONL, atomically), with the anchor
// record of out beside it: each judged chunk id becomes the passage it
// names under spec — {"doc", "start", "end" (code points), "text",
// "grade"} — so the labels score every chunking. A labelled-query JSONL
// keeps each row's other keys (question, kind, …) in their order and the
// rows in theirs; TREC, BEIR and ranx qrels take each query's text from
// queries (a BEIR queries.jsonl, eval.ReadQueryTexts; "" when none), rows
// in query id order. Grades are kept (0 included). The labels written are
// checked against docs (spans.CheckJSONL) before anything is written.
//
// Errors (all listed): a judged id that is not a chunk of spec (a document
// id names no passage: use a span of the text meant; a chunk id of another
// chunking), a file that cannot be read or written.
//
// An existing out is replaced by ReplaceFile's rule (force: overwrite a
// review file holding grades); backupPath is the copy of its old bytes.
func Convert(path string, docs []corpus.Document, spec corpus.Spec, queries, out string, force bool) (n int, backupPath string, err error) {
	chunks, err := spec.Chunk(docs)
	if err != nil {
		return 0, "", err
	}
	conv := newConverter(docs, chunks, spec)
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, "", err
	}
	var rows [][]byte
	if first := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\ufeff")), " \t\r\n"); len(first) > 0 && first[0] == '{' && !isRanx(data) {
		rows, err = conv.jsonlRows(data, path)
	} else {
		rows, err = conv.qrelsRows(path, queries)
	}
	if err != nil {
		return 0, "", err
	}
	if err := errors.Join(conv.errs...); err != nil {
		return 0, "", fmt.Errorf("%s: not converted:\n%w", path, err)
	}
	body := append(bytes.Join(rows, []byte("\n")), '\n')
	c, err := spans.CheckJSONL(bytes.NewReader(body), out, docs, spans.DefaultCheckOptions())
	if err != nil {
		return 0, "", err
	}
	if err := c.Err(); err != nil {
		return 0, "", fmt.Errorf("converted labels do not check (a bug): %w", err)
	}
	if backupPath, err = ReplaceFile(out, force, "", nil); err != nil {
		return 0, "", err
	}
	if err := fileutil.WriteAtomic(out, body); err != nil {
		return 0, backupPath, err
	}
	return len(rows), backupPath, spans.WriteAnchorRecord(out, spans.NewAnchorRecord(body, c, docs))
}

// converter maps chunk ids to passages.
type converter struct {
	spec   corpus.Spec
	chunks corpus.Chunks
	byID   *corpus.IDIndex // chunks' positions by chunk id
	runes  map[string]*corpus.RuneIndex
	docs   map[string]bool
	errs   []error
}

func newConverter(docs []corpus.Document, chunks corpus.Chunks, spec corpus.Spec) *converter {
	c := &converter{spec: spec, chunks: chunks, byID: corpus.IndexChunks(chunks), runes: map[string]*corpus.RuneIndex{}, docs: map[string]bool{}}
	for _, d := range docs {
		c.runes[d.ID] = corpus.NewRuneIndex(d.Text)
		c.docs[d.ID] = true
	}
	return c
}

// passages converts one query's judgements (id → grade, in the order
// given) into gold_spans items; at names the place for errors.
func (c *converter) passages(ids []string, grades map[string]int, at string) []json.RawMessage {
	items := []json.RawMessage{}
	for _, id := range ids {
		i, ok := c.byID.Get(id)
		if !ok {
			why := "not a chunk of chunking " + c.spec.Name()
			if c.docs[id] {
				why = "a document, not a chunk: a span label names a passage; give the document's passage by hand"
			}
			c.errs = append(c.errs, fmt.Errorf("%s: %q: %s", at, id, why))
			continue
		}
		ch := c.chunks.At(i)
		x := c.runes[ch.DocID]
		s, _ := x.RuneOffset(ch.Start)
		e, _ := x.RuneOffset(ch.End)
		items = append(items, object{{"doc", marshal(ch.DocID)}, {"start", marshal(s)}, {"end", marshal(e)},
			{"text", marshal(ch.Text)}, {"grade", marshal(grades[id])}}.encode())
	}
	return items
}

// jsonlRows converts a labelled-query JSONL file row by row.
func (c *converter) jsonlRows(data []byte, path string) ([][]byte, error) {
	rows, err := eval.ReadLabelRows(bytes.NewReader(data), path, false)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for _, row := range rows {
		obj, err := members(bytes.TrimPrefix(row.Raw, []byte("\ufeff")))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, row.Line, err)
		}
		ids := goldOrder(obj, row.Gold)
		items := c.passages(ids, row.Gold, fmt.Sprintf("%s:%d: gold", path, row.Line))
		_, i := obj.get("gold")
		obj[i] = member{"gold_spans", encodeList(items)}
		out = append(out, obj.encode())
	}
	return out, nil
}

// goldOrder lists a row's gold ids in the order written.
func goldOrder(obj object, gold map[string]int) []string {
	raw, _ := obj.get("gold")
	var ids []string
	if items, err := list(raw); err == nil {
		for _, it := range items {
			var id string
			if json.Unmarshal(it, &id) == nil {
				ids = append(ids, id)
			}
		}
		return ids
	}
	if grades, err := members(raw); err == nil {
		for _, m := range grades {
			ids = append(ids, m.key)
		}
		return ids
	}
	return slices.Sorted(maps.Keys(gold))
}

// qrelsRows converts TREC, BEIR or ranx qrels, query texts from queries.
func (c *converter) qrelsRows(path, queries string) ([][]byte, error) {
	qrels, _, lines, err := eval.ReadQrelsLines(path)
	if err != nil {
		return nil, err
	}
	texts := map[string]string{}
	if queries != "" {
		if texts, err = eval.ReadQueryTexts(queries); err != nil {
			return nil, err
		}
	}
	var out [][]byte
	for _, q := range slices.Sorted(maps.Keys(qrels)) {
		ids := slices.Sorted(maps.Keys(qrels[q]))
		slices.SortStableFunc(ids, func(a, b string) int {
			return lines[eval.Judgement{Query: q, Doc: a}] - lines[eval.Judgement{Query: q, Doc: b}]
		})
		items := c.passages(ids, qrels[q], fmt.Sprintf("%s: query %q", path, q))
		out = append(out, object{{"id", marshal(q)}, {"question", marshal(texts[q])}, {"gold_spans", encodeList(items)}}.encode())
	}
	return out, nil
}

// isRanx reports whether data is ranx's qrels JSON: one object whose
// values are all objects ({"q1": {"d1": 1}}), where a labelled-query row
// has an id string.
func isRanx(data []byte) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(bytes.TrimPrefix(data, []byte("\ufeff")), &obj) != nil || len(obj) == 0 {
		return false
	}
	for _, v := range obj {
		if len(v) == 0 || v[0] != '{' {
			return false
		}
	}
	return true
}
