package diagnose

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/jsonkey"
)

// ErrNoSliceField is wrapped by ReadSlices' error for a file in which no
// line has the field.
var ErrNoSliceField = errors.New("no line has this field")

// ReadSlices reads query slice labels from a JSONL file of queries (a
// labelled-query file or a BEIR queries.jsonl with extra fields): the query
// id is the first present of "id", "qid" and "_id" (a string or a number),
// the label is field's value (a string, number or boolean, rendered as
// text), or, on a line without a top-level field, the value of field in
// the line's "metadata" object (BEIR's place for extra query fields).
// Lines without field, or with null or "", get no label (""). Blank lines
// are skipped; a BOM and CRLF are accepted; a gzip file is read as
// eval.Open reads it. It is the one slice-field reader: bench attribute
// and bench run (dataset.slice_field) both call it.
//
// Errors name file, line and field: a line that is not a JSON object, a
// line without a query id, a key repeated within a line, "id", "qid" and
// "_id" that disagree, a label that is an object or array, a query id given
// twice, or a file in which no line has field (a misspelt
// --slice-field should not silently give "no slices": that error wraps
// ErrNoSliceField and lists the keys seen, metadata keys as
// "metadata.<key>").
func ReadSlices(path, field string) (map[string]string, error) {
	f, err := eval.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	out := map[string]string{}
	seen := map[string]bool{} // keys of the lines, for the error of a field no line has
	labelled := 0
	for line := 1; sc.Scan(); line++ {
		text := sc.Bytes()
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
		}
		text = bytes.TrimSpace(text)
		if len(text) == 0 {
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(text, &obj); err != nil || obj == nil {
			return nil, fmt.Errorf("%s:%d: not a JSON object", path, line)
		}
		if key := jsonkey.Repeated(text, false); key != "" {
			return nil, fmt.Errorf("%s:%d: %s: key given twice in one object", path, line, key)
		}
		id, err := sliceQueryID(obj)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if _, dup := out[id]; dup {
			return nil, fmt.Errorf("%s:%d: query id: %q given twice", path, line, id)
		}
		label, err := sliceLabel(obj, field, seen)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if label != "" {
			labelled++
		}
		out[id] = label
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if labelled == 0 {
		keys := make([]string, 0, len(seen))
		for k := range seen {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return nil, fmt.Errorf("%s: %s: %w (keys seen: %s)", path, field, ErrNoSliceField, strings.Join(keys, ", "))
	}
	return out, nil
}

// sliceQueryID returns a line's query id: "id", "qid" or "_id" (a
// non-empty string or number), which must agree when several are given.
// Errors name the key.
func sliceQueryID(obj map[string]json.RawMessage) (string, error) {
	id, idKey := "", ""
	for _, k := range []string{"id", "qid", "_id"} {
		if raw, ok := obj[k]; ok {
			v, err := scalar(raw)
			if err != nil || v == "" {
				return "", fmt.Errorf("%s: want a non-empty string or number, got %s", k, raw)
			}
			if id != "" && v != id {
				return "", fmt.Errorf("%s: %q differs from %s %q", k, v, idKey, id)
			}
			if id == "" {
				id, idKey = v, k
			}
		}
	}
	if id == "" {
		return "", fmt.Errorf("query id: none of \"id\", \"qid\", \"_id\" present")
	}
	return id, nil
}

// sliceLabel returns a line's label of field (or of metadata.field when
// the line has no field; "" for none or null), noting every key and
// metadata key in seen. Error: a label that is not a string, number or
// boolean, naming the key.
func sliceLabel(obj map[string]json.RawMessage, field string, seen map[string]bool) (string, error) {
	for k := range obj {
		seen[k] = true
	}
	raw, ok := obj[field]
	where := field
	if !ok {
		var meta map[string]json.RawMessage
		if m, has := obj["metadata"]; has && json.Unmarshal(m, &meta) == nil {
			for k := range meta {
				seen["metadata."+k] = true
			}
			raw, ok = meta[field]
			where = "metadata." + field
		}
	}
	if !ok || string(raw) == "null" {
		return "", nil
	}
	label, err := scalar(raw)
	if err != nil {
		return "", fmt.Errorf("%s: want a string, number or boolean, got %s", where, raw)
	}
	return label, nil
}

// scalar renders a JSON string, number or boolean as text.
func scalar(raw json.RawMessage) (string, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // keep numbers as written: 31715818, not 3.1715818e+07
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	switch x := v.(type) {
	case string:
		return x, nil
	case json.Number:
		return x.String(), nil
	case bool:
		return strconv.FormatBool(x), nil
	}
	return "", fmt.Errorf("not a scalar")
}
