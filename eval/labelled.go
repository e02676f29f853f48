package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ragbench/ragbench/internal/jsonkey"
)

// This file holds the one parser of labelled-query JSONL rows: ReadQrels
// reads their "gold" ids, package spans their "gold_spans" passages; both
// take the row (its id, text, slice and keys) from ReadLabelRows.

// jsonlKeys are the keys of a labelled-query JSONL line that ReadLabelRows
// reads, matched exactly (encoding/json would also take "Gold" or "ID" for
// them).
var jsonlKeys = []string{"id", "qid", "question", "text", "gold", "gold_spans", "kind", "slice"}

// SpanKeys are the keys of one passage of "gold_spans" (LabelSpan), in the
// order a writer should give them.
var SpanKeys = []string{"doc", "start", "end", "unit", "text", "prefix", "suffix", "grade"}

// AnyOf is the one key of a group of alternative passages in "gold_spans":
// {"any_of": [passage, passage, …]}, any one of which answers the query.
const AnyOf = "any_of"

// GoldSlots lays out a "gold_spans" list of n passages: passage i stands
// alone when group(i) is 0, else in the any_of object of its group, which
// stands at the place of the group's first passage. It returns each item's
// passage indexes, in list order (a lone passage's item has one). The
// labels writer builds gold_spans by it and spans counts passages by it, so
// that the two agree on the order.
func GoldSlots(n int, group func(i int) int) [][]int {
	var slots [][]int
	at := map[int]int{} // group → index in slots
	for i := range n {
		g := group(i)
		if g == 0 {
			slots = append(slots, []int{i})
			continue
		}
		k, ok := at[g]
		if !ok {
			k = len(slots)
			at[g] = k
			slots = append(slots, nil)
		}
		slots[k] = append(slots[k], i)
	}
	return slots
}

// Units of a passage's offsets (the "unit" key of LabelSpan).
const (
	UnitCodePoints = "code_points" // the default: Python's str indexing
	UnitBytes      = "bytes"       // UTF-8 bytes: Go's, Rust's and most C tools' indexing
)

// LabelRow is one labelled query as its JSONL row gives it, before any
// check against a corpus:
//
//	{"id": "q-019", "question": "...", "kind": "multi", "gold": ["doc-3", "doc-9"]}
//	{"id": "q-019", "question": "...", "gold": {"doc-3": 2, "doc-9": 0}}
//	{"id": "q-020", "question": "...", "gold_spans": [{"doc": "act", "text": "..."}]}
//
// ID is "id" or "qid" (a non-empty string, or an integer literal of any
// length kept as written; both given must agree); IDField is the key it was
// read from. Meta holds "question" (or "text") and "kind" (or "slice").
// Gold holds the "gold" judgements (doc or chunk id → grade; a list gives
// grade 1 to each), nil when the row has no "gold". Spans holds the
// "gold_spans" passages in order (groups flattened, see LabelSpan), and
// HasSpans says the key was given ([] is an unanswerable query). A row
// gives "gold" or "gold_spans", not both. Raw is the line as read (without
// its line end), for tools that rewrite a row.
type LabelRow struct {
	Line     int
	ID       string
	IDField  string
	Meta     QueryMeta
	Gold     map[string]int
	Spans    []LabelSpan
	HasSpans bool
	Raw      []byte
}

