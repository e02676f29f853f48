package eval

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ragbench/ragbench/internal/jsonkey"
)

// This file holds the reader of labelled-query JSONL (one query per line
// with its gold ids), read by ReadQrels.

// jsonlKeys are the keys of a labelled-query JSONL line that ReadQrels
// reads, matched exactly (encoding/json would also take "Gold" or "ID" for
// them).
var jsonlKeys = []string{"id", "qid", "question", "text", "gold", "kind", "slice"}

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
		return "", false, s.errf(key, "must be a string, got %s", clip(raw))
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

func parseQrelsJSONL(r io.Reader, name string, lines map[Judgement]int) (Qrels, map[string]QueryMeta, error) {
	s := newLineScanner(r, name)
	qrels := Qrels{}
	meta := map[string]QueryMeta{}
	for s.Scan() {
		line := s.Bytes()
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			continue
		}
		if trimmed[0] != '{' {
			return nil, nil, s.errf("json", "want one JSON object per line (a labelled query), got %q", clip(trimmed))
		}
		var obj map[string]json.RawMessage
		dec := json.NewDecoder(bytes.NewReader(line))
		if err := dec.Decode(&obj); err != nil {
			return nil, nil, s.errf("json", "%s", jsonSyntax(err))
		}
		if _, err := dec.Token(); err != io.EOF {
			return nil, nil, s.errf("json", "unexpected data after the object (one query per line)")
		}
		if key := jsonkey.Repeated(line, false); key != "" {
			return nil, nil, s.errf(key, "key given twice in one object")
		}
		if _, ok := obj["gold"]; !ok {
			if _, beir := obj["_id"]; beir {
				return nil, nil, s.errf("gold", "missing: this looks like a BEIR queries or corpus file (\"_id\", \"text\"), which holds no judgements; give the qrels (BEIR qrels/test.tsv) or a labelled-query JSONL with \"gold\"")
			}
		}
		// Keys match exactly. Other keys are allowed (bench run's
		// slice_field may name any of them, e.g. "topic"), except a
		// spelling of a known key in another case, which encoding/json
		// would have taken for it and which is almost surely meant as it.
		for _, k := range sortedKeys(obj) {
			if slices.Contains(jsonlKeys, k) {
				continue
			}
			for _, want := range jsonlKeys {
				if strings.EqualFold(k, want) {
					return nil, nil, s.errf(k, "unknown key: keys are case-sensitive, did you mean %q?", want)
				}
			}
		}
		idField := "id"
		raw, hasID := obj["id"]
		if !hasID {
			idField = "qid"
			raw = obj["qid"]
		}
		if raw == nil {
			return nil, nil, s.errf("id", "missing (need \"id\" or \"qid\")")
		}
		qid, ok := jsonID(raw)
		if !ok {
			return nil, nil, s.errf(idField, "must be a non-empty string or an integer, got %s", clip(raw))
		}
		if rawQ, ok := obj["qid"]; hasID && ok {
			other, ok := jsonID(rawQ)
			if !ok {
				return nil, nil, s.errf("qid", "must be a non-empty string or an integer, got %s", clip(rawQ))
			}
			if other != qid {
				return nil, nil, s.errf("qid", "\"id\" and \"qid\" both given and different (%s vs %s)", qid, other)
			}
		}
		if _, dup := qrels[qid]; dup {
			return nil, nil, s.errf(idField, "query %q given twice", qid)
		}
		gold := obj["gold"]
		if len(gold) == 0 || string(gold) == "null" {
			return nil, nil, s.errf("gold", "missing (use [] or {} for an unanswerable query)")
		}
		m := map[string]int{}
		switch gold[0] {
		case '[':
			var items []json.RawMessage
			if err := json.Unmarshal(gold, &items); err != nil {
				return nil, nil, s.errf("gold", "%s", jsonSyntax(err))
			}
			for i, it := range items {
				var d string
				if json.Unmarshal(it, &d) != nil {
					return nil, nil, s.errf("gold", "item %d must be a doc id string, got %s", i+1, clip(it))
				}
				if d == "" {
					return nil, nil, s.errf("gold", "empty doc id")
				}
				if _, dup := m[d]; dup {
					return nil, nil, s.errf("gold", "doc %q listed twice", d)
				}
				m[d] = 1
			}
		case '{':
			var grades map[string]json.RawMessage
			if err := json.Unmarshal(gold, &grades); err != nil {
				return nil, nil, s.errf("gold", "%s", jsonSyntax(err))
			}
			if d := jsonkey.Repeated(gold, false); d != "" {
				return nil, nil, s.errf("gold", "doc %q graded twice", d)
			}
			for _, d := range sortedKeys(grades) {
				if d == "" {
					return nil, nil, s.errf("gold", "empty doc id")
				}
				g, err := strconv.Atoi(string(grades[d]))
				if err != nil {
					return nil, nil, s.errf("gold", "grade of doc %q must be an integer, got %s", d, clip(grades[d]))
				}
				m[d] = g
			}
		default:
			return nil, nil, s.errf("gold", "must be a list of doc ids or an object doc id → grade, got %s", clip(gold))
		}
		var qm QueryMeta
		var err error
		if qm.Text, err = pickOne(s, obj, "question", "text"); err != nil {
			return nil, nil, err
		}
		if qm.Slice, err = pickOne(s, obj, "kind", "slice"); err != nil {
			return nil, nil, err
		}
		qrels[qid] = m
		meta[qid] = qm
		if lines != nil {
			for d := range m {
				lines[Judgement{qid, d}] = s.line
			}
		}
	}
	if err := s.Err(); err != nil {
		return nil, nil, err
	}
	if len(qrels) == 0 {
		return nil, nil, &SyntaxError{File: name, Msg: "no queries found (empty qrels file)"}
	}
	return qrels, meta, nil
}