// LabelSpan is one passage of a row's "gold_spans", as written:
//
//	{"doc": "act", "start": 1204, "end": 1388, "unit": "code_points",
//	 "text": "...", "prefix": "...", "suffix": "...", "grade": 2}
//
// Doc is required. HasOffsets: "start" and "end" were given (both or
// neither), in Unit (UnitCodePoints by default, or UnitBytes). HasText: "text"
// (the quote) was given, possibly "". Prefix and Suffix are the text just
// before and after the quote (the W3C Web Annotation TextQuoteSelector's
// context), used to tell repeated quotes apart; they need "text". Grade is
// an integer ≥ 0, 1 by default: 0 is a judgement "looked at, not relevant".
// Group is 0 for a required passage, or g ≥ 1 for a member of the row's g-th
// group of alternatives ({"any_of": [...]}, at least two passages of grade
// ≥ 1, any one answering the query). Item is the index in "gold_spans" and
// Field names the passage for messages: "gold_spans[2]" or
// "gold_spans[2].any_of[1]".
type LabelSpan struct {
	Field      string
	Item       int
	Group      int
	Doc        string
	HasOffsets bool
	Start, End int
	Unit       string
	HasText    bool
	Text       string
	Prefix     string
	Suffix     string
	Grade      int
}

// ReadLabelRows reads every row of a labelled-query JSONL file (UTF-8 with
// or without a byte order mark, LF or CRLF, blank lines skipped, one JSON
// object per line, lines up to 64 MiB). With spans, every row must give
// "gold_spans" (span labels, package spans); otherwise every row must give
// "gold" (ids, ReadQrels). It returns the rows that parse, in file order,
// and, joined (errors.Join), one *SyntaxError naming file, line and field
// for each row that does not: malformed JSON, text JSON decoding would
// rewrite (invalid UTF-8, a lone surrogate escape), a repeated key, a known
// key in another case ("Gold"), a missing or malformed id, "id" and "qid"
// or "question" and "text" or "kind" and "slice" that disagree, a query
// given twice (on its second row), a row without the judgements wanted or
// with both "gold" and "gold_spans", and malformed "gold" or "gold_spans"
// (see LabelRow and LabelSpan). Other keys are allowed (bench run's
// slice_field may name them). A file with no row is an error; a read error
// ends the read.
func ReadLabelRows(r io.Reader, name string, spans bool) ([]LabelRow, error) {
	return readLabelRows(r, name, spans, false)
}

// readLabelRows is ReadLabelRows; with first it stops at the first bad row.
func readLabelRows(r io.Reader, name string, spans, first bool) ([]LabelRow, error) {
	s := newLineScanner(r, name)
	var rows []LabelRow
	var errs []error
	seen := map[string]int{} // query id → line
	for s.Scan() {
		line := s.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		row, err := parseLabelRow(s, line, seen, spans)
		if err != nil {
			errs = append(errs, err)
			if first {
				return nil, err
			}
			continue
		}
		rows = append(rows, row)
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	if len(rows) == 0 && len(errs) == 0 {
		what := "qrels"
		if spans {
			what = "labels"
		}
		return nil, &SyntaxError{File: name, Msg: "no queries found (empty " + what + " file)"}
	}
	return rows, errors.Join(errs...)
}

// parseLabelRow parses one non-blank line of labelled-query JSONL; seen
// maps the query ids read so far to their lines (the row's id is added).
func parseLabelRow(s *lineScanner, line []byte, seen map[string]int, spans bool) (LabelRow, error) {
	row := LabelRow{Line: s.line, Raw: bytes.Clone(line)}
	obj, err := rowObject(s, line)
	if err != nil {
		return row, err
	}
	if row.ID, row.IDField, err = rowID(s, obj); err != nil {
		return row, err
	}
	if _, dup := seen[row.ID]; dup {
		return row, s.errf(row.IDField, "query %q given twice", row.ID)
	}
	seen[row.ID] = s.line
	if err := rowJudgements(s, obj, &row, spans); err != nil {
		return row, err
	}
	if row.Meta.Text, err = pickOne(s, obj, "question", "text"); err != nil {
		return row, err
	}
	if row.Meta.Slice, err = pickOne(s, obj, "kind", "slice"); err != nil {
		return row, err
	}
	return row, nil
}

// rowJudgements reads a row's "gold" or "gold_spans", the one wanted.
func rowJudgements(s *lineScanner, obj map[string]json.RawMessage, row *LabelRow, spans bool) error {
	_, hasGold := obj["gold"]
	_, row.HasSpans = obj["gold_spans"]
	var err error
	switch {
	case hasGold && row.HasSpans:
		return s.errf("gold", "query %q: give \"gold\" (chunk or doc ids) or \"gold_spans\" (passages), not both", row.ID)
	case spans && hasGold:
		return s.errf("gold", "query %q: a row with \"gold\" ids in a file of span labels: give every query as \"gold_spans\"", row.ID)
	case spans && !row.HasSpans:
		return s.errf("gold_spans", "query %q: missing (use [] for an unanswerable query)", row.ID)
	case spans:
		row.Spans, err = parseGoldSpans(s, row.ID, obj["gold_spans"])
	case row.HasSpans:
		return s.errf("gold", "missing (use [] or {} for an unanswerable query); this row gives \"gold_spans\" (span labels), which are read with their corpus (bench run; docs/spans.md)")
	default:
		row.Gold, err = parseGold(s, obj)
	}
	return err
}

// lineObject decodes a non-blank JSONL line holding one JSON object: the
// one rule of eval's JSONL readers (labelled queries, BEIR queries). It
// refuses text JSON decoding would rewrite, anything but an object (what
// names the row expected, for the message), trailing data and a repeated
// key, each as a *SyntaxError at the scanner's line.
func lineObject(s *lineScanner, line []byte, what string) (map[string]json.RawMessage, error) {
	if err := checkJSONText(line, s.name); err != nil {
		se := err.(*SyntaxError) // checkJSONText counts lines in what it is given: this one line
		se.Line = s.line
		return nil, se
	}
	trimmed := bytes.TrimSpace(line)
	if trimmed[0] != '{' {
		return nil, s.errf("json", "want one JSON object per line (%s), got %q", what, jsonkey.Clip(trimmed))
	}
	var obj map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&obj); err != nil {
		return nil, s.errf("json", "%s", jsonSyntax(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, s.errf("json", "unexpected data after the object (one query per line)")
	}
	if key := jsonkey.Repeated(line, false); key != "" {
		return nil, s.errf(key, "key given twice in one object")
	}
	return obj, nil
}

// rowObject decodes a line holding one JSON object, refusing text JSON
// decoding would rewrite, trailing data, a repeated key, a BEIR queries or
// corpus line, and a known key spelt in another case.
func rowObject(s *lineScanner, line []byte) (map[string]json.RawMessage, error) {
	obj, err := lineObject(s, line, "a labelled query")
	if err != nil {
		return nil, err
	}
	_, gold := obj["gold"]
	_, spans := obj["gold_spans"]
	if _, beir := obj["_id"]; beir && !gold && !spans {
		return nil, s.errf("gold", "missing: this looks like a BEIR queries or corpus file (\"_id\", \"text\"), which holds no judgements; give the qrels (BEIR qrels/test.tsv) or a labelled-query JSONL with \"gold\"")
	}
	// Keys match exactly. Other keys are allowed (bench run's slice_field
	// may name any of them, e.g. "topic"), except a spelling of a known key
	// in another case, which encoding/json would have taken for it and
	// which is almost surely meant as it.
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if slices.Contains(jsonlKeys, k) {
			continue
		}
		for _, want := range jsonlKeys {
			if strings.EqualFold(k, want) {
				return nil, s.errf(k, "unknown key: keys are case-sensitive, did you mean %q?", want)
			}
		}
	}
	return obj, nil
}

// rowID reads the query id of a row: "id", else "qid"; both given must
// agree. It returns the id and the key it was read from.
func rowID(s *lineScanner, obj map[string]json.RawMessage) (string, string, error) {
	idField := "id"
	raw, hasID := obj["id"]
	if !hasID {
		idField = "qid"
		raw = obj["qid"]
	}
	if raw == nil {
		return "", "", s.errf("id", "missing (need \"id\" or \"qid\")")
	}
	qid, ok := jsonID(raw)
	if !ok {
		return "", "", s.errf(idField, "must be a non-empty string or an integer, got %s", jsonkey.Clip(raw))
	}
	if rawQ, ok := obj["qid"]; hasID && ok {
		other, ok := jsonID(rawQ)
		if !ok {
			return "", "", s.errf("qid", "must be a non-empty string or an integer, got %s", jsonkey.Clip(rawQ))
		}
		if other != qid {
			return "", "", s.errf("qid", "\"id\" and \"qid\" both given and different (%s vs %s)", qid, other)
		}
	}
	return qid, idField, nil
}

// jsonID reads a query id: a non-empty string, or an integer literal of any
// length kept as written (ids are strings: 12345678901234567890 is not
// converted to a number). ok is false for any other value.
func jsonID(raw json.RawMessage) (id string, ok bool) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, s != ""
	}
	lit := strings.TrimPrefix(string(raw), "-")
	if lit != "" && strings.Trim(lit, "0123456789") == "" {
		return string(raw), true
	}
	return "", false
}

// jsonString reads the string value of key in obj: "" and false when the
// key is absent, an error naming the key when its value is not a string.
func jsonString(s *lineScanner, obj map[string]json.RawMessage, key string) (string, bool, error) {
	raw, ok := obj[key]
	if !ok {
		return "", false, nil
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", false, s.errf(key, "must be a string, got %s", jsonkey.Clip(raw))
	}
	return v, true, nil
}

// pickOne returns the value of key a, or of key b when a is absent; both
// present and different is an error naming b.
func pickOne(s *lineScanner, obj map[string]json.RawMessage, a, b string) (string, error) {
	va, okA, err := jsonString(s, obj, a)
	if err != nil {
		return "", err
	}
	vb, okB, err := jsonString(s, obj, b)
	if err != nil {
		return "", err
	}
	if okA && okB && va != vb {
		return "", s.errf(b, "%q and %q both given and different (%q vs %q): give one", a, b, va, vb)
	}
	if okA {
		return va, nil
	}
	return vb, nil
}

// parseGold reads a row's "gold": a list of ids (grade 1 each) or an object
// id → integer grade; [] and {} give an empty map (an unanswerable query).
func parseGold(s *lineScanner, obj map[string]json.RawMessage) (map[string]int, error) {
	gold := obj["gold"]
	if len(gold) == 0 || string(gold) == "null" {
		return nil, s.errf("gold", "missing (use [] or {} for an unanswerable query)")
	}
	switch gold[0] {
	case '[':
		return parseGoldList(s, gold)
	case '{':
		return parseGoldGrades(s, gold)
	}
	return nil, s.errf("gold", "must be a list of doc ids or an object doc id → grade, got %s", jsonkey.Clip(gold))
}

func parseGoldList(s *lineScanner, gold json.RawMessage) (map[string]int, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(gold, &items); err != nil {
		return nil, s.errf("gold", "%s", jsonSyntax(err))
	}
	m := map[string]int{}
	for i, it := range items {
		var d string
		if json.Unmarshal(it, &d) != nil {
			return nil, s.errf("gold", "item %d must be a doc id string, got %s", i+1, jsonkey.Clip(it))
		}
		if d == "" {
			return nil, s.errf("gold", "empty doc id")
		}
		if _, dup := m[d]; dup {
			return nil, s.errf("gold", "doc %q listed twice", d)
		}
		m[d] = 1
	}
	return m, nil
}

func parseGoldGrades(s *lineScanner, gold json.RawMessage) (map[string]int, error) {
	var grades map[string]json.RawMessage
	if err := json.Unmarshal(gold, &grades); err != nil {
		return nil, s.errf("gold", "%s", jsonSyntax(err))
	}
	if d := jsonkey.Repeated(gold, false); d != "" {
		return nil, s.errf("gold", "doc %q graded twice", d)
	}
	m := map[string]int{}
	for _, d := range slices.Sorted(maps.Keys(grades)) {
		if d == "" {
			return nil, s.errf("gold", "empty doc id")
		}
		g, err := strconv.Atoi(string(grades[d]))
		if err != nil {
			return nil, s.errf("gold", "grade of doc %q must be an integer, got %s%s", d, jsonkey.Clip(grades[d]), quotedNumber(grades[d]))
		}
		m[d] = g
	}
	return m, nil
}

// quotedNumber is a hint for a JSON string holding a number where a number
// is wanted ("2" for 2), "" otherwise.
func quotedNumber(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
		return ""
	}
	return " (a JSON string: write the number without quotes)"
}

// parseGoldSpans reads a row's "gold_spans": a list whose items are
// passages or groups {"any_of": [passage, …]}; [] is an unanswerable query.
func parseGoldSpans(s *lineScanner, qid string, raw json.RawMessage) ([]LabelSpan, error) {
	var items []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return nil, s.errf("gold_spans", "must be a list of spans [{\"doc\", \"start\", \"end\"}, …], got %s", jsonkey.Clip(raw))
	}
	var out []LabelSpan
	group := 0
	for i, item := range items {
		f := fmt.Sprintf("gold_spans[%d]", i)
		obj, err := spanObject(s, qid, f, item)
		if err != nil {
			return nil, err
		}
		if _, ok := obj[AnyOf]; !ok {
			sp, err := parseSpan(s, qid, f, obj)
			if err != nil {
				return nil, err
			}
			sp.Item = i
			out = append(out, sp)
			continue
		}
		group++
		members, err := parseGroup(s, qid, f, obj, group)
		if err != nil {
			return nil, err
		}
		for j := range members {
			members[j].Item = i
		}
		out = append(out, members...)
	}
	return out, nil
}

// spanObject decodes one item of "gold_spans" (field f): an object, without
// repeated keys.
func spanObject(s *lineScanner, qid, f string, item json.RawMessage) (map[string]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if len(item) == 0 || item[0] != '{' || json.Unmarshal(item, &obj) != nil {
		return nil, s.errf(f, "query %q: want an object {\"doc\", \"start\", \"end\"} or {\"doc\", \"text\"}, got %s", qid, jsonkey.Clip(item))
	}
	if key := jsonkey.Repeated(item, false); key != "" {
		return nil, s.errf(f+"."+key, "query %q: key given twice in one object", qid)
	}
	return obj, nil
}

// parseGroup reads a group of alternatives {"any_of": [passage, …]} (field
// f), the row's group-th.
func parseGroup(s *lineScanner, qid, f string, obj map[string]json.RawMessage, group int) ([]LabelSpan, error) {
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if k != AnyOf {
			return nil, s.errf(f, "query %q: unknown key %q beside %q (a group of alternatives holds only %q: [passage, …])", qid, k, AnyOf, AnyOf)
		}
	}
	var items []json.RawMessage
	raw := obj[AnyOf]
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &items) != nil || len(items) < 2 {
		return nil, s.errf(f+"."+AnyOf, "query %q: want a list of at least two passages, any one of which answers the query, got %s", qid, jsonkey.Clip(raw))
	}
	out := make([]LabelSpan, 0, len(items))
	for j, item := range items {
		mf := fmt.Sprintf("%s.%s[%d]", f, AnyOf, j)
		mobj, err := spanObject(s, qid, mf, item)
		if err != nil {
			return nil, err
		}
		if _, nested := mobj[AnyOf]; nested {
			return nil, s.errf(mf, "query %q: groups of alternatives do not nest", qid)
		}
		sp, err := parseSpan(s, qid, mf, mobj)
		if err != nil {
			return nil, err
		}
		if sp.Grade == 0 {
			return nil, s.errf(mf+".grade", "query %q: a passage judged not relevant (grade 0) cannot be an alternative answer", qid)
		}
		sp.Group = group
		out = append(out, sp)
	}
	return out, nil
}

// spanKeyKinds are the JSON types of a passage's keys.
var spanKeyKinds = map[string]string{"doc": "a string", "text": "a string", "unit": "a string", "prefix": "a string",
	"suffix": "a string", "start": "an integer", "end": "an integer", "grade": "an integer"}

// parseSpan reads one passage (field f) of query qid.
func parseSpan(s *lineScanner, qid, f string, obj map[string]json.RawMessage) (LabelSpan, error) {
	sp := LabelSpan{Field: f, Unit: UnitCodePoints, Grade: 1}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		want, ok := spanKeyKinds[k]
		if !ok {
			return sp, s.errf(f, "query %q: unknown key %q (want %s)", qid, k, strings.Join(SpanKeys, ", "))
		}
		v := obj[k]
		if want == "a string" && !isJSONString(v) || want == "an integer" && !isJSONInt(v) {
			return sp, s.errf(f+"."+k, "query %q: must be %s, got %s%s", qid, want, jsonkey.Clip(v), quotedNumber(v))
		}
	}
	str := func(k string) (string, bool) {
		var v string
		raw, ok := obj[k]
		return v, ok && json.Unmarshal(raw, &v) == nil
	}
	num := func(k string) (int, bool) {
		raw, ok := obj[k]
		n, err := strconv.Atoi(string(raw))
		return n, ok && err == nil
	}
	if sp.Doc, _ = str("doc"); sp.Doc == "" {
		return sp, s.errf(f+".doc", "query %q: missing doc id", qid)
	}
	start, hasStart := num("start")
	end, hasEnd := num("end")
	if hasStart != hasEnd {
		return sp, s.errf(f, "query %q: doc %q: give both start and end, or neither (text alone)", qid, sp.Doc)
	}
	sp.HasOffsets, sp.Start, sp.End = hasStart, start, end
	if u, ok := str("unit"); ok {
		if u != UnitCodePoints && u != UnitBytes {
			return sp, s.errf(f+".unit", "query %q: want %q (the default) or %q, got %q", qid, UnitCodePoints, UnitBytes, u)
		}
		sp.Unit = u
	}
	if g, ok := num("grade"); ok {
		if g < 0 {
			return sp, s.errf(f+".grade", "query %q: doc %q: grade must be ≥ 0 (1 or more: relevant; 0: looked at, not relevant), got %d", qid, sp.Doc, g)
		}
		sp.Grade = g
	}
	sp.Text, sp.HasText = str("text")
	sp.Prefix, _ = str("prefix")
	sp.Suffix, _ = str("suffix")
	if !sp.HasText && (obj["prefix"] != nil || obj["suffix"] != nil) {
		return sp, s.errf(f, "query %q: doc %q: prefix and suffix surround a quote: give the passage's text too", qid, sp.Doc)
	}
	return sp, nil
}

func isJSONString(v json.RawMessage) bool {
	var s string
	return json.Unmarshal(v, &s) == nil
}

// isJSONInt is true for a JSON number (not a string holding one) that is an
// integer in int's range.
func isJSONInt(v json.RawMessage) bool {
	if len(v) == 0 || v[0] != '-' && (v[0] < '0' || v[0] > '9') {
		return false
	}
	_, err := strconv.Atoi(string(v))
	return err == nil
}

// parseQrelsJSONL reads the "gold" judgements of a labelled-query JSONL
// file (ReadQrels), stopping at its first bad row.
func parseQrelsJSONL(r io.Reader, name string, lines map[Judgement]int) (Qrels, map[string]QueryMeta, error) {
	rows, err := readLabelRows(r, name, false, true)
	if err != nil {
		return nil, nil, err
	}
	qrels := Qrels{}
	meta := map[string]QueryMeta{}
	for _, row := range rows {
		qrels[row.ID] = row.Gold
		meta[row.ID] = row.Meta
		if lines != nil {
			for d := range row.Gold {
				lines[Judgement{row.ID, d}] = row.Line
			}
		}
	}
	return qrels, meta, nil
}
